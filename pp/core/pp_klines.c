/* The kernel's kallsyms lines, gathered for the call graph (pp_klines.h). */
#include "config.h"
#include "pp_klines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "op_grow.h"

struct klines *pp_klines_new(void)
{
	return calloc(1, sizeof(struct klines));
}

void pp_klines_free(struct klines *k)
{
	for (size_t i = 0; k && !k->borrowed && i < k->n; i++)
		free((char *)k->v[i].name);
	if (k)
		free(k->v);
	free(k);
}

int pp_klines_push(struct klines *k, uint64_t off, const char *name)
{
	if (k->n == k->alloc) {
		struct kline *v = op_grow(k->v, k->n + 1, &k->alloc, 4096, sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
	}
	k->v[k->n].off = off;
	k->v[k->n].name = name;
	k->n++;
	return 0;
}

int pp_klines_add(const struct op_ksym_line *l, void *arg)
{
	struct klines *k = arg;
	char *name;

	if (k->err)
		return 1;
	if (!op_kwalk_line(&k->walk, l))
		return k->walk.done;
	name = strndup(l->name, l->name_len);
	if (!name || pp_klines_push(k, l->addr - k->walk.text, name)) {
		free(name);
		k->err = -ENOMEM;
		return 1;
	}
	return 0;
}
