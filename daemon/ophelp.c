/* ophelp: the events this machine offers, as libpfm4 knows them, and which
 * of them can actually be opened here.
 *
 * libpfm4 recognises the CPU from cpuid, so under a hypervisor that hides the
 * PMU it still lists every hardware event; only perf_event_open says whether
 * one works. Each event is therefore probed (this process, user mode only,
 * sampling), and the cpu-clock software event, the timer-mode fallback, is
 * always listed first.
 *
 * Exit status: 0 ok, 1 an event named on the command line is unknown or
 * libpfm4 cannot start, 2 usage error.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* op_events.h brings linux/perf_event.h, which libpfm4's header defers to
 * only when it comes first */
#include "op_events.h"
#include "op_perf.h"
#include "op_version.h"

#include <perfmon/pfmlib_perf_event.h>
#include <popt.h>

struct ophelp_opts {
	int xml;
	int available_only;
	int version;
	int default_event;
};

/* Can this event sample here? (op_perf_probe_event() says how it asks.) */
static bool ophelp_probe(const char *fqname)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(fqname, PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
				      &arg) != PFM_SUCCESS)
		return false;
	return op_perf_probe_event(&attr) == 0;
}

static void xml_puts(const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", stdout); break;
		case '>': fputs("&gt;", stdout); break;
		case '&': fputs("&amp;", stdout); break;
		case '"': fputs("&quot;", stdout); break;
		case '\'': fputs("&apos;", stdout); break;
		default:
			/* control characters have no place in an attribute */
			putchar((unsigned char)*s < 0x20 ? ' ' : *s);
		}
	}
}

static void print_timer(const struct ophelp_opts *o)
{
	static const char desc[] =
		"cpu-clock software event: one sample every COUNT ns of CPU time "
		"(timer mode, the fallback without a hardware PMU; also: cpu-clock)";

	if (o->xml) {
		printf(" <event event_name=\"TIMER\" group=\"software\" available=\"1\""
		       " timer=\"1\" default_count=\"1000000\" min_count=\"10000\" desc=\"");
		xml_puts(desc);
		printf("\"/>\n");
		return;
	}
	printf("TIMER [available, timer mode]: (min count: 10000, default: 1000000)\n"
	       "\t%s\n", desc);
}

/* Print one event; returns whether it is available. */
static bool print_event(const struct ophelp_opts *o, const pfm_pmu_info_t *pmu,
			const pfm_event_info_t *ev, bool filter)
{
	char fqname[512];
	bool have_umask = false;
	bool avail;

	snprintf(fqname, sizeof(fqname), "%s::%s", pmu->name, ev->name);
	avail = ophelp_probe(fqname);
	if (filter && o->available_only && !avail)
		return avail;

	if (o->xml) {
		printf(" <event event_name=\"");
		xml_puts(ev->name);
		printf("\" group=\"");
		xml_puts(pmu->name);
		printf("\" available=\"%d\" desc=\"", avail ? 1 : 0);
		xml_puts(ev->desc);
		printf("\"");
	} else {
		printf("%s [%s, %s]:\n\t%s\n", ev->name, pmu->name,
		       avail ? "available" : "unavailable here",
		       ev->desc ? ev->desc : "");
	}

	for (int a = 0; a < ev->nattrs; a++) {
		pfm_event_attr_info_t ai;

		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(ev->idx, a, PFM_OS_PERF_EVENT_EXT, &ai) !=
		    PFM_SUCCESS || ai.type != PFM_ATTR_UMASK)
			continue;
		if (o->xml) {
			if (!have_umask)
				printf(">\n  <unit_masks>\n");
			printf("   <unit_mask name=\"");
			xml_puts(ai.name);
			printf("\" mask=\"0x%llx\" default=\"%d\" desc=\"",
			       (unsigned long long)ai.code, ai.is_dfl ? 1 : 0);
			xml_puts(ai.desc);
			printf("\"/>\n");
		} else {
			if (!have_umask)
				printf("\tUnit masks:\n");
			printf("\t\t0x%02llx: %s%s: %s\n", (unsigned long long)ai.code,
			       ai.name, ai.is_dfl ? " (default)" : "",
			       ai.desc ? ai.desc : "");
		}
		have_umask = true;
	}
	if (o->xml)
		printf(have_umask ? "  </unit_masks>\n </event>\n" : "/>\n");
	return avail;
}

static int list_all(const struct ophelp_opts *o)
{
	unsigned int nr_events = 0, nr_available = 1;
	bool have_pmu = op_event_have_pmu();
	pfm_pmu_info_t pmu;

	if (o->xml) {
		printf("<?xml version=\"1.0\"?>\n<help_events have_pmu=\"%d\">\n",
		       have_pmu ? 1 : 0);
	} else {
		printf("opsampler events for this machine (libpfm4)\n");
		printf(have_pmu ? "A hardware PMU is usable: default is CPU_CLK_UNHALTED (cycles).\n"
				: "No usable hardware PMU (a VM?): default is TIMER (cpu-clock, timer mode);\n"
				  "hardware events are listed but cannot be opened here.\n");
		printf("Also accepted: CPU_CLK_UNHALTED = cycles, INST_RETIRED (Intel) or\n"
		       "RETIRED_INSTRUCTIONS (AMD) = instructions, TIMER = cpu-clock; sample files\n"
		       "name them as OProfile's table for this CPU does.\n"
		       "Use: opcontrol --event=NAME:COUNT:UNITMASK:KERNEL:USER\n\n");
	}
	print_timer(o);

	for (int p = 0; p < PFM_PMU_MAX; p++) {
		memset(&pmu, 0, sizeof(pmu));
		pmu.size = sizeof(pmu);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pmu) != PFM_SUCCESS || !pmu.is_present)
			continue;
		for (int i = pmu.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t ev;

			memset(&ev, 0, sizeof(ev));
			ev.size = sizeof(ev);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ev) != PFM_SUCCESS)
				continue;
			nr_events++;
			if (print_event(o, &pmu, &ev, true))
				nr_available++;
		}
	}
	if (o->xml)
		printf("</help_events>\n");
	else
		printf("\n%u events, %u available here\n", nr_events + 1, nr_available);
	return 0;
}

