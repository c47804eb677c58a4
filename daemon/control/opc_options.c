/* opcontrol's options, checked before anything is done: the numbers, the
 * events for this machine, the settings they fold into (written to
 * daemonrc by opcontrol.c), and the name --save gives. Every error here is
 * a usage error. */
#include "config.h"
#include "opcontrol.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_events.h"

bool opc_setup_opts_given(const struct opc_opts *o)
{
	return o->nr_events || o->separate || o->callgraph || o->unwind || o->image ||
	       o->vmlinux || o->no_vmlinux || o->buffer_size ||
	       o->buffer_watershed || o->cpu_buffer_size || o->verbose ||
	       o->pid || o->cpus || o->flight || o->keep_max;
}

bool opc_actions_given(const struct opc_opts *o)
{
	return o->init || o->setup || o->status || o->start_daemon || o->start ||
	       o->dump || o->stop || o->shutdown || o->reset || o->deinit ||
	       o->save || o->snapshot_given || opc_setup_opts_given(o);
}

bool opc_observes_only(const struct opc_opts *o)
{
	return !(o->init || o->setup || o->start_daemon || o->start || o->reset ||
		 o->deinit || o->save || o->snapshot_given ||
		 opc_setup_opts_given(o));
}

/* A positive decimal (or 0x hex) number with nothing after it. */
static int opc_parse_ulong(const char *opt, const char *text, unsigned long min,
			   unsigned long max, unsigned long *out)
{
	unsigned long long v;
	char *end;

	if (!text || !*text || *text == '-' || *text == '+' || isspace((unsigned char)*text))
		goto err_bad;
	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || *end)
		goto err_bad;
	if (v < min || v > max) {
		if (max == ULONG_MAX)
			opc_err("--%s=%s must be at least %lu", opt, text, min);
		else
			opc_err("--%s=%s is out of range (%lu to %lu)", opt, text, min, max);
		return -ERANGE;
	}
	*out = (unsigned long)v;
	return 0;

err_bad:
	opc_err("--%s: \"%s\" is not a number", opt, text ? text : "");
	return -EINVAL;
}

/* Validate an event spec for this machine; the text to store goes to out.
 * "default" stays "default" so it is resolved where the daemon runs. */
static int opc_check_event(const char *text, char *out, size_t len)
{
	struct op_event_spec spec;
	struct op_event ev;
	const char *bad;
	char err[512];
	int ret;

	ret = op_event_resolve_text(text, &spec, &ev, &bad, err, sizeof(err));
	if (ret) {
		opc_err("%s%s", err, bad ? " (expected NAME:COUNT:UNITMASK:KERNEL:USER)" : "");
		return ret;
	}
	if (!strcmp(spec.name, "default") && !spec.count)
		snprintf(out, len, "default");
	else
		op_event_format(&ev, out, len);
	return 0;
}

/* --pid=PID: a process that exists now (its children come with it);
 * 0 or "all": every process again. */
static int opc_apply_pid(const char *text, struct op_settings *s)
{
	unsigned long v;
	int ret;

	if (!strcmp(text, "all")) {
		s->pid = 0;
		return 0;
	}
	ret = opc_parse_ulong("pid", text, 0, INT32_MAX, &v);
	if (ret)
		return ret;
	if (v && kill((pid_t)v, 0) && errno == ESRCH) {
		opc_err("--pid=%s: no such process", text);
		return -ESRCH;
	}
	s->pid = (pid_t)v;
	return 0;
}

/* --cpu=LIST: CPUs this machine has (offline ones are skipped when
 * collection starts); "all": every CPU again. */
