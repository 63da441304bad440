#ifndef SB_GNUPLOT_H
#define SB_GNUPLOT_H

/*
 * gnuplot itself, for every chart writer (sb_plot.c, sb_plot_time.c,
 * sb_plot_findmax.c): finding and running the program, and writing
 * strings, file names and numbers into its scripts.
 */

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

/* Writes a chart's gnuplot script (write(f, arg, name, svg)). */
typedef void (*sb_gnuplot_write_fn)(FILE *f, const void *arg, const char *name, bool svg);

/*
 * Draws the chart name: writes its script (script_name) with write into a new temporary
 * directory under $TMPDIR (or /tmp), runs gnuplot on it and checks that
 * name was written. The directory is removed afterwards, except when kept
 * is not NULL, SB_PLOT_KEEP is set and the chart was drawn: then kept
 * (keptlen bytes) names the script left in place. Returns 0, or -1 with
 * err set.
 */
int sb_gnuplot_render(const char *name, bool svg, const char *script_name,
                      sb_gnuplot_write_fn write, const void *arg, char *kept, size_t keptlen, char *err, size_t errlen);

#endif /* SB_GNUPLOT_H */
