/* OProfile's text layout that every report prints with (opreport's
 * summary, symbol lists and differential report, the call graph, the
 * session's warnings): its percentages and its left-aligned columns. */
#ifndef PP_FORMAT_H
#define PP_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* OProfile's percentage format, into buf (at least 16 bytes): four
 * decimals in seven columns, fewer when that does not fit ("100.000"),
 * and a bare "0" for zero. */
void pp_format_percent(char *buf, size_t len, double value);

/* n as a percentage of total, 0 when total is 0. */
double pp_percent(uint64_t n, uint64_t total);

/* A left-aligned column: the text, padded to width, or followed by one
 * space when it does not fit (as OProfile does). */
void pp_put_col(FILE *out, const char *s, int width);

#endif /* PP_FORMAT_H */