static int opc_apply_cpus(const char *text, struct op_settings *s)
{
	long nr = sysconf(_SC_NPROCESSORS_CONF);
	const char *bad;
	cpu_set_t set;
	int ret;

	if (!strcmp(text, "all")) {
		s->cpus[0] = '\0';
		return 0;
	}
	ret = op_cpu_list_parse(text, &set, &bad);
	if (ret == -ERANGE) {
		opc_err("--cpu=%s: cpu \"%s\" does not exist (this machine has cpus 0 to %ld)",
			text, bad, nr - 1);
		return ret;
	}
	if (ret) {
		opc_err("--cpu=%s: not a CPU list at \"%s\" (e.g. 0, 0-3, 0,2)", text, bad);
		return ret;
	}
	for (long c = nr > 0 ? nr : CPU_SETSIZE; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &set)) {
			opc_err("--cpu=%s: cpu %ld does not exist (this machine has cpus 0 to %ld)",
				text, c, nr - 1);
			return -ERANGE;
		}
	}
	if (strlen(text) >= sizeof(s->cpus)) {
		opc_err("--cpu list is too long (%zu bytes at most)", sizeof(s->cpus) - 1);
		return -EINVAL;
	}
	snprintf(s->cpus, sizeof(s->cpus), "%s", text);
	return 0;
}

/* The flight recorder's window at the settings' events: refused here,
 * with what it would need, when its rings would pass the limit (the
 * daemon sizes them by the same function). */
static int opc_check_flight(const struct op_settings *s)
{
	char err[512];
	size_t bytes, rec = op_flight_record_bytes(s->callgraph_depth, s->unwind_stack);

	for (unsigned int i = 0; i < (s->nr_events ? s->nr_events : 1); i++) {
		struct op_event ev;

		if (op_event_resolve_text(s->nr_events ? s->events[i] : "default",
					  NULL, &ev, NULL, err, sizeof(err)))
			continue;	/* the daemon says what is wrong with it */
		if (op_flight_ring_bytes(s->flight_seconds,
					 op_event_max_rate(&ev, "/proc"), rec,
					 &bytes, err, sizeof(err))) {
			if (s->callgraph_depth && s->unwind_stack)
				opc_err("%s (event %s); each sample holds %u bytes of its user stack for --unwind=dwarf: fewer (--unwind=dwarf,BYTES) or frame pointers make the window cheaper",
					err, s->nr_events ? s->events[i] : "default",
					s->unwind_stack);
			else
				opc_err("%s (event %s)", err, s->nr_events ? s->events[i] : "default");
			return -E2BIG;
		}
	}
	return 0;
}

