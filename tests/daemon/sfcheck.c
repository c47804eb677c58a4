/* sfcheck DIR: open every sample file under DIR read-only (what opreport
 * does) and print "COUNT RELATIVE-PATH" per file; stats/ is skipped, and so
 * are files whose names op_sfname_parse rejects (an odb temporary left by a
 * kill during creation is not a sample file: opreport skips it too). Exit 1
 * naming each sample file that does not open, so the crash test can assert
 * that every file a killed daemon left behind is consistent. */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "odb.h"
#include "op_names.h"

static int sum(uint64_t key, uint64_t count, void *ctx)
{
	(void)key;
	*(uint64_t *)ctx += count;
	return 0;
}

static int walk(const char *root, const char *rel, int *nr_bad, int *nr_files)
{
	char path[8192];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "sfcheck: cannot open directory %s\n", path);
		(*nr_bad)++;
		return -1;
	}
	while ((de = readdir(d))) {
		char sub[8192], full[8192];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!*rel && !strcmp(de->d_name, "stats"))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, sub);
		if (lstat(full, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(root, sub, nr_bad, nr_files);
		} else if (S_ISREG(st.st_mode)) {
			struct op_sfname n;
			odb_t db;
			uint64_t total = 0;
			int ret;

			if (op_sfname_parse(sub, &n)) {
				fprintf(stderr, "sfcheck: not a sample-file name, skipped: %s\n", sub);
				continue;
			}
			op_sfname_release(&n);
			ret = odb_open(&db, NULL, full, ODB_RDONLY);
			(*nr_files)++;
			if (ret) {
				fprintf(stderr, "sfcheck: %s: %s\n", sub, odb_strerror(ret));
				(*nr_bad)++;
				continue;
			}
			odb_for_each(&db, sum, &total);
			printf("%llu %s\n", (unsigned long long)total, sub);
			odb_close(&db);
		}
	}
	closedir(d);
	return 0;
}

int main(int argc, char **argv)
{
	int nr_bad = 0, nr_files = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: sfcheck SAMPLES-DIR\n");
		return 2;
	}
	walk(argv[1], "", &nr_bad, &nr_files);
	fprintf(stderr, "sfcheck: %d files, %d bad\n", nr_files, nr_bad);
	return nr_bad ? 1 : 0;
}
