/* The session's copy of the sampled kernel symbols (opd_ksyms_save): a
 * fixture kallsyms and sample files written through odb and op_names, and
 * the exact file that must come out: the symbols holding a sample with all
 * their aliases, an end line where the next symbol starts, _text/_etext,
 * a module's lowest symbol; nothing for a session without kernel samples;
 * a clear error for kallsyms without addresses or without the file.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "odb.h"
#include "op_kernel.h"
#include "op_names.h"
#include "opd_ksyms.h"
#include "testutil.h"

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff80ff0000 t before_text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 T do_one_initcall\n"
	"ffffffff81002000 t pid_task\n"
	"ffffffff81002000 T pid_task_alias\n"
	"ffffffff81002100 T tty_audit_exit\n"
	"ffffffff81002200 T schedule\n"
	"ffffffff81002300 d some_data\n"
	"ffffffff81002400 T last_fn\n"
	"ffffffff81003000 D _etext\n"
	"ffffffffc0000000 t ext4_base\t[ext4]\n"
	"ffffffffc0000100 t ext4_readpage\t[ext4]\n"
	"ffffffffc0000200 t ext4_writepage\t[ext4]\n"
	"ffffffffc0001000 t xfs_fn\t[xfs]\n";

struct fx {
	char *dir, *proc, *samples;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char *p;

	assert_non_null(f);
	f->dir = tu_mkdtemp();
	assert_non_null(f->dir);
	f->proc = tu_path(f->dir, "proc");
	f->samples = tu_path(f->dir, "samples");
	assert_int_equal(mkdir(f->proc, 0755), 0);
	assert_int_equal(mkdir(f->samples, 0755), 0);
	p = tu_path(f->proc, "kallsyms");
	assert_int_equal(tu_write_file(p, kallsyms, strlen(kallsyms)), 0);
	free(p);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_rm_rf(f->dir);
	free(f->dir);
	free(f->proc);
	free(f->samples);
	free(f);
	return 0;
}

/* Open (creating it and its directories) the sample file sn names under
 * the fixture's session, its header marking the kernel images. */
static void open_sfile(const struct fx *f, const struct op_sfname *sn, odb_t *db)
{
	char *rel = op_sfname_build(sn), *path, *slash;

	assert_non_null(rel);
	path = tu_path(f->samples, rel);
	for (slash = path + strlen(f->samples) + 1; (slash = strchr(slash, '/'));
	     slash++) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	assert_int_equal(odb_open(db, NULL, path, ODB_RDWR), 0);
	db->header->is_kernel = sn->image.kind == OP_IMG_KERN;
	db->header->cg_to_is_kernel = sn->cg.path && sn->cg.kind == OP_IMG_KERN;
	free(path);
	free(rel);
}

/* The name of the sample file of image kind/name under application
 * /bin/app, on cpu (OP_SF_ALL: not separated). */
static struct op_sfname app_sfname(enum op_img_kind kind, const char *name, int cpu)
{
	return (struct op_sfname){
		.image = { .kind = kind, .path = (char *)name },
		.dep = { .kind = OP_IMG_FILE, .path = (char *)"/bin/app" },
		.event = (char *)"TIMER",
		.count = 100000,
		.tgid = OP_SF_ALL,
		.tid = OP_SF_ALL,
		.cpu = cpu,
	};
}

/* Add count at each offset of the sample file of image kind/name under
 * application app (separated by cpu). */
static void add_samples(const struct fx *f, enum op_img_kind kind,
			const char *name, int cpu, const uint64_t *offs, size_t n)
{
	struct op_sfname sn = app_sfname(kind, name, cpu);
	odb_t db;

	open_sfile(f, &sn, &db);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(odb_add(&db, offs[i], 1), 0);
	odb_close(&db);
}

/* Add an arc file from image (kind, name) to image (to_kind, to_name), one
 * arc per (from, to) pair. */
static void add_arcs(const struct fx *f, enum op_img_kind kind, const char *name,
		     enum op_img_kind to_kind, const char *to_name,
		     const uint64_t (*arcs)[2], size_t n)
{
	struct op_sfname sn = app_sfname(kind, name, OP_SF_ALL);
	odb_t db;

	sn.cg = (struct op_img){ .kind = to_kind, .path = (char *)to_name };
	open_sfile(f, &sn, &db);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(odb_add(&db, arcs[i][0] << 32 | arcs[i][1], 1), 0);
	odb_close(&db);
}

