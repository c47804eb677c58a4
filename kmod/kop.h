/* kmod: the collection layer. The OProfile kernel driver's pipeline rebuilt
 * in user space on perf_event_open(2):
 *
 *   per-CPU perf ring  --sync thread-->  event buffer  --reader-->  daemon
 *
 * This header is the whole interface the daemon uses. A session opens one
 * perf event per (event, CPU) (or per event for one process tree), runs a
 * sync thread that turns ring records into the op_proto.h word stream in
 * the event buffer, and hands out dcookies: session-stable ids of the
 * binaries and anonymous regions that user samples fall in.
 *
 * Threads: kop_session_* functions are called from one control thread (the
 * daemon's main loop); kop_evbuf_read() from one reader thread (may be the
 * same); kop_dcookie_lookup() and kop_stats_get() from any thread.
 */
#ifndef KOP_H
#define KOP_H

#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "op_log.h"
#include "op_sessdir.h"

/* The kernel side, behind an ops struct so tests drive the real sync code
 * with in-memory rings of the exact perf layout. NULL in kop_config means
 * the real perf_event_open/mmap/ioctl. Each returns >= 0 or -errno. */
struct kop_source_ops {
	/* open an event; returns an fd-like handle */
	int (*open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu);
	/* map the ring of handle: 1 + 2^n pages; returns the base or NULL.
	 * Read-only (!writable) makes the kernel overwrite: the flight
	 * recorder's rings */
	void *(*map)(void *ctx, int handle, size_t len, bool writable);
	void (*unmap)(void *ctx, int handle, void *base, size_t len);
	int (*enable)(void *ctx, int handle);
	int (*disable)(void *ctx, int handle);
	void (*close)(void *ctx, int handle);
	/* number of possible CPUs, and whether cpu is online */
	int (*nr_cpus)(void *ctx);
	bool (*cpu_online)(void *ctx, int cpu);
	/* flight recorder: stop (pause) or restart the ring's output, the
	 * event staying enabled (PERF_EVENT_IOC_PAUSE_OUTPUT); samples
	 * taken meanwhile are lost and counted by the kernel */
	int (*pause_output)(void *ctx, int handle, bool pause);
	/* the samples the event has lost so far (PERF_FORMAT_LOST); NULL
	 * or -EOPNOTSUPP: the kernel cannot say, its LOST records do */
	int (*read_lost)(void *ctx, int handle, uint64_t *lost);
};

/* The kernel's own bound on a chain (sample_max_stack is 16 bits; the
 * kernel.perf_event_max_stack sysctl, 127 by default, bounds it further:
 * a deeper request fails to open, with a message naming the sysctl). */
#define KOP_MAX_CALLGRAPH_DEPTH 65534u

/* The kernel's bound on a stack copy (sample_stack_user below USHRT_MAX,
 * a multiple of 8); it cuts each copy further to fit its record in 64 KiB. */
#define KOP_MAX_UNWIND_STACK 65528u

struct kop_config {
	const struct perf_event_attr *events;	/* caller-encoded (libpfm4) */
	unsigned int nr_events;
	pid_t pid;			/* -1: system-wide; else this process tree */
	const cpu_set_t *cpus;		/* NULL: every online CPU; else only
					 * these (perf's -C), each a possible
					 * CPU; copied */
	/* 0 in these three: libop's default (op_config.h); for the rings,
	 * sized from the events' rates (OP_AUTO_CPU_BUFFER_MS) */
	size_t cpu_buffer_size;		/* ring data area per (event, CPU), bytes, power of two pages */
	size_t evbuf_words;		/* event buffer size */
	size_t evbuf_watershed;		/* reader wakes at this many words */
	unsigned int sync_interval_ms;	/* 250 */
	unsigned int callgraph_depth;	/* 0: no call chains; else callers
					 * kept per sample (frame pointers),
					 * at most KOP_MAX_CALLGRAPH_DEPTH */
	/* with callgraph_depth: 0, the user part of chains through frame
	 * pointers; else through DWARF CFI (--unwind=dwarf), from a copy of
	 * this many bytes of each sample's user stack (a multiple of 8, at
	 * most KOP_MAX_UNWIND_STACK) */
	unsigned int unwind_stack_bytes;
	/* Flight recorder: 0, off; else the window, in ns. Each (event, CPU)
	 * ring is then written backward and overwritten, cpu_buffer_size
	 * bytes (sized for the window by op_flight_ring_bytes()), and nothing
	 * is read from it until kop_session_snapshot(); the side-band rings
	 * are synced as ever. */
	uint64_t flight_window_ns;
	const char *proc_root;		/* "/proc"; kallsyms, modules, PID/maps */
	/* Processes that see another root (a container, a chroot): their
	 * files are opened through that root and named after their copies
	 * in this store (absolute), where a keeper thread copies them
	 * (kop_root.c, kop_keep.c). NULL: named by their paths, as the host
	 * sees them, and not kept. */
	const char *keep_dir;
	/* the session directory keep_dir lies in: the store is opened
	 * beneath it, no link followed (op_sessdir.h); NULL: by its path */
	const struct op_sessdir *sd;
	uint64_t keep_max_bytes;	/* the store's bound: a file that would
					 * pass it is not copied (0: none is) */
	const struct kop_source_ops *ops;	/* NULL: the real kernel */
	void *ops_ctx;
	struct op_logger log;
};

