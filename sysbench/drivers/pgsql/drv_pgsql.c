/*
 * PostgreSQL driver on libpq.
 *
 * This file owns: the --pgsql-* options and their parsed, read-only copy;
 * one PGconn per connection, chosen round-robin over the configured hosts
 * and ports; server-side prepared statements (PQprepare under a name unique
 * within the connection, '?' placeholders rewritten to $1..$n) with their
 * text-format parameter buffers; result sets (one PGresult at a time); and
 * the mapping of libpq failures to "connection lost". The error policy
 * (what is ignorable, when to reconnect) belongs to the common layer in
 * sb_driver.c.
 *
 * Errors carry the server's SQLSTATE; sql_errno is always 0 because
 * PostgreSQL has no error numbers, so --pgsql-ignore-errors and
 * --db-ignore-errors take SQLSTATEs. Failures without a SQLSTATE from the
 * server (libpq's own, e.g. a dropped socket) get 08006 when the connection
 * is gone, and connection attempts that fail without reaching the server
 * get 08001.
 *
 * connect() returns SB_DB_CONN_LOST when the server could not be reached
 * (refused, socket missing, starting up or shutting down, dropped during
 * start-up) and SB_DB_ERROR for what a retry cannot fix (authentication,
 * unknown database). libpq reports connection failures only as text, so
 * this split reads libpq's English messages; with a translated libpq every
 * connection failure is reported as SB_DB_ERROR.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "drivers/sb_driver.h"
#include "drivers/pgsql/drv_pgsql_env.h"
#include "core/sb_options.h"
#include "core/sb_stop.h"

/* Room for one formatted number: "%.17g" of a double or an int64. */
#define SB_PG_NUMBUF 32

/* Parsed options: written once by init() in the main thread, read-only
 * while workers run, freed by done(). */
struct sb_pgsql_config {
    char **hosts;
    size_t nhosts;
    char **ports;
    size_t nports;
    char *user;
    char *password;
    char *db;
    char *sslmode;
    /* Where host, port, user and database come from, for error messages:
     * "--pgsql-host", "PGHOST", "service NAME" or "the default" (1.0's). */
    char src[SB_PG_NPARAMS][64];
    /* TLS files, passed to libpq as the sslrootcert, sslcert, sslkey and
     * sslcrl keywords (NULL: libpq's default, e.g. ~/.postgresql/). */
    char *ssl_file[4];
    char connect_timeout[24];
};

static struct sb_pgsql_config sb_pgsql_cfg;

struct sb_pgsql_stmt;

struct sb_pgsql_conn {
    PGconn *pg;
    PGresult *res;              /* the open result set, if any */
    int cur;                    /* next row of res to fetch */
    struct sb_value *row;       /* reused from one result to the next */
    unsigned rowcap;
    char *qbuf;                 /* NUL-terminated copy of a query text */
    size_t qcap;
    unsigned long next_stmt_id; /* names statements uniquely per connection */
    struct sb_pgsql_stmt *stmts;/* statements prepared on this PGconn */
    char endpoint[300];
    /* Non-blocking statements: the result kept so far (PQexec keeps the
     * last one, or the first error), and a send not yet flushed. */
    PGresult *alast;
    bool flushing;
    /* Made at connect: PQcancel may then be called from any thread
     * (libpq documents it as thread-safe and async-signal-safe). */
    PGcancel *cancel;
};

struct sb_pgsql_stmt {
    struct sb_pgsql_conn *owner;/* NULL once its connection is gone */
    struct sb_pgsql_stmt *next; /* owner's list */
    char name[32];
    unsigned nparams;
    const char **values;        /* per execution: text of each parameter */
    char *numbuf;               /* nparams * SB_PG_NUMBUF formatted numbers */
};

/* ------------------------------------------------------------- options */

static const struct sb_opt_def sb_pgsql_options[] = {
    {"pgsql-host", "PostgreSQL server host(s), used round-robin", "localhost", SB_ARG_LIST},
    {"pgsql-port", "PostgreSQL server port(s), used round-robin", "5432", SB_ARG_LIST},
    {"pgsql-user", "PostgreSQL user", "sbtest", SB_ARG_STRING},
    {"pgsql-password", "PostgreSQL password", "", SB_ARG_STRING},
    {"pgsql-db", "PostgreSQL database name", "sbtest", SB_ARG_STRING},
    {"pgsql-sslmode", "SSL mode: disable, allow, prefer, require, verify-ca, verify-full", "prefer", SB_ARG_STRING},
    {"pgsql-sslrootcert", "CA certificate file(s) the server certificate is verified against (verify-ca, verify-full)", "", SB_ARG_STRING},
    {"pgsql-sslcert", "client certificate file", "", SB_ARG_STRING},
    {"pgsql-sslkey", "client private key file", "", SB_ARG_STRING},
    {"pgsql-sslcrl", "certificate revocation list file", "", SB_ARG_STRING},
    {"pgsql-connect-timeout", "connection timeout in seconds", "10", SB_ARG_INT},
    {"pgsql-ignore-errors", "SQLSTATEs to ignore (restart the event), or 'all'", "40P01,23505,40001", SB_ARG_LIST},
    {NULL, NULL, NULL, SB_ARG_BOOL}
};