static char *read_out(const struct fx *f)
{
	char *path = tu_path(f->samples, "stats/kallsyms"), *buf;
	FILE *fp = fopen(path, "r");
	size_t n;

	free(path);
	if (!fp)
		return NULL;
	buf = calloc(1, 8192);
	assert_non_null(buf);
	n = fread(buf, 1, 8191, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void test_saved_symbols(void **state)
{
	struct fx *f = *state;
	/* pid_task + 0x10 and + 0xff on two CPUs; schedule + 0x80 (data
	 * follows it, which kallsyms readers skip: it ends at last_fn, saved
	 * too, so no end line); last_fn + 0x10 (the last symbol: none
	 * either); ext4_readpage + 4 */
	const uint64_t k0[] = { 0x2010, 0x2200 + 0x80 };
	const uint64_t k1[] = { 0x20ff, 0x2410 };
	const uint64_t m[] = { 0x104 };
	const uint64_t v[] = { 0x1008 };	/* do_one_initcall */
	char *out;

	add_samples(f, OP_IMG_KERN, "/proc/kallsyms", 0, k0, 2);
	add_samples(f, OP_IMG_KERN, "/proc/kallsyms", 1, k1, 2);
	add_samples(f, OP_IMG_KERN, "ext4", 0, m, 1);
	add_samples(f, OP_IMG_FILE, "/bin/app", 0, m, 1);
	/* the kernel named by a vmlinux path: a file's name, the header's
	 * is_kernel flag */
	add_samples(f, OP_IMG_KERN, "/boot/vmlinux-6.1", 0, v, 1);
	assert_int_equal(opd_ksyms_save(NULL, f->samples, f->proc), 0);
	out = read_out(f);
	assert_non_null(out);
	assert_string_equal(out,
		OP_KSYMS_SAVED_HEADER "\n"
		"ffffffff81003000 D _etext\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff81001000 T do_one_initcall\n"
		"ffffffff81002000 t pid_task\n"
		"ffffffff81002000 T pid_task_alias\n"
		"ffffffff81002100 - -\n"
		"ffffffff81002200 T schedule\n"
		"ffffffff81002400 T last_fn\n"
		"ffffffffc0000000 t ext4_base\t[ext4]\n"
		"ffffffffc0000100 t ext4_readpage\t[ext4]\n"
		"ffffffffc0000200 - -\t[ext4]\n");
	free(out);
	/* no arcs: no order of names */
	{
		struct op_korder ko;

		assert_int_equal(op_korder_read(NULL, f->samples, &ko), -ENOENT);
	}
}

/* opreport -c names the kernel ends of arcs: a caller in the kernel and
 * a callee in a module, neither holding a sample, are saved; the user
 * ends of arcs are not kernel symbols. */
static void test_arc_ends(void **state)
{
	struct fx *f = *state;
	const uint64_t k[] = { 0x2210 };			/* schedule */
	const uint64_t kk[][2] = { { 0x1010, 0x2210 } };	/* do_one_initcall -> schedule */
	const uint64_t km[][2] = { { 0x2410, 0x204 } };		/* last_fn -> ext4_writepage */
	const uint64_t uk[][2] = { { 0x10, 0x2110 } };		/* /bin/app -> tty_audit_exit */
	char *out;

	add_samples(f, OP_IMG_KERN, "/proc/kallsyms", 0, k, 1);
	add_arcs(f, OP_IMG_KERN, "/proc/kallsyms", OP_IMG_KERN, "/proc/kallsyms", kk, 1);
	add_arcs(f, OP_IMG_KERN, "/proc/kallsyms", OP_IMG_KERN, "ext4", km, 1);
	add_arcs(f, OP_IMG_FILE, "/bin/app", OP_IMG_KERN, "/proc/kallsyms", uk, 1);
	assert_int_equal(opd_ksyms_save(NULL, f->samples, f->proc), 0);
	out = read_out(f);
	assert_non_null(out);
	assert_string_equal(out,
		OP_KSYMS_SAVED_HEADER "\n"
		"ffffffff81003000 D _etext\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff81001000 T do_one_initcall\n"
		"ffffffff81002000 - -\n"
		"ffffffff81002100 T tty_audit_exit\n"
		"ffffffff81002200 T schedule\n"
		"ffffffff81002400 T last_fn\n"
		"ffffffffc0000000 t ext4_base\t[ext4]\n"
		"ffffffffc0000100 - -\t[ext4]\n"
		"ffffffffc0000200 t ext4_writepage\t[ext4]\n");
	free(out);

	/* the order opreport -c meets the kernel's names in: every line
	 * from _text to before _etext, data and aliases too */
	{
		static const char *const names[] = {
			"_text", "startup_64", "do_one_initcall", "pid_task",
			"pid_task_alias", "tty_audit_exit", "schedule",
			"some_data", "last_fn",
		};
		static const uint32_t offs[] = {
			0, 0, 0x1000, 0x2000, 0x2000, 0x2100, 0x2200, 0x2300, 0x2400,
		};
		struct op_korder ko;

		assert_int_equal(op_korder_read(NULL, f->samples, &ko), 0);
		assert_int_equal(ko.n, 9);
		for (size_t i = 0; i < ko.n; i++) {
			assert_int_equal(ko.hash[i], op_kname_hash(names[i], strlen(names[i])));
			assert_int_equal(ko.off[i], offs[i]);
		}
		op_korder_release(&ko);
	}
}

/* A damaged order file is refused whole (the report then reads
 * /proc/kallsyms): wrong magic, a count the data does not hold, bytes
 * after the records, a count past the limit. */
static void test_bad_order(void **state)
{
	struct fx *f = *state;
	char *stats = tu_path(f->samples, "stats");
	char *path = tu_path(f->samples, OP_KORDER_FILE);
	unsigned char buf[16 + 2 * 9];
	struct op_korder ko;
	uint64_t n;

	assert_int_equal(mkdir(stats, 0755), 0);
	memset(buf, 0x11, sizeof(buf));
	memcpy(buf, OP_KORDER_MAGIC, 8);
	n = 2;
	memcpy(buf + 8, &n, 8);
	assert_int_equal(tu_write_file(path, buf, sizeof(buf)), 0);
	assert_int_equal(op_korder_read(NULL, f->samples, &ko), 0);
	assert_int_equal(ko.n, 2);
	assert_int_equal(ko.off[1], 0x11111111);
	op_korder_release(&ko);
	assert_int_equal(tu_write_file(path, buf, sizeof(buf) - 1), 0);	/* torn */
	assert_int_equal(op_korder_read(NULL, f->samples, &ko), -EINVAL);
	assert_null(ko.hash);
	n = 3;
	memcpy(buf + 8, &n, 8);
	assert_int_equal(tu_write_file(path, buf, sizeof(buf)), 0);	/* short */
	assert_int_equal(op_korder_read(NULL, f->samples, &ko), -EINVAL);
	n = (uint64_t)OP_KORDER_MAX + 1;
	memcpy(buf + 8, &n, 8);
	assert_int_equal(tu_write_file(path, buf, sizeof(buf)), 0);
	assert_int_equal(op_korder_read(NULL, f->samples, &ko), -EINVAL);
	n = 2;
	memcpy(buf + 8, &n, 8);
	buf[0] = 'X';
	assert_int_equal(tu_write_file(path, buf, sizeof(buf)), 0);
	assert_int_equal(op_korder_read(NULL, f->samples, &ko), -EINVAL);
	free(stats);
	free(path);
}

static void test_no_kernel_samples(void **state)
{
	struct fx *f = *state;
	const uint64_t o[] = { 0x10 };
	char *p;

	add_samples(f, OP_IMG_FILE, "/bin/app", 0, o, 1);
	assert_int_equal(opd_ksyms_save(NULL, f->samples, f->proc), 0);
	assert_null(read_out(f));
	/* nor for a session without any sample file */
	p = tu_path(f->dir, "empty");
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(opd_ksyms_save(NULL, p, f->proc), 0);
	free(p);
}

static void test_bad_kallsyms(void **state)
{
	struct fx *f = *state;
	const uint64_t o[] = { 0x10 };
	static const char hidden[] =
		"0000000000000000 T _text\n"
		"0000000000000000 T schedule\n"
		"0000000000000000 T _etext\n";
	char *p = tu_path(f->proc, "kallsyms");

	add_samples(f, OP_IMG_KERN, "/proc/kallsyms", 0, o, 1);
	/* kptr_restrict: every address reads 0 */
	assert_int_equal(tu_write_file(p, hidden, strlen(hidden)), 0);
	assert_int_equal(opd_ksyms_save(NULL, f->samples, f->proc), -ENODATA);
	assert_null(read_out(f));
	unlink(p);
	assert_int_equal(opd_ksyms_save(NULL, f->samples, f->proc), -ENOENT);
	assert_null(read_out(f));
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_saved_symbols, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arc_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_kernel_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_kallsyms, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
