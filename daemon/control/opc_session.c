/* opcontrol and the session directory: the lock every run holds on it,
 * --reset and --save of current/, and --status (the daemon's, or what the
 * directory says when none runs). */
#include "config.h"
#include "opcontrol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_ctl.h"
#include "op_events.h"
#include "op_names.h"
#include "op_stats.h"
#include "opd_stats.h"

/* Waits up to OPC_LOCK_WAIT_MS (or $OPCONTROL_LOCK_WAIT_MS). The fd is close-on-exec so oprofiled does not
 * inherit the lock. */
int opc_lock(struct opc *c)
{
	char path[PATH_MAX + 32];
	const char *env = getenv("OPCONTROL_LOCK_WAIT_MS");
	long wait_ms = OPC_LOCK_WAIT_MS, deadline;
	bool said = false;

	if (env && *env)
		wait_ms = strtol(env, NULL, 10);
	snprintf(path, sizeof(path), "%s/opcontrol.lock", c->paths.session_dir);
	c->lock_fd = op_sd_open(&c->sd, path, O_RDWR | O_CREAT | O_NONBLOCK, 0600);
	if (c->lock_fd < 0) {
		int err = c->lock_fd;

		c->lock_fd = -1;
		opc_sd_err(c, "cannot open", path, err);
		return err;
	}
	deadline = opc_now_ms() + wait_ms;
	while (flock(c->lock_fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int err = errno;

			opc_err("cannot lock %s: %s", path, strerror(err));
			return -err;
		}
		if (opc_now_ms() >= deadline) {
			opc_err("another opcontrol is working on %s; gave up after %ld ms",
				c->paths.session_dir, wait_ms);
			return -EBUSY;
		}
		if (!said && c->verbose)
			fprintf(stderr, "opcontrol: waiting for another opcontrol on %s\n",
				c->paths.session_dir);
		said = true;
		opc_sleep_ms(50);
	}
	return 0;
}

int opc_reset(struct opc *c)
{
	char refused[PATH_MAX];
	struct opc_pause pause;
	struct stat st;
	int ret;

	ret = op_sd_stat(&c->sd, c->paths.current_dir, &st);
	if (ret == -ENOENT) {
		printf("nothing to reset: %s does not exist\n", c->paths.current_dir);
		return 0;
	}
	if (!ret && S_ISLNK(st.st_mode))
		ret = -ELOOP;
	if (ret) {
		opc_sd_err(c, "--reset: cannot clear", c->paths.current_dir, ret);
		return ret;
	}
	ret = opc_daemon_pause(c, &pause);
	if (ret)
		return ret;
	/* a link inside is left where it is, and said: never followed,
	 * never removed, and what it points at is not ours to clear */
	ret = op_sd_empty_dir(&c->sd, c->paths.current_dir, refused, sizeof(refused));
	if (ret == -ELOOP && *refused) {
		opc_err("--reset: %s/%s is a symbolic link: refused, not followed "
			"nor removed; the rest of %s is cleared", c->sd.path, refused,
			c->paths.current_dir);
		goto err_resume;
	}
	if (ret) {
		opc_sd_err(c, "--reset: cannot clear", c->paths.current_dir, ret);
		goto err_resume;
	}
	printf("samples in %s cleared\n", c->paths.current_dir);
	return opc_daemon_resume(c, &pause);

err_resume:
	opc_daemon_resume(c, &pause);
	return ret;
}

int opc_save(struct opc *c, const char *name)
{
	struct opc_pause pause;
	char target[PATH_MAX];
	struct stat st;
	int ret;

	if ((size_t)snprintf(target, sizeof(target), "%s/%s", c->paths.samples_dir, name) >=
	    sizeof(target)) {
		opc_err("--save=%s: path too long", name);
		return -ENAMETOOLONG;
	}
	ret = op_sd_stat(&c->sd, target, &st);
	if (!ret && S_ISLNK(st.st_mode)) {
		opc_sd_err(c, "--save", target, -ELOOP);
		return -ELOOP;
	}
	if (!ret) {
		opc_err("--save=%s: session %s already exists", name, target);
		return -EEXIST;
	}
	if (ret != -ENOENT) {
		opc_sd_err(c, "--save: cannot look at", target, ret);
		return ret;
	}
	ret = op_sd_stat(&c->sd, c->paths.current_dir, &st);
	if (!ret && S_ISLNK(st.st_mode))
		ret = -ELOOP;
	if (op_sd_refused(ret)) {
		opc_sd_err(c, "--save", c->paths.current_dir, ret);
		return ret;
	}
	if (ret || !S_ISDIR(st.st_mode)) {
		opc_err("--save=%s: no current session in %s", name, c->paths.samples_dir);
		return -ENOENT;
	}
	ret = opc_daemon_pause(c, &pause);
	if (ret)
		return ret;
	ret = op_sd_rename(&c->sd, c->paths.current_dir, target, RENAME_NOREPLACE);
	if (ret) {
		if (ret == -EEXIST)
			opc_err("--save=%s: session %s already exists", name, target);
		else
			opc_sd_err(c, "--save: cannot move", c->paths.current_dir, ret);
		goto err_resume;
	}
	ret = op_sd_mkdirs(&c->sd, c->paths.current_dir, 0755);
	if (ret) {
		opc_sd_err(c, "cannot create", c->paths.current_dir, ret);
		goto err_resume;
	}
	printf("session saved as %s\n", target);
	return opc_daemon_resume(c, &pause);

err_resume:
	opc_daemon_resume(c, &pause);
	return ret;
}