/* Loss and activity counters, monotonic over a session. */
struct kop_stats {
	uint64_t nr_samples;		/* samples written to the event buffer */
	uint64_t nr_kernel_samples;
	uint64_t nr_user_samples;
	uint64_t nr_anon_samples;	/* user samples in no file mapping (kept, anonymous image) */
	uint64_t nr_lost_ring;		/* PERF_RECORD_LOST, all CPUs */
	uint64_t nr_lost_evbuf;		/* event-buffer overflow */
	uint64_t nr_lost_no_task;	/* user sample of a process gone before we knew its mappings */
	uint64_t nr_bad_records;	/* unknown or malformed ring records */
	uint64_t nr_module_loads;	/* MODULE_LOADED emitted */
	/* call chains (--callgraph): each counted once, at the sync */
	uint64_t nr_chains;		/* samples written with a call chain */
	uint64_t nr_bt_lost_no_mapping;	/* chains cut at a user frame in no
					 * mapping of the task (OProfile's
					 * bt_lost_no_mapping) */
	uint64_t nr_bt_truncated;	/* chains that filled the depth: the
					 * kernel may have cut them there */
	uint64_t nr_bt_aborted;		/* chains the record could not hold
					 * (OProfile's backtrace_aborted):
					 * the sample is kept, flat */
	/* --unwind=dwarf: chains whose user part ended early, one reason
	 * each (a chain cut at a pc in no mapping is nr_bt_lost_no_mapping) */
	uint64_t nr_unwind_no_cfi;	/* a frame with no unwind table */
	uint64_t nr_unwind_short_stack;	/* a frame past the stack copy */
	uint64_t nr_unwind_bad_frame;	/* an impossible frame, or no
					 * usable registers */
	uint64_t nr_unwind_done;	/* user parts that reached the
					 * outermost frame */
	uint64_t nr_unwind_fp_fallback;	/* user parts with frames found by
					 * libdw's frame-pointer fallback,
					 * through code with no unwind table */
	uint64_t nr_unwind_walks;	/* user parts unwound */
	uint64_t nr_unwind_pcs;		/* pcs they found */
	uint64_t unwind_ns;		/* time the sync thread spent in them */
	unsigned int nr_cpus;
	uint64_t *nr_lost_ring_cpu;	/* nr_cpus entries; owned by the session */
	uint64_t *nr_samples_cpu;	/* nr_cpus entries; owned by the session */
	uint64_t throttled;		/* kop_event_bit(i): PERF_RECORD_THROTTLE
					 * on event i */
	uint64_t nr_lost_paused;	/* flight recorder: samples the kernel
					 * lost while a snapshot paused the rings */
	uint64_t nr_lost_sideband;	/* side-band records (mmap, comm, fork,
					 * exit) the kernel lost: not samples,
					 * but the samples after them may be
					 * filed under a stale image */
	/* images of processes that see another root, each counted once */
	uint64_t nr_images_unresolved;	/* not openable as mapped: no copy */
	uint64_t nr_images_kept;	/* a whole copy is in the store */
	uint64_t nr_images_no_space;	/* not kept: the store's bound */
	uint64_t nr_images_keep_failed;	/* not kept: a copy failed */
	uint64_t keep_bytes;		/* copied this session */
	uint64_t keep_ns;		/* the keeper's time copying */
	uint64_t nr_cgroup_unread;	/* processes whose cgroup could not be
					 * read (gone before the sync) */
	uint64_t nr_nspid_unread;	/* processes and threads in another
					 * PID namespace whose id there could
					 * not be read */
	uint64_t nr_cgroup_moved;	/* processes whose samples changed
					 * cgroup (not a loss) */
};

