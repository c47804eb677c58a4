/* The decoder: a loop over samples with a table of escape handlers. Kept
 * apart from the sample files so a stream can be checked word by word in
 * tests, and so the hot loop (a sample: two words and one call) stays
 * small. */
#include "config.h"
#include "opd_decode.h"

#include <string.h>

#include "op_proto.h"

static const char *const bad_names[OPD_NR_BAD_KINDS] = {
	[OPD_BAD_UNKNOWN_CODE] = "unknown escape code",
	[OPD_BAD_TRUNCATED] = "truncated sequence",
	[OPD_BAD_NO_CONTEXT] = "sample with no context",
	[OPD_BAD_EVENT] = "sample with an event index out of range",
	[OPD_BAD_ARG] = "argument out of range",
};

static void bad(struct opd_decoder *dec, enum opd_bad_kind kind, uint64_t detail)
{
	dec->nr_bad++;
	dec->nr_bad_kind[kind]++;
	if (dec->logged[kind])
		return;
	dec->logged[kind] = true;
	op_log(dec->log, OP_LOG_WARN,
	       "decoder: %s (word 0x%llx); skipping to the next escape, further ones only counted",
	       bad_names[kind], (unsigned long long)detail);
}

static void clear_transient(struct opd_transient *t)
{
	*t = (struct opd_transient){
		.cpu = -1,
		.tgid = -1,
		.tid = -1,
		.app_cookie = OP_NO_COOKIE,
		.cookie = OP_NO_COOKIE,
	};
}

/* Forget the current context: the next samples need new switches. */
static void opd_decoder_reset_context(struct opd_decoder *dec)
{
	clear_transient(&dec->t);
	for (size_t c = 0; c < OPD_MAX_CPUS; c++)
		dec->saved[c].cpu = -1;
}

void opd_decoder_init(struct opd_decoder *dec, const struct opd_decode_ops *ops,
		      void *ctx, uint32_t nr_events, const struct op_logger *log)
{
	memset(dec, 0, sizeof(*dec));
	dec->ops = ops;
	dec->ctx = ctx;
	dec->nr_events = nr_events;
	dec->log = log;
	opd_decoder_reset_context(dec);
}

/* The chain in progress ends: at TRACE_END (complete), or because the
 * stream broke it off. */
static void end_trace(struct opd_decoder *dec, bool complete)
{
	bool started = dec->t.trace == OPD_TRACE_CALLERS;

	dec->t.trace = OPD_TRACE_NONE;
	if (started && dec->ops->trace_end)
		dec->ops->trace_end(dec->ctx, &dec->t, complete);
}

/* Handlers get the arguments (already checked present and not escapes) and
 * return false when an argument is out of range. */
typedef bool (*handler_fn)(struct opd_decoder *dec, const uint64_t *args);

static bool h_ctx_switch(struct opd_decoder *dec, const uint64_t *args)
{
	if (args[0] > INT32_MAX)
		return false;
	dec->t.tid = (int)args[0];
	dec->t.app_cookie = args[1];
	dec->t.have_ctx = true;
	/* a new task: its images come with it; until CTX_TGID arrives the
	 * tgid is the tid's (a thread-group leader), the usual case */
	dec->t.tgid = (int)args[0];
	dec->t.cookie = OP_NO_COOKIE;
	return true;
}

static bool h_ctx_tgid(struct opd_decoder *dec, const uint64_t *args)
{
	if (args[0] > INT32_MAX)
		return false;
	dec->t.tgid = (int)args[0];
	return true;
}

static bool h_cookie_switch(struct opd_decoder *dec, const uint64_t *args)
{
	dec->t.cookie = args[0];
	return true;
}

/* Each CPU's records continue where that CPU's last batch ended (task,
 * image, mode), so the transient is saved per CPU on a switch and restored
 * when the stream comes back to it. A stream that repeats the task switch
 * after every CPU_SWITCH simply overrides what was restored. */
static bool h_cpu_switch(struct opd_decoder *dec, const uint64_t *args)
{
	if (args[0] >= OPD_MAX_CPUS)
		return false;
	if (dec->t.cpu >= 0)
		dec->saved[dec->t.cpu] = dec->t;
	if (dec->saved[args[0]].cpu == (int)args[0]) {
		dec->t = dec->saved[args[0]];
	} else {
		clear_transient(&dec->t);
		dec->t.cpu = (int)args[0];
	}
	return true;
}

static bool h_kernel_enter(struct opd_decoder *dec, const uint64_t *args)
{
	(void)args;
	dec->t.in_kernel = true;
	return true;
}

static bool h_user_enter(struct opd_decoder *dec, const uint64_t *args)
{
	(void)args;
	dec->t.in_kernel = false;
	return true;
}

static bool h_module_loaded(struct opd_decoder *dec, const uint64_t *args)
{
	(void)args;
	dec->nr_module_loads++;
	if (dec->ops->module_loaded)
		dec->ops->module_loaded(dec->ctx);
	return true;
}

static bool h_trace_begin(struct opd_decoder *dec, const uint64_t *args)
{
	(void)args;
	dec->t.trace = OPD_TRACE_SAMPLE;
	return true;
}

static bool h_trace_end(struct opd_decoder *dec, const uint64_t *args)
{
	(void)args;
	end_trace(dec, true);
	return true;
}

/* The codes that may come inside a chain at its point trace: where its
 * next frame lies, and before its sample SAMPLE_COUNT, how many samples it
 * stands for. Any other breaks the chain off. */
