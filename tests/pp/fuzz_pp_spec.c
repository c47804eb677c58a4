/* fuzz-sources: pp/core/pp_spec.c pp/core/pp_classify.c libop/op_cgroups.c libop/op_names.c libop/op_sums.c libop/op_afile.c libop/op_sessdir.c libop/op_sessdir_dir.c libop/odb.c libop/op_log.c */
/* Fuzz opreport's command-line parsers: the profile specification (words
 * split on spaces), its differential split, and --merge. Every input must
 * be refused cleanly or parsed, never crash or leak. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "op_names.h"
#include "pp_profile.h"
#include "pp_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *save = NULL;
	const char *words[64];
	int n = 0, a0, an, b0, bn;
	struct pp_spec spec;
	struct pp_merge m = { 0 };
	const char *bad;
	bool is_diff;
	char err[256];

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	pp_merge_parse(buf, &m, &bad);
	for (char *w = strtok_r(buf, " \n", &save); w && n < 64;
	     w = strtok_r(NULL, " \n", &save))
		words[n++] = w;
	if (!pp_spec_split_diff(n, words, &is_diff, &a0, &an, &b0, &bn, err,
				sizeof(err)) && is_diff) {
		if (!pp_spec_parse(an, words + a0, &spec, err, sizeof(err)))
			pp_spec_release(&spec);
		if (!pp_spec_parse(bn, words + b0, &spec, err, sizeof(err)))
			pp_spec_release(&spec);
	} else if (!pp_spec_parse(n, words, &spec, err, sizeof(err))) {
		struct op_sfname sf;

		if (!op_sfname_parse("{root}/bin/ls/{dep}/{root}/bin/ls/TIMER.100000.0.12.13.1",
				     &sf)) {
			pp_spec_match_file(&spec, &sf);
			op_sfname_release(&sf);
		}
		pp_spec_match_session(&spec, "current");
		pp_spec_release(&spec);
	}
	free(buf);
	return 0;
}
