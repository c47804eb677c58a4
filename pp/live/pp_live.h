/* optop's reading of a live session: what each sample file gained since
 * the last look, without writing anything into the session.
 *
 * A running daemon (or operf) adds to its sample files through a shared
 * mapping, so mapping them read-only shows every count as it lands; no
 * dump is needed, and none is asked for (a dump would change what opreport
 * reads later). The counts in a file are cumulative: a refresh maps every
 * file under samples/current, sums each key's nodes and reports the
 * difference from the previous refresh. What can happen between two
 * refreshes, and what a refresh makes of it:
 *   - a file appeared: every count in it is new (the first refresh only
 *     takes the baseline, and reports nothing);
 *   - a file grew: the daemon renamed a larger copy over it (odb.c), a new
 *     inode whose counts are the old ones and more: re-mapped, compared key
 *     by key as before;
 *   - a file was made anew (a daemon restarted after --reset, a session
 *     moved away by --save and begun again): a new inode in which some key
 *     counts less than before, which growth never does: every count in it
 *     is new;
 *   - a file went away (--reset, --save): forgotten, nothing reported;
 *   - a daemon stopped: nothing changes, every refresh reports nothing.
 *
 * The work of a refresh: one stat per file, one pass over each file's
 * nodes (a load and a subtraction per distinct key) and a callback per key
 * that gained samples; what depends on the key alone (its symbol) the
 * caller caches in the key's tag, so a refresh costs what the interval's
 * new samples cost plus a linear pass, never a symbol lookup of an old key.
 *
 * Every path is read through the session directory's held descriptor
 * (op_sessdir.h), as opreport reads: a symbolic link met anywhere in the
 * session (samples, current, a sample file's directory, a sample file) is
 * refused and named once, never followed out of the session.
 *
 * Ownership: a scan owns its files and keys; the pointers passed to the
 * callback live until the next refresh. The op_sessdir is the caller's,
 * and must outlive the scan.
 */
#ifndef PP_LIVE_H
#define PP_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "odb.h"
#include "op_log.h"
#include "op_names.h"
#include "op_sessdir.h"

/* No tag yet: the caller has not looked at this key (or file). */
#define PP_LIVE_NO_TAG UINT32_MAX

/* One key of one file: its count at the last refresh. */
struct pp_live_key {
	uint64_t key;
	uint64_t prev;		/* count at the last refresh */
	uint64_t now;		/* being summed by this refresh */
	uint32_t tag;		/* the caller's, PP_LIVE_NO_TAG at first */
	uint32_t gen;		/* the refresh that last summed it; 0: free slot */
};

struct pp_live_file {
	char *rel;		/* name under samples/current */
	struct op_sfname name;	/* parsed; kernel images marked from the header */
	bool is_arc;		/* a call-graph arc file ({cg}) */
	dev_t dev;
	ino_t ino;
	odb_t db;
	/* open-addressing table of keys, nr_slots a power of two */
	struct pp_live_key *slots;
	size_t nr_slots, nr_keys;
	uint32_t tag;		/* the caller's, PP_LIVE_NO_TAG at first */
	uint32_t seen;		/* the refresh that last found it */
	uint32_t found;		/* the refresh that first found it */
	bool read;		/* summed at least once */
	uint32_t summed;	/* the refresh that last summed it whole */
	bool past;		/* ...and found its counts the past (a baseline's) */
};

/* What one refresh found, for the status line and the tests. */
struct pp_live_news {
	size_t nr_new_files;	/* appeared since the last refresh */
	size_t nr_regrown;	/* re-mapped after growing */
	size_t nr_renewed;	/* made anew: counted from zero */
	size_t nr_gone;		/* went away */
	size_t nr_bad;		/* could not be read (said once each) */
	uint64_t samples;	/* sum of the deltas of sample files */
};

struct pp_live_scan {
	const struct op_sessdir *sd;	/* the session: every path through it */
	char *current_dir;	/* samples/current */
	struct pp_live_file **files;
	size_t nr_files, alloc_files;
	/* index of files by rel: open addressing, nr_index a power of two */
	size_t *index;
	size_t nr_index;
	uint32_t gen;		/* refreshes done */
	struct op_logger lg;
	/* rel names already said to be unreadable */
	char **said_bad;
	size_t nr_said_bad, alloc_said_bad;
	int said_dir_err;	/* current_dir's error last said (0: none) */
	bool said_stats_link;	/* stats/ is a link, and that was said */
};

/* Called once per (file, key) that gained delta samples in a refresh. */
typedef void (*pp_live_delta_fn)(void *ctx, struct pp_live_file *f,
				 struct pp_live_key *k, uint64_t delta);

/* Watch current_dir (a session's samples/current, which may not exist
 * yet), read through sd (NULL: a directory of no session, by path). 0 or
 * -ENOMEM. */
int pp_live_scan_init(struct pp_live_scan *s, const struct op_sessdir *sd,
		      const char *current_dir, const struct op_logger *lg);

/* Look at every file again and call fn for what each key gained since the
 * last refresh (none on the first: it takes the baseline). Every file is
 * read before fn is first called: what fn's work (a symbol lookup per new
 * key) gives the writer time to add lands in the next refresh, in every
 * file alike, so an interval's counts are those of the moments its two
 * refreshes began, however long either took. news (may be
 * NULL) gets what happened to the files. 0, or -ENOMEM (the scan stays
 * usable; the interval is then incomplete). */
int pp_live_scan_refresh(struct pp_live_scan *s, pp_live_delta_fn fn,
			 void *ctx, struct pp_live_news *news);

void pp_live_scan_release(struct pp_live_scan *s);

#endif /* PP_LIVE_H */