/* --------------------------------------------------------------- helpers */

/* Copies msg's first non-empty line, without libpq's "ERROR:  " style
 * severity prefix and trailing newline, so that errors stay one line. */
static void sb_pgsql_copy_msg(char *dst, size_t cap, const char *msg)
{
    size_t n;

    if (msg == NULL)
        msg = "";
    while (*msg == '\n' || *msg == ' ')
        msg++;
    n = strcspn(msg, "\r\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, msg, n);
    dst[n] = '\0';
}

static void sb_pgsql_set_err(struct sb_conn *con, const char *state, const char *msg)
{
    con->err.sql_errno = 0;
    snprintf(con->err.sql_state, sizeof(con->err.sql_state), "%s",
             state != NULL ? state : "");
    sb_pgsql_copy_msg(con->err.msg, sizeof(con->err.msg), msg);
}

static enum sb_db_status sb_pgsql_oom(struct sb_conn *con)
{
    sb_pgsql_set_err(con, "53200", "out of memory in the PostgreSQL driver");
    return SB_DB_ERROR;
}

static bool sb_pgsql_state_is_conn_lost(const char *state)
{
    /* Class 08 is "connection exception"; 57P01..57P03 are the server
     * shutting down or not yet accepting connections. */
    return (state[0] == '0' && state[1] == '8') ||
           strcmp(state, "57P01") == 0 || strcmp(state, "57P02") == 0 ||
           strcmp(state, "57P03") == 0;
}

/*
 * Records the failure described by res (which may be NULL when libpq could
 * not even allocate one) and says whether the connection survived it.
 * Takes ownership of res.
 */
static enum sb_db_status sb_pgsql_result_error(struct sb_conn *con, PGconn *pg,
                                               PGresult *res)
{
    const char *state = NULL, *msg = NULL;
    bool lost;

    if (res != NULL) {
        state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
        if (msg == NULL || msg[0] == '\0')
            msg = PQresultErrorMessage(res);
    }
    if (msg == NULL || msg[0] == '\0')
        msg = PQerrorMessage(pg);
    lost = PQstatus(pg) == CONNECTION_BAD ||
           (state != NULL && sb_pgsql_state_is_conn_lost(state));
    if ((state == NULL || state[0] == '\0') && lost)
        state = "08006";
    sb_pgsql_set_err(con, state, msg);
    if (res != NULL)
        PQclear(res);
    return lost ? SB_DB_CONN_LOST : SB_DB_ERROR;
}

/* Notices (e.g. "table does not exist, skipping") would pollute the
 * benchmark's output, so they are dropped. */
static void sb_pgsql_no_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* ------------------------------------------------------- init and done */

static void sb_pgsql_free_config(void)
{
    struct sb_pgsql_config *c = &sb_pgsql_cfg;

    sb_db_free_list(c->hosts, c->nhosts);
    sb_db_free_list(c->ports, c->nports);
    free(c->user);
    if (c->password != NULL) {
        /* The password should not linger in freed heap memory. */
        memset(c->password, 0, strlen(c->password));
        free(c->password);
    }
    free(c->db);
    free(c->sslmode);
    for (size_t i = 0; i < 4; i++)
        free(c->ssl_file[i]);
    memset(c, 0, sizeof(*c));
}

/* libpq's keywords for the TLS file options, in ssl_file order. */
static const char *const ssl_file_keys[4] = {"sslrootcert", "sslcert", "sslkey", "sslcrl"};

/* The hosts and ports: at least one of each, every port a number. */
static int sb_pgsql_load_endpoints(const struct sb_optset *opts, struct sb_pgsql_config *c,
                                   const PQconninfoOption *defs, char *err, size_t errlen)
{
    /* Each from its option, else libpq's settings, else 1.0's default. */
    if (sb_pgsql_env_pick(opts, SB_PG_HOST, defs, c->src[SB_PG_HOST], sizeof(c->src[0]),
                          &c->hosts, &c->nhosts, NULL) != 0 ||
        sb_pgsql_env_pick(opts, SB_PG_PORT, defs, c->src[SB_PG_PORT], sizeof(c->src[0]),
                          &c->ports, &c->nports, NULL) != 0 ||
        sb_pgsql_env_pick(opts, SB_PG_USER, defs, c->src[SB_PG_USER], sizeof(c->src[0]),
                          NULL, NULL, &c->user) != 0 ||
        sb_pgsql_env_pick(opts, SB_PG_DB, defs, c->src[SB_PG_DB], sizeof(c->src[0]),
                          NULL, NULL, &c->db) != 0) {
        snprintf(err, errlen, "out of memory reading the PostgreSQL options");
        return -1;
    }
    if (c->nhosts == 0) {
        snprintf(err, errlen, "--pgsql-host is empty: give at least one host");
        return -1;
    }
    if (c->nports == 0) {
        snprintf(err, errlen, "--pgsql-port is empty: give at least one port");
        return -1;
    }
    for (size_t i = 0; i < c->nports; i++) {
        char *end;
        long v;

        if (c->ports[i] == NULL) /* PGPORT: libpq checks it */
            continue;
        errno = 0;
        v = strtol(c->ports[i], &end, 10);
        if (*end != '\0' || errno != 0 || v < 1 || v > 65535) {
            snprintf(err, errlen,
                     "invalid value '%s' for --pgsql-port: expected a port number 1-65535",
                     c->ports[i]);
            return -1;
        }
    }
    return 0;
}

/* --pgsql-sslmode, one of libpq's modes, and the TLS files, which must
 * be readable. */
static int sb_pgsql_load_tls(const struct sb_optset *opts, struct sb_pgsql_config *c,
                             const PQconninfoOption *defs, char *err, size_t errlen)
{
    static const char *const modes[] = {
        "disable", "allow", "prefer", "require", "verify-ca", "verify-full", NULL
    };
    bool mode_ok = false;

    c->sslmode = sb_db_opt_strdup(opts, "pgsql-sslmode");
    /* Not given: libpq's (PGSSLMODE, the service, else "prefer", which is
     * also the option's default), passed on so that the check of an
     * unencrypted connection in connect() knows it. */
    for (const PQconninfoOption *o = defs; !sb_pgsql_opt_given(opts, "pgsql-sslmode") &&
                                           o != NULL && o->keyword != NULL; o++)
        if (strcmp(o->keyword, "sslmode") == 0 && o->val != NULL && o->val[0] != '\0') {
            free(c->sslmode);
            c->sslmode = strdup(o->val);
        }
    if (c->sslmode != NULL) {
        for (size_t i = 0; modes[i] != NULL; i++)
            if (strcmp(c->sslmode, modes[i]) == 0)
                mode_ok = true;
        if (!mode_ok) {
            snprintf(err, errlen,
                     "invalid value '%s' for --pgsql-sslmode: expected disable, allow, "
                     "prefer, require, verify-ca or verify-full", c->sslmode);
            return -1;
        }
    }
    for (size_t i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof(name), "pgsql-%s", ssl_file_keys[i]);
        c->ssl_file[i] = sb_db_opt_strdup(opts, name);
        /* libpq skips a client certificate or key file that does not
         * exist and connects without it: a file named here must exist. */
        if (c->ssl_file[i] != NULL && access(c->ssl_file[i], R_OK) != 0) {
            snprintf(err, errlen, "cannot read the --%s file '%s': %s", name, c->ssl_file[i],
                     strerror(errno));
            return -1;
        }
    }
    return 0;
}

