/* opcontrol's command line: the options and the order the actions run
 * in. What opcontrol is, and its rooms: opcontrol.h. */
#include "config.h"
#include "opcontrol.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <popt.h>

#include "op_version.h"

/* --list-events: ophelp next to this binary, or on PATH. */
static int opc_list_events(void)
{
	char self[PATH_MAX], prog[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	snprintf(prog, sizeof(prog), "ophelp");
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(prog, sizeof(prog), "%s/ophelp", self);
			if (access(prog, X_OK))
				snprintf(prog, sizeof(prog), "ophelp");
		}
	}
	fflush(NULL);
	if (strchr(prog, '/'))
		execl(prog, "ophelp", (char *)NULL);
	else
		execlp(prog, "ophelp", (char *)NULL);
	opc_err("cannot run ophelp: %s", strerror(errno));
	return OPC_EXIT_FAIL;
}

static const char opc_epilog[] =
	"\nExamples:\n"
	"  opcontrol --setup --event=cpu-clock:1000000 --separate=cpu\n"
	"  opcontrol --start; (your work); opcontrol --dump; opreport\n"
	"  opcontrol --stop --save=run1; opcontrol --shutdown\n"
	"  opcontrol --setup --flight-recorder=30; opcontrol --start;\n"
	"    (when something happens) opcontrol --snapshot=incident\n"
	"Events are NAME:COUNT:UNITMASK:KERNEL:USER (ophelp lists them); \"default\"\n"
	"is CPU_CLK_UNHALTED with a hardware PMU, else TIMER (cpu-clock, timer mode).\n"
	"Settings persist in SESSION_DIR/daemonrc (default " OP_DEFAULT_SESSION_DIR ").\n"
	"Exit status: 0 ok, 1 runtime failure (no daemon, daemon error, busy\n"
	"session, no privileges), 2 usage error (bad option or value).\n";

static int opc_run(struct opc *c, const struct opc_opts *o)
{
	int ret;

	if (o->init || o->setup || o->start || o->start_daemon || opc_setup_opts_given(o)) {
		ret = op_sd_mkdirs(&c->sd, c->paths.samples_dir, 0755);
		if (ret) {
			opc_sd_err(c, "cannot create", c->paths.samples_dir, ret);
			return OPC_EXIT_FAIL;
		}
	}
	if (o->setup || opc_setup_opts_given(o)) {
		ret = op_settings_save(&c->settings, &c->sd, c->paths.daemonrc);
		if (ret) {
			opc_sd_err(c, "cannot write", c->paths.daemonrc, ret);
			return OPC_EXIT_FAIL;
		}
		if (c->verbose)
			printf("settings saved in %s\n", c->paths.daemonrc);
		if (opc_daemon_pid(c) && !o->shutdown && !o->deinit)
			printf("note: the running oprofiled keeps its settings until "
			       "opcontrol --shutdown and --start\n");
	}
	if (o->init && c->verbose)
		printf("session directory %s ready\n", c->paths.session_dir);
	if (o->reset && (ret = opc_reset(c)))
		return OPC_EXIT_FAIL;
	if (o->start_daemon && !o->start && (ret = opc_start_daemon(c)))
		return OPC_EXIT_FAIL;
	if (o->start && (ret = opc_start(c)))
		return OPC_EXIT_FAIL;
	if (o->dump && (ret = opc_simple(c, "dump", c->verbose ? "samples dumped" : NULL)))
		return OPC_EXIT_FAIL;
	if (o->stop && (ret = opc_simple(c, "stop", "profiler stopped")))
		return OPC_EXIT_FAIL;
	if (o->snapshot_given) {
		char name[96];

		if (o->snapshot && *o->snapshot)
			snprintf(name, sizeof(name), "%s", o->snapshot);
		else
			op_snapshot_default_name(time(NULL), name, sizeof(name));
		if ((ret = opc_snapshot(c, name)))
			return OPC_EXIT_FAIL;
	}
	if (o->save && (ret = opc_save(c, o->save)))
		return OPC_EXIT_FAIL;
	if ((o->shutdown || o->deinit) && (ret = opc_shutdown(c, false)))
		return OPC_EXIT_FAIL;
	if (o->status && (ret = opc_status(c)))
		return OPC_EXIT_FAIL;
	return OPC_EXIT_OK;
}

