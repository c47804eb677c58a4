/* Debug files from a debuginfod server, by build-id: for stripped
 * binaries (Debian strips its libraries) whose debug file is not on this
 * machine. Only when the user has set DEBUGINFOD_URLS: without it nothing
 * here touches the network, nor loads the client. What is fetched is
 * cached by libdebuginfod, where and for as long as its own client caches
 * (DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client). */
#ifndef PP_DEBUGINFOD_H
#define PP_DEBUGINFOD_H

#include <stdbool.h>
#include <stdio.h>

/* DEBUGINFOD_URLS is set and not empty. */
bool pp_debuginfod_enabled(void);

/* The debug file of build-id bid (len bytes) from the servers, into their
 * cache: a descriptor, *path its malloc'd name; -errno when none has it
 * or there is no server to ask (-ENOSYS). One client for the process,
 * made at the first call. */
int pp_debuginfod_find(const unsigned char *bid, int len, char **path);

/* What an image without symbols lacks, for the user to install or fetch:
 * "warning: no symbols for IMAGE (build-id HEX): ..." on err, or nothing
 * when err is NULL. bid_hex "" when the image has none. */
void pp_debuginfod_warn_no_symbols(FILE *err, const char *image,
				   const char *bid_hex);

#endif /* PP_DEBUGINFOD_H */
