/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PostgreSQL driver, connections: the --pgsql-* options and their parsed,
 * read-only copy; opening one PGconn per connection (blocking, or started
 * and polled without blocking for the set-up of many connections at once,
 * sb_db_preconnect.h) round-robin over the configured hosts and ports;
 * closing it; and the error helpers every file of the driver shares. See
 * drv_pgsql.c for what the driver as a whole does and drv_pgsql_int.h for
 * what its files share.
 */

#include "drivers/pgsql/drv_pgsql_int.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_clock.h"
#include "core/sb_log.h"
#include "core/sb_stop.h"

struct sb_pgsql_config sb_pgsql_cfg;

/* ------------------------------------------------------------- options */

const struct sb_opt_def sb_pgsql_options[] = {
    {"pgsql-host", "PostgreSQL server host(s), used round-robin", "localhost", SB_ARG_LIST},
    {"pgsql-port", "PostgreSQL server port(s), used round-robin", "5432", SB_ARG_LIST},
    {"pgsql-user", "PostgreSQL user", "sbtest", SB_ARG_STRING},
    {"pgsql-password", "PostgreSQL password (stands in the command line, which every user of the machine can read while the run lasts: prefer --pgsql-password-file, ~/.pgpass or PGPASSWORD)", "", SB_ARG_STRING},
    {"pgsql-password-file", "read the PostgreSQL password from FILE (its content, less a final newline)", "", SB_ARG_FILE},
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
 * severity prefixes and trailing newline, so that errors stay one line
 * and only sysbench's own lines say FATAL. */
void sb_pgsql_copy_msg(char *dst, size_t cap, const char *msg)
{
    static const char *const severities[] = {"FATAL:  ", "ERROR:  ", "PANIC:  ", NULL};
    size_t n, out = 0;

    if (msg == NULL)
        msg = "";
    while (*msg == '\n' || *msg == ' ')
        msg++;
    n = strcspn(msg, "\r\n");
    for (size_t i = 0; i < n && out + 1 < cap;) {
        size_t len = 0;
        /* libpq writes the severity, a colon and two spaces at the start
         * of the message, or after its "... failed: " prefix. */
        for (size_t k = 0; severities[k] != NULL && len == 0; k++)
            if ((i == 0 || (i >= 2 && msg[i - 2] == ':' && msg[i - 1] == ' ')) &&
                strncmp(msg + i, severities[k], strlen(severities[k])) == 0 &&
                i + strlen(severities[k]) <= n)
                len = strlen(severities[k]);
        if (len > 0) {
            i += len;
            continue;
        }
        dst[out++] = msg[i++];
    }
    if (cap > 0)
        dst[out] = '\0';
}

void sb_pgsql_set_err(struct sb_conn *con, const char *state, const char *msg)
{
    con->err.sql_errno = 0;
    snprintf(con->err.sql_state, sizeof(con->err.sql_state), "%s",
             state != NULL ? state : "");
    sb_pgsql_copy_msg(con->err.msg, sizeof(con->err.msg), msg);
}

enum sb_db_status sb_pgsql_oom(struct sb_conn *con)
{
    sb_pgsql_set_err(con, "53200", "out of memory in the PostgreSQL driver");
    return SB_DB_ERROR;
}

bool sb_pgsql_state_is_conn_lost(const char *state)
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
enum sb_db_status sb_pgsql_result_error(struct sb_conn *con, PGconn *pg,
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

void sb_pgsql_notice(void *arg, const PGresult *res)
{
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    char line[512];

    (void)arg;
    if (sev == NULL)
        sev = PQresultErrorField(res, PG_DIAG_SEVERITY);
    if (msg == NULL)
        msg = PQresultErrorMessage(res);
    sb_pgsql_copy_msg(line, sizeof(line), msg);
    if (sev != NULL && (strcmp(sev, "FATAL") == 0 || strcmp(sev, "PANIC") == 0 ||
                        strcmp(sev, "ERROR") == 0))
        sb_log(SB_LOG_INFO, "pgsql: the server ended a session: %s", line);
    else if (sev != NULL && strcmp(sev, "WARNING") == 0)
        sb_log(SB_LOG_INFO, "pgsql: warning from the server: %s", line);
    else
        sb_log(SB_LOG_INFO, "pgsql: notice from the server: %s", line);
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

int sb_pgsql_init(const struct sb_optset *opts, char *err, size_t errlen)
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
    if (sb_db_opt_password(opts, "pgsql-password", &c->password, err, errlen) != 0)
        goto fail;
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

void sb_pgsql_done(void)
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

/* libpq's connection keywords for con (its host and port picked
 * round-robin by con->index); keys and vals have room for 16. */
static void sb_pgsql_params(const struct sb_conn *con, const char **keys, const char **vals)
{
    const struct sb_pgsql_config *c = &sb_pgsql_cfg;
    int k = 0;

    const char *host = c->hosts[con->index % c->nhosts];
    const char *port = c->ports[con->index % c->nports];

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

/* Appends to a refused login (a wrong or missing password, a role that
 * does not exist, peer or ident authentication that failed) which
 * options or variables set the user and the password, as the server-down
 * hint names the host and port. The password itself is never shown. */
static void sb_pgsql_add_auth_hint(struct sb_conn *con, const struct sb_pgsql_config *c,
                                   const char *msg)
{
    size_t len = strlen(con->err.msg);
    const char *pw = getenv("PGPASSWORD");

    if (strstr(msg, "authentication failed") == NULL && strstr(msg, "no password supplied") == NULL &&
        !(strstr(msg, "role \"") != NULL && strstr(msg, "does not exist") != NULL))
        return;
    snprintf(con->err.msg + len, sizeof(con->err.msg) - len,
             " (user set by %s, password by %s; change them with --pgsql-user and "
             "--pgsql-password, or PGUSER and PGPASSWORD)", c->src[SB_PG_USER],
             c->password != NULL ? "--pgsql-password"
             : pw != NULL && pw[0] != '\0' ? "PGPASSWORD"
             : "none given (libpq then reads ~/.pgpass or PGPASSFILE)");
}

/* A failed attempt (cp->pg not NULL): the error, classified, into con;
 * cp freed. */
static enum sb_db_status sb_pgsql_connect_failed(struct sb_conn *con, struct sb_pgsql_conn *cp)
{
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
        sb_pgsql_add_source_hint(con, &sb_pgsql_cfg);
    else
        sb_pgsql_add_auth_hint(con, &sb_pgsql_cfg, msg);
    PQfinish(cp->pg);
    free(cp);
    con->priv = NULL;
    return retry ? SB_DB_CONN_LOST : SB_DB_ERROR;
}

/* A connection libpq has made (cp->pg CONNECTION_OK): what sysbench
 * checks and sets on it; con->priv = cp, or an error with cp freed. */
static enum sb_db_status sb_pgsql_connected(struct sb_conn *con, struct sb_pgsql_conn *cp)
{
    const struct sb_pgsql_config *c = &sb_pgsql_cfg;
    /* The host and port libpq used (they may be its own defaults). */
    const char *host = PQhost(cp->pg) != NULL ? PQhost(cp->pg) : "";
    const char *port = PQport(cp->pg) != NULL ? PQport(cp->pg) : "";
    const char *bad = NULL, *bad_state = "08001";

    /* libpq ignores sslmode on a Unix socket (its documented rule) and
     * goes on in plain text: a mode that requires TLS refuses that, as
     * over TCP, rather than run unencrypted. */
    if (c->sslmode != NULL && (strcmp(c->sslmode, "require") == 0 ||
                               strncmp(c->sslmode, "verify-", 7) == 0) &&
        !PQsslInUse(cp->pg)) {
        bad_state = "08004";
        bad = host[0] == '/'
              ? "the connection over the Unix socket is not encrypted (libpq uses no TLS on a socket), which --pgsql-sslmode requires: connect over TCP or use --pgsql-sslmode=prefer"
              : "the connection is not encrypted, which --pgsql-sslmode requires";
    }
    /* Sends of a multiplexed connection must not block its thread
     * either; blocking calls (PQexec) ignore this setting. */
    else if (con->nonblocking && PQsetnonblocking(cp->pg, 1) != 0)
        bad = PQerrorMessage(cp->pg);
    if (bad != NULL) {
        sb_pgsql_set_err(con, bad_state, bad);
        PQfinish(cp->pg);
        free(cp);
        con->priv = NULL;
        return SB_DB_ERROR;
    }
    if (host[0] == '/')
        snprintf(cp->endpoint, sizeof(cp->endpoint), "unix:%s/.s.PGSQL.%s", host, port);
    else
        snprintf(cp->endpoint, sizeof(cp->endpoint), "tcp:%s:%s", host, port);
    cp->cancel = PQgetCancel(cp->pg);
    con->priv = cp;
    return SB_DB_OK;
}

/* con->priv = a new connection PQconnectStartParams started from the
 * options, its notice receiver set; SB_DB_OK, or the error set with
 * nothing left allocated (CONNECTION_BAD: it could not even start). */
static enum sb_db_status sb_pgsql_open(struct sb_conn *con)
{
    struct sb_pgsql_conn *cp;
    const char *keys[16], *vals[16];

    cp = calloc(1, sizeof(*cp));
    if (cp == NULL)
        return sb_pgsql_oom(con);
    sb_pgsql_params(con, keys, vals);
    /* expand_dbname 0: a database name containing '=' is a name, not a
     * connection string that could override the options above. */
    cp->pg = PQconnectStartParams(keys, vals, 0);
    if (cp->pg == NULL) {
        free(cp);
        return sb_pgsql_oom(con);
    }
    /* Before libpq reads anything the server says. */
    PQsetNoticeReceiver(cp->pg, sb_pgsql_notice, NULL);
    con->priv = cp;
    if (PQstatus(cp->pg) == CONNECTION_BAD)
        return sb_pgsql_connect_failed(con, cp);
    return SB_DB_OK;
}

/* The non-blocking connect waits for what PQconnectPoll asked for, on
 * the socket libpq names now (it may change from one host or attempt to
 * the next). */
static enum sb_db_status sb_pgsql_connect_wait(struct sb_conn *con, PGconn *pg, short events)
{
    con->wait.fd = PQsocket(pg);
    con->wait.events = events;
    return SB_DB_PENDING;
}

enum sb_db_status sb_pgsql_connect_start(struct sb_conn *con)
{
    enum sb_db_status st = sb_pgsql_open(con);
    const struct sb_pgsql_conn *cp = con->priv;

    if (st != SB_DB_OK)
        return st;
    /* libpq does not apply connect_timeout to a polled connect (its
     * documentation of PQconnectPoll): the caller does, for the whole
     * attempt. */
    con->wait.timeout_ms = (unsigned)atoi(sb_pgsql_cfg.connect_timeout) * 1000u;
    /* As if PQconnectPoll had asked to write (libpq's documented start). */
    return sb_pgsql_connect_wait(con, cp->pg, POLLOUT);
}

enum sb_db_status sb_pgsql_connect_cont(struct sb_conn *con, bool timed_out)
{
    struct sb_pgsql_conn *cp = con->priv;

    if (timed_out) {
        const struct sb_pgsql_config *c = &sb_pgsql_cfg;
        const char *host = c->hosts[con->index % c->nhosts];
        const char *port = c->ports[con->index % c->nports];
        char msg[512];

        snprintf(msg, sizeof(msg), "connection to server at \"%s\", port %s failed: timeout "
                 "expired after %s s", host != NULL ? host : "(PGHOST)",
                 port != NULL ? port : "(PGPORT)", c->connect_timeout);
        sb_pgsql_set_err(con, "08001", msg);
        sb_pgsql_add_source_hint(con, c);
        PQfinish(cp->pg);
        free(cp);
        con->priv = NULL;
        return SB_DB_CONN_LOST;
    }
    switch (PQconnectPoll(cp->pg)) {
    case PGRES_POLLING_READING:
        return sb_pgsql_connect_wait(con, cp->pg, POLLIN);
    case PGRES_POLLING_WRITING:
        return sb_pgsql_connect_wait(con, cp->pg, POLLOUT);
    case PGRES_POLLING_OK:
        return sb_pgsql_connected(con, cp);
    default:
        return sb_pgsql_connect_failed(con, cp);
    }
}

/* One blocking connect: the polled one, waited for here. */
static enum sb_db_status sb_pgsql_connect_once(struct sb_conn *con)
{
    enum sb_db_status st = sb_pgsql_connect_start(con);
    uint64_t deadline = con->wait.timeout_ms > 0
                            ? sb_now_ns() + con->wait.timeout_ms * SB_NS_PER_MS : 0;

    while (st == SB_DB_PENDING) {
        struct pollfd p = {.fd = con->wait.fd, .events = con->wait.events};
        uint64_t now = sb_now_ns();
        int ms = deadline == 0 ? -1
                 : now >= deadline ? 0 : (int)((deadline - now + SB_NS_PER_MS - 1) / SB_NS_PER_MS);
        int rc = ms == 0 ? 0 : poll(&p, 1, ms);

        if (rc < 0 && errno == EINTR)
            continue;
        st = sb_pgsql_connect_cont(con, rc == 0);
    }
    return st;
}

/*
 * The blocking connect. It is PQconnectStartParams and PQconnectPoll
 * rather than PQconnectdbParams so that the notice receiver is in place
 * from the start: a session terminated while it starts has its reason
 * sent as a notice, which libpq's default receiver writes to stderr.
 * Tried again when a backend is terminated while it starts up
 * (pg_terminate_backend of an administrator, --reconnect=N connecting
 * meanwhile): the server is there, so at most 3 more times.
 */
enum sb_db_status sb_pgsql_connect(struct sb_conn *con)
{
    enum sb_db_status st = sb_pgsql_connect_once(con);

    for (unsigned attempt = 0; st != SB_DB_OK && attempt < 3 && !sb_stopping() &&
                               strstr(con->err.msg, "terminating connection") != NULL;
         attempt++) {
        usleep(10000u << attempt);
        st = sb_pgsql_connect_once(con);
    }
    return st;
}

void sb_pgsql_disconnect(struct sb_conn *con)
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
    free(cp->dealloc);
    free(cp);
    con->priv = NULL;
}