static int sb_pgsql_init(const struct sb_optset *opts, char *err, size_t errlen)
{
    struct sb_pgsql_config *c = &sb_pgsql_cfg;
    PQconninfoOption *defs;
    int64_t timeout;

    memset(c, 0, sizeof(*c));
    if (!PQisthreadsafe()) {
        snprintf(err, errlen, "this libpq is not thread-safe");
        return -1;
    }
    /* libpq's defaults with its environment variables and PGSERVICE
     * applied: an option not given leaves those to libpq. */
    defs = PQconndefaults();
    if (sb_pgsql_load_endpoints(opts, c, defs, err, errlen) != 0 ||
        sb_pgsql_load_tls(opts, c, defs, err, errlen) != 0) {
        PQconninfoFree(defs);
        goto fail;
    }
    PQconninfoFree(defs);
    c->password = sb_db_opt_strdup(opts, "pgsql-password");
    timeout = sb_optset_int(opts, "pgsql-connect-timeout");
    if (timeout < 0 || timeout > 86400) {
        snprintf(err, errlen,
                 "invalid value '%" PRId64 "' for --pgsql-connect-timeout: expected 0-86400 seconds",
                 timeout);
        goto fail;
    }
    snprintf(c->connect_timeout, sizeof(c->connect_timeout), "%" PRId64, timeout);
    return 0;

fail:
    sb_pgsql_free_config();
    return -1;
}

static void sb_pgsql_done(void)
{
    sb_pgsql_free_config();
}

/* ---------------------------------------------------------- connection */

/* Whether a failed connection attempt might succeed later, judged from
 * libpq's message (it has no SQLSTATE before the server answers). */
static bool sb_pgsql_connect_retryable(const char *msg)
{
    static const char *const transient[] = {
        "Connection refused", "No such file or directory", "timeout expired",
        "the database system is starting up", "the database system is shutting down",
        "the database system is in recovery mode", "server closed the connection unexpectedly",
        "Connection reset by peer", "could not receive data from server",
        "could not send data to server", NULL
    };

    for (size_t i = 0; transient[i] != NULL; i++)
        if (strstr(msg, transient[i]) != NULL)
            return true;
    return false;
}

/* Appends to a connection failure's message which options or variables
 * chose the host and port tried, and how to change them. */
