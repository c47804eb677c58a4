/* The kernel symbols a session needs, saved with it.
 *
 * When collection stops (opcontrol --stop, and the daemon's exit) the
 * daemon writes samples/current/stats/kallsyms: the lines of
 * PROC_ROOT/kallsyms for each kernel and module symbol that holds a
 * sampled address or an end of a call-graph arc (the first line is
 * OP_KSYMS_SAVED_HEADER; with arcs, stats/kallsyms.order too: the order in
 * which opreport -c meets the kernel's names), in kallsyms' own format, each followed by an end line
 * (type OP_KSYM_END) where the next symbol starts unless that one is saved
 * too; plus _text, _stext and _etext, and each sampled module's lowest
 * symbol (the base its offsets are relative to). opreport names kernel
 * samples from it: a few hundred lines instead of the 100k+ the kernel
 * formats anew on every read of /proc/kallsyms, and the kernel that was
 * profiled even after a reboot or an upgrade. A sample outside every
 * saved symbol (taken since the last stop: a running session read after a
 * --dump) sends opreport back to /proc/kallsyms. The file lives under
 * stats/, which OProfile's tools do not read as samples.
 */
#ifndef OPD_KSYMS_H
#define OPD_KSYMS_H

#include "op_sessdir.h"

/* Write samples_dir/stats/kallsyms for the kernel images sampled under
 * samples_dir, from proc_root/kallsyms; atomically (a temporary file
 * renamed over it). No kernel samples: nothing is written. Returns 0,
 * -ENODATA when kallsyms shows no text range (kptr_restrict), or -errno.
 * samples_dir is reached through sd (op_sessdir.h). */
int opd_ksyms_save(const struct op_sessdir *sd, const char *samples_dir,
		   const char *proc_root);

#endif /* OPD_KSYMS_H */