int opc_apply_settings(const struct opc_opts *o, struct op_settings *s)
{
	char err[256];
	unsigned long v;
	int ret;

	if (o->too_many_events) {
		opc_err("at most %d events can be given", OP_MAX_EVENTS);
		return -EINVAL;
	}
	if (o->vmlinux && o->no_vmlinux) {
		opc_err("--vmlinux and --no-vmlinux cannot be used together");
		return -EINVAL;
	}
	if (o->nr_events) {
		char canon[OP_MAX_EVENTS][128];

		for (unsigned int i = 0; i < o->nr_events; i++) {
			ret = opc_check_event(o->events[i], canon[i], sizeof(canon[i]));
			if (ret)
				return ret;
			for (unsigned int j = 0; j < i; j++) {
				/* the same event twice would write the same files */
				size_t a = strcspn(canon[i], ":"), b = strcspn(canon[j], ":");

				if (a == b && !strncmp(canon[i], canon[j], a)) {
					opc_err("event %.*s is given twice", (int)a, canon[i]);
					return -EINVAL;
				}
			}
		}
		for (unsigned int i = 0; i < o->nr_events; i++)
			snprintf(s->events[i], sizeof(s->events[i]), "%s", canon[i]);
		s->nr_events = o->nr_events;
	}
	if (o->separate) {
		const char *bad = NULL;
		unsigned int flags;

		if (op_separate_parse(o->separate, &flags, &bad)) {
			opc_err("--separate: unknown value \"%s\" "
				"(none, lib, kernel, thread, cpu, container, all)", bad ? bad : o->separate);
			return -EINVAL;
		}
		s->separate = flags;
	}
	if (o->callgraph) {
		ret = opc_parse_ulong("callgraph", o->callgraph, 0, OPC_MAX_CALLGRAPH, &v);
		if (ret)
			return ret;
		s->callgraph_depth = (unsigned int)v;
	}
	if (o->unwind) {
		bool capped;

		ret = op_unwind_parse(o->unwind, &s->unwind_stack, &capped, err,
				      sizeof(err));
		if (ret) {
			opc_err("%s", err);
			return ret;
		}
		if (capped)
			printf("--unwind: the kernel copies at most %u bytes of stack a sample; %u it is\n",
			       OP_UNWIND_MAX_STACK, s->unwind_stack);
	}
	/* a number here; its range in op_buffers_check() below */
	if (o->buffer_size) {
		ret = opc_parse_ulong("buffer-size", o->buffer_size, 0, ULONG_MAX, &v);
		if (ret)
			return ret;
		s->buffer_size = v;
	}
	if (o->buffer_watershed) {
		ret = opc_parse_ulong("buffer-watershed", o->buffer_watershed, 1, ULONG_MAX, &v);
		if (ret)
			return ret;
		s->buffer_watershed = v;
	}
	if (o->cpu_buffer_size) {
		ret = opc_parse_ulong("cpu-buffer-size", o->cpu_buffer_size, 0, ULONG_MAX, &v);
		if (ret)
			return ret;
		s->cpu_buffer_size = v;
	}
	ret = op_buffers_check(s->buffer_size, s->buffer_watershed,
			       s->cpu_buffer_size, err, sizeof(err));
	if (ret) {
		opc_err("%s", err);
		return ret;
	}
	if (o->vmlinux) {
		struct stat st;

		if (o->vmlinux[0] != '/' || strlen(o->vmlinux) >= sizeof(s->vmlinux)) {
			opc_err("--vmlinux needs an absolute path, got \"%s\"", o->vmlinux);
			return -EINVAL;
		}
		if (stat(o->vmlinux, &st)) {
			opc_err("--vmlinux=%s: %s", o->vmlinux, strerror(errno));
			return -EINVAL;
		}
		if (!S_ISREG(st.st_mode)) {
			opc_err("--vmlinux=%s: not a regular file", o->vmlinux);
			return -EINVAL;
		}
		snprintf(s->vmlinux, sizeof(s->vmlinux), "%s", o->vmlinux);
		s->no_vmlinux = false;
	}
	if (o->no_vmlinux) {
		s->vmlinux[0] = '\0';
		s->no_vmlinux = true;
	}
	if (o->image) {
		if (strlen(o->image) >= sizeof(s->image)) {
			opc_err("--image list is too long (%zu bytes at most)", sizeof(s->image) - 1);
			return -EINVAL;
		}
		snprintf(s->image, sizeof(s->image), "%s", strcmp(o->image, "all") ? o->image : "");
	}
	if (o->pid) {
		ret = opc_apply_pid(o->pid, s);
		if (ret)
			return ret;
	}
	if (o->cpus) {
		ret = opc_apply_cpus(o->cpus, s);
		if (ret)
			return ret;
	}
	if (o->verbose)
		s->verbose = true;
	if (o->flight) {
		ret = opc_parse_ulong("flight-recorder", o->flight, 0,
				      OP_FLIGHT_MAX_SECONDS, &v);
		if (ret)
			return ret;
		s->flight_seconds = (unsigned int)v;
		/* the window sizes the rings: an explicit size cannot hold */
		if (v && o->cpu_buffer_size && s->cpu_buffer_size) {
			opc_err("--flight-recorder sizes each CPU's ring for its window; "
				"--cpu-buffer-size cannot be given with it");
			return -EINVAL;
		}
	}
	if (o->keep_max) {
		ret = opc_parse_ulong("keep-max", o->keep_max, 0, OP_MAX_KEEP_MB, &v);
		if (ret)
			return ret;
		s->keep_mb = (unsigned int)v;
	}
	if (s->flight_seconds)
		return opc_check_flight(s);
	return 0;
}

int opc_check_save_name(const char *opt, const char *name)
{
	char err[256];

	if (!*name) {
		opc_err("--%s needs a session name", opt);
		return -EINVAL;
	}
	if (op_session_name_check(name, err, sizeof(err))) {
		opc_err("--%s=%s: %s", opt, name, err);
		return -EINVAL;
	}
	return 0;
}