static void sb_pgsql_add_source_hint(struct sb_conn *con, const struct sb_pgsql_config *c)
{
    size_t len = strlen(con->err.msg);

    snprintf(con->err.msg + len, sizeof(con->err.msg) - len,
             " (host set by %s, port by %s; change them with --pgsql-host and --pgsql-port, "
             "or PGHOST and PGPORT)", c->src[SB_PG_HOST], c->src[SB_PG_PORT]);
}

static enum sb_db_status sb_pgsql_connect(struct sb_conn *con)
{
    const struct sb_pgsql_config *c = &sb_pgsql_cfg;
    struct sb_pgsql_conn *cp;
    const char *keys[16], *vals[16];
    const char *host = c->hosts[con->index % c->nhosts];
    const char *port = c->ports[con->index % c->nports];
    int k = 0;

    cp = calloc(1, sizeof(*cp));
    if (cp == NULL)
        return sb_pgsql_oom(con);

    /* NULL: left to libpq (PGHOST, PGPORT or the service). */
    if (host != NULL) { keys[k] = "host"; vals[k++] = host; }
    if (port != NULL) { keys[k] = "port"; vals[k++] = port; }
    if (c->user != NULL) { keys[k] = "user"; vals[k++] = c->user; }
    if (c->password != NULL) { keys[k] = "password"; vals[k++] = c->password; }
    if (c->db != NULL) { keys[k] = "dbname"; vals[k++] = c->db; }
    if (c->sslmode != NULL) { keys[k] = "sslmode"; vals[k++] = c->sslmode; }
    for (size_t i = 0; i < 4; i++)
        if (c->ssl_file[i] != NULL) {
            keys[k] = ssl_file_keys[i];
            vals[k++] = c->ssl_file[i];
        }
    keys[k] = "connect_timeout"; vals[k++] = c->connect_timeout;
    keys[k] = "fallback_application_name"; vals[k++] = "sysbench";
    keys[k] = NULL; vals[k] = NULL;

    /* expand_dbname 0: a database name containing '=' is a name, not a
     * connection string that could override the options above. */
    cp->pg = PQconnectdbParams(keys, vals, 0);
    /* A backend terminated while it starts up (pg_terminate_backend of an
     * administrator, --reconnect=N connecting meanwhile): the server is
     * there, so try again, at most 3 more times. */
    for (unsigned attempt = 0; cp->pg != NULL && PQstatus(cp->pg) != CONNECTION_OK &&
                               attempt < 3 && !sb_stopping() &&
                               strstr(PQerrorMessage(cp->pg), "terminating connection") != NULL;
         attempt++) {
        PQfinish(cp->pg);
        usleep(10000u << attempt);
        cp->pg = PQconnectdbParams(keys, vals, 0);
    }
    if (cp->pg == NULL) {
        free(cp);
        return sb_pgsql_oom(con);
    }
    if (PQstatus(cp->pg) != CONNECTION_OK) {
        const char *msg = PQerrorMessage(cp->pg);
        bool retry = sb_pgsql_connect_retryable(msg);
        const char *state = retry ? "08001" : "";

        /* Name the two usual mistakes by their SQLSTATEs so that scripts
         * and reports can tell them apart. */
        if (strstr(msg, "password authentication failed") != NULL)
            state = "28P01";
        else if (strstr(msg, "does not exist") != NULL && strstr(msg, "database") != NULL)
            state = "3D000";
        else if (!retry)
            state = "08001";
        /* libpq prefixes the reason with "connection to server at ...
         * failed: "; keep it, the address is what a user needs to see,
         * and say which options (or variables) chose it. */
        sb_pgsql_set_err(con, state, msg);
        if (retry)
            sb_pgsql_add_source_hint(con, c);
        PQfinish(cp->pg);
        free(cp);
        return retry ? SB_DB_CONN_LOST : SB_DB_ERROR;
    }
    PQsetNoticeProcessor(cp->pg, sb_pgsql_no_notice, NULL);
    /* Sends of a multiplexed connection must not block its thread
     * either; blocking calls (PQexec) ignore this setting. */
    if (con->nonblocking && PQsetnonblocking(cp->pg, 1) != 0) {
        sb_pgsql_set_err(con, "08001", PQerrorMessage(cp->pg));
        PQfinish(cp->pg);
        free(cp);
        return SB_DB_ERROR;
    }

