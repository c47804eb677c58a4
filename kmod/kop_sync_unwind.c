/* The sync thread's use of the DWARF unwinder (--unwind=dwarf): the user
 * part of a sample's chain, from the registers and stack copy in its
 * record, resolved as frame-pointer callers are, against the task's
 * mappings at the sample's time. Kept apart from kop_sync.c, which only
 * calls in.
 *
 * Where the time goes: a walk runs inline, in the merge, so it is
 * resolved against the task table as it is at the sample's moment (the
 * next side-band record may change it). Its cost, with each process's
 * libdw state cached, is a few microseconds a sample (the unwinder's
 * figures are published: unwind_ns over nr_unwind_walks), against rings
 * that hold a second of samples at the events' rate: the rings are
 * drained at a small fraction of that (bench_unwind.sh measures both). */
#include "config.h"
#include "kop_sync.h"

#include <errno.h>
#include <stdlib.h>

#include "op_proto.h"

int kop_sync_unwind_init(struct kop_sync *s)
{
	if (!s->cfg->callgraph_depth || !s->cfg->unwind_stack_bytes)
		return 0;
	s->unwind_pcs = calloc((size_t)s->cfg->callgraph_depth + 1,
			       sizeof(*s->unwind_pcs));
	s->unwind = kop_unwind_new(s->dcookies, &s->cfg->log);
	if (!s->unwind || !s->unwind_pcs) {
		op_log(&s->cfg->log, OP_LOG_ERR,
		       "kmod: cannot set up the DWARF unwinder: out of memory");
		kop_sync_unwind_release(s);
		return -ENOMEM;
	}
	/* copies in the session's kept/ store: beneath it, no link */
	kop_unwind_set_session(s->unwind, s->cfg->sd);
	return 0;
}

void kop_sync_unwind_release(struct kop_sync *s)
{
	kop_unwind_free(s->unwind);
	s->unwind = NULL;
	free(s->unwind_pcs);
	s->unwind_pcs = NULL;
}

void kop_sync_unwind(struct kop_sync *s, struct kop_cpu_out *o,
		     struct kop_task *k, const struct perf_event_header *h,
		     bool kernel, struct kop_chain_pos *e)
{
	const struct kop_sample_rec *rec = (const void *)h;
	unsigned int depth = s->cfg->callgraph_depth;
	struct kop_unwind_stats us;
	struct kop_user_regs ur;
	enum kop_unwind_end end;
	unsigned int nr_fp;
	size_t n, first = kernel ? 0 : 1;

	if (!kop_unwind_parse(h, sizeof(*rec), &ur)) {
		/* the sample stays, with its kernel part */
		s->counts.nr_bt_aborted++;
		if (kop_sync_log_once(s, KOP_LOG_BAD_USER))
			op_log(&s->cfg->log, OP_LOG_WARN,
			       "kmod: a sample's user registers or stack copy do not fit its record (%u bytes); its chain is counted in backtrace_aborted",
			       h->size);
		return;
	}
	/* a kernel thread, or a task we cannot name: no user part */
	if (ur.abi == PERF_SAMPLE_REGS_ABI_NONE || !k || e->nr_frames >= depth)
		return;
	n = kop_unwind_walk(s->unwind, k, (pid_t)rec->tid, &ur, s->unwind_pcs,
			    depth - e->nr_frames + first, &end, &nr_fp);
	kop_unwind_get_stats(s->unwind, &us);
	s->counts.nr_unwind_walks = us.nr_walks;
	s->counts.nr_unwind_pcs = us.nr_pcs;
	s->counts.unwind_ns = us.walk_ns;
	/* not a loss: counted beside how the chain ended */
	if (nr_fp)
		s->counts.nr_unwind_fp_fallback++;
	for (size_t i = first; i < n; i++) {
		uint64_t pc = s->unwind_pcs[i];
		const struct kop_map *m = kop_task_lookup(k, pc);
		struct kop_frame *f;

		if (!m) {
			/* counted here, and for no other reason */
			s->counts.nr_bt_lost_no_mapping++;
			return;
		}
		if (!(f = kop_frame_slot(o))) {
			s->counts.nr_bt_aborted++;
			return;
		}
		f->cookie = m->cookie;
		f->offset = pc - m->start + (m->pgoff & ~KOP_MAP_ANON);
		f->kernel = 0;
		e->nr_frames++;
	}
	switch (end) {
	case KOP_UNWIND_DONE:
		s->counts.nr_unwind_done++;
		break;
	case KOP_UNWIND_DEPTH:
		s->counts.nr_bt_truncated++;
		break;
	case KOP_UNWIND_NO_CFI:
	case KOP_UNWIND_NO_MODULE:	/* in a mapping, but no ELF for it */
		s->counts.nr_unwind_no_cfi++;
		break;
	case KOP_UNWIND_SHORT_STACK:
		s->counts.nr_unwind_short_stack++;
		break;
	case KOP_UNWIND_BAD_FRAME:
		s->counts.nr_unwind_bad_frame++;
		break;
	}
}
