/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running gnuplot and writing values into its scripts; see sb_gnuplot.h.
 */
#include "config.h"

#include "plot/sb_gnuplot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Finds the gnuplot program: $SB_GNUPLOT or the configured one, as a path
 * or, without a slash, on $PATH. Returns 0 with the full path in buf, or
 * -1 with the name that was looked for in buf. */
int sb_plot_find_gnuplot(char *buf, size_t len)
{
    const char *prog = getenv("SB_GNUPLOT");
    const char *path = getenv("PATH");

    if (prog == NULL || *prog == '\0')
        prog = SB_GNUPLOT;
    snprintf(buf, len, "%s", prog);
    if (strchr(prog, '/') != NULL)
        return access(prog, X_OK) == 0 ? 0 : -1;
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t dl = strcspn(p, ":");
        snprintf(buf, len, "%.*s/%s", (int)dl, dl ? p : ".", prog);
        if (access(buf, X_OK) == 0)
            return 0;
        p += dl;
        if (*p == ':')
            p++;
    }
    snprintf(buf, len, "%s", prog);
    return -1;
}

/* Writes s as a gnuplot single-quoted string: quotes doubled, control
 * characters (which would end the command) replaced by spaces. */
void sb_plot_gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("''", f);
        else if ((unsigned char)*s < 0x20)
            fputc(' ', f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* Writes s as a gnuplot string expression that keeps every byte, for file
 * names: a single-quoted string cannot hold a control character (a newline
 * would end the command), so each one is joined on as an octal escape in a
 * double-quoted string ('a' . "\012" . 'b'). Nothing else goes into double
 * quotes, where gnuplot would run a `command` in backquotes. */
void sb_plot_gp_path(FILE *f, const char *s)
{
    bool open = false, first = true;

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20) {
            fprintf(f, "%s%s\"\\%03o\"", open ? "'" : "", first ? "" : " . ", c);
            open = false;
        } else {
            if (!open)
                fputs(first ? "'" : " . '", f);
            open = true;
            if (c == '\'')
                fputc('\'', f);
            fputc(c, f);
        }
        first = false;
    }
    fputs(first ? "''" : open ? "'" : "", f);
}

/* A number for a data block; NaN leaves a gap in lines and no bar. */
void sb_plot_gp_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fputs(" NaN", f);
    else
        fprintf(f, " %.10g", v);
}

/* Runs gnuplot on script (no shell), its error output into errpath.
 * Returns 0, or -1 with err quoting gnuplot's first error line. */