    /* libpq ignores sslmode on a Unix socket (its documented rule) and
     * goes on in plain text: a mode that requires TLS refuses that, as
     * over TCP, rather than run unencrypted. */
    if (c->sslmode != NULL && (strcmp(c->sslmode, "require") == 0 ||
                               strncmp(c->sslmode, "verify-", 7) == 0) &&
        !PQsslInUse(cp->pg)) {
        sb_pgsql_set_err(con, "08004", PQhost(cp->pg) != NULL && PQhost(cp->pg)[0] == '/'
                         ? "the connection over the Unix socket is not encrypted (libpq uses no TLS on a socket), which --pgsql-sslmode requires: connect over TCP or use --pgsql-sslmode=prefer"
                         : "the connection is not encrypted, which --pgsql-sslmode requires");
        PQfinish(cp->pg);
        free(cp);
        return SB_DB_ERROR;
    }
    /* The host and port libpq used (they may be its own defaults). */
    host = PQhost(cp->pg) != NULL ? PQhost(cp->pg) : "";
    port = PQport(cp->pg) != NULL ? PQport(cp->pg) : "";
    if (host[0] == '/')
        snprintf(cp->endpoint, sizeof(cp->endpoint), "unix:%s/.s.PGSQL.%s", host, port);
    else
        snprintf(cp->endpoint, sizeof(cp->endpoint), "tcp:%s:%s", host, port);
    cp->cancel = PQgetCancel(cp->pg);
    con->priv = cp;
    return SB_DB_OK;
}

static void sb_pgsql_disconnect(struct sb_conn *con)
{
    struct sb_pgsql_conn *cp = con->priv;

    if (cp == NULL)
        return;
    /* Statements that somehow outlive the connection must not talk to a
     * PGconn that no longer exists. */
    for (struct sb_pgsql_stmt *sp = cp->stmts; sp != NULL; sp = sp->next)
        sp->owner = NULL;
    if (cp->res != NULL)
        PQclear(cp->res);
    if (cp->alast != NULL)
        PQclear(cp->alast);
    con->rs.active = false;
    con->rs.priv = NULL;
    if (cp->cancel != NULL)
        PQfreeCancel(cp->cancel);
    PQfinish(cp->pg);
    free(cp->row);
    free(cp->qbuf);
    free(cp);
    con->priv = NULL;
}

/* ---------------------------------------------------------- result sets */

static void sb_pgsql_drop_result(struct sb_pgsql_conn *cp)
{
    if (cp->res != NULL) {
        PQclear(cp->res);
        cp->res = NULL;
    }
}

/*
 * Turns a completed PGresult into the connection's result set or an error.
 * Takes ownership of res.
 */
static enum sb_db_status sb_pgsql_take_result(struct sb_conn *con, PGresult *res,
                                              struct sb_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;
    unsigned nf;

    /* The common layer freed the previous result and cleared rs. */
    switch (res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR) {
    case PGRES_COMMAND_OK:
    case PGRES_EMPTY_QUERY:
        PQclear(res);
        return SB_DB_OK;
    case PGRES_TUPLES_OK:
        break;
    default:
        return sb_pgsql_result_error(con, cp->pg, res);
    }

    nf = (unsigned)PQnfields(res);
    if (nf > cp->rowcap) {
        struct sb_value *row = realloc(cp->row, nf * sizeof(*row));

        if (row == NULL) {
            PQclear(res);
            return sb_pgsql_oom(con);
        }
        cp->row = row;
        cp->rowcap = nf;
    }
    cp->res = res;
    cp->cur = 0;
    rs->active = true;
    rs->nrows = (uint64_t)PQntuples(res);
    rs->nfields = nf;
    rs->row = cp->row;
    rs->priv = cp;
    return SB_DB_OK;
}

static int sb_pgsql_fetch_row(struct sb_result *rs)
{
    struct sb_pgsql_conn *cp = rs->priv;
    int r;

    if (!rs->active || cp == NULL || cp->res == NULL)
        return 0;
    r = cp->cur;
    if (r >= PQntuples(cp->res))
        return 0;
    for (unsigned i = 0; i < rs->nfields; i++) {
        if (PQgetisnull(cp->res, r, (int)i)) {
            cp->row[i].ptr = NULL;
            cp->row[i].len = 0;
        } else {
            cp->row[i].ptr = PQgetvalue(cp->res, r, (int)i);
            cp->row[i].len = (size_t)PQgetlength(cp->res, r, (int)i);
        }
    }
    cp->cur = r + 1;
    rs->row = cp->row;
    return 1;
}

static void sb_pgsql_free_result(struct sb_result *rs)
{
    struct sb_pgsql_conn *cp = rs->priv;

    if (cp != NULL)
        sb_pgsql_drop_result(cp);
}

/* ------------------------------------------------------- plain queries */

/* PQexec wants a NUL-terminated text and the contract gives a length;
 * the copy goes into a buffer that only ever grows. Returns 0 or -1. */
static int sb_pgsql_copy_query(struct sb_pgsql_conn *cp, const char *sql, size_t len)
{
    if (len + 1 > cp->qcap) {
        size_t ncap = cp->qcap ? cp->qcap : 256;
        char *b;

        while (ncap < len + 1)
            ncap *= 2;
        b = realloc(cp->qbuf, ncap);
        if (b == NULL)
            return -1;
        cp->qbuf = b;
        cp->qcap = ncap;
    }
    memcpy(cp->qbuf, sql, len);
    cp->qbuf[len] = '\0';
    return 0;
}

