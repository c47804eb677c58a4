/* Room in the arrays the pipeline appends to.
 *
 *	if (o->nr == o->cap) {
 *		struct rec *v = op_grow(o->v, o->nr + 1, &o->cap, 4096, sizeof(*v));
 *		if (!v)
 *			return -ENOMEM;
 *		o->v = v;
 *	}
 */
#ifndef OP_GROW_H
#define OP_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* v (of *cap elements of size bytes) reallocated to hold need > *cap: its
 * capacity doubled (from first when it has none) until it does. The array,
 * perhaps moved, with *cap updated; or NULL, v and *cap as they were (out
 * of memory, or a size past SIZE_MAX). */
static inline void *op_grow(void *v, size_t need, size_t *cap, size_t first,
			    size_t size)
{
	size_t ncap = *cap ? *cap : first;
	void *n;

	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return NULL;
		ncap *= 2;
	}
	if (!ncap || ncap > SIZE_MAX / size)
		return NULL;
	n = realloc(v, ncap * size);
	if (n)
		*cap = ncap;
	return n;
}

#endif /* OP_GROW_H */
