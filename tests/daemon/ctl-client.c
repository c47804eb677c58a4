/* ctl-client SOCKET COMMAND [TIMEOUT_MS]: send one control command to
 * oprofiled through op_ctl_request and print the reply; exit 0 when the
 * reply starts with "ok", 1 otherwise. The end-to-end tests use it so they
 * do not depend on opcontrol. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_ctl.h"

int main(int argc, char **argv)
{
	char *reply = NULL;
	int timeout = 30000;
	int ret;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: ctl-client SOCKET COMMAND [TIMEOUT_MS]\n");
		return 2;
	}
	if (argc == 4)
		timeout = atoi(argv[3]);
	ret = op_ctl_request(NULL, argv[1], argv[2], timeout, &reply);
	if (ret) {
		fprintf(stderr, "ctl-client: %s: %s\n", argv[2], strerror(-ret));
		return 1;
	}
	fputs(reply, stdout);
	ret = strncmp(reply, "ok", 2) ? 1 : 0;
	free(reply);
	return ret;
}