static enum sb_db_status sb_pgsql_query(struct sb_conn *con, const char *sql,
                                        size_t len, struct sb_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;

    if (sb_pgsql_copy_query(cp, sql, len) != 0)
        return sb_pgsql_oom(con);
    return sb_pgsql_take_result(con, PQexec(cp->pg, cp->qbuf), rs);
}

/* ------------------------------------------------- prepared statements */

/*
 * Copies sql to out with every '?' placeholder replaced by $1, $2, ...;
 * out must hold len + 10 bytes per placeholder + 1. The placeholders are
 * the ones sb_sql_next_placeholder() finds, as for the common layer's
 * count and emulation, so that both --db-ps-mode values see the same ones.
 */
static void sb_pgsql_rewrite(const char *sql, size_t len, char *out)
{
    unsigned n = 0;
    size_t o = 0, i = 0;

    for (;;) {
        size_t q = sb_sql_next_placeholder(sql, len, i);

        memcpy(out + o, sql + i, q - i);
        o += q - i;
        if (q == len)
            break;
        o += (size_t)sprintf(out + o, "$%u", ++n);
        i = q + 1;
    }
    out[o] = '\0';
}

static void sb_pgsql_stmt_unlink(struct sb_pgsql_stmt *sp)
{
    struct sb_pgsql_stmt **pp;

    if (sp->owner == NULL)
        return;
    for (pp = &sp->owner->stmts; *pp != NULL; pp = &(*pp)->next)
        if (*pp == sp) {
            *pp = sp->next;
            break;
        }
    sp->owner = NULL;
}

static void sb_pgsql_stmt_free(struct sb_pgsql_stmt *sp)
{
    if (sp == NULL)
        return;
    sb_pgsql_stmt_unlink(sp);
    free(sp->values);
    free(sp->numbuf);
    free(sp);
}

static void sb_pgsql_close(struct sb_stmt *st)
{
    struct sb_pgsql_stmt *sp = st->priv;
    struct sb_pgsql_conn *cp = st->con != NULL ? st->con->priv : NULL;

    if (sp == NULL)
        return;
    /*
     * Scripts may prepare and close statements in every event, so the
     * server's copy is dropped too, but only on its own, healthy
     * connection and outside a failed transaction, where DEALLOCATE would
     * itself fail (and, inside a transaction, abort it).
     */
    if (cp != NULL && sp->owner == cp && PQstatus(cp->pg) == CONNECTION_OK) {
        PGTransactionStatusType ts = PQtransactionStatus(cp->pg);

        if (ts == PQTRANS_IDLE || ts == PQTRANS_INTRANS) {
            char sql[64];

            snprintf(sql, sizeof(sql), "DEALLOCATE %s", sp->name);
            PQclear(PQexec(cp->pg, sql));
        }
    }
    sb_pgsql_stmt_free(sp);
    st->priv = NULL;
}

static enum sb_db_status sb_pgsql_prepare(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;
    struct sb_pgsql_conn *cp = con->priv;
    struct sb_pgsql_stmt *sp;
    size_t cap;
    char *text;
    unsigned n;
    enum sb_db_status rc;
    PGresult *res;

    if (st->priv != NULL)
        sb_pgsql_close(st);

    /* st->nparams counts the placeholders the rewrite replaces, and
     * "$4294967295" is 11 bytes where the '?' was 1. */
    n = st->nparams;
    cap = st->sql_len + 1 + (size_t)n * 10;
    text = malloc(cap);
    sp = calloc(1, sizeof(*sp));
    if (text == NULL || sp == NULL) {
        free(text);
        free(sp);
        return sb_pgsql_oom(con);
    }
    sb_pgsql_rewrite(st->sql, st->sql_len, text);
    sp->nparams = n;
    if (n > 0) {
        sp->values = calloc(n, sizeof(*sp->values));
        sp->numbuf = malloc((size_t)n * SB_PG_NUMBUF);
        if (sp->values == NULL || sp->numbuf == NULL) {
            free(text);
            sb_pgsql_stmt_free(sp);
            return sb_pgsql_oom(con);
        }
    }
    snprintf(sp->name, sizeof(sp->name), "sbstmt%lu", ++cp->next_stmt_id);

    /* No parameter types: the server infers them from the context, and the
     * text-format values convert as literals would. An open result set
     * of the connection stays valid: libpq results do not depend on it. */
    res = PQprepare(cp->pg, sp->name, text, (int)n, NULL);
    free(text);
    if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK) {
        rc = sb_pgsql_result_error(con, cp->pg, res);
        sb_pgsql_stmt_free(sp);
        return rc;
    }
    PQclear(res);
    sp->owner = cp;
    sp->next = cp->stmts;
    cp->stmts = sp;
    st->priv = sp;
    return SB_DB_OK;
}

/* Formats st's parameters as text into sp->values. Returns sp, or NULL
 * with con->err set when the statement is not on this connection. */
