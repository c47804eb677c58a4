/* The event-buffer protocol is a wire format between kmod and the daemon
 * and codes are append-only: this table pins every code's number, name and
 * argument count, so renumbering one, or changing what it carries, fails
 * here before it garbles a stream. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "op_proto.h"

static const struct {
	uint64_t code;
	uint64_t number;
	const char *name;
	int nr_args;
} pinned[] = {
	{ OP_CTX_SWITCH, 1, "CTX_SWITCH", 2 },
	{ OP_CTX_TGID, 2, "CTX_TGID", 1 },
	{ OP_COOKIE_SWITCH, 3, "COOKIE_SWITCH", 1 },
	{ OP_CPU_SWITCH, 4, "CPU_SWITCH", 1 },
	{ OP_KERNEL_ENTER, 5, "KERNEL_ENTER", 0 },
	{ OP_USER_ENTER, 6, "USER_ENTER", 0 },
	{ OP_MODULE_LOADED, 7, "MODULE_LOADED", 0 },
	{ OP_TRACE_BEGIN, 8, "TRACE_BEGIN", 0 },
	{ OP_TRACE_END, 9, "TRACE_END", 0 },
	{ OP_DROPPED, 10, "DROPPED", 1 },
	{ OP_SAMPLE_COUNT, 11, "SAMPLE_COUNT", 1 },
};

static void test_codes_pinned(void **state)
{
	(void)state;
	/* a new code must be added to this table too */
	assert_int_equal(OP_NR_CODES, 12);
	for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
		assert_int_equal(pinned[i].code, pinned[i].number);
		assert_string_equal(op_code_name(pinned[i].code), pinned[i].name);
		assert_int_equal(op_code_nr_args(pinned[i].code), pinned[i].nr_args);
	}
}

static void test_unknown_codes(void **state)
{
	static const uint64_t bad[] = { 0, OP_NR_CODES, OP_NR_CODES + 1, 1ULL << 32,
					OP_ESCAPE_CODE };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(op_code_nr_args(bad[i]), -1);
		assert_string_equal(op_code_name(bad[i]), "unknown");
	}
}

static void test_constants(void **state)
{
	(void)state;
	assert_true(OP_ESCAPE_CODE == UINT64_MAX);
	assert_int_equal(OP_NO_COOKIE, 0);
	assert_int_equal(OP_SAMPLE_WORDS, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes_pinned),
		cmocka_unit_test(test_unknown_codes),
		cmocka_unit_test(test_constants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
