/* OProfile's percentages and columns (pp_format.h). */
#include "config.h"
#include "pp_format.h"

#include <string.h>

void pp_format_percent(char *buf, size_t len, double value)
{
	if (value == 0.0) {
		snprintf(buf, len, "0");
		return;
	}
	for (int prec = 4; prec >= 0; prec--) {
		int n = snprintf(buf, len, "%.*f", prec, value);

		if (n <= 7)
			return;
	}
}

double pp_percent(uint64_t n, uint64_t total)
{
	return total ? (double)n * 100.0 / (double)total : 0.0;
}

void pp_put_col(FILE *out, const char *s, int width)
{
	static const char spaces[] = "                                ";
	size_t len = strlen(s);

	fwrite(s, 1, len, out);
	if (len < (size_t)width && (size_t)width - len < sizeof(spaces))
		fwrite(spaces, 1, (size_t)width - len, out);
	else if (len < (size_t)width)
		fprintf(out, "%*s", width - (int)len, "");
	else
		fputc(' ', out);
}
