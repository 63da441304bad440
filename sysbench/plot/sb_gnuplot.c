/*
 * Running gnuplot and writing values into its scripts; see sb_gnuplot.h.
 */
#include "config.h"

#include "plot/sb_gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
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

int sb_gnuplot_render(const char *name, bool svg, const char *script_name,
                      sb_gnuplot_write_fn write, const void *arg, char *kept, size_t keptlen, char *err, size_t errlen)
{
    char tmpl[PATH_MAX], script[PATH_MAX + 32], errpath[PATH_MAX + 32];
    const char *tmproot = getenv("TMPDIR");
    struct stat st;
    FILE *f;
    int rc = -1;

    snprintf(tmpl, sizeof(tmpl), "%s/sysbench-plot.XXXXXX",
             tmproot != NULL && *tmproot ? tmproot : "/tmp");
    if (mkdtemp(tmpl) == NULL) {
        snprintf(err, errlen, "cannot create a temporary directory for gnuplot (%s): %s", tmpl,
                 strerror(errno));
        return -1;
    }
    snprintf(script, sizeof(script), "%s/%s", tmpl, script_name);
    snprintf(errpath, sizeof(errpath), "%s/gnuplot.err", tmpl);
    f = fopen(script, "w");
    if (f == NULL) {
        snprintf(err, errlen, "cannot write '%s': %s", script, strerror(errno));
        goto out;
    }
    write(f, arg, name, svg);
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "cannot write '%s': %s", script, strerror(errno));
        goto out;
    }
    if (sb_plot_gnuplot(script, errpath, err, errlen) != 0)
        goto out;
    if (stat(name, &st) != 0 || st.st_size == 0) {
        snprintf(err, errlen, "gnuplot did not write '%s'", name);
        goto out;
    }
    rc = 0;
out:
    if (kept != NULL && rc == 0 && getenv("SB_PLOT_KEEP") != NULL) {
        snprintf(kept, keptlen, "%s", script);
        return rc;
    }
    unlink(script);
    unlink(errpath);
    rmdir(tmpl);
    return rc;
}