/* Read a stats file of current/ (0 when absent). */
/* The samples the session's files hold: what survives a daemon that died
 * without writing its stats (kill -9), whose last stats are older. */
struct opc_count {
	const struct op_sessdir *sd;
	unsigned long long sum;
	int refused;		/* a sample file a planted link: -ELOOP */
	char refused_path[PATH_MAX];
};

static int opc_add_file(const char *rel, const char *full, void *ctx)
{
	struct opc_count *cnt = ctx;
	struct op_sfname n;
	odb_t db;

	if (op_sfname_parse(rel, &n))
		return 0;		/* not a sample file (the chain store...) */
	if (!n.cg.path) {
		int ret = odb_open(&db, cnt->sd, full, ODB_RDONLY);

		if (!ret) {
			for (uint32_t i = 1; i <= odb_nr_nodes(&db); i++)
				cnt->sum += db.nodes[i].value;
			odb_close(&db);
		} else if (op_sd_refused(ret) && !cnt->refused) {
			cnt->refused = ret;
			snprintf(cnt->refused_path, sizeof(cnt->refused_path), "%s", full);
		}
	}
	op_sfname_release(&n);
	return 0;
}

/* The samples in current's files; *err the walk's -errno (current/ or a
 * directory above it a planted link: -ELOOP) or a sample file's that was
 * a planted link, whose path goes in refused; 0 when all was read. */
static unsigned long long opc_count_samples(const struct opc *c, int *err,
					    char *refused, size_t len)
{
	struct opc_count cnt = { .sd = &c->sd };

	snprintf(refused, len, "%s", c->paths.current_dir);
	*err = op_sfname_walk(&c->sd, c->paths.current_dir, opc_add_file, &cnt);
	if (!*err && cnt.refused) {
		*err = cnt.refused;
		snprintf(refused, len, "%s", cnt.refused_path);
	}
	return cnt.sum;
}

static unsigned long long opc_read_stat(const struct opc *c, const char *name)
{
	char dir[PATH_MAX + 8];

	snprintf(dir, sizeof(dir), "%s/" OP_STATS_DIR, c->paths.current_dir);
	return opd_stats_value(&c->sd, dir, name);
}

static void opc_print_events(const char *list)
{
	char copy[OP_MAX_EVENTS * 130], *save = NULL;
	unsigned int nr_hw = 0;
	uint32_t cpu_type = 0;

	/* "TIMER:..." or a spec list; say timer mode where it is */
	printf("Events: %s", list);
	if (strstr(list, "TIMER") || strstr(list, "cpu-clock"))
		printf(" (timer mode: cpu-clock software event, count in ns)");
	else if (!strcmp(list, "default"))
		printf(" (%s)", op_event_have_pmu() ? "CPU_CLK_UNHALTED, cycles"
						     : "timer mode: cpu-clock software event");
	printf("\n");

	/* whether the session counts with the PMU: what a spec resolves to */
	snprintf(copy, sizeof(copy), "%s", list);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		struct op_event ev;
		char err[256];

		if (!op_event_resolve_text(t, NULL, &ev, NULL, err, sizeof(err)) &&
		    op_event_is_hardware(&ev)) {
			nr_hw++;
			cpu_type = ev.cpu_type;
		}
	}
	if (nr_hw)
		printf("Hardware PMU: in use, %u event(s), named as OProfile's %s table does\n",
		       nr_hw, op_cpu_type_name(cpu_type) ? op_cpu_type_name(cpu_type) : "(unknown)");
	else
		printf("Hardware PMU: not in use (%s)\n",
		       op_event_have_pmu() ? "one is usable here; the session's events are software"
					   : "none usable here: timer mode");
	if (nr_hw > 1)
		printf("Note: %u hardware events sample at once; on a virtual machine's PMU this "
		       "has been seen to skew each column toward the others' shape: check a "
		       "column against a session of that event alone (opcontrol(1), EVENTS)\n",
		       nr_hw);
}