static struct sb_pgsql_stmt *sb_pgsql_params(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;
    struct sb_pgsql_conn *cp = con->priv;
    struct sb_pgsql_stmt *sp = st->priv;

    if (sp == NULL || sp->owner != cp) {
        sb_pgsql_set_err(con, "26000", "prepared statement does not exist on this connection");
        return NULL;
    }
    for (unsigned i = 0; i < sp->nparams; i++) {
        const struct sb_bind *b = st->params[i];
        char *num = sp->numbuf + (size_t)i * SB_PG_NUMBUF;

        if (b == NULL || b->is_null) {
            sp->values[i] = NULL;
            continue;
        }
        switch (b->type) {
        case SB_SQL_TINYINT:
        case SB_SQL_SMALLINT:
        case SB_SQL_INT:
        case SB_SQL_BIGINT:
            snprintf(num, SB_PG_NUMBUF, "%" PRId64, b->i);
            sp->values[i] = num;
            break;
        case SB_SQL_FLOAT:
            /* Nine significant digits round-trip a float exactly. */
            snprintf(num, SB_PG_NUMBUF, "%.9g", b->d);
            sp->values[i] = num;
            break;
        case SB_SQL_DOUBLE:
            snprintf(num, SB_PG_NUMBUF, "%.17g", b->d);
            sp->values[i] = num;
            break;
        case SB_SQL_NONE:
            sp->values[i] = NULL;
            break;
        default:
            /* Text parameters are read up to a NUL, and sb_bind keeps
             * its text NUL-terminated. */
            sp->values[i] = b->str != NULL ? b->str : "";
            break;
        }
    }
    return sp;
}

static enum sb_db_status sb_pgsql_execute(struct sb_stmt *st, struct sb_result *rs)
{
    struct sb_conn *con = st->con;
    struct sb_pgsql_conn *cp = con->priv;
    struct sb_pgsql_stmt *sp = sb_pgsql_params(st);

    if (sp == NULL)
        return SB_DB_ERROR;
    return sb_pgsql_take_result(con,
                                PQexecPrepared(cp->pg, sp->name, (int)sp->nparams,
                                               sp->values, NULL, NULL, 0),
                                rs);
}

/* ---------------------------------------------------------- non-blocking */

static enum sb_db_status sb_pgsql_pending(struct sb_conn *con, short events)
{
    struct sb_pgsql_conn *cp = con->priv;

    con->wait.fd = PQsocket(cp->pg);
    con->wait.events = events;
    return SB_DB_PENDING;
}

/*
 * Takes the results that have arrived, without blocking, keeping what
 * PQexec would return (the last one, or the first error); once the last
 * has come, turns it into the connection's result set. Otherwise it waits
 * for more input.
 */
static enum sb_db_status sb_pgsql_collect(struct sb_conn *con, struct sb_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;

    while (!PQisBusy(cp->pg)) {
        PGresult *r = PQgetResult(cp->pg);
        PGresult *last;
        ExecStatusType t;

        if (r != NULL) {
            t = PQresultStatus(r);
            if (cp->alast != NULL && PQresultStatus(cp->alast) == PGRES_FATAL_ERROR) {
                PQclear(r);
            } else {
                PQclear(cp->alast);
                cp->alast = r;
            }
            /* COPY hands the connection over to the caller: as with
             * PQexec, its result is the answer (an error for this layer). */
            if (t != PGRES_COPY_IN && t != PGRES_COPY_OUT && t != PGRES_COPY_BOTH)
                continue;
        }
        last = cp->alast;
        cp->alast = NULL;
        return sb_pgsql_take_result(con, last, rs);
    }
    return sb_pgsql_pending(con, POLLIN);
}

/* After a send: waits for the reply, or, while libpq could not write all
 * of the statement, for either direction (as libpq's documentation asks). */
static enum sb_db_status sb_pgsql_sent(struct sb_conn *con, int sent)
{
    struct sb_pgsql_conn *cp = con->priv;
    int f;

    if (!sent)
        return sb_pgsql_result_error(con, cp->pg, NULL);
    f = PQflush(cp->pg);
    if (f < 0)
        return sb_pgsql_result_error(con, cp->pg, NULL);
    cp->flushing = f > 0;
    return sb_pgsql_pending(con, cp->flushing ? POLLIN | POLLOUT : POLLIN);
}

static enum sb_db_status sb_pgsql_query_start(struct sb_conn *con, const char *sql,
                                              size_t len, struct sb_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;

    (void)rs;
    if (sb_pgsql_copy_query(cp, sql, len) != 0)
        return sb_pgsql_oom(con);
    return sb_pgsql_sent(con, PQsendQuery(cp->pg, cp->qbuf));
}

static enum sb_db_status sb_pgsql_execute_start(struct sb_stmt *st, struct sb_result *rs)
{
    struct sb_conn *con = st->con;
    struct sb_pgsql_conn *cp = con->priv;
    struct sb_pgsql_stmt *sp = sb_pgsql_params(st);

    (void)rs;
    if (sp == NULL)
        return SB_DB_ERROR;
    return sb_pgsql_sent(con, PQsendQueryPrepared(cp->pg, sp->name, (int)sp->nparams,
                                                  sp->values, NULL, NULL, 0));
}

