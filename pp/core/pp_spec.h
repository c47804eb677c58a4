/* Profile specifications: OProfile's "tag:value" words that say which
 * sample files a report reads.
 *
 *   archive:DIR             an oparchive directory, read as pp_archive.h
 *                           says: its session and binaries
 *   session:NAME,...        saved sessions (globs), default "current"
 *   session-exclude:NAME,...
 *   image:PATH,...          the application image (globs; a pattern without
 *                           '/' matches the basename); a word with no tag is
 *                           an image too, as in OProfile
 *   image-exclude:PATH,...
 *   lib-image:PATH,...      the image samples fell in, when it is a
 *                           dependent image (library, kernel) of the app
 *   event:NAME,...  count:N,...  unit-mask:N,...
 *   cpu:N,...  tgid:N,...  tid:N,...   numbers and ranges "A-B"
 *   container:NAME,...      the processes of a container: its name
 *                           (op_cgroup_name()) or its cgroup path (globs;
 *                           a pattern without '/' matches the path's last
 *                           component too); needs files separated by
 *                           thread, whose TGID names the process
 *
 * Every list is a comma list; an empty element, an unknown tag, a tag given
 * twice, a bad number or a reversed range is refused with a message naming
 * the word. A spec only filters: deciding the columns is pp_class.h's job.
 */
#ifndef PP_SPEC_H
#define PP_SPEC_H

#include <stdbool.h>
#include <stddef.h>

struct op_sfname;

struct pp_strlist {
	char **v;
	size_t n, cap;
	bool given;		/* the tag appeared */
};

struct pp_range {
	unsigned long lo, hi;	/* inclusive */
};

struct pp_rangelist {
	struct pp_range *v;
	size_t n, cap;
	bool given;
};

struct pp_spec {
	struct pp_strlist session, session_exclude;
	struct pp_strlist image, image_exclude, lib_image, event, container;
	struct pp_rangelist count, unit_mask, cpu, tgid, tid;
	char *archive;		/* archive:'s directory, made absolute, or NULL */
	char *text;		/* the words joined by spaces, for XML */
};

/* Parse argv[0..argc). Returns 0, -ENOMEM, or -EINVAL with a message in err
 * naming the offending word. On failure s is released. */
int pp_spec_parse(int argc, const char *const *argv, struct pp_spec *s,
		  char *err, size_t errlen);

void pp_spec_release(struct pp_spec *s);

/* True when the session name (a directory under samples/) is selected. */
bool pp_spec_match_session(const struct pp_spec *s, const char *name);

/* True when the sample file named n is selected (everything but session). */
bool pp_spec_match_file(const struct pp_spec *s, const struct op_sfname *n);

/* True when a process in the cgroup of that name and path is selected
 * (always without container:). */
bool pp_spec_match_cgroup(const struct pp_spec *s, const char *name,
			  const char *path);

/* Whether argv holds a '{' or a '}': a differential specification (which
 * only opreport takes). */
bool pp_spec_is_diff(int argc, const char *const *argv);

/* Split "{ A } { B }" for a differential report. Returns 0 when argv holds
 * no '{' (not differential: *is_diff false), 0 with the two halves as
 * [a0, a0+an) and [b0, b0+bn) (indices into argv), or -EINVAL with a
 * message for unbalanced, nested or extra braces or words outside them. */
int pp_spec_split_diff(int argc, const char *const *argv, bool *is_diff,
		       int *a0, int *an, int *b0, int *bn,
		       char *err, size_t errlen);

#endif /* PP_SPEC_H */