/* Event i's bit in a mask of events (the last bit stands for every event
 * from 63 on). */
static inline uint64_t kop_event_bit(unsigned int i)
{
	return 1ULL << (i < 63 ? i : 63);
}

struct kop_session;

/* The stream kop writes (op_proto.h codes), for the decoder (a sample
 * with a call chain is described at the end):
 *   - each sync writes one block per CPU that had anything:
 *     ESCAPE CPU_SWITCH cpu, then ESCAPE DROPPED n if the ring lost n
 *     records since the CPU's last block (PERF_RECORD_LOST; the same
 *     losses are in nr_lost_ring: count one or the other, not both);
 *   - within a block, before a sample, only what changed is restated,
 *     but after CPU_SWITCH everything is: ESCAPE CTX_SWITCH tid app_cookie
 *     + ESCAPE CTX_TGID tgid when the thread or its executable (exec)
 *     changed; KERNEL_ENTER / USER_ENTER after every CTX_SWITCH and on a
 *     mode change; COOKIE_SWITCH before a user sample after a CTX_SWITCH,
 *     after USER_ENTER, or when the image changed; MODULE_LOADED before
 *     the first kernel sample after the module set changed;
 *   - a sample is two words: the offset (user) or absolute pc (kernel),
 *     then the index of its event in kop_config.events.
 * Samples are resolved in timestamp order across CPUs before the blocks
 * are written, so a block's samples already reflect every mmap/exec/exit
 * of any CPU that preceded them. Kernel threads and tasks whose executable
 * is unknown carry app_cookie OP_NO_COOKIE.
 *   - with callgraph_depth, a sample whose chain has callers is written
 *     ESCAPE TRACE_BEGIN, the sample as above, then each caller, innermost
 *     first, as a sample of the same event (KERNEL_ENTER / USER_ENTER and
 *     COOKIE_SWITCH before it as for a sample), then ESCAPE TRACE_END. A
 *     caller is resolved like a sample, against the same task's mappings
 *     at the sample's time; the chain stops at a user frame in no mapping.
 *     The sampled pc is not repeated as a caller.
 */

/* Create a session; nothing is opened yet. Returns 0 or -errno. */
int kop_session_new(const struct kop_config *cfg, struct kop_session **out);

/* Read existing processes' maps, open and map every event, start the sync
 * thread, enable the events. Returns 0 or -errno (with a message through
 * the logger naming what failed, e.g. the event and CPU). */
int kop_session_start(struct kop_session *s);

/* Disable the events (kept open) / enable them again. */
int kop_session_pause(struct kop_session *s);
int kop_session_resume(struct kop_session *s);

/* Sync every CPU ring into the event buffer now and wait until done. After
 * it returns, every sample taken before the call is in the event buffer (or
 * counted as lost). */
int kop_session_sync(struct kop_session *s);

/* Flight recorder: write the last window into the event buffer. The
 * rings' output is paused, the side-band synced up to now, each ring read
 * from its newest record back to the first older than now minus the
 * window, each sample resolved against its task's mappings at its own
 * time (retired tables are kept for a window), the samples written as a
 * sync writes them (the stream above), and the output resumed. When it
 * returns, the event buffer holds the whole window. A paused session's
 * (kop_session_pause()) window ends when it was paused. 0, or -EINVAL
 * when the session is not a started, unstopped flight recorder. */
struct kop_snapshot {
	uint64_t from_ns, to_ns;	/* the window, CLOCK_MONOTONIC */
	uint64_t nr_samples;		/* samples in it */
	uint64_t nr_lost_paused;	/* samples lost while paused: after
					 * the window (to within the pause's
					 * few ms), not in it */
	uint64_t nr_lost_in_window;	/* what earlier snapshots' pauses lost
					 * inside this window */
	uint64_t nr_bad_records;	/* records the walk stopped at */
	uint64_t paused_ns;		/* how long the output was paused */
};
int kop_session_snapshot(struct kop_session *s, struct kop_snapshot *snap);

