/* op_events: spec parsing (table of good and malformed specs) and resolution
 * of cpu-clock, default, OProfile and perf names, unknown names, too-small
 * counts and hardware events on a machine with or without a PMU. */
#include "config.h"
#include "op_events.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "odb.h"

struct parse_case {
	const char *text;
	int ret;
	/* expected on success */
	const char *name;
	unsigned long count;
	unsigned int unit_mask;
	bool kernel, user;
	/* expected on failure: offset of *bad inside text */
	int bad_at;
};

static const struct parse_case parse_cases[] = {
	{ "default", 0, "default", 0, 0, true, true, 0 },
	{ "cpu-clock", 0, "cpu-clock", 0, 0, true, true, 0 },
	{ "cpu-clock:1000000", 0, "cpu-clock", 1000000, 0, true, true, 0 },
	{ "CPU_CLK_UNHALTED:100000:0:1:1", 0, "CPU_CLK_UNHALTED", 100000, 0, true, true, 0 },
	{ "CPU_CLK_UNHALTED:100000:0x0f:0:1", 0, "CPU_CLK_UNHALTED", 100000, 15, false, true, 0 },
	{ "INST_RETIRED:6000:0:1:0", 0, "INST_RETIRED", 6000, 0, true, false, 0 },
	{ "TIMER:0x2710", 0, "TIMER", 10000, 0, true, true, 0 },
	{ "cycles:200000:3", 0, "cycles", 200000, 3, true, true, 0 },
	/* malformed */
	{ "", -EINVAL, NULL, 0, 0, 0, 0, 0 },
	{ ":1000", -EINVAL, NULL, 0, 0, 0, 0, 0 },
	{ "cycles:", -EINVAL, NULL, 0, 0, 0, 0, 7 },
	{ "cycles:abc", -EINVAL, NULL, 0, 0, 0, 0, 7 },
	{ "cycles:-5", -EINVAL, NULL, 0, 0, 0, 0, 7 },
	{ "cycles:0", -EINVAL, NULL, 0, 0, 0, 0, 7 },
	{ "cycles:10 ", -EINVAL, NULL, 0, 0, 0, 0, 7 },
	{ "cycles:99999999999999999999999", -EINVAL, NULL, 0, 0, 0, 0, 7 },
	{ "cycles:1000:zz", -EINVAL, NULL, 0, 0, 0, 0, 12 },
	{ "cycles:1000:0x100000000", -EINVAL, NULL, 0, 0, 0, 0, 12 },
	{ "cycles:1000:0:2", -EINVAL, NULL, 0, 0, 0, 0, 14 },
	{ "cycles:1000:0:1:yes", -EINVAL, NULL, 0, 0, 0, 0, 16 },
	{ "cycles:1000:0:0:0", -EINVAL, NULL, 0, 0, 0, 0, 14 },
	{ "cycles:1000:0:1:1:9", -EINVAL, NULL, 0, 0, 0, 0, 18 },
	{ "cyc les", -EINVAL, NULL, 0, 0, 0, 0, 3 },
	{ "cycles.x", -EINVAL, NULL, 0, 0, 0, 0, 6 },
	{ "../etc", -EINVAL, NULL, 0, 0, 0, 0, 0 },
	{ "a/b", -EINVAL, NULL, 0, 0, 0, 0, 1 },
	{ "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:1", -EINVAL, NULL, 0, 0, 0, 0, 0 },
};

static void test_spec_parse_table(void **state)
{
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct op_event_spec spec;
		const char *bad = NULL;
		int ret = op_event_spec_parse(c->text, &spec, &bad);

		if (ret != c->ret)
			fail_msg("case \"%s\": ret %d, expected %d", c->text, ret, c->ret);
		if (c->ret == 0) {
			assert_string_equal(spec.name, c->name);
			assert_int_equal(spec.count, c->count);
			assert_int_equal(spec.unit_mask, c->unit_mask);
			assert_int_equal(spec.kernel, c->kernel);
			assert_int_equal(spec.user, c->user);
		} else {
			assert_non_null(bad);
			if (bad - c->text != c->bad_at)
				fail_msg("case \"%s\": bad at %td, expected %d",
					 c->text, bad - c->text, c->bad_at);
		}
	}
}

static void test_parse_null(void **state)
{
	struct op_event_spec spec;
	const char *bad;

	assert_int_equal(op_event_spec_parse(NULL, &spec, &bad), -EINVAL);
}

static int resolve_text(const char *text, struct op_event *ev, char *err, size_t len)
{
	const char *bad = "unset";
	int ret = op_event_resolve_text(text, NULL, ev, &bad, err, len);

	assert_null(bad);	/* every text given here parses */
	return ret;
}