int main(int argc, const char **argv)
{
	struct opc_opts o;
	struct opc c;
	struct stat st;
	char *event_arg = NULL;
	enum { OPT_EVENT = 1, OPT_SNAPSHOT };
	struct poptOption options[] = {
		{ "init", 0, POPT_ARG_NONE, &o.init, 0,
		  "create the session directory", NULL },
		{ "setup", 0, POPT_ARG_NONE, &o.setup, 0,
		  "store the given settings in daemonrc", NULL },
		{ "status", 0, POPT_ARG_NONE, &o.status, 0,
		  "show the daemon, its events, separation and sample and loss counts", NULL },
		{ "start-daemon", 0, POPT_ARG_NONE, &o.start_daemon, 0,
		  "start oprofiled without enabling collection", NULL },
		{ "start", 's', POPT_ARG_NONE, &o.start, 0,
		  "start the daemon if needed and enable collection", NULL },
		{ "dump", 'd', POPT_ARG_NONE, &o.dump, 0,
		  "write collected samples to disk; returns when they are there", NULL },
		{ "stop", 't', POPT_ARG_NONE, &o.stop, 0,
		  "stop collection (the daemon keeps running)", NULL },
		{ "shutdown", 'h', POPT_ARG_NONE, &o.shutdown, 0,
		  "stop collection and end the daemon", NULL },
		{ "reset", 0, POPT_ARG_NONE, &o.reset, 0,
		  "clear the current session's samples", NULL },
		{ "save", 0, POPT_ARG_STRING, &o.save, 0,
		  "move the current session to samples/NAME", "NAME" },
		{ "snapshot", 0, POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, &o.snapshot, OPT_SNAPSHOT,
		  "flight recorder: write the last window as session NAME "
		  "(default snapshot-YYYYmmdd-HHMMSS) and go on recording", "NAME" },
		{ "deinit", 0, POPT_ARG_NONE, &o.deinit, 0,
		  "end the daemon and everything it holds", NULL },
		{ "session-dir", 0, POPT_ARG_STRING, &o.session_dir, 0,
		  "session directory (default " OP_DEFAULT_SESSION_DIR ")", "DIR" },
		{ "event", 'e', POPT_ARG_STRING, &event_arg, OPT_EVENT,
		  "event to sample, repeatable, or \"default\"", "NAME:COUNT:UNITMASK:KERNEL:USER" },
		{ "separate", 'p', POPT_ARG_STRING, &o.separate, 0,
		  "separate samples by none,lib,kernel,thread,cpu,container,all (kernel implies lib; container: by process, reported by container)", "LIST" },
		{ "callgraph", 'c', POPT_ARG_STRING, &o.callgraph, 0,
		  "collect each sample's callers, up to DEPTH frames (frame pointers; "
		  "0 is off; files by application, as --separate=lib,kernel)", "DEPTH" },
		{ "unwind", 0, POPT_ARG_STRING, &o.unwind, 0,
		  "how call chains find their user part: fp, frame pointers (the "
		  "default), or dwarf, DWARF CFI over a copy of each sample's user "
		  "stack, STACK_BYTES of it (8192 unless given, at most 65528)",
		  "fp|dwarf[,STACK_BYTES]" },
		{ "image", 'i', POPT_ARG_STRING, &o.image, 0,
		  "profile only these binaries (comma list, or all)", "LIST" },
		{ "vmlinux", 0, POPT_ARG_STRING, &o.vmlinux, 0,
		  "uncompressed kernel image with symbols", "FILE" },
		{ "no-vmlinux", 0, POPT_ARG_NONE, &o.no_vmlinux, 0,
		  "no kernel image: kernel samples go to the kernel as a whole", NULL },
		{ "buffer-size", 0, POPT_ARG_STRING, &o.buffer_size, 0,
		  "event buffer size, in words (0, the default: 1048576, four times that with call chains)", "WORDS" },
		{ "buffer-watershed", 0, POPT_ARG_STRING, &o.buffer_watershed, 0,
		  "the daemon reads the event buffer at this fill, in words", "WORDS" },
		{ "cpu-buffer-size", 0, POPT_ARG_STRING, &o.cpu_buffer_size, 0,
		  "per-CPU ring size, in bytes (a power of two pages; 0, the default: 1 s of samples at the event's rate, 512 KiB to 8 MiB)", "BYTES" },
		{ "pid", 0, POPT_ARG_STRING, &o.pid, 0,
		  "profile only this process and its children (perf's -p; all: every process)", "PID" },
		{ "cpu", 0, POPT_ARG_STRING, &o.cpus, 0,
		  "profile only these CPUs (perf's -C; all: every CPU)", "LIST" },
		{ "flight-recorder", 0, POPT_ARG_STRING, &o.flight, 0,
		  "keep only the last SECONDS of samples, in rings the kernel "
		  "overwrites, until --snapshot (0, the default: off)", "SECONDS" },
		{ "keep-max", 0, POPT_ARG_STRING, &o.keep_max, 0,
		  "bound the binaries kept from containers in the session "
		  "directory's kept/ to MIB (default 1024; 0: keep none)", "MIB" },
		{ "verbose", 'V', POPT_ARG_NONE, &o.verbose, 0,
		  "say more, here and in the daemon's log", NULL },
		{ "list-events", 'l', POPT_ARG_NONE, &o.list_events, 0,
		  "list the events of this machine (ophelp)", NULL },
		{ "version", 'v', POPT_ARG_NONE, &o.version, 0,
		  "show the version", NULL },
		{ "help", '?', POPT_ARG_NONE, &o.help, 0, "show this help", NULL },
		POPT_TABLEEND
	};
	poptContext ctx;
	int rc, ret = OPC_EXIT_OK;

	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	c.lock_fd = -1;
	c.sd.fd = -1;
	ctx = poptGetContext("opcontrol", argc, argv, options, 0);
	while ((rc = poptGetNextOpt(ctx)) > 0) {
		if (rc == OPT_SNAPSHOT) {
			o.snapshot_given = 1;
		} else if (rc == OPT_EVENT) {
			if (o.nr_events == OP_MAX_EVENTS) {
				o.too_many_events = true;
				free(event_arg);
			} else {
				o.events[o.nr_events++] = event_arg;
			}
			event_arg = NULL;
		}
	}
	if (rc < -1) {
		opc_err("%s: %s (opcontrol --help lists the options)",
			poptBadOption(ctx, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (poptPeekArg(ctx)) {
		opc_err("unexpected argument \"%s\" (opcontrol --help lists the options)",
			poptPeekArg(ctx));
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (o.help) {
		poptPrintHelp(ctx, stdout, 0);
		fputs(opc_epilog, stdout);
		goto out;
	}
	if (o.version) {
		op_print_version(argv[0]);
		goto out;
	}
	if (o.list_events) {
		if (opc_actions_given(&o)) {
			opc_err("--list-events cannot be combined with other actions");
			ret = OPC_EXIT_USAGE;
			goto out;
		}
		ret = opc_list_events();
		goto out;
	}
	if (!opc_actions_given(&o)) {
		poptPrintUsage(ctx, stderr, 0);
		opc_err("nothing to do (opcontrol --help lists the options)");
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (o.save && opc_check_save_name("save", o.save)) {
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (o.snapshot && *o.snapshot && opc_check_save_name("snapshot", o.snapshot)) {
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (o.snapshot_given && o.save) {
		opc_err("--snapshot and --save both name a session: give one");
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	ret = op_paths_init(&c.paths, o.session_dir);
	if (ret) {
		if (ret == -EINVAL)
			opc_err("--session-dir must be an absolute path, got \"%s\"",
				o.session_dir ? o.session_dir : "");
		else
			opc_err("--session-dir \"%s\": %s", o.session_dir ? o.session_dir : "",
				ret == -ENAMETOOLONG ? "path too long for the control socket"
						     : strerror(-ret));
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	c.verbose = o.verbose;
	c.log.fn = op_log_to_stderr;
	c.log.ctx = (void *)"opcontrol";
	c.log.max = o.verbose ? OP_LOG_DEBUG : OP_LOG_WARN;

	/* the session directory, when there is one, checked before a byte
	 * of it is read: root reads and writes only a directory nobody else
	 * can put a link in (op_sessdir.h) */
	if (lstat(c.paths.session_dir, &st) == 0 || errno != ENOENT) {
		char why[PATH_MAX + 256];

		ret = op_sessdir_open(&c.sd, c.paths.session_dir, OP_SD_WRITE, why,
				      sizeof(why));
		if (ret) {
			opc_err("session directory refused: %s", why);
			ret = OPC_EXIT_FAIL;
			goto out;
		}
	}
	/* settings first: a bad value is a usage error before any action */
	op_settings_default(&c.settings);
	ret = op_settings_load(&c.settings, &c.sd, c.paths.daemonrc, &c.log);
	if (ret) {
		opc_sd_err(&c, "cannot read", c.paths.daemonrc, ret);
		ret = OPC_EXIT_FAIL;
		goto out;
	}
	if (opc_apply_settings(&o, &c.settings)) {
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (opc_check_privileges(o.start || o.start_daemon)) {
		ret = OPC_EXIT_FAIL;
		goto out;
	}
	if (opc_observes_only(&o) && c.sd.fd < 0) {
		/* no session there: nothing to look at or stop, and nothing
		 * (no directory, no lock file) left behind for asking */
		ret = opc_run(&c, &o);
		goto out;
	}
	if (c.sd.fd < 0) {
		char why[PATH_MAX + 256];

		ret = op_sessdir_open(&c.sd, c.paths.session_dir,
				      OP_SD_WRITE | OP_SD_CREATE, why, sizeof(why));
		if (ret) {
			opc_err("session directory refused: %s", why);
			ret = OPC_EXIT_FAIL;
			goto out;
		}
	}
	if (opc_lock(&c)) {
		ret = OPC_EXIT_FAIL;
		goto out;
	}
	ret = opc_run(&c, &o);

out:
	if (c.lock_fd >= 0)
		close(c.lock_fd);
	op_sessdir_close(&c.sd);
	for (unsigned int i = 0; i < o.nr_events; i++)
		free(o.events[i]);
	free(o.save);
	free(o.snapshot);
	free(o.flight);
	free(o.keep_max);
	free(o.session_dir);
	free(o.separate);
	free(o.callgraph);
	free(o.unwind);
	free(o.image);
	free(o.vmlinux);
	free(o.buffer_size);
	free(o.buffer_watershed);
	free(o.cpu_buffer_size);
	free(o.pid);
	free(o.cpus);
	poptFreeContext(ctx);
	if (fflush(stdout) && ret == OPC_EXIT_OK) {
		perror("opcontrol: stdout");
		ret = OPC_EXIT_FAIL;
	}
	return ret;
}
