/* The debuginfod client, for the report tools' symbol lookup: asked after
 * the local places (the binary, its kept copy, /usr/lib/debug/.build-id/,
 * the debug directories beside it, --image-path) have no debug file. */
#include "config.h"
#include "pp_debuginfod.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The process's one client: made at the first lookup, ended at exit
 * (a report asks for a few images, each once). Owner: the report's
 * thread; no report reads symbols from two threads. */
static debuginfod_client *client;
static bool client_failed;

bool pp_debuginfod_enabled(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && *urls;
}

static void end_client(void)
{
	if (client)
		debuginfod_end(client);
	client = NULL;
}

int pp_debuginfod_find(const unsigned char *bid, int len, char **path)
{
	int fd;

	*path = NULL;
	if (!pp_debuginfod_enabled() || len <= 0)
		return -ENOSYS;
	if (!client && !client_failed) {
		client = debuginfod_begin();
		client_failed = !client;
		if (client)
			atexit(end_client);
	}
	if (!client)
		return -ENOSYS;
	fd = debuginfod_find_debuginfo(client, bid, len, path);
	return fd >= 0 ? fd : (fd < 0 ? fd : -ENOENT);
}

void pp_debuginfod_warn_no_symbols(FILE *err, const char *image,
				   const char *bid_hex)
{
	if (!err)
		return;
	if (!*bid_hex) {
		fprintf(err, "warning: no symbols for %s, which has no build-id "
			"to find its debug info by\n", image);
		return;
	}
	if (pp_debuginfod_enabled())
		fprintf(err, "warning: no symbols for %s (build-id %s): no debug "
			"file here, and no server of DEBUGINFOD_URLS has it\n",
			image, bid_hex);
	else
		fprintf(err, "warning: no symbols for %s (build-id %s): install "
			"its debug file (/usr/lib/debug/.build-id/%.2s/%s.debug), "
			"or set DEBUGINFOD_URLS\n", image, bid_hex, bid_hex,
			bid_hex + 2);
}