int sb_plot_gnuplot(const char *script, const char *errpath, char *err, size_t errlen)
{
    char prog[PATH_MAX];
    pid_t pid;
    int status;

    if (sb_plot_find_gnuplot(prog, sizeof(prog)) != 0) {
        snprintf(err, errlen, "--plot needs gnuplot, which was not found (looked for '%s'); "
                 "install it (Debian: apt-get install gnuplot-nox) or set SB_GNUPLOT", prog);
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start gnuplot: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDWR);
        int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char *const argv[] = {prog, (char *)script, NULL};
        if (in >= 0) {
            dup2(in, 0);
            dup2(in, 1);
        }
        if (e >= 0)
            dup2(e, 2);
        execv(prog, argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(err, errlen, "cannot wait for gnuplot: %s", strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    {
        char line[512] = "";
        FILE *ef = fopen(errpath, "r");
        /* gnuplot repeats the offending command before the message; the
         * line with the message is the most useful one to quote. */
        if (ef != NULL) {
            char buf[512];
            while (fgets(buf, sizeof(buf), ef) != NULL) {
                buf[strcspn(buf, "\n")] = '\0';
                if (strstr(buf, "rror") != NULL || strstr(buf, "line ") != NULL || line[0] == '\0')
                    snprintf(line, sizeof(line), "%s", buf);
                if (strstr(buf, "rror") != NULL)
                    break;
            }
            fclose(ef);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && line[0] == '\0')
            snprintf(err, errlen, "cannot run gnuplot '%s'", prog);
        else if (WIFEXITED(status))
            snprintf(err, errlen, "gnuplot failed (exit status %d)%s%s", WEXITSTATUS(status),
                     line[0] ? ": " : "", line);
        else
            snprintf(err, errlen, "gnuplot was killed by signal %d", WTERMSIG(status));
    }
    return -1;
}

const char *sb_gnuplot_template_dir(void)
{
    const char *env = getenv("SB_PLOT_TEMPLATES");
    char exe[PATH_MAX];
    ssize_t n;

    if (env != NULL && *env)
        return env;
    /* Any program of the build tree (sysbench, the unit tests) reads the
     * templates from the source tree, so that they need no install. */
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        if (strncmp(exe, SB_ABS_BUILDDIR "/", strlen(SB_ABS_BUILDDIR) + 1) == 0)
            return SB_ABS_SRCDIR "/sysbench/plot/templates";
    }
    return PKGDATADIR "/plot";
}

/* Remembers the first error of the job and stops writing the script. */
static void job_fail(struct sb_gnuplot_job *j, const char *what, const char *name)
{
    if (j->err[0] == '\0')
        snprintf(j->err, sizeof(j->err), "%s '%s': %s", what, name, strerror(errno));
    if (j->f != NULL) {
        fclose(j->f);
        j->f = NULL;
    }
}

/* Removes the job's directory and everything in it (only plain files,
 * which are all this code puts there). */
static void job_remove(struct sb_gnuplot_job *j)
{
    DIR *d = opendir(j->dir);
    struct dirent *e;
    char path[PATH_MAX + 300];

    if (d != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof(path), "%s/%s", j->dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(j->dir);
}

int sb_gnuplot_begin(struct sb_gnuplot_job *j, const char *script_name, char *err,
                     size_t errlen)
{
    const char *tmproot = getenv("TMPDIR");
    char dir[PATH_MAX + 2];

    memset(j, 0, sizeof(*j));
    snprintf(j->dir, sizeof(j->dir), "%s/sysbench-plot.XXXXXX",
             tmproot != NULL && *tmproot ? tmproot : "/tmp");
    if (mkdtemp(j->dir) == NULL) {
        snprintf(err, errlen, "cannot create a temporary directory for gnuplot (%s): %s", j->dir,
                 strerror(errno));
        return -1;
    }
    snprintf(j->script, sizeof(j->script), "%s/%s", j->dir, script_name);
    j->f = fopen(j->script, "w");
    if (j->f == NULL) {
        snprintf(err, errlen, "cannot write '%s': %s", j->script, strerror(errno));
        rmdir(j->dir);
        return -1;
    }
    snprintf(dir, sizeof(dir), "%s/", j->dir);
    /* Where the templates came from, for whoever restyles the charts. */
    fputs("# sysbench --plot: templates from ", j->f);
    sb_plot_gp_str(j->f, sb_gnuplot_template_dir());
    fputc('\n', j->f);
    sb_gnuplot_set_str(j, "D", NULL);
    sb_plot_gp_path(j->f, dir);
    fputc('\n', j->f);
    return 0;
}

FILE *sb_gnuplot_data(struct sb_gnuplot_job *j, const char *name)
{
    char path[PATH_MAX + 300];
    FILE *d;

    if (j->err[0] != '\0')
        return NULL;
    snprintf(path, sizeof(path), "%s/%s", j->dir, name);
    d = fopen(path, "w");
    if (d == NULL)
        job_fail(j, "cannot write", path);
    return d;
}

void sb_gnuplot_data_close(struct sb_gnuplot_job *j, FILE *d)
{
    if (d != NULL && (ferror(d) | (fclose(d) != 0)))
        job_fail(j, "cannot write a data file in", j->dir);
}

void sb_gnuplot_template(struct sb_gnuplot_job *j, const char *name)
{
    char path[PATH_MAX + 300], buf[4096];
    FILE *t;
    size_t n;

    if (j->f == NULL)
        return;
    snprintf(path, sizeof(path), "%s/%s", sb_gnuplot_template_dir(), name);
    t = fopen(path, "r");
    if (t == NULL) {
        job_fail(j, "cannot read the chart template", path);
        /* The usual cause: a binary moved away from its install. */
        snprintf(j->err + strlen(j->err), sizeof(j->err) - strlen(j->err),
                 " (installed with sysbench in %s; SB_PLOT_TEMPLATES=DIR names another)",
                 PKGDATADIR "/plot");
        return;
    }
    while ((n = fread(buf, 1, sizeof(buf), t)) > 0)
        fwrite(buf, 1, n, j->f);
    if (ferror(t))
        job_fail(j, "cannot read the chart template", path);
    fclose(t);
    if (j->f != NULL)
        fputc('\n', j->f);
}

void sb_gnuplot_chart(struct sb_gnuplot_job *j, const char *out, bool svg, int w, int h,
                      const char *title)
{
    sb_gnuplot_chart_noted(j, out, svg, w, h, title, "");
}

void sb_gnuplot_chart_noted(struct sb_gnuplot_job *j, const char *out, bool svg, int w, int h,
                            const char *title, const char *note)
{
    if (j->f == NULL)
        return;
    fputs("\nreset\nOUT = ", j->f);
    sb_plot_gp_path(j->f, out);
    fprintf(j->f, "\nSVG = %d\nW = %d\nH = %d\n", svg, w, h);
    sb_gnuplot_set_str(j, "TITLE", title);
    sb_gnuplot_set_str(j, "NOTE", note != NULL ? note : "");
    sb_gnuplot_template(j, "common.gp");
}

/* The string s quoted (NULL: only "VAR = ", for a value written after). */
void sb_gnuplot_set_str(struct sb_gnuplot_job *j, const char *var, const char *s)
{
    if (j->f == NULL)
        return;
    fprintf(j->f, "%s = ", var);
    if (s != NULL) {
        sb_plot_gp_str(j->f, s);
        fputc('\n', j->f);
    }
}

void sb_gnuplot_set_num(struct sb_gnuplot_job *j, const char *var, double v)
{
    if (j->f == NULL)
        return;
    fprintf(j->f, "%s =", var);
    sb_plot_gp_num(j->f, v);
    fputc('\n', j->f);
}

void sb_gnuplot_set_str_at(struct sb_gnuplot_job *j, const char *var, size_t i, const char *s)
{
    char name[128];

    snprintf(name, sizeof(name), "%s[%zu]", var, i);
    sb_gnuplot_set_str(j, name, s);
}

void sb_gnuplot_set_num_at(struct sb_gnuplot_job *j, const char *var, size_t i, double v)
{
    char name[128];

    snprintf(name, sizeof(name), "%s[%zu]", var, i);
    sb_gnuplot_set_num(j, name, v);
}

void sb_gnuplot_array(struct sb_gnuplot_job *j, const char *var, size_t n)
{
    if (j->f != NULL)
        fprintf(j->f, "array %s[%zu]\n", var, n > 0 ? n : 1);
}

int sb_gnuplot_finish(struct sb_gnuplot_job *j, const char *const *outs, size_t nout,
                      char *kept, size_t keptlen, char *err, size_t errlen)
{
    char errpath[PATH_MAX + 32];
    struct stat st;
    int rc = -1;

    if (j->f != NULL && (ferror(j->f) | (fclose(j->f) != 0))) {
        j->f = NULL;
        job_fail(j, "cannot write", j->script);
    }
    j->f = NULL;
    if (j->err[0] != '\0') {
        snprintf(err, errlen, "%s", j->err);
        goto out;
    }
    snprintf(errpath, sizeof(errpath), "%s/gnuplot.err", j->dir);
    /* No chart to draw (nothing had something to show): no gnuplot. */
    if (nout > 0 && sb_plot_gnuplot(j->script, errpath, err, errlen) != 0)
        goto out;
    for (size_t i = 0; i < nout; i++) {
        if (stat(outs[i], &st) != 0 || st.st_size == 0) {
            snprintf(err, errlen, "gnuplot did not write '%s'", outs[i]);
            goto out;
        }
    }
    rc = 0;
out:
    if (kept != NULL && rc == 0 && getenv("SB_PLOT_KEEP") != NULL) {
        snprintf(kept, keptlen, "%s", j->script);
        return rc;
    }
    job_remove(j);
    return rc;
}

bool sb_gnuplot_side_name(const char *path, const char *suffix, char *buf, size_t len,
                          bool *svg)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');

    if (dot == NULL || (slash != NULL && dot < slash) ||
        (strcasecmp(dot, ".png") != 0 && strcasecmp(dot, ".svg") != 0))
        return false;
    *svg = strcasecmp(dot, ".svg") == 0;
    snprintf(buf, len, "%.*s-%s%s", (int)(dot - path), path, suffix, dot);
    return true;
}