static int describe(const struct ophelp_opts *o, const char *text)
{
	struct op_event_spec spec;
	struct op_event ev;
	const char *bad;
	char err[512];
	int ret;

	ret = op_event_resolve_text(text, &spec, &ev, &bad, err, sizeof(err));
	if (bad) {
		fprintf(stderr, "ophelp: %s\n", err);
		return 2;
	}
	if (ret == -ENOENT || ret == -EIO) {
		fprintf(stderr, "ophelp: %s\n", err);
		return 1;
	}

	if (o->xml)
		printf("<?xml version=\"1.0\"?>\n<help_events>\n");
	if (ret == 0 && ev.timer) {
		print_timer(o);
	} else {
		/* describe the libpfm4 event behind the name */
		pfm_perf_encode_arg_t arg;
		struct perf_event_attr attr;
		pfm_event_info_t info;
		pfm_pmu_info_t pmu;
		const char *name = ret == 0 ? ev.spec.name : spec.name;

		if (op_event_pfm_name(name))
			name = op_event_pfm_name(name);
		memset(&arg, 0, sizeof(arg));
		memset(&attr, 0, sizeof(attr));
		arg.attr = &attr;
		arg.size = sizeof(arg);
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		memset(&pmu, 0, sizeof(pmu));
		pmu.size = sizeof(pmu);
		if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) ||
		    pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &info) ||
		    pfm_get_pmu_info(info.pmu, &pmu)) {
			fprintf(stderr, "ophelp: cannot describe event %s\n", text);
			return 1;
		}
		print_event(o, &pmu, &info, false);
		if (!o->xml && ret == 0)
			printf("\tmin count: %lu, default: %lu; as opcontrol stores it: %s:%lu\n",
			       ev.min_count, ev.spec.count, ev.spec.name, ev.spec.count);
	}
	if (o->xml)
		printf("</help_events>\n");
	else if (ret)
		printf("\tnot usable here: %s\n", err);
	return 0;
}

/* OProfile's ophelp -d: the default event's spec, one line, for scripts. */
static int print_default(const char *extra)
{
	struct op_event ev;
	char err[512], text[128];

	if (extra) {
		fprintf(stderr, "ophelp: --get-default-event takes no event, got \"%s\"\n", extra);
		return 2;
	}
	if (op_event_resolve_text("default", NULL, &ev, NULL, err, sizeof(err))) {
		fprintf(stderr, "ophelp: no default event: %s\n", err);
		return 1;
	}
	op_event_format(&ev, text, sizeof(text));
	printf("%s\n", text);
	return 0;
}

int main(int argc, const char **argv)
{
	struct ophelp_opts o = { 0 };
	struct poptOption options[] = {
		{ "xml", 'X', POPT_ARG_NONE, &o.xml, 0,
		  "list events as XML", NULL },
		{ "available", 'a', POPT_ARG_NONE, &o.available_only, 0,
		  "list only the events that can be opened here", NULL },
		{ "get-default-event", 'd', POPT_ARG_NONE, &o.default_event, 0,
		  "print this machine's default event (a hardware PMU's cycles, or the timer) "
		  "as opcontrol stores it", NULL },
		{ "version", 'v', POPT_ARG_NONE, &o.version, 0,
		  "show the version", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext ctx;
	const char *event;
	int rc, ret;

	ctx = poptGetContext("ophelp", argc, argv, options, 0);
	poptSetOtherOptionHelp(ctx, "[OPTION...] [EVENT]\n"
			       "Exit status: 0 ok, 1 unknown event or libpfm4 failure, 2 usage error");
	rc = poptGetNextOpt(ctx);
	if (rc < -1) {
		fprintf(stderr, "ophelp: %s: %s\n",
			poptBadOption(ctx, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		poptFreeContext(ctx);
		return 2;
	}
	if (o.version) {
		op_print_version(argv[0]);
		poptFreeContext(ctx);
		return 0;
	}
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		fprintf(stderr, "ophelp: cannot initialise libpfm4: %s\n", pfm_strerror(ret));
		poptFreeContext(ctx);
		return 1;
	}
	event = poptGetArg(ctx);
	if (o.default_event) {
		rc = print_default(event);
		poptFreeContext(ctx);
		return rc;
	}
	if (event && poptPeekArg(ctx)) {
		fprintf(stderr, "ophelp: one event at a time, got \"%s\" too\n",
			poptPeekArg(ctx));
		poptFreeContext(ctx);
		return 2;
	}
	rc = event ? describe(&o, event) : list_all(&o);
	poptFreeContext(ctx);
	if (fflush(stdout) != 0) {
		perror("ophelp: stdout");
		return 1;
	}
	return rc;
}
