#include "config.h"
#include "stream_walk.h"

#include <errno.h>

#include "op_proto.h"

/* An escape sequence: w[0] is the code, its arguments follow. */
static void apply(struct stream_state *st, const uint64_t *w)
{
	switch (w[0]) {
	case OP_CPU_SWITCH:
		st->cpu = w[1];
		break;
	case OP_CTX_SWITCH:
		st->tid = w[1];
		st->app = w[2];
		break;
	case OP_CTX_TGID:
		st->tgid = w[1];
		break;
	case OP_COOKIE_SWITCH:
		st->cookie = w[1];
		break;
	case OP_KERNEL_ENTER:
		st->kernel = true;
		break;
	case OP_USER_ENTER:
		st->kernel = false;
		break;
	case OP_DROPPED:
		st->nr_dropped += w[1];
		break;
	case OP_SAMPLE_COUNT:
		st->count = w[1];
		break;
	}
}

int stream_walk(struct stream_state *st, const uint64_t *w, size_t nr,
		stream_sample_fn fn, void *ctx, size_t *bad_at)
{
	size_t i = 0;

	while (i < nr) {
		if (w[i] == OP_ESCAPE_CODE) {
			int nargs = i + 1 < nr ? op_code_nr_args(w[i + 1]) : -1;

			if (nargs < 0 || i + 2 + (size_t)nargs > nr || st->count)
				goto err_bad;
			if (w[i + 1] == OP_SAMPLE_COUNT &&
			    (w[i + 2] < 2 || w[i + 2] > UINT32_MAX))
				goto err_bad;
			apply(st, w + i + 1);
			i += 2 + (size_t)nargs;
			continue;
		}
		if (i + OP_SAMPLE_WORDS > nr)
			goto err_bad;
		uint64_t n = st->count ? st->count : 1;

		st->nr_samples += n;
		st->nr_counted += st->count;
		st->count = 0;
		for (uint64_t k = 0; fn && k < n; k++)
			fn(ctx, st, w[i], w[i + 1]);
		i += OP_SAMPLE_WORDS;
	}
	if (st->count)
		goto err_bad;	/* a read never ends inside a sequence */
	return 0;

err_bad:
	if (bad_at)
		*bad_at = i;
	return -EINVAL;
}