static bool in_chain(uint64_t code, enum opd_trace trace)
{
	return code == OP_KERNEL_ENTER || code == OP_USER_ENTER ||
	       code == OP_COOKIE_SWITCH || code == OP_TRACE_END ||
	       (code == OP_SAMPLE_COUNT && trace == OPD_TRACE_SAMPLE);
}

static bool h_dropped(struct opd_decoder *dec, const uint64_t *args)
{
	int cpu = dec->t.cpu;

	dec->nr_dropped += args[0];
	if (cpu >= 0)
		dec->nr_dropped_cpu[cpu] += args[0];
	return true;
}

/* The count of the sample that must come next; any other word breaks it
 * off (opd_decode()). */
static bool h_sample_count(struct opd_decoder *dec, const uint64_t *args)
{
	if (args[0] < 2 || args[0] > UINT32_MAX)
		return false;
	dec->next_count = (uint32_t)args[0];
	return true;
}

static const handler_fn handlers[OP_NR_CODES] = {
	[OP_CTX_SWITCH] = h_ctx_switch,
	[OP_CTX_TGID] = h_ctx_tgid,
	[OP_COOKIE_SWITCH] = h_cookie_switch,
	[OP_CPU_SWITCH] = h_cpu_switch,
	[OP_KERNEL_ENTER] = h_kernel_enter,
	[OP_USER_ENTER] = h_user_enter,
	[OP_MODULE_LOADED] = h_module_loaded,
	[OP_TRACE_BEGIN] = h_trace_begin,
	[OP_TRACE_END] = h_trace_end,
	[OP_DROPPED] = h_dropped,
	[OP_SAMPLE_COUNT] = h_sample_count,
};

/* Index of the next escape at or after i, or n. */
static size_t next_escape(const uint64_t *w, size_t i, size_t n)
{
	while (i < n && w[i] != OP_ESCAPE_CODE)
		i++;
	return i;
}

void opd_decode(struct opd_decoder *dec, const uint64_t *w, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (w[i] != OP_ESCAPE_CODE) {
			uint64_t pc = w[i];
			uint64_t ev;
			uint32_t count = dec->next_count ? dec->next_count : 1;

			dec->next_count = 0;
			if (i + 1 >= n || w[i + 1] == OP_ESCAPE_CODE) {
				bad(dec, OPD_BAD_TRUNCATED, pc);
				i = next_escape(w, i + 1, n);
				continue;
			}
			ev = w[i + 1];
			i += OP_SAMPLE_WORDS;
			if (ev >= dec->nr_events) {
				bad(dec, OPD_BAD_EVENT, ev);
				i = next_escape(w, i, n);
				continue;
			}
			if (dec->t.cpu < 0 || !dec->t.have_ctx ||
			    (!dec->t.in_kernel && dec->t.cookie == OP_NO_COOKIE)) {
				bad(dec, OPD_BAD_NO_CONTEXT, pc);
				i = next_escape(w, i, n);
				continue;
			}
			dec->t.event = (uint32_t)ev;
			if (dec->t.trace == OPD_TRACE_CALLERS) {
				/* no count comes among the callers (it
				 * would have ended the chain): each counts
				 * as the chain's sample, t.count; nr_callers
				 * counts the stream's words, not samples */
				dec->nr_callers++;
				if (dec->ops->caller)
					dec->ops->caller(dec->ctx, &dec->t, pc);
				continue;
			}
			dec->t.count = count;
			dec->nr_samples += count;
			dec->nr_samples_cpu[dec->t.cpu] += count;
			dec->ops->sample(dec->ctx, &dec->t, pc, count);
			if (dec->t.trace == OPD_TRACE_SAMPLE)
				dec->t.trace = OPD_TRACE_CALLERS;
			continue;
		}

		/* an escape: code, then its arguments */
		if (dec->next_count) {
			/* a SAMPLE_COUNT with no sample after it */
			bad(dec, OPD_BAD_TRUNCATED, OP_SAMPLE_COUNT);
			dec->next_count = 0;
		}
		if (i + 1 >= n) {
			bad(dec, OPD_BAD_TRUNCATED, OP_ESCAPE_CODE);
			return;
		}
		uint64_t code = w[i + 1];
		int nr_args = op_code_nr_args(code);

		if (code == OP_ESCAPE_CODE) {
			/* an escape cut short by another: resync on the second */
			bad(dec, OPD_BAD_TRUNCATED, code);
			i += 1;
			continue;
		}
		if (nr_args < 0 || !handlers[code]) {
			bad(dec, OPD_BAD_UNKNOWN_CODE, code);
			i = next_escape(w, i + 2, n);
			continue;
		}
		const uint64_t *args = &w[i + 2];
		size_t avail = n - (i + 2);
		bool cut = avail < (size_t)nr_args;

		for (int a = 0; !cut && a < nr_args; a++)
			cut = args[a] == OP_ESCAPE_CODE;
		if (cut) {
			bad(dec, OPD_BAD_TRUNCATED, code);
			i = next_escape(w, i + 2, n);
			continue;
		}
		i += 2 + (size_t)nr_args;
		if (dec->t.trace != OPD_TRACE_NONE && !in_chain(code, dec->t.trace)) {
			bad(dec, OPD_BAD_TRUNCATED, code);
			end_trace(dec, false);
		}
		if (!handlers[code](dec, args)) {
			bad(dec, OPD_BAD_ARG, code);
			i = next_escape(w, i, n);
		}
	}
	if (dec->next_count) {
		/* the buffer ends between a SAMPLE_COUNT and its sample,
		 * which kop_evbuf_read() never splits */
		bad(dec, OPD_BAD_TRUNCATED, OP_SAMPLE_COUNT);
		dec->next_count = 0;
	}
}