/* Status keys that are not loss counters: shown on their own lines, or as
 * the activity breakdown. Every other numeric key is a loss counter. */
static const char *const opc_plain_keys[] = {
	"pid", "state", "events", "separate", "session_dir", "samples",
	"total_samples", "kernel_samples", "anon_samples", "samples_written",
	"throttled", "filtered_by_image", "callgraph", "callgraph_chains",
	"callgraph_arcs", "callgraph_depth", "profile_pid", "profile_cpus",
	"flight_seconds", "flight_ring_bytes", "flight_fill", "images_kept",
	"unwind", "unwind_stack_bytes", "unwind_done", "unwind_walks",
	"unwind_pcs", "unwind_ns", "unwind_fp_fallback",
	"cgroup_unread", "nspid_unread", "cgroup_moved",
};

/* The DWARF unwinder's own figures, when it ran: walks, pcs a walk, the
 * share that reached the outermost frame, its time a walk. */
static void opc_print_unwinder(const char *reply)
{
	char v[5][64];
	const char *keys[5] = { "unwind_walks", "unwind_pcs", "unwind_done",
				"unwind_ns", "unwind_fp_fallback" };
	double walks;

	for (int i = 0; i < 5; i++)
		if (!opc_status_value(reply, keys[i], v[i], sizeof(v[i])))
			return;
	walks = strtod(v[0], NULL);
	if (walks <= 0)
		return;
	printf("Unwinding: %s user stacks, %.1f frames each, %.1f %% to the outermost frame, %.1f us each, %s through a frame pointer where no unwind table was\n",
	       v[0], strtod(v[1], NULL) / walks,
	       100.0 * strtod(v[2], NULL) / walks,
	       strtod(v[3], NULL) / walks / 1000.0, v[4]);
}

static bool opc_is_plain_key(const char *key, size_t len)
{
	for (size_t i = 0; i < sizeof(opc_plain_keys) / sizeof(opc_plain_keys[0]); i++) {
		if (strlen(opc_plain_keys[i]) == len && !strncmp(key, opc_plain_keys[i], len))
			return true;
	}
	return false;
}

