/* unwind_rec OUTDIR LIB: records what the kernel hands the DWARF unwinder
 * (kmod/kop_unwind.c) for a sample, from this very process: the user
 * registers in perf's order, the top of the stack from the sampled sp up,
 * the thread's id and the executable mappings, one case a pair of files
 * (OUTDIR/NAME.txt and OUTDIR/NAME.stack). test_unwind unwinds them and
 * checks the functions it finds against what this program did:
 *   main       main > rec_a > rec_b > take
 *   thread     a thread: thread_main > rec_a > rec_b > take
 *   dl_before  main > rec_a > rec_b > take, before LIB is loaded
 *   dl_after   main > (LIB's) unwind_lib_call > lib_cb > take, after dlopen
 *   nocfi      main > nocfi_call (no unwind table, no frame pointer) >
 *              nocfi_target > take
 *   fp         main > fp_caller > fp_call (no unwind table, but a frame
 *              pointer) > fp_target > take
 *   deep       main > deep (400 frames of recursion, deeper than the copy)
 *   signal     main > rec_sig > raise ... signal frame > on_signal > take
 * Built -O2 -fomit-frame-pointer, as Debian's libraries are; the helpers
 * are noinline and do something after each call, so that no tail call or
 * inlining removes a frame the test expects.
 *
 * rec_capture() (assembly, below) stores the registers as they are at a
 * label inside it, then copies the stack from its own sp up without
 * pushing anything, so the copy is the stack those registers describe.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STACK_MAX 8192

struct rec_state {
	uint64_t regs[17];	/* ax bx cx dx si di bp sp ip r8-r15 */
	uint64_t size;		/* in: bytes to copy */
	unsigned char stack[STACK_MAX];
};

void rec_capture(struct rec_state *st);
void nocfi_call(int (*fn)(void));
void fp_call(int (*fn)(void));
int fp_target(void);
int fp_caller(void);
int rec_a(const char *name);
int rec_b(const char *name);
int lib_cb(void);
int nocfi_target(void);
int deep(int n);
int rec_sig(void);

__asm__(
	"	.text\n"
	"	.globl rec_capture\n"
	"	.type rec_capture, @function\n"
	"rec_capture:\n"
	"	.cfi_startproc\n"
	"	movq %rax, 0(%rdi)\n"
	"	movq %rbx, 8(%rdi)\n"
	"	movq %rcx, 16(%rdi)\n"
	"	movq %rdx, 24(%rdi)\n"
	"	movq %rsi, 32(%rdi)\n"
	"	movq %rdi, 40(%rdi)\n"
	"	movq %rbp, 48(%rdi)\n"
	"	movq %rsp, 56(%rdi)\n"
	"	leaq 1f(%rip), %rax\n"
	"	movq %rax, 64(%rdi)\n"
	"	movq %r8, 72(%rdi)\n"
	"	movq %r9, 80(%rdi)\n"
	"	movq %r10, 88(%rdi)\n"
	"	movq %r11, 96(%rdi)\n"
	"	movq %r12, 104(%rdi)\n"
	"	movq %r13, 112(%rdi)\n"
	"	movq %r14, 120(%rdi)\n"
	"	movq %r15, 128(%rdi)\n"
	"	movq 136(%rdi), %rcx\n"
	"	leaq 144(%rdi), %rdi\n"
	"	movq %rsp, %rsi\n"
	"	rep movsb\n"
	"1:	ret\n"
	"	.cfi_endproc\n"
	"	.size rec_capture, .-rec_capture\n"
	/* no .cfi_ directives: no unwind table entry; rbp zeroed, so the
	 * frame-pointer guess has nothing to follow either */
	"	.globl nocfi_call\n"
	"	.type nocfi_call, @function\n"
	"nocfi_call:\n"
	"	pushq %rbp\n"
	"	xorl %ebp, %ebp\n"
	"	call *%rdi\n"
	"	popq %rbp\n"
	"	ret\n"
	"	.size nocfi_call, .-nocfi_call\n"
	/* no unwind table either, but a frame pointer: libdw's fallback
	 * follows it to the caller */
	"	.globl fp_call\n"
	"	.type fp_call, @function\n"
	"fp_call:\n"
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"
	"	call *%rdi\n"
	"	popq %rbp\n"
	"	ret\n"
	"	.size fp_call, .-fp_call\n");

static const char *outdir;
static __thread uintptr_t stack_top;	/* the thread's stack's end */
static volatile int sink;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* the executable mappings, as /proc/self/maps gives them */
static __attribute__((noinline)) void write_maps(FILE *f)
{
	FILE *m = fopen("/proc/self/maps", "re");
	char line[4096];

	if (!m)
		die("unwind_rec: /proc/self/maps");
	while (fgets(line, sizeof(line), m)) {
		unsigned long long start, end, off;
		char perms[8], path[4096] = "";
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end,
			   perms, &off, &pos) < 4 || perms[2] != 'x')
			continue;
		sscanf(line + pos, "%4095s", path);
		fprintf(f, "map %llx %llx %llx %s\n", start, end, off,
			path[0] ? path : "anon");
	}
	fclose(m);
}