/* Flight recorder: how full each CPU's ring is (of the first event),
 * into fill[cpu] in bytes, and its size in *size; CPUs without a ring get
 * 0. Returns the number of CPUs filled (at most max), or -EINVAL when the
 * session is not a started flight recorder. Any thread. */
int kop_session_flight_fill(struct kop_session *s, uint64_t *fill, int max,
			    uint64_t *size);

/* Disable, final sync, stop the sync thread and wake the reader (which then
 * sees end of stream once the buffer is drained). */
int kop_session_stop(struct kop_session *s);

/* Close everything; the session must be stopped. NULL is accepted. */
void kop_session_free(struct kop_session *s);

/* Copy up to max words out of the event buffer. Blocks until the watershed
 * is reached, a sync ends, the session stops, or timeout_ms passes (-1:
 * no timeout). Returns the number of words (0 on timeout with nothing
 * there), or -EPIPE once the session is stopped and the buffer is empty.
 * Never splits an escape sequence or a sample across two reads, nor a
 * SAMPLE_COUNT from its sample; max must hold the longest of them
 * (KOP_EVBUF_MIN_READ words: a counted sample), else -EINVAL. */
#define KOP_EVBUF_MIN_READ 5
ssize_t kop_evbuf_read(struct kop_session *s, uint64_t *buf, size_t max,
		       int timeout_ms);

enum kop_image_kind {
	KOP_IMAGE_FILE,		/* a mapped file */
	KOP_IMAGE_ANON,		/* anonymous memory of one process */
};

struct kop_dcookie_info {
	enum kop_image_kind kind;
	char path[4096];	/* FILE: path as seen from the process's root; ANON: region name ("anon", "[vdso]", "[heap]", "[stack]") */
	dev_t dev;		/* FILE */
	ino_t ino;		/* FILE */
	uint8_t build_id[20];	/* FILE, when the kernel gave one */
	uint8_t build_id_size;	/* 0: unknown */
	pid_t tgid;		/* ANON */
	uint64_t start, end;	/* ANON: [start, end); user sample offsets are pc - start */
	uint64_t mtime;		/* FILE: the binary's, when path is not where
				 * it was mapped from (a copy kept from another
				 * root); 0: stat the path */
};

/* User sample offsets: for a FILE image, the offset in the file
 * (pc - vma start + mapping's file offset), which pp/ turns back into an ELF
 * virtual address through the program headers; for an ANON image,
 * pc - start.
 *
 * What a cookie from the stream names. Returns 0 or -ENOENT. Cookies are
 * never reused within a session; OP_NO_COOKIE names nothing. */
int kop_dcookie_lookup(struct kop_session *s, uint64_t cookie,
		       struct kop_dcookie_info *info);

/* A consistent snapshot of the counters; the per-CPU arrays are copied into
 * st's own storage (st->nr_cpus entries, malloc'd: free with
 * kop_stats_release). Returns 0 or -ENOMEM. */
int kop_stats_get(struct kop_session *s, struct kop_stats *st);

/* Who ran what, for the reports' container names (stats/cgroups,
 * op_cgroups.h): each process image's cgroup (cgroup v2 path, named by
 * its samples' cgroup ids, or /proc/PID/cgroup read when the sync thread
 * first met a mapping of it after its exec) and whether it saw another
 * root (a container), and which root; the ids
 * of processes and threads in their own PID namespace, where that is not
 * the daemon's; and which cgroups' processes mapped each image named
 * after its copy in the store (rel: its name below the store). Each in
 * the order met, so a tgid's later process call is its newer image. Any
 * thread; no callback may call back into the session. Nothing without
 * cfg.keep_dir. */
struct kop_cgroup_ops {
	void (*process)(void *ctx, pid_t tgid, bool other_root,
			const char *cgroup);
	void (*nsid)(void *ctx, pid_t id, pid_t nsid);
	/* the root directory a process of another root saw (after its
	 * process line): what tells containers in one cgroup apart */
	void (*root)(void *ctx, pid_t tgid, uint64_t dev, uint64_t ino);
	void (*image)(void *ctx, const char *rel, bool other_root,
		      const char *cgroup);
};
void kop_session_cgroups(struct kop_session *s,
			 const struct kop_cgroup_ops *ops, void *ctx);
void kop_stats_release(struct kop_stats *st);

#endif /* KOP_H */