int opc_status(struct opc *c)
{
	char sep[64], val[OP_CTL_LINE_MAX];
	pid_t pid = opc_daemon_pid(c);
	char *reply = NULL;
	int ret;

	if (pid) {
		ret = opc_request(c, "status", &reply);
		if (ret && ret != -ENOTCONN)
			return ret;
		if (ret == -ENOTCONN) {
			opc_err("oprofiled (pid %d) holds %s but does not answer on %s",
				(int)pid, c->paths.lock_file, c->paths.ctl_socket);
			return -EIO;
		}
		printf("Daemon running: pid %d\n", (int)pid);
		printf("Profiling: %s\n",
		       opc_status_value(reply, "state", val, sizeof(val)) ? val : "unknown");
		if (opc_status_value(reply, "events", val, sizeof(val)))
			opc_print_events(val);
		printf("Separate: %s\n",
		       opc_status_value(reply, "separate", val, sizeof(val)) ? val : "unknown");
		if (opc_status_value(reply, "flight_seconds", val, sizeof(val))) {
			char bytes[64] = "", fill[OP_CTL_LINE_MAX];

			opc_status_value(reply, "flight_ring_bytes", bytes, sizeof(bytes));
			printf("Mode: flight recorder, last %s s (rings of %llu KiB per CPU)\n",
			       val, strtoull(bytes, NULL, 10) >> 10);
			if (opc_status_value(reply, "flight_fill", fill, sizeof(fill)))
				printf("Ring fill (cpu:written): %s\n", fill);
		}
		printf("Session dir: %s\n",
		       opc_status_value(reply, "session_dir", val, sizeof(val))
		       ? val : c->paths.session_dir);
		if (opc_status_value(reply, "profile_pid", val, sizeof(val)) &&
		    strcmp(val, "0"))
			printf("Process: %s and its children\n", val);
		if (opc_status_value(reply, "profile_cpus", val, sizeof(val)) &&
		    strcmp(val, "all"))
			printf("CPUs: %s\n", val);
		printf("Samples received: %s\n",
		       opc_status_value(reply, "samples", val, sizeof(val)) ? val : "unknown");
		if (opc_status_value(reply, "samples_written", val, sizeof(val)))
			printf("Samples written: %s\n", val);
		if (opc_status_value(reply, "callgraph", val, sizeof(val)) &&
		    strcmp(val, "0")) {
			char arcs[64], how[64] = "fp";

			printf("Call chains: depth %s", val);
			opc_status_value(reply, "unwind", how, sizeof(how));
			if (!strncmp(how, "dwarf,", 6))
				printf(", user part by DWARF unwinding of %s-byte stack copies",
				       how + 6);
			else
				printf(", user part by frame pointers");
			if (opc_status_value(reply, "callgraph_chains", val, sizeof(val)) &&
			    opc_status_value(reply, "callgraph_arcs", arcs, sizeof(arcs)))
				printf(", %s samples with their callers, %s arcs", val, arcs);
			printf("\n");
			opc_print_unwinder(reply);
		}
		if (opc_status_value(reply, "kernel_samples", val, sizeof(val)))
			printf("Kernel samples: %s\n", val);
		if (opc_status_value(reply, "anon_samples", val, sizeof(val)))
			printf("Anonymous-memory samples: %s\n", val);
		if (opc_status_value(reply, "images_kept", val, sizeof(val)) &&
		    strcmp(val, "0"))
			printf("Binaries kept from other roots (containers): %s, in %s/" OP_KEEP_DIR "\n",
			       val, c->paths.session_dir);
		if (opc_status_value(reply, "cgroup_unread", val, sizeof(val)) &&
		    strcmp(val, "0"))
			printf("Processes whose cgroup (container) could not be read: %s\n", val);
		if (opc_status_value(reply, "nspid_unread", val, sizeof(val)) &&
		    strcmp(val, "0"))
			printf("Processes and threads whose pid in their container could not be read: %s\n", val);
		if (opc_status_value(reply, "cgroup_moved", val, sizeof(val)) &&
		    strcmp(val, "0"))
			printf("Processes moved to another cgroup while sampled (each named by its last): %s\n", val);
		if (opc_status_value(reply, "filtered_by_image", val, sizeof(val)) &&
		    strcmp(val, "0"))
			printf("Left out by --image: %s\n", val);
		if (opc_status_value(reply, "throttled", val, sizeof(val)) &&
		    strcmp(val, "none") && val[0])
			printf("Throttled by the kernel: %s\n", val);
		/* every other key is a loss counter: show those not zero */
		for (const char *line = strchr(reply, '\n'); line && *++line; ) {
			const char *nl = strchr(line, '\n');
			size_t llen = nl ? (size_t)(nl - line) : strlen(line);
			size_t klen = strcspn(line, " \n");

			if (klen < llen && !opc_is_plain_key(line, klen)) {
				const char *v = line + klen + 1;
				size_t vlen = llen - klen - 1;

				if (!(vlen == 1 && *v == '0'))
					printf("Lost: %.*s %.*s\n", (int)klen, line, (int)vlen, v);
			}
			line = nl;
		}
		free(reply);
		return 0;
	}

	printf("Daemon not running\n");
	{
		char list[OP_MAX_EVENTS * 130] = "";
		size_t used = 0;

		for (unsigned int i = 0; i < c->settings.nr_events; i++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 i ? "," : "", c->settings.events[i]);
		opc_print_events(c->settings.nr_events ? list : "default");
	}
	op_separate_format(c->settings.separate, sep, sizeof(sep));
	printf("Separate: %s\n", sep);
	if (c->settings.flight_seconds)
		printf("Mode: flight recorder, last %u s\n", c->settings.flight_seconds);
	printf("Session dir: %s\n", c->paths.session_dir);
	if (c->settings.pid)
		printf("Process: %d and its children\n", (int)c->settings.pid);
	if (c->settings.cpus[0])
		printf("CPUs: %s\n", c->settings.cpus);
	{
		/* from the files: the daemon's last stats may be older (a
		 * daemon killed after its last dump) */
		char refused[PATH_MAX], why[PATH_MAX + 128];
		int err;
		unsigned long long in_files = opc_count_samples(c, &err, refused,
								sizeof(refused));
		unsigned long long said = opc_read_stat(c, OP_STAT_TOTAL_SAMPLES);

		if (op_sd_refused(err)) {
			printf("Samples in current: not read: %s\n",
			       op_sd_explain(&c->sd, refused, err, why, sizeof(why)));
			return 1;
		}
		printf("Samples in current: %llu\n", in_files);
		if (said > in_files || (said && said < in_files))
			printf("Samples by the daemon's last stats: %llu (%s)\n", said,
			       said < in_files ? "written before its last samples: it did not stop cleanly"
					       : "some were lost after they reached it");
	}
	{
		static const char *const losses[] = {
			OP_STAT_EVENT_LOST_OVERFLOW, OP_STAT_LOST_NO_TASK,
			OP_STAT_LOST_NO_MAPPING, OP_STAT_LOST_SAMPLEFILE,
			OP_STAT_LOST_RECORDS_BY_KERNEL, OP_STAT_BAD_ESCAPE,
		};

		for (size_t i = 0; i < sizeof(losses) / sizeof(losses[0]); i++) {
			unsigned long long v = opc_read_stat(c, losses[i]);

			if (v)
				printf("Lost: %s %llu\n", losses[i], v);
		}
	}
	return 0;
}
