/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysbench 1.0.20's --help text; see sb_help10.h.
 */
#include "config/sb_help10.h"

#include <string.h>

/* One option line: "--NAME" TYPE, the description, the default or NULL. */
struct sb_help10_row {
    const char *name, *type, *desc, *def;
};

#define H10_END {NULL, NULL, NULL, NULL}

static const struct sb_help10_row general[] = {
    {"threads", "=N", "number of threads to use", "1"},
    {"events", "=N", "limit for total number of events", "0"},
    {"time", "=N", "limit for total execution time in seconds", "10"},
    {"forced-shutdown", "=STRING", "number of seconds to wait after the --time limit before "
     "forcing shutdown, or 'off' to disable", "off"},
    {"thread-stack-size", "=SIZE", "size of stack per thread", "64K"},
    {"rate", "=N", "average transactions rate. 0 for unlimited rate", "0"},
    {"report-interval", "=N", "periodically report intermediate statistics with a specified "
     "interval in seconds. 0 disables intermediate reports", "0"},
    {"report-checkpoints", "=[LIST,...]", "dump full statistics and reset all counters at "
     "specified points in time. The argument is a list of comma-separated values "
     "representing the amount of time in seconds elapsed from start of test when report "
     "checkpoint(s) must be performed. Report checkpoints are off by default.", ""},
    {"debug", "[=on|off]", "print more debugging info", "off"},
    {"validate", "[=on|off]", "perform validation checks where possible", "off"},
    {"help", "[=on|off]", "print help and exit", "off"},
    {"version", "[=on|off]", "print version and exit", "off"},
    {"config-file", "=FILENAME", "File containing command line options", NULL},
    {"tx-rate", "=N", "deprecated alias for --rate", "0"},
    {"max-requests", "=N", "deprecated alias for --events", "0"},
    {"max-time", "=N", "deprecated alias for --time", "0"},
    {"num-threads", "=N", "deprecated alias for --threads", "1"},
    H10_END
};

static const struct sb_help10_row rand_opts[] = {
    {"rand-type", "=STRING", "random numbers distribution {uniform,gaussian,special,pareto}",
     "special"},
    {"rand-spec-iter", "=N", "number of iterations used for numbers generation", "12"},
    {"rand-spec-pct", "=N", "percentage of values to be treated as 'special' (for special "
     "distribution)", "1"},
    {"rand-spec-res", "=N", "percentage of 'special' values to use (for special distribution)",
     "75"},
    {"rand-seed", "=N", "seed for random number generator. When 0, the current time is used "
     "as a RNG seed.", "0"},
    {"rand-pareto-h", "=N", "parameter h for pareto distribution", "0.2"},
    H10_END
};

static const struct sb_help10_row log_opts[] = {
    {"verbosity", "=N", "verbosity level {5 - debug, 0 - only critical messages}", "3"},
    H10_END
};

static const struct sb_help10_row oper_opts[] = {
    {"percentile", "=N", "percentile to calculate in latency statistics (1-100). Use the "
     "special value of 0 to disable percentile calculations", "95"},
    {"histogram", "[=on|off]", "print latency histogram in report", "off"},
    H10_END
};

static const struct sb_help10_row mysql_opts[] = {
    {"mysql-host", "=[LIST,...]", "MySQL server host", "localhost"},
    {"mysql-port", "=[LIST,...]", "MySQL server port", "3306"},
    {"mysql-socket", "=[LIST,...]", "MySQL socket", NULL},
    {"mysql-user", "=STRING", "MySQL user", "sbtest"},
    {"mysql-password", "=STRING", "MySQL password", ""},
    {"mysql-db", "=STRING", "MySQL database name", "sbtest"},
    {"mysql-ssl", "[=on|off]", "use SSL connections, if available in the client library", "off"},
    {"mysql-ssl-cipher", "=STRING", "use specific cipher for SSL connections", ""},
    {"mysql-compression", "[=on|off]", "use compression, if available in the client library",
     "off"},
    {"mysql-debug", "[=on|off]", "trace all client library calls", "off"},
    {"mysql-ignore-errors", "=[LIST,...]", "list of errors to ignore, or \"all\"",
     "1213,1020,1205"},
    {"mysql-dry-run", "[=on|off]", "Dry run, pretend that all MySQL client API calls are "
     "successful without executing them", "off"},
    H10_END
};

static const struct sb_help10_row pgsql_opts[] = {
    {"pgsql-host", "=STRING", "PostgreSQL server host", "localhost"},
    {"pgsql-port", "=N", "PostgreSQL server port", "5432"},
    {"pgsql-user", "=STRING", "PostgreSQL user", "sbtest"},
    {"pgsql-password", "=STRING", "PostgreSQL password", ""},
    {"pgsql-db", "=STRING", "PostgreSQL database name", "sbtest"},
    H10_END
};

/* 1.0's rule: descriptions one space past the group's longest name+type;
 * a blank line ends the group. */
static void print_rows(FILE *out, const struct sb_help10_row *rows)
{
    size_t width = 0;

    for (const struct sb_help10_row *r = rows; r->name != NULL; r++) {
        size_t w = strlen(r->name) + strlen(r->type);
        if (w > width)
            width = w;
    }
    for (const struct sb_help10_row *r = rows; r->name != NULL; r++) {
        fprintf(out, "  --%s%-*s%s", r->name, (int)(width - strlen(r->name) + 1), r->type,
                r->desc);
        if (r->def != NULL)
            fprintf(out, " [%s]", r->def);
        fputc('\n', out);
    }
    fputc('\n', out);
}

void sb_help10_print_head(FILE *out, bool mysql_default)
{
    const struct sb_help10_row db_opts[] = {
        {"db-driver", "=STRING", "specifies database driver to use ('help' to get list of "
         "available drivers)", mysql_default ? "mysql" : NULL},
        {"db-ps-mode", "=STRING", "prepared statements usage mode {auto, disable}", "auto"},
        {"db-debug", "[=on|off]", "print database-specific debug information", "off"},
        H10_END
    };

    fprintf(out, "Usage:\n  sysbench [options]... [testname] [command]\n\n");
    fprintf(out, "Commands implemented by most tests: prepare run cleanup help\n\n");
    fprintf(out, "General options:\n");
    print_rows(out, general);
    fprintf(out, "Pseudo-Random Numbers Generator options:\n");
    print_rows(out, rand_opts);
    fprintf(out, "Log options:\n");
    print_rows(out, log_opts);
    print_rows(out, oper_opts);
    fprintf(out, "General database options:\n\n");
    print_rows(out, db_opts);
    fputc('\n', out);
}

bool sb_help10_has_driver(const char *name)
{
    return strcmp(name, "mysql") == 0 || strcmp(name, "pgsql") == 0;
}

bool sb_help10_print_driver(FILE *out, const char *name)
{
    const struct sb_help10_row *rows = strcmp(name, "mysql") == 0 ? mysql_opts
                                       : strcmp(name, "pgsql") == 0 ? pgsql_opts : NULL;

    if (rows == NULL)
        return false;
    fprintf(out, "%s options:\n", name);
    print_rows(out, rows);
    return true;
}

void sb_help10_print_tail(FILE *out)
{
    fprintf(out, "\nSee 'sysbench <testname> help' for a list of options for each test.\n\n");
}
