/* What the symbol view's rooms share (pp_symview.c builds the view,
 * pp_symview_warn.c finds its images and warns about them as OProfile
 * does); readers go through pp_symview.h. */
#ifndef PP_SYMVIEW_ROOMS_H
#define PP_SYMVIEW_ROOMS_H

#include <stdbool.h>
#include <stddef.h>

#include "op_log.h"
#include "pp_options.h"
#include "pp_profile.h"
#include "pp_symview.h"

/* The image of name (its long name) as OProfile finds it: a malloc'd
 * path, or NULL. An anonymous region is never found. */
char *pp_symview_find_image(const struct op_img *img, const char *name,
			    const struct pp_report_opts *o);
bool pp_symview_image_found(const struct op_img *img, const char *name,
			    const struct pp_report_opts *o);
/* When img (name) lies in the session read (o->sd) behind a symbolic
 * link, which pp_symview_find_image() refused: say which, through lg. */
void pp_symview_session_link(const struct op_img *img, const char *name,
			     const struct pp_report_opts *o,
			     const struct op_logger *lg);

/* The first image of each long name in *out, sorted as OProfile lists
 * them: by its name, in byte order. Returns how many, or -ENOMEM. */
long pp_symview_images_by_name(const struct pp_symview *v,
			       const struct pp_profile *p, size_t **out);

/* OProfile's warnings, in the order of ord (n images from
 * pp_symview_images_by_name()): the images it cannot find, then those it
 * found but cannot read, or whose mtime differs from their samples'. */
void pp_symview_warn_missing(const struct pp_symview *v,
			     const struct pp_profile *p, const size_t *ord,
			     size_t n, const struct pp_report_opts *o,
			     const struct op_logger *lg,
			     struct pp_report_status *st);
void pp_symview_warn_unusable(const struct pp_symview *v,
			      const struct pp_profile *p, const size_t *ord,
			      size_t n, const struct pp_report_opts *o,
			      const struct op_logger *lg,
			      struct pp_report_status *st);

/* Ours after OProfile's: each binary read without a symbol table, named
 * once with its build-id (pp_debuginfod_warn_no_symbols()). */
void pp_symview_warn_no_symbols(const struct pp_symview *v,
				const struct pp_profile *p, const size_t *ord,
				size_t n, const struct pp_report_opts *o,
				struct pp_report_status *st);

#endif /* PP_SYMVIEW_ROOMS_H */
