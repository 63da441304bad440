/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_GNUPLOT_H
#define SB_GNUPLOT_H

/*
 * gnuplot itself, for every chart writer (sb_plot.c, sb_plot_time.c,
 * sb_plot_findmax.c): finding and running the program, and writing
 * strings, file names and numbers into its scripts.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Finds the gnuplot program: $SB_GNUPLOT or the configured one, as a path
 * or, without a slash, on $PATH. Returns 0 with the full path in buf, or
 * -1 with the name that was looked for in buf. */
int sb_plot_find_gnuplot(char *buf, size_t len);

/*
 * Runs gnuplot on the script file `script`, its error output going to
 * errpath. Returns 0, or -1 with one line in err (quoting gnuplot's
 * error when it failed).
 */
int sb_plot_gnuplot(const char *script, const char *errpath, char *err, size_t errlen);

/* gnuplot script helpers shared by the chart writers (sb_plot.c,
 * sb_plot_time.c, sb_plot_findmax.c). sb_plot_gp_str writes s as a single-quoted gnuplot
 * string (quotes doubled, control characters as spaces); sb_plot_gp_num
 * writes " v", or " NaN" for a non-finite v (a gap in a line). */
void sb_plot_gp_str(FILE *f, const char *s);
/* sb_plot_gp_path writes s as a gnuplot string expression that keeps
 * every byte, control characters included (for file names). */
void sb_plot_gp_path(FILE *f, const char *s);
void sb_plot_gp_num(FILE *f, double v);

/*
 * A gnuplot job: charts drawn from templates. The script is written into
 * a new private temporary directory under $TMPDIR (or /tmp), together
 * with the data files the charts read. A chart's script is a preamble of
 * gnuplot variable assignments (OUT, W, H, SVG, TITLE, ...: strings quoted
 * by sb_plot_gp_str or sb_plot_gp_path, numbers formatted), then the text
 * of its template file copied unchanged. Templates are plain gnuplot that
 * read those variables and the data files (D . 'name.dat'); nothing is
 * substituted into their text, so a label cannot become a command.
 *
 * Errors while writing are remembered in the job and reported by
 * sb_gnuplot_finish, so chart writers need not check every call.
 */
struct sb_gnuplot_job {
    char dir[PATH_MAX];          /* the private directory */
    char script[PATH_MAX + 32];  /* the script in it */
    FILE *f;                     /* the script being written; NULL after an error */
    char err[512];               /* the first error, "" if none */
};

/*
 * The directory of the chart templates: $SB_PLOT_TEMPLATES when set (for
 * restyling charts), the source tree's when this program runs from the
 * build tree (as the bundled Lua scripts are found), else the installed
 * one (pkgdatadir/plot).
 */
const char *sb_gnuplot_template_dir(void);

/* The name of a side chart beside --plot's PATH: FILE.png -> FILE-SUFFIX.png
 * (or .svg) in buf; *svg says which. Returns false, with buf unset, when
 * PATH does not end in .png or .svg. */
bool sb_gnuplot_side_name(const char *path, const char *suffix, char *buf, size_t len,
                          bool *svg);

/* Makes the directory and opens the script script_name in it, starting
 * with D = the directory (with a trailing slash). Returns 0, or -1 with
 * err set (nothing is left behind). */
int sb_gnuplot_begin(struct sb_gnuplot_job *j, const char *script_name, char *err,
                     size_t errlen);

/* Opens the data file name (a plain file name) in the job's directory
 * for writing. Returns the stream, to be closed by sb_gnuplot_data_close,
 * or NULL with the error remembered. */
FILE *sb_gnuplot_data(struct sb_gnuplot_job *j, const char *name);
void sb_gnuplot_data_close(struct sb_gnuplot_job *j, FILE *d);

/* Starts a chart: writes reset, OUT, SVG, W, H, TITLE and NOTE into
 * the script (the variables common.gp reads), then copies common.gp.
 * The note (a line under the title saying what the chart draws) is ""
 * for sb_gnuplot_chart. */
void sb_gnuplot_chart(struct sb_gnuplot_job *j, const char *out, bool svg, int w, int h,
                      const char *title);
void sb_gnuplot_chart_noted(struct sb_gnuplot_job *j, const char *out, bool svg, int w, int h,
                            const char *title, const char *note);

/* Copies the template file name (e.g. "throughput.gp") from
 * sb_gnuplot_template_dir() into the script. */
void sb_gnuplot_template(struct sb_gnuplot_job *j, const char *name);

/* Variable assignments for the preamble: NAME = value. A NaN number is
 * written as NaN (the templates test it with v == v). */
void sb_gnuplot_set_str(struct sb_gnuplot_job *j, const char *var, const char *s);
void sb_gnuplot_set_num(struct sb_gnuplot_job *j, const char *var, double v);
/* NAME[i] = value, for an array declared with "array NAME[n]". */
void sb_gnuplot_set_str_at(struct sb_gnuplot_job *j, const char *var, size_t i, const char *s);
void sb_gnuplot_set_num_at(struct sb_gnuplot_job *j, const char *var, size_t i, double v);
/* Declares "array NAME[n]" (n >= 1 even when empty: gnuplot refuses 0). */
void sb_gnuplot_array(struct sb_gnuplot_job *j, const char *var, size_t n);

/*
 * Closes the script, runs gnuplot on it and checks that each of the nout
 * files in outs was written. The directory is removed afterwards, except
 * when kept is not NULL, SB_PLOT_KEEP is set and the charts were drawn:
 * then kept (keptlen bytes) names the script left in place with its data
 * files. Returns 0, or -1 with err set (the first error of the job, or
 * gnuplot's).
 */
int sb_gnuplot_finish(struct sb_gnuplot_job *j, const char *const *outs, size_t nout,
                      char *kept, size_t keptlen, char *err, size_t errlen);

#endif /* SB_GNUPLOT_H */
