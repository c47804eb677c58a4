/* The daemon's inherited descriptors (opd_close_inherited): in a child
 * that opened some (one far up, one kept, a pipe kept to report on), the
 * ones not kept are closed and the kept ones are not, by close_range(2)
 * and by the walk of /proc/self/fd that stands in where it is missing;
 * and the --keep-fd lists that parse and those that do not.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "opd_proc.h"

#define HIGH_FD 900

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

/* In a child: a, b and HIGH_FD open, b and the pipe kept; which of them
 * are open afterwards comes back on the pipe as "a b high" 0/1. */
static void check_close(unsigned int flags)
{
	int p[2], status;
	char got[8] = { 0 };
	pid_t child;

	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		int a = open("/dev/null", O_RDONLY), b = open("/dev/null", O_RDONLY);
		int high = dup2(a, HIGH_FD);
		int keep[] = { b, p[1], 1 };	/* 1: under 3, ignored */
		char out[4];

		close(p[0]);
		if (a < 0 || b < 0 || high != HIGH_FD)
			_exit(2);
		if (opd_close_inherited(keep, 3, flags))
			_exit(3);
		out[0] = is_open(a) ? '1' : '0';
		out[1] = is_open(b) ? '1' : '0';
		out[2] = is_open(HIGH_FD) ? '1' : '0';
		out[3] = is_open(STDERR_FILENO) ? '1' : '0';
		_exit(write(p[1], out, 4) == 4 ? 0 : 4);
	}
	close(p[1]);
	assert_int_equal(read(p[0], got, sizeof(got)), 4);
	close(p[0]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* a closed, b kept, the high one closed, stderr untouched */
	assert_string_equal(got, "0101");
}

static void test_close_range(void **state)
{
	(void)state;
	check_close(0);
}

static void test_close_fallback(void **state)
{
	(void)state;
	check_close(OPD_CLOSE_NO_RANGE);
}

static void test_too_many_to_keep(void **state)
{
	int keep[OPD_KEEP_FDS_MAX + 1] = { 0 };

	(void)state;
	assert_int_equal(opd_close_inherited(keep, OPD_KEEP_FDS_MAX + 1, 0), -E2BIG);
}

static void test_keep_fds_parse(void **state)
{
	static const struct {
		const char *list;
		int n;		/* -EINVAL: refused */
		int first, last;
	} cases[] = {
		{ "5", 1, 5, 5 },
		{ "5,9", 2, 5, 9 },
		{ "3,1000", 2, 3, 1000 },
		{ "", -EINVAL, 0, 0 },
		{ "2", -EINVAL, 0, 0 },		/* stdio is always kept */
		{ "-4", -EINVAL, 0, 0 },
		{ "5,", -EINVAL, 0, 0 },
		{ "5,,6", -EINVAL, 0, 0 },
		{ "5x", -EINVAL, 0, 0 },
		{ "99999999999", -EINVAL, 0, 0 },
		{ "3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19", -EINVAL, 0, 0 },
		{ "3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18", 16, 3, 18 },
	};
	int fds[OPD_KEEP_FDS_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = opd_keep_fds_parse(cases[i].list, fds);

		if (n != cases[i].n)
			fail_msg("'%s': %d, expected %d", cases[i].list, n, cases[i].n);
		if (n > 0) {
			assert_int_equal(fds[0], cases[i].first);
			assert_int_equal(fds[n - 1], cases[i].last);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_close_range),
		cmocka_unit_test(test_close_fallback),
		cmocka_unit_test(test_too_many_to_keep),
		cmocka_unit_test(test_keep_fds_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