/* op_event_resolve_text(): a text that does not parse is told apart from
 * one that parses to no event, in the words every command uses */
static void test_resolve_text_bad(void **state)
{
	struct op_event_spec spec;
	struct op_event ev;
	const char *bad;
	char err[256];

	assert_int_equal(op_event_resolve_text("cpu-clock:abc", &spec, &ev, &bad,
					       err, sizeof(err)), -EINVAL);
	assert_non_null(bad);
	assert_string_equal(bad, "abc");
	assert_string_equal(err, "bad event specification \"cpu-clock:abc\" at \"abc\"");
	assert_int_equal(op_event_resolve_text("NO_SUCH_EVENT_XYZ:5000", &spec, &ev,
					       &bad, err, sizeof(err)), -ENOENT);
	assert_null(bad);
	assert_string_equal(spec.name, "NO_SUCH_EVENT_XYZ");
	assert_int_equal(spec.count, 5000);
	assert_non_null(strstr(err, "unknown event NO_SUCH_EVENT_XYZ"));
}

static void test_resolve_cpu_clock(void **state)
{
	static const char *const names[] = { "cpu-clock", "TIMER", "timer", "PERF_COUNT_SW_CPU_CLOCK" };
	struct op_event ev;
	char err[256], buf[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(resolve_text(names[i], &ev, err, sizeof(err)), 0);
		assert_true(ev.timer);
		assert_string_equal(ev.spec.name, "TIMER");
		assert_int_equal(ev.spec.count, 1000000);
		assert_int_equal(ev.cpu_type, ODB_CPU_TIMER_INT);
		assert_int_equal(ev.event_number, 0);
		assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
		assert_int_equal(ev.attr.config, PERF_COUNT_SW_CPU_CLOCK);
		assert_int_equal(ev.attr.sample_period, 1000000);
		assert_int_equal(ev.attr.disabled, 1);
		assert_int_equal(ev.attr.size, sizeof(ev.attr));
		assert_int_equal(ev.min_count, 10000);
	}

	assert_int_equal(resolve_text("cpu-clock:20000:0:0:1", &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.attr.sample_period, 20000);
	assert_int_equal(ev.attr.exclude_kernel, 1);
	assert_int_equal(ev.attr.exclude_user, 0);
	op_event_format(&ev, buf, sizeof(buf));
	assert_string_equal(buf, "TIMER:20000:0:0:1");
	assert_non_null(strstr(ev.description, "timer mode"));

	/* the minimum itself is accepted */
	assert_int_equal(resolve_text("cpu-clock:10000", &ev, err, sizeof(err)), 0);
}

/* Report headers: event descriptions by sample-file name, CPU names. */
static void test_describe(void **state)
{
	char buf[256];

	(void)state;
	assert_int_equal(op_event_describe(41, "CPU_CLK_UNHALTED", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "Clock cycles when not halted");
	/* OProfile's x86-64/generic list words the cycles event its own way */
	assert_int_equal(op_event_describe(69, "CPU_CLK_UNHALTED", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "CPU Clocks not Halted");
	assert_int_equal(op_event_describe(69, "cycles", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "CPU Clocks not Halted");
	assert_int_equal(op_event_describe(41, "INST_RETIRED", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "number of instructions retired");
	assert_int_not_equal(op_event_describe(41, "NO_SUCH_EVENT_ANYWHERE", buf,
					       sizeof(buf)), 0);
	assert_string_equal(op_cpu_type_name(ODB_CPU_TIMER_INT), "CPU with timer interrupt");
	assert_string_equal(op_cpu_type_id(ODB_CPU_TIMER_INT), "timer");
	/* OProfile 1.x's numbers */
	assert_string_equal(op_cpu_type_name(69), "AMD64 generic");
	assert_string_equal(op_cpu_type_id(41), "i386/arch_perfmon");
	assert_string_equal(op_cpu_type_name(4), "CPU with timer interrupt");
	assert_null(op_cpu_type_name(52));
	assert_null(op_cpu_type_name(9999));
}

static void test_resolve_too_small(void **state)
{
	struct op_event ev;
	char err[256];

	assert_int_equal(resolve_text("cpu-clock:9999", &ev, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "minimum 10000"));
	assert_non_null(strstr(err, "9999"));
	if (op_event_have_pmu()) {
		assert_int_equal(resolve_text("cycles:100", &ev, err, sizeof(err)), -ERANGE);
		assert_non_null(strstr(err, "minimum 6000"));
	}
}

static void test_resolve_unit_mask_on_timer(void **state)
{
	struct op_event ev;
	char err[256];

	assert_int_equal(resolve_text("cpu-clock:100000:1", &ev, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unit mask"));
}

static void test_resolve_default(void **state)
{
	struct op_event ev;
	char err[256];

	assert_int_equal(resolve_text("default", &ev, err, sizeof(err)), 0);
	if (op_event_have_pmu()) {
		assert_false(ev.timer);
		assert_string_equal(ev.spec.name, "CPU_CLK_UNHALTED");
		assert_int_equal(ev.spec.count, 100000);
		assert_int_equal(ev.attr.type, PERF_TYPE_HARDWARE);
	} else {
		assert_true(ev.timer);
		assert_string_equal(ev.spec.name, "TIMER");
		assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
	}
	/* a count given with default applies to whichever event it picked */
	assert_int_equal(resolve_text("default:2000000", &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.spec.count, 2000000);
}

static void test_resolve_unknown(void **state)
{
	struct op_event ev;
	char err[256];

	assert_int_equal(resolve_text("NO_SUCH_EVENT_XYZ", &ev, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "unknown event NO_SUCH_EVENT_XYZ"));
	assert_non_null(strstr(err, "ophelp"));
}

static void test_resolve_hardware(void **state)
{
	static const char *const names[] = { "cycles", "CPU_CLK_UNHALTED", "cpu_clk_unhalted",
					     "instructions", "INST_RETIRED" };
	struct op_event ev;
	char err[256];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int ret = resolve_text(names[i], &ev, err, sizeof(err));

		if (op_event_have_pmu()) {
			assert_int_equal(ret, 0);
			assert_false(ev.timer);
			uint32_t number, um;

			/* named and numbered as OProfile's table for this
			 * CPU does: no header says event 0 */
			assert_true(!strcmp(ev.spec.name, "CPU_CLK_UNHALTED") ||
				    !strcmp(ev.spec.name, "INST_RETIRED") ||
				    !strcmp(ev.spec.name, "RETIRED_INSTRUCTIONS"));
			assert_int_equal(ev.attr.type, PERF_TYPE_HARDWARE);
			assert_int_equal(op_event_oprofile_number(ev.cpu_type, ev.spec.name,
								  &number, &um), 0);
			assert_int_equal(ev.event_number, number);
			assert_int_not_equal(ev.event_number, 0);
		} else {
			assert_int_equal(ret, -ENODEV);
			assert_non_null(strstr(err, "no usable PMU"));
			assert_non_null(strstr(err, "--event=cpu-clock:1000000"));
			assert_non_null(strstr(err, names[i]));
		}
	}
}

/* The rows of OProfile's event tables that our sample-file headers carry,
 * checked against the tables of the real OProfile 1.4.0 (the tarball in
 * ../shared/peers): name, number, unit mask and the description its
 * opreport prints. A row of ours that OProfile's table lacks, or numbers
 * otherwise, would make OProfile's tools say "Unknown event". */
static const struct {
	uint32_t cpu_type;
	const char *table;	/* path inside the tarball */
	const char *name;
} oprofile_rows[] = {
	{ 69, "events/x86-64/generic/events", "CPU_CLK_UNHALTED" },
	{ 69, "events/x86-64/generic/events", "RETIRED_INSTRUCTIONS" },
	{ 69, "events/x86-64/generic/events", "RETIRED_BRANCH_INSTRUCTIONS" },
	{ 69, "events/x86-64/generic/events", "RETIRED_MISPREDICTED_BRANCH_INSTRUCTIONS" },
	{ 41, "events/i386/arch_perfmon/events", "CPU_CLK_UNHALTED" },
	{ 41, "events/i386/arch_perfmon/events", "INST_RETIRED" },
	{ 41, "events/i386/arch_perfmon/events", "BR_INST_RETIRED" },
	{ 41, "events/i386/arch_perfmon/events", "BR_MISS_PRED_RETIRED" },
};

/* OProfile's line for name in table: "event:0xNN ... um:U ... name:NAME : DESC".
 * Returns 0 with the fields, -ENOENT if absent, -EIO without the tarball. */
static int oprofile_table_row(const char *table, const char *name, unsigned int *number,
			      char *um, size_t umlen, char *desc, size_t desclen)
{
	const char *top = getenv("top_srcdir");
	char cmd[4096], line[1024], key[160];
	int ret = -ENOENT;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "tar -xzOf '%s/../shared/peers/oprofile-1.4.0.tar.gz' 'oprofile-1.4.0/%s' 2>/dev/null",
		 top ? top : "..", table);
	f = popen(cmd, "r");
	if (!f)
		return -EIO;
	snprintf(key, sizeof(key), " name:%s ", name);
	while (fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, key), *u = strstr(line, " um:"), *d;

		if (strncmp(line, "event:", 6) || !at || !u)
			continue;
		*number = (unsigned int)strtoul(line + 6, NULL, 16);
		snprintf(um, umlen, "%.*s", (int)strcspn(u + 4, " \t"), u + 4);
		d = strstr(at + 1, " : ");
		snprintf(desc, desclen, "%.*s", d ? (int)strcspn(d + 3, "\n") : 0,
			 d ? d + 3 : "");
		ret = 0;
	}
	if (pclose(f) != 0 && ret)
		ret = -EIO;
	return ret;
}

static void test_oprofile_tables(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(oprofile_rows) / sizeof(oprofile_rows[0]); i++) {
		unsigned int number = 0;
		uint32_t ours, ours_um;
		char um[32], desc[256], our_desc[256];
		int ret = oprofile_table_row(oprofile_rows[i].table, oprofile_rows[i].name,
					     &number, um, sizeof(um), desc, sizeof(desc));

		if (ret == -EIO) {
			const char *req = getenv("OPSAMPLER_REQUIRE_PERF");

			if (req && strcmp(req, "0"))
				fail_msg("no OProfile 1.4.0 tarball beside the source tree");
			skip();
		}
		if (ret)
			fail_msg("OProfile's %s has no %s", oprofile_rows[i].table,
				 oprofile_rows[i].name);
		assert_int_equal(op_event_oprofile_number(oprofile_rows[i].cpu_type,
							  oprofile_rows[i].name, &ours,
							  &ours_um), 0);
		if (ours != number || ours_um != 0 || strcmp(um, "zero"))
			fail_msg("%s on cpu_type %u: ours 0x%x/%u, OProfile's 0x%x/um:%s",
				 oprofile_rows[i].name, oprofile_rows[i].cpu_type, ours,
				 ours_um, number, um);
		assert_int_equal(op_event_describe(oprofile_rows[i].cpu_type,
						   oprofile_rows[i].name, our_desc,
						   sizeof(our_desc)), 0);
		assert_string_equal(our_desc, desc);
	}
	/* an event of the other vendor's table is not this one's */
	assert_int_equal(op_event_oprofile_number(69, "INST_RETIRED", &(uint32_t){ 0 },
						  &(uint32_t){ 0 }), -ENOENT);
	assert_int_equal(op_event_oprofile_number(4, "CPU_CLK_UNHALTED", &(uint32_t){ 0 },
						  &(uint32_t){ 0 }), -ENOENT);
}

static void test_resolve_other_software(void **state)
{
	struct op_event ev;
	char err[256];

	/* a software event other than cpu-clock is not timer mode */
	assert_int_equal(resolve_text("page-faults", &ev, err, sizeof(err)), 0);
	assert_false(ev.timer);
	assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev.attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(ev.spec.count, 1000);
	assert_int_equal(resolve_text("page-faults:10:1", &ev, err, sizeof(err)), -EINVAL);
}

/* What opcontrol stores (op_event_format) resolves to the same event. */
static void test_format_round_trip(void **state)
{
	static const char *const specs[] = {
		"default", "cpu-clock", "TIMER:50000:0:0:1", "cpu-clock:123456:0:1:0",
		"task-clock:20000", "page-faults:7",
	};

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct op_event a, b;
		char err[256], text[128];

		assert_int_equal(resolve_text(specs[i], &a, err, sizeof(err)), 0);
		op_event_format(&a, text, sizeof(text));
		assert_int_equal(resolve_text(text, &b, err, sizeof(err)), 0);
		if (memcmp(&a.attr, &b.attr, sizeof(a.attr)) || strcmp(a.spec.name, b.spec.name) ||
		    a.spec.count != b.spec.count || a.timer != b.timer)
			fail_msg("\"%s\" -> \"%s\" resolves differently", specs[i], text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_parse_table),
		cmocka_unit_test(test_parse_null),
		cmocka_unit_test(test_resolve_cpu_clock),
		cmocka_unit_test(test_resolve_too_small),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_resolve_unit_mask_on_timer),
		cmocka_unit_test(test_resolve_default),
		cmocka_unit_test(test_resolve_unknown),
		cmocka_unit_test(test_resolve_hardware),
		cmocka_unit_test(test_oprofile_tables),
		cmocka_unit_test(test_resolve_other_software),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_resolve_text_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