/* the case's files, once the capture is done */
static __attribute__((noinline)) void save(const char *name,
					   const struct rec_state *st)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.stack", outdir, name);
	f = fopen(path, "we");
	if (!f || fwrite(st->stack, 1, st->size, f) != st->size || fclose(f))
		die("unwind_rec: stack file");
	snprintf(path, sizeof(path), "%s/%s.txt", outdir, name);
	f = fopen(path, "we");
	if (!f)
		die("unwind_rec: case file");
	fprintf(f, "tid %ld\nregs", (long)syscall(SYS_gettid));
	for (int i = 0; i < 17; i++)
		fprintf(f, " %llx", (unsigned long long)st->regs[i]);
	fprintf(f, "\n");
	write_maps(f);
	if (fclose(f))
		die("unwind_rec: case file");
}

/* the sample: a small frame, so that the copy reaches past it */
static __attribute__((noinline)) int take(const char *name)
{
	static struct rec_state st;
	volatile char here;
	uintptr_t avail = stack_top - (uintptr_t)&here;

	memset(&st, 0, sizeof(st));
	/* as much as the stack holds above us, as the kernel copies: the
	 * copy starts below here, so it ends within the stack */
	st.size = avail > STACK_MAX ? STACK_MAX : avail & ~(uintptr_t)7;
	rec_capture(&st);
	save(name, &st);
	return (int)st.size + here;
}

__attribute__((noinline)) int rec_b(const char *name)
{
	return take(name) + sink;
}

__attribute__((noinline)) int rec_a(const char *name)
{
	return rec_b(name) * 3 + sink;
}

__attribute__((noinline)) int lib_cb(void)
{
	return take("dl_after") + 7 * sink;
}

__attribute__((noinline)) int nocfi_target(void)
{
	return take("nocfi") - sink;
}

__attribute__((noinline)) int fp_target(void)
{
	return take("fp") + 5 * sink;
}

/* fp_call's caller: found through fp_call's frame pointer */
__attribute__((noinline)) int fp_caller(void)
{
	fp_call(fp_target);
	return sink + 2;
}

__attribute__((noinline)) int deep(int n)
{
	volatile char pad[48];

	pad[n % 48] = (char)n;
	if (n == 0)
		return take("deep") + pad[0];
	return deep(n - 1) + pad[n % 48];
}

static void on_signal(int sig)
{
	sink += take("signal") + sig;
}

__attribute__((noinline)) int rec_sig(void)
{
	raise(SIGUSR1);
	return sink + 1;
}

static uintptr_t main_stack_top(void)
{
	FILE *m = fopen("/proc/self/maps", "re");
	char line[4096];
	unsigned long long start, end;

	if (!m)
		die("unwind_rec: /proc/self/maps");
	while (fgets(line, sizeof(line), m))
		if (strstr(line, "[stack]") &&
		    sscanf(line, "%llx-%llx", &start, &end) == 2) {
			fclose(m);
			return (uintptr_t)end;
		}
	fclose(m);
	fprintf(stderr, "unwind_rec: no [stack] in /proc/self/maps\n");
	exit(1);
}

static void *thread_main(void *arg)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	(void)arg;
	if (pthread_getattr_np(pthread_self(), &a) ||
	    pthread_attr_getstack(&a, &addr, &size))
		die("unwind_rec: thread stack");
	pthread_attr_destroy(&a);
	stack_top = (uintptr_t)addr + size;
	sink += rec_a("thread");
	return NULL;
}

int main(int argc, char **argv)
{
	int (*lib_call)(int (*)(void));
	struct sigaction sa;
	pthread_t t;
	void *lib;

	if (argc != 3) {
		fprintf(stderr, "usage: unwind_rec OUTDIR LIB\n");
		return 2;
	}
	outdir = argv[1];
	stack_top = main_stack_top();
	sink += rec_a("main");
	if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, NULL))
		die("unwind_rec: thread");
	sink += rec_a("dl_before");
	lib = dlopen(argv[2], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "unwind_rec: %s\n", dlerror());
		return 1;
	}
	lib_call = (int (*)(int (*)(void)))dlsym(lib, "unwind_lib_call");
	if (!lib_call) {
		fprintf(stderr, "unwind_rec: %s\n", dlerror());
		return 1;
	}
	sink += lib_call(lib_cb);
	nocfi_call(nocfi_target);
	sink += fp_caller();
	sink += deep(400);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	if (sigaction(SIGUSR1, &sa, NULL))
		die("unwind_rec: sigaction");
	sink += rec_sig();
	return 0;
}