/* Whether input is waiting on the socket right now. */
static bool sb_pgsql_readable(struct sb_pgsql_conn *cp)
{
    struct pollfd pfd = { .fd = PQsocket(cp->pg), .events = POLLIN };

    return poll(&pfd, 1, 0) > 0;
}

/*
 * The multiplexer waits for the next arrival on the socket (an edge), so
 * a wait must not leave input unread: libpq reads once per call (and one
 * TLS record at a time), and a reply not complete after that read is read
 * again while the socket has more.
 */
static enum sb_db_status sb_pgsql_resume(struct sb_conn *con, struct sb_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;
    enum sb_db_status st;

    do {
        if (PQconsumeInput(cp->pg) == 0)
            return sb_pgsql_result_error(con, cp->pg, NULL);
        if (cp->flushing) {
            int f = PQflush(cp->pg);
            if (f < 0)
                return sb_pgsql_result_error(con, cp->pg, NULL);
            cp->flushing = f > 0;
            if (cp->flushing)
                return sb_pgsql_pending(con, POLLIN | POLLOUT);
        }
        st = sb_pgsql_collect(con, rs);
    } while (st == SB_DB_PENDING && sb_pgsql_readable(cp));
    return st;
}

/* ------------------------------------------------------------ the rest */

static size_t sb_pgsql_quote(struct sb_conn *con, const char *src, size_t len, char *dst)
{
    struct sb_pgsql_conn *cp = con->priv;
    int error = 0;
    size_t n;

    dst[0] = '\'';
    /* Escaping depends on the connection's encoding and on
     * standard_conforming_strings, which only the connection knows. */
    n = PQescapeStringConn(cp->pg, dst + 1, src, len, &error);
    dst[1 + n] = '\'';
    dst[2 + n] = '\0';
    return n + 2;
}

static const char *sb_pgsql_server_version(struct sb_conn *con)
{
    struct sb_pgsql_conn *cp = con->priv;

    return cp != NULL ? PQparameterStatus(cp->pg, "server_version") : NULL;
}

static int sb_pgsql_server_endpoint(struct sb_conn *con, char *buf, size_t len)
{
    struct sb_pgsql_conn *cp = con->priv;

    if (cp == NULL || len == 0)
        return -1;
    snprintf(buf, len, "%s", cp->endpoint);
    return 0;
}

/* The client library's version, for result files. */
static int sb_pgsql_client_version(char *buf, size_t len)
{
    int v = PQlibVersion();

    /* Since PostgreSQL 10 the number is major * 10000 + minor. */
    if (v >= 100000)
        snprintf(buf, len, "%d.%d", v / 10000, v % 10000);
    else
        snprintf(buf, len, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    return 0;
}

/* Open or aborted: an ignorable error inside a transaction leaves it
 * aborted (25P02 for every later statement) until ROLLBACK. */
static bool sb_pgsql_in_transaction(struct sb_conn *con)
{
    struct sb_pgsql_conn *c = con->priv;
    PGTransactionStatusType ts;

    if (c == NULL || c->pg == NULL)
        return false;
    ts = PQtransactionStatus(c->pg);
    return ts == PQTRANS_INTRANS || ts == PQTRANS_INERROR;
}

/* PQcancel with the object made at connect: the statement ends with
 * SQLSTATE 57014. */
static bool sb_pgsql_cancel(struct sb_conn *con, void **sweep)
{
    struct sb_pgsql_conn *cp = con->priv;
    char buf[256];

    (void)sweep;
    return cp->cancel != NULL && PQcancel(cp->cancel, buf, (int)sizeof(buf)) == 1;
}

const struct sb_driver_ops sb_driver_pgsql = {
    .name = "pgsql",
    .description = "PostgreSQL driver",
    .options = sb_pgsql_options,
    .ignore_option = "pgsql-ignore-errors",
    .init = sb_pgsql_init,
    .done = sb_pgsql_done,
    .connect = sb_pgsql_connect,
    .disconnect = sb_pgsql_disconnect,
    .query = sb_pgsql_query,
    .prepare = sb_pgsql_prepare,
    .execute = sb_pgsql_execute,
    .close = sb_pgsql_close,
    .query_start = sb_pgsql_query_start,
    .execute_start = sb_pgsql_execute_start,
    .resume = sb_pgsql_resume,
    .fetch_row = sb_pgsql_fetch_row,
    .free_result = sb_pgsql_free_result,
    .quote = sb_pgsql_quote,
    .client_version = sb_pgsql_client_version,
    .server_version = sb_pgsql_server_version,
    .server_endpoint = sb_pgsql_server_endpoint,
    .server_forks = true,
    /* current_setting: the value as configured, with its unit ("64MB").
     * A row whose setting this user may not read has NULL there, and
     * current_setting would fail the query on it: left out. */
    .settings_query = "SELECT name, current_setting(name) FROM pg_settings "
                      "WHERE setting IS NOT NULL",
    .in_transaction = sb_pgsql_in_transaction,
    .cancel = sb_pgsql_cancel,
};
