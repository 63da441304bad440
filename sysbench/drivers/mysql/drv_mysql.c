/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * MySQL / MariaDB driver on the MySQL client C API (libmariadb or Oracle's
 * libmysqlclient).
 *
 * This file owns: the --mysql-* options and their parsed, read-only copy;
 * one MYSQL handle per connection, chosen round-robin over the configured
 * hosts, ports and sockets; server-side prepared statements (MYSQL_STMT)
 * with their parameter and result buffers; result sets of plain queries;
 * and the mapping of client/server error numbers to "connection lost".
 * The error policy (what is ignorable, when to reconnect) belongs to the
 * common layer in sb_driver.c; this file only reports raw outcomes.
 *
 * --mysql-ssl is a STRING rather than a BOOL so that the verification level
 * can be chosen: off (or disabled), preferred, on (or required), verify_ca,
 * verify_identity, case-insensitive. "on" encrypts without verifying the
 * server's certificate, as sysbench 1.0's --mysql-ssl=on did.
 *
 * connect() returns SB_DB_CONN_LOST when the server could not be reached
 * (refused, socket missing, dropped during the handshake, shutting down),
 * so that a reconnect loop keeps trying while a server restarts, and
 * SB_DB_ERROR for everything a retry cannot fix (bad password, unknown
 * database, unknown host).
 */


#include "drivers/mysql/drv_mysql.h"

#include <poll.h>
#include <unistd.h>

#include "core/sb_stop.h"

/* The parsed --mysql-* options; read-only after init. */
static struct sb_mysql_config sb_mysql_cfg;

/* ------------------------------------------------------------- options */

static const struct sb_opt_def sb_mysql_options[] = {
    {"mysql-host", "MySQL server host(s), used round-robin", "localhost", SB_ARG_LIST},
    {"mysql-port", "MySQL server port(s), used round-robin", "3306", SB_ARG_LIST},
    {"mysql-socket", "MySQL socket(s); when given, used instead of TCP", "", SB_ARG_LIST},
    {"mysql-user", "MySQL user", "sbtest", SB_ARG_STRING},
    {"mysql-password", "MySQL password (stands in the command line, which every user of the machine can read while the run lasts: prefer --mysql-password-file or an option file)", "", SB_ARG_STRING},
    {"mysql-password-file", "read the MySQL password from FILE (its content, less a final newline)", "", SB_ARG_FILE},
    {"mysql-db", "MySQL database name", "sbtest", SB_ARG_STRING},
    {"mysql-ssl", "SSL mode: off, preferred, on (required), verify_ca, verify_identity", "off", SB_ARG_STRING},
    {"mysql-ssl-ca", "SSL CA certificate file", "", SB_ARG_STRING},
    {"mysql-ssl-cert", "SSL client certificate file", "", SB_ARG_STRING},
    {"mysql-ssl-key", "SSL client key file", "", SB_ARG_STRING},
    {"mysql-ssl-cipher", "SSL cipher list; TLS 1.3 suites (TLS_AES_128_GCM_SHA256, ...) or TLS 1.2 ciphers, which then limit the connection to TLS 1.2", "", SB_ARG_STRING},
    {"mysql-compression", "use the compressed client/server protocol", "off", SB_ARG_BOOL},
    {"mysql-connect-timeout", "connection timeout in seconds", "10", SB_ARG_INT},
    {"mysql-ignore-errors", "error numbers to ignore (restart the event), or 'all'", "1213,1020,1205", SB_ARG_LIST},
    {"mysql-read-default-file", "read the client's settings (host, port, socket, user, password, database) from this option file's [client] group, as the client library's MYSQL_READ_DEFAULT_FILE; options given here win", "", SB_ARG_STRING},
    {"mysql-read-default-group", "read this group of the option files (with [client]; default files ~/.my.cnf, /etc/mysql/my.cnf ... unless --mysql-read-default-file), as MYSQL_READ_DEFAULT_GROUP; options given here win", "", SB_ARG_STRING},
    {"mysql-dry-run", "pretend every MySQL call succeeds, without a server", "off", SB_ARG_BOOL},
    /* sysbench 1.0's; MariaDB Connector/C's mysql_debug() does nothing. */
    {"mysql-debug", "trace all client library calls (accepted for sysbench 1.0 command lines; ignored: MariaDB Connector/C has no trace)", "off", SB_ARG_BOOL},
    {NULL, NULL, NULL, SB_ARG_BOOL}
};

/* ------------------------------------------------------- init and done */

static void sb_mysql_free_config(void)
{
    struct sb_mysql_config *c = &sb_mysql_cfg;

    sb_db_free_list(c->hosts, c->nhosts);
    sb_db_free_list(c->sockets, c->nsockets);
    free(c->ports);
    free(c->user);
    if (c->password != NULL) {
        /* The password should not linger in freed heap memory. */
        memset(c->password, 0, strlen(c->password));
        free(c->password);
    }
    free(c->db);
    free(c->ssl_ca);
    free(c->ssl_cert);
    free(c->ssl_key);
    free(c->ssl_cipher);
    free(c->cnf_file);
    free(c->cnf_group);
    free(c->default_user);
    free(c->default_db);
    memset(c, 0, sizeof(*c));
}

static int sb_mysql_oom_options(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory reading the MySQL options");
    return -1;
}

/* Whether the user gave option name (command line or config file). */
static bool sb_mysql_opt_given(const struct sb_optset *opts, const char *name)
{
    const struct sb_opt *o = sb_optset_find(opts, name);

    return o != NULL && o->set;
}

/* The hosts, sockets and ports; at least a host or a socket, and a port
 * unless sockets are used. */
static int sb_mysql_load_endpoints(const struct sb_optset *opts, struct sb_mysql_config *c,
                                   char *err, size_t errlen)
{
    char *const *ports;
    size_t nports = 0;

    if (sb_db_opt_copy_list(opts, "mysql-host", &c->hosts, &c->nhosts) != 0 ||
        sb_db_opt_copy_list(opts, "mysql-socket", &c->sockets, &c->nsockets) != 0)
        return sb_mysql_oom_options(err, errlen);
    if (c->nhosts == 0 && c->nsockets == 0) {
        snprintf(err, errlen, "--mysql-host is empty: give at least one host");
        return -1;
    }
    ports = sb_optset_list(opts, "mysql-port", &nports);
    if (nports > 0) {
        c->ports = calloc(nports, sizeof(*c->ports));
        if (c->ports == NULL)
            return sb_mysql_oom_options(err, errlen);
    }
    for (size_t i = 0; i < nports; i++) {
        char *end;
        long v;

        errno = 0;
        v = strtol(ports[i], &end, 10);
        if (ports[i][0] == '\0' || *end != '\0' || errno != 0 || v < 1 || v > 65535) {
            snprintf(err, errlen,
                     "invalid value '%s' for --mysql-port: expected a port number 1-65535",
                     ports[i]);
            return -1;
        }
        c->ports[c->nports++] = (unsigned)v;
    }
    if (c->nports == 0 && c->nsockets == 0) {
        snprintf(err, errlen, "--mysql-port is empty: give at least one port");
        return -1;
    }
    snprintf(c->src_host, sizeof(c->src_host), "%s",
             sb_mysql_opt_given(opts, "mysql-host") ? "--mysql-host" : "the default");
    snprintf(c->src_port, sizeof(c->src_port), "%s",
             sb_mysql_opt_given(opts, "mysql-port") ? "--mysql-port" : "the default");
    return 0;
}

/*
 * --mysql-read-default-file and -group. With either, an option given wins
 * over the file (it is passed to mysql_real_connect, which prefers its
 * arguments); the host, port and socket not given are the file's (else
 * the library's, which are 1.0's: localhost, 3306); the user and database
 * not given are the file's, else 1.0's "sbtest" (set on the handle before
 * the file is read, which overrides them; MariaDB Connector/C only: with
 * another library the library's own defaults apply).
 */
static int sb_mysql_load_cnf(const struct sb_optset *opts, struct sb_mysql_config *c,
                             char *err, size_t errlen)
{
    c->cnf_file = sb_db_opt_strdup(opts, "mysql-read-default-file");
    c->cnf_group = sb_db_opt_strdup(opts, "mysql-read-default-group");
    if (c->cnf_file != NULL && access(c->cnf_file, R_OK) != 0) {
        snprintf(err, errlen, "cannot read the --mysql-read-default-file file '%s': %s",
                 c->cnf_file, strerror(errno));
        return -1;
    }
    if (c->cnf_file == NULL && c->cnf_group == NULL)
        return 0;
    c->host_from_cnf = !sb_mysql_opt_given(opts, "mysql-host");
    c->port_from_cnf = !sb_mysql_opt_given(opts, "mysql-port");
    if (c->host_from_cnf)
        snprintf(c->src_host, sizeof(c->src_host), "the option file or the default");
    if (c->port_from_cnf)
        snprintf(c->src_port, sizeof(c->src_port), "the option file or the default");
    if (sb_mysql_opt_given(opts, "mysql-user"))
        c->user = sb_db_opt_strdup(opts, "mysql-user");
    else
        c->default_user = sb_db_opt_strdup(opts, "mysql-user");
    if (sb_mysql_opt_given(opts, "mysql-db"))
        c->db = sb_db_opt_strdup(opts, "mysql-db");
    else
        c->default_db = sb_db_opt_strdup(opts, "mysql-db");
    return 0;
}

/* --mysql-ssl, with sysbench 1.0's boolean spellings of off and on. */
static int sb_mysql_load_ssl_mode(const struct sb_optset *opts, struct sb_mysql_config *c,
                                  char *err, size_t errlen)
{
    const char *ssl = sb_optset_str(opts, "mysql-ssl");

    if (ssl == NULL || ssl[0] == '\0' || strcasecmp(ssl, "off") == 0 ||
        strcasecmp(ssl, "disabled") == 0 || strcasecmp(ssl, "false") == 0 ||
        strcasecmp(ssl, "no") == 0 || strcasecmp(ssl, "0") == 0)
        c->ssl = SB_MYSQL_SSL_OFF;
    else if (strcasecmp(ssl, "preferred") == 0)
        c->ssl = SB_MYSQL_SSL_PREFERRED;
    else if (strcasecmp(ssl, "on") == 0 || strcasecmp(ssl, "required") == 0 ||
             strcasecmp(ssl, "true") == 0 || strcasecmp(ssl, "yes") == 0 ||
             strcasecmp(ssl, "1") == 0)
        c->ssl = SB_MYSQL_SSL_REQUIRED;
    else if (strcasecmp(ssl, "verify_ca") == 0)
        c->ssl = SB_MYSQL_SSL_VERIFY_CA;
    else if (strcasecmp(ssl, "verify_identity") == 0)
        c->ssl = SB_MYSQL_SSL_VERIFY_IDENTITY;
    else {
        snprintf(err, errlen,
                 "invalid value '%s' for --mysql-ssl: expected off, preferred, on, "
                 "required, verify_ca or verify_identity", ssl);
        return -1;
    }
    /* verify_ca checks the chain against the CA given, not the system's
     * store: without one there is nothing to check against. */
    if (c->ssl == SB_MYSQL_SSL_VERIFY_CA && c->ssl_ca == NULL) {
        snprintf(err, errlen, "--mysql-ssl=verify_ca needs --mysql-ssl-ca (the CA certificate "
                 "the server's certificate must be signed by)");
        return -1;
    }
    return 0;
}

/* The options after the endpoints: credentials, TLS, compression,
 * timeout and dry run. */
static int sb_mysql_load_session(const struct sb_optset *opts, struct sb_mysql_config *c,
                                 char *err, size_t errlen)
{
    int64_t timeout;

    if (sb_mysql_load_cnf(opts, c, err, errlen) != 0)
        return -1;
    if (c->cnf_file == NULL && c->cnf_group == NULL) {
        c->user = sb_db_opt_strdup(opts, "mysql-user");
        c->db = sb_db_opt_strdup(opts, "mysql-db");
    }
    if (sb_db_opt_password(opts, "mysql-password", &c->password, err, errlen) != 0)
        return -1;
    c->ssl_ca = sb_db_opt_strdup(opts, "mysql-ssl-ca");
    c->ssl_cert = sb_db_opt_strdup(opts, "mysql-ssl-cert");
    c->ssl_key = sb_db_opt_strdup(opts, "mysql-ssl-key");
    c->ssl_cipher = sb_db_opt_strdup(opts, "mysql-ssl-cipher");
    if (sb_mysql_load_ssl_mode(opts, c, err, errlen) != 0)
        return -1;
    c->compression = sb_optset_bool(opts, "mysql-compression");
    timeout = sb_optset_int(opts, "mysql-connect-timeout");
    if (timeout < 0 || timeout > 86400) {
        snprintf(err, errlen,
                 "invalid value '%" PRId64 "' for --mysql-connect-timeout: expected 0-86400 seconds",
                 timeout);
        return -1;
    }
    c->connect_timeout = (unsigned)timeout;
    c->dry_run = sb_optset_bool(opts, "mysql-dry-run");
    return 0;
}

static int sb_mysql_init(const struct sb_optset *opts, char *err, size_t errlen)
{
    struct sb_mysql_config *c = &sb_mysql_cfg;

    memset(c, 0, sizeof(*c));
    if (sb_mysql_load_endpoints(opts, c, err, errlen) != 0 ||
        sb_mysql_load_session(opts, c, err, errlen) != 0) {
        sb_mysql_free_config();
        return -1;
    }
    /* The library's global initialisation is not thread-safe, so it runs
     * here, in the main thread, before any worker connects. */
    if (mysql_library_init(0, NULL, NULL) != 0) {
        snprintf(err, errlen, "could not initialise the MySQL client library");
        sb_mysql_free_config();
        return -1;
    }
    return 0;
}

static void sb_mysql_done(void)
{
    mysql_library_end();
    sb_mysql_free_config();
}

static int sb_mysql_thread_init(void)
{
    return mysql_thread_init() == 0 ? 0 : -1;
}

static void sb_mysql_thread_done(void)
{
    mysql_thread_end();
}

/* ---------------------------------------------------------- connection */

static int sb_mysql_apply_ssl(MYSQL *my)
{
    const struct sb_mysql_config *c = &sb_mysql_cfg;

    if (c->ssl_key != NULL || c->ssl_cert != NULL || c->ssl_ca != NULL ||
        c->ssl_cipher != NULL) {
#ifdef HAVE_MYSQL_SSL_SET
        mysql_ssl_set(my, c->ssl_key, c->ssl_cert, c->ssl_ca, NULL, c->ssl_cipher);
#else
        if (c->ssl_key != NULL)
            mysql_options(my, MYSQL_OPT_SSL_KEY, c->ssl_key);
        if (c->ssl_cert != NULL)
            mysql_options(my, MYSQL_OPT_SSL_CERT, c->ssl_cert);
        if (c->ssl_ca != NULL)
            mysql_options(my, MYSQL_OPT_SSL_CA, c->ssl_ca);
        if (c->ssl_cipher != NULL)
            mysql_options(my, MYSQL_OPT_SSL_CIPHER, c->ssl_cipher);
#endif
    }

#ifdef MARIADB_PACKAGE_VERSION_ID
    {
        /*
         * Connector/C has no single mode option. It asks for TLS once any
         * TLS setting is made (mysql_ssl_set, even all NULL) and falls back
         * to plain text when the server has none, unless enforced. With a
         * CA it verifies the certificate chain; the VERIFY_SERVER_CERT
         * switch adds the host name check (and the system CAs without a
         * CA file). So: preferred = asked, not enforced; verify_ca =
         * enforced with the CA (host name not checked); verify_identity =
         * both switches.
         */
        my_bool enforce = c->ssl >= SB_MYSQL_SSL_REQUIRED;
        my_bool verify = c->ssl >= SB_MYSQL_SSL_VERIFY_IDENTITY;

        if (c->ssl == SB_MYSQL_SSL_PREFERRED)
            mysql_ssl_set(my, c->ssl_key, c->ssl_cert, c->ssl_ca, NULL, c->ssl_cipher);
        if (enforce)
            mysql_options(my, MYSQL_OPT_SSL_ENFORCE, &enforce);
        mysql_options(my, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
        /* A cipher list of TLS 1.2 names only would be ignored when TLS 1.3
         * is negotiated (its suites are named TLS_*): keep to TLS 1.2 so
         * the ciphers asked for are the ones used. */
        if (c->ssl_cipher != NULL && strstr(c->ssl_cipher, "TLS_") == NULL)
            mysql_optionsv(my, MARIADB_OPT_TLS_VERSION, "TLSv1.2");
    }
#else
    {
        unsigned mode;

        switch (c->ssl) {
        case SB_MYSQL_SSL_OFF: mode = SSL_MODE_DISABLED; break;
        case SB_MYSQL_SSL_PREFERRED: mode = SSL_MODE_PREFERRED; break;
        case SB_MYSQL_SSL_REQUIRED: mode = SSL_MODE_REQUIRED; break;
        case SB_MYSQL_SSL_VERIFY_CA: mode = SSL_MODE_VERIFY_CA; break;
        default: mode = SSL_MODE_VERIFY_IDENTITY; break;
        }
        if (mysql_options(my, MYSQL_OPT_SSL_MODE, &mode) != 0)
            return -1;
    }
#endif
    return 0;
}

/*
 * Picks this connection's server, round-robin over the sockets or else
 * the hosts and ports, and records it as the endpoint the CPU accounting
 * looks for. "localhost" is left unrecorded: the client then uses its
 * default socket, which is asked for once connected.
 */
static void sb_mysql_pick_server(const struct sb_conn *con, struct sb_mysql_conn *cp,
                                 const char **host, const char **sock, unsigned *port)
{
    const struct sb_mysql_config *c = &sb_mysql_cfg;

    if (c->nsockets > 0) {
        /* A socket names the server fully; the host list is not used. */
        *sock = c->sockets[con->index % c->nsockets];
        snprintf(cp->endpoint, sizeof(cp->endpoint), "unix:%s", *sock);
        cp->have_endpoint = true;
    } else {
        /* NULL and 0 take the option file's (mysql_real_connect's rule);
         * the endpoint is then asked for once connected. */
        *host = c->host_from_cnf ? NULL : c->hosts[con->index % c->nhosts];
        *port = c->port_from_cnf ? 0 : c->ports[con->index % c->nports];
        if (*host != NULL && *port != 0 && strcmp(*host, "localhost") != 0) {
            snprintf(cp->endpoint, sizeof(cp->endpoint), "tcp:%s:%u", *host, *port);
            cp->have_endpoint = true;
        }
    }
}

/* Creates the handle with the timeout, compression and TLS options set.
 * Returns SB_DB_OK, or an error with cp->my closed. */
static enum sb_db_status sb_mysql_new_handle(struct sb_conn *con, struct sb_mysql_conn *cp)
{
    const struct sb_mysql_config *c = &sb_mysql_cfg;
    unsigned timeout = c->connect_timeout;

    cp->my = mysql_init(NULL);
    if (cp->my == NULL)
        return sb_mysql_oom(con);
    if (timeout > 0)
        mysql_options(cp->my, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    if (c->compression)
        mysql_options(cp->my, MYSQL_OPT_COMPRESS, NULL);
#ifdef MARIADB_PACKAGE_VERSION_ID
    /* 1.0's defaults first, which the option file read at connect may
     * replace; mysql_real_connect's arguments replace both. */
    if (c->default_user != NULL)
        mysql_optionsv(cp->my, MARIADB_OPT_USER, c->default_user);
    if (c->default_db != NULL)
        mysql_optionsv(cp->my, MARIADB_OPT_SCHEMA, c->default_db);
#endif
    if (c->cnf_file != NULL)
        mysql_options(cp->my, MYSQL_READ_DEFAULT_FILE, c->cnf_file);
    if (c->cnf_group != NULL)
        mysql_options(cp->my, MYSQL_READ_DEFAULT_GROUP, c->cnf_group);
    if (sb_mysql_apply_ssl(cp->my) != 0) {
        sb_mysql_set_err(con, 0, "", "this MySQL client library does not support the chosen --mysql-ssl mode");
        mysql_close(cp->my);
        return SB_DB_ERROR;
    }
    return SB_DB_OK;
}

/* "localhost" makes the client use its default socket; ask which one,
 * since the CPU accounting needs to find the server by it. An option
 * file may have chosen a TCP server instead: ask for that first. */
static void sb_mysql_record_default_socket(struct sb_mysql_conn *cp)
{
    const char *path = NULL;

#ifdef MARIADB_PACKAGE_VERSION_ID
    const char *host = NULL;
    unsigned int port = 0;

    if ((sb_mysql_cfg.host_from_cnf || sb_mysql_cfg.port_from_cnf) &&
        mariadb_get_infov(cp->my, MARIADB_CONNECTION_HOST, &host) == 0 && host != NULL &&
        strcmp(host, "localhost") != 0 &&
        mariadb_get_infov(cp->my, MARIADB_CONNECTION_PORT, &port) == 0) {
        snprintf(cp->endpoint, sizeof(cp->endpoint), "tcp:%s:%u", host, port);
        cp->have_endpoint = true;
        return;
    }
    if (mariadb_get_infov(cp->my, MARIADB_CONNECTION_UNIX_SOCKET, &path) != 0)
        path = NULL;
#endif
#ifdef MYSQL_UNIX_ADDR
    if (path == NULL)
        path = MYSQL_UNIX_ADDR;
#endif
    if (path != NULL) {
        snprintf(cp->endpoint, sizeof(cp->endpoint), "unix:%s", path);
        cp->have_endpoint = true;
    }
}

/* Closes the handle and frees the connection of a failed connect,
 * passing its status through. */
static enum sb_db_status sb_mysql_give_up(struct sb_mysql_conn *cp, enum sb_db_status st)
{
    mysql_close(cp->my);
    free(cp);
    return st;
}

/* A failed connect's error. Connector/C names the host but not the port
 * ("Can't connect to server on '127.0.0.1' (111)"): the server tried is
 * added, so the one error line says where it was refused. */
static enum sb_db_status sb_mysql_connect_error(struct sb_conn *con, struct sb_mysql_conn *cp)
{
    enum sb_db_status st = sb_mysql_conn_error(con, cp->my);
    size_t n = strlen(con->err.msg);

    if (cp->have_endpoint && (con->err.sql_errno == SB_MY_CR_CONNECTION_ERROR ||
                              con->err.sql_errno == SB_MY_CR_CONN_HOST_ERROR))
        snprintf(con->err.msg + n, sizeof(con->err.msg) - n, " [server %s]", cp->endpoint);
    return st;
}

/* The server accepted the connection and dropped it during the
 * handshake: 2013 at 'reading authorization packet' (a session killed by
 * an administrator's KILL USER, --reconnect=N connecting meanwhile). The
 * server is there, so the connect is tried again, at most 3 more times;
 * 2013 while waiting for the server's first packet (a timeout, nobody
 * answering) is not. */
static bool sb_mysql_dropped_in_handshake(MYSQL *my)
{
    return mysql_errno(my) == 2013 &&
           strstr(mysql_error(my), "initial communication packet") == NULL;
}

/* Appends to a failure to reach the server (2002 no socket or refused
 * on it, 2003 refused or unreachable over TCP, 2005 unknown host) which
 * server was tried and which options chose it. */
static void sb_mysql_add_server_hint(struct sb_conn *con, const char *host, const char *sock,
                                     unsigned port)
{
    const struct sb_mysql_config *c = &sb_mysql_cfg;
    size_t len = strlen(con->err.msg);
    char *at = con->err.msg + len;
    size_t room = sizeof(con->err.msg) - len;

    if (con->err.sql_errno != 2002 && con->err.sql_errno != 2003 && con->err.sql_errno != 2005)
        return;
    if (sock != NULL)
        snprintf(at, room, " (socket '%s' set by --mysql-socket)", sock);
    else if (host == NULL || port == 0)
        snprintf(at, room, " (host set by %s, port by %s; change them with --mysql-host and "
                 "--mysql-port, or in the option file)", c->src_host, c->src_port);
    else if (strcmp(host, "localhost") == 0)
        snprintf(at, room, " (host localhost, set by %s, means the default Unix socket; "
                 "use --mysql-host=127.0.0.1 and --mysql-port for TCP, or --mysql-socket)",
                 c->src_host);
    else
        snprintf(at, room, " (host '%s' set by %s, port %u by %s; change them with "
                 "--mysql-host and --mysql-port)", host != NULL ? host : "", c->src_host,
                 port, c->src_port);
}

/* Appends to a refused login (1045 access denied, 1698 access denied
 * without a password: a unix_socket or plugin account) which options or
 * files set the user and the password, as the server-down hint names the
 * host and port: the user is in the server's message, the password never
 * is. */
static void sb_mysql_add_auth_hint(struct sb_conn *con)
{
    const struct sb_mysql_config *c = &sb_mysql_cfg;
    bool cnf = c->cnf_file != NULL || c->cnf_group != NULL;
    size_t len = strlen(con->err.msg);

    if (con->err.sql_errno != 1045 && con->err.sql_errno != 1698)
        return;
    snprintf(con->err.msg + len, sizeof(con->err.msg) - len,
             " (user set by %s, password by %s; change them with --mysql-user and "
             "--mysql-password%s)",
             c->user != NULL ? "--mysql-user" : cnf ? "the option file or the default"
                                                    : "the default (sbtest)",
             c->password != NULL ? "--mysql-password" : cnf ? "the option file, or none"
                                                            : "none given",
             cnf ? ", or in the option file" : "");
}

static enum sb_db_status sb_mysql_connected(struct sb_conn *con, struct sb_mysql_conn *cp,
                                            const char *host, const char *sock);

static enum sb_db_status sb_mysql_connect(struct sb_conn *con)
{
    const struct sb_mysql_config *c = &sb_mysql_cfg;
    struct sb_mysql_conn *cp;
    const char *host = NULL, *sock = NULL;
    unsigned port = 0;
    enum sb_db_status st;

    cp = calloc(1, sizeof(*cp));
    if (cp == NULL)
        return sb_mysql_oom(con);
    sb_mysql_pick_server(con, cp, &host, &sock, &port);
    if (c->dry_run) {
        con->priv = cp;
        return SB_DB_OK;
    }
    for (unsigned attempt = 0;; attempt++) {
        st = sb_mysql_new_handle(con, cp);
        if (st != SB_DB_OK) {
            free(cp);
            return st;
        }
        sb_mysql_load_setup(cp);
        if (mysql_real_connect(cp->my, host, c->user, c->password, c->db, port, sock, 0) != NULL)
            break;
        if (!sb_mysql_dropped_in_handshake(cp->my) || attempt == 3 || sb_stopping()) {
            st = sb_mysql_connect_error(con, cp);
            sb_mysql_add_server_hint(con, host, sock, port);
            sb_mysql_add_auth_hint(con);
            return sb_mysql_give_up(cp, st);
        }
        mysql_close(cp->my);
        usleep(10000u << attempt);
    }
    /* Statements go non-blocking once connected: with the option set
     * before, a blocking connect that the kernel cannot complete at once
     * fails with EINPROGRESS (seen reconnecting to a restarted server). */
    if (con->nonblocking && sb_mysql_enable_nonblocking(cp->my) != 0)
        return sb_mysql_give_up(cp, sb_mysql_oom(con));
    return sb_mysql_connected(con, cp, host, sock);
}

/* A handle the library has connected: what sysbench checks on it;
 * con->priv = cp, or an error with the handle closed and cp freed. */
static enum sb_db_status sb_mysql_connected(struct sb_conn *con, struct sb_mysql_conn *cp,
                                            const char *host, const char *sock)
{
    const struct sb_mysql_config *c = &sb_mysql_cfg;

    /* Connector/C falls back to plain text when the server offers no TLS,
     * even when enforced, and over a Unix socket too: a mode that requires
     * TLS must not go on without it, whatever the transport (the man page
     * promises "refused"; a socket connected in plain text before). */
    if (c->ssl >= SB_MYSQL_SSL_REQUIRED && mysql_get_ssl_cipher(cp->my) == NULL) {
        sb_mysql_set_err(con, 0, "08004", sock != NULL || host == NULL ||
                         strcmp(host, "localhost") == 0
                         ? "the connection over the Unix socket is not encrypted (the server "
                           "offers no TLS there), which --mysql-ssl requires (use "
                           "--mysql-ssl=preferred to allow plain text)"
                         : "the server does not offer TLS, which --mysql-ssl "
                           "requires (use --mysql-ssl=preferred to allow plain text)");
        return sb_mysql_give_up(cp, SB_DB_ERROR);
    }
    if (!cp->have_endpoint)
        sb_mysql_record_default_socket(cp);
    con->priv = cp;
    return SB_DB_OK;
}

#ifdef SB_MYSQL_ASYNC
/* The non-blocking connect: Connector/C's mysql_real_connect_start and
 * _cont, on a handle made non-blocking before it connects. */

/* What the library waits for (MYSQL_WAIT_*) as poll events in con->wait;
 * a wait for its timeout is the attempt's timeout, which the caller keeps. */
static enum sb_db_status sb_mysql_connect_wait(struct sb_conn *con, MYSQL *my, int status)
{
    short ev = 0;

    if (status & MYSQL_WAIT_READ)
        ev |= POLLIN;
    if (status & MYSQL_WAIT_WRITE)
        ev |= POLLOUT;
    if (status & MYSQL_WAIT_EXCEPT)
        ev |= POLLPRI;
    con->wait.fd = (int)mysql_get_socket(my);
    con->wait.events = ev != 0 ? ev : POLLIN;
    return SB_DB_PENDING;
}

/* The end of a non-blocking connect: ok, or the library's error. */
static enum sb_db_status sb_mysql_connect_end(struct sb_conn *con, MYSQL *ret)
{
    struct sb_mysql_conn *cp = con->priv;
    const char *host = NULL, *sock = NULL;
    unsigned port = 0;

    con->priv = NULL;
    if (ret == NULL)
        return sb_mysql_give_up(cp, sb_mysql_connect_error(con, cp));
    sb_mysql_pick_server(con, cp, &host, &sock, &port);
    return sb_mysql_connected(con, cp, host, sock);
}

static enum sb_db_status sb_mysql_connect_start(struct sb_conn *con)
{
    const struct sb_mysql_config *c = &sb_mysql_cfg;
    struct sb_mysql_conn *cp;
    const char *host = NULL, *sock = NULL;
    unsigned port = 0;
    enum sb_db_status st;
    MYSQL *ret = NULL;
    int status;

    if (c->dry_run)
        return sb_mysql_connect(con);
    cp = calloc(1, sizeof(*cp));
    if (cp == NULL)
        return sb_mysql_oom(con);
    sb_mysql_pick_server(con, cp, &host, &sock, &port);
    st = sb_mysql_new_handle(con, cp);
    if (st != SB_DB_OK) {
        free(cp);
        return st;
    }
    sb_mysql_load_setup(cp);
    if (sb_mysql_enable_nonblocking(cp->my) != 0)
        return sb_mysql_give_up(cp, sb_mysql_oom(con));
    con->priv = cp;
    con->wait.timeout_ms = c->connect_timeout * 1000u;
    status = mysql_real_connect_start(&ret, cp->my, host, c->user, c->password, c->db, port,
                                      sock, 0);
    if (status != 0)
        return sb_mysql_connect_wait(con, cp->my, status);
    return sb_mysql_connect_end(con, ret);
}

static enum sb_db_status sb_mysql_connect_cont(struct sb_conn *con, bool timed_out)
{
    struct sb_mysql_conn *cp = con->priv;
    MYSQL *ret = NULL;
    int status = 0;

    if (timed_out) {
        sb_mysql_set_err(con, SB_MY_CR_CONN_HOST_ERROR, "HY000",
                         "Can't connect to the server: timeout expired");
        con->priv = NULL;
        return sb_mysql_give_up(cp, SB_DB_CONN_LOST);
    }
    if (con->wait.events & POLLIN)
        status |= MYSQL_WAIT_READ;
    if (con->wait.events & POLLOUT)
        status |= MYSQL_WAIT_WRITE;
    if (con->wait.events & POLLPRI)
        status |= MYSQL_WAIT_EXCEPT;
    status = mysql_real_connect_cont(&ret, cp->my, status);
    if (status != 0)
        return sb_mysql_connect_wait(con, cp->my, status);
    return sb_mysql_connect_end(con, ret);
}
#endif

static void sb_mysql_disconnect(struct sb_conn *con)
{
    struct sb_mysql_conn *cp = con->priv;

    if (cp == NULL)
        return;
    sb_mysql_drop_results(cp);
    con->rs.active = false;
    con->rs.priv = NULL;
    if (cp->my != NULL)
        mysql_close(cp->my);
    sb_mysql_load_free(cp);
    free(cp->row);
    free(cp);
    con->priv = NULL;
}

/* ------------------------------------------------------- plain queries */

static enum sb_db_status sb_mysql_query(struct sb_conn *con, const char *sql,
                                        size_t len, struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = con->priv;

    /* The common layer freed the previous result and cleared rs. */
    if (cp->my == NULL)
        return SB_DB_OK;   /* dry run */

    if (mysql_real_query(cp->my, sql, (unsigned long)len) != 0)
        return sb_mysql_conn_error(con, cp->my);
    return sb_mysql_take_result(con, mysql_store_result(cp->my), rs);
}


static int sb_mysql_fetch_row(struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = rs->priv;
    MYSQL_ROW r;
    unsigned long *lens;

    if (!rs->active || cp == NULL)
        return 0;
    if (cp->rs_stmt != NULL)
        return sb_mysql_fetch_stmt_row(rs, cp->rs_stmt);
    if (cp->res == NULL)
        return 0;

    r = mysql_fetch_row(cp->res);
    if (r == NULL) {
        /* Stored results cannot fail while fetching, but the API allows it. */
        if (mysql_errno(cp->my) != 0) {
            sb_mysql_conn_error(rs->con, cp->my);
            return -1;
        }
        return 0;
    }
    lens = mysql_fetch_lengths(cp->res);
    for (unsigned i = 0; i < rs->nfields; i++) {
        cp->row[i].ptr = r[i];
        cp->row[i].len = r[i] != NULL ? lens[i] : 0;
    }
    rs->row = cp->row;
    return 1;
}

static void sb_mysql_free_result(struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = rs->priv;

    if (cp != NULL)
        sb_mysql_drop_results(cp);
}

/* ------------------------------------------------------------ the rest */

/* Backslash escaping as the server's default sql_mode expects; used when
 * there is no connection (dry run) or the library refuses. */
static size_t sb_mysql_escape_plain(const char *src, size_t len, char *dst)
{
    size_t o = 0;

    for (size_t i = 0; i < len; i++) {
        char ch = src[i];

        switch (ch) {
        case '\0': dst[o++] = '\\'; dst[o++] = '0'; break;
        case '\n': dst[o++] = '\\'; dst[o++] = 'n'; break;
        case '\r': dst[o++] = '\\'; dst[o++] = 'r'; break;
        case '\032': dst[o++] = '\\'; dst[o++] = 'Z'; break;
        case '\\': case '\'': case '"': dst[o++] = '\\'; dst[o++] = ch; break;
        default: dst[o++] = ch; break;
        }
    }
    return o;
}

static size_t sb_mysql_quote(struct sb_conn *con, const char *src, size_t len, char *dst)
{
    struct sb_mysql_conn *cp = con->priv;
    size_t n;

    dst[0] = '\'';
    if (cp != NULL && cp->my != NULL) {
        unsigned long r = mysql_real_escape_string(cp->my, dst + 1, src, (unsigned long)len);

        /* libmysqlclient refuses (returns -1) under NO_BACKSLASH_ESCAPES,
         * where only doubled quotes are valid. */
        if (r == (unsigned long)-1) {
            n = 0;
            for (size_t i = 0; i < len; i++) {
                if (src[i] == '\'')
                    dst[1 + n++] = '\'';
                dst[1 + n++] = src[i];
            }
        } else {
            n = r;
        }
    } else {
        n = sb_mysql_escape_plain(src, len, dst + 1);
    }
    dst[1 + n] = '\'';
    dst[2 + n] = '\0';
    return n + 2;
}

static const char *sb_mysql_server_version(struct sb_conn *con)
{
    struct sb_mysql_conn *cp = con->priv;

    if (cp == NULL || cp->my == NULL)
        return NULL;
    return mysql_get_server_info(cp->my);
}

static int sb_mysql_server_endpoint(struct sb_conn *con, char *buf, size_t len)
{
    struct sb_mysql_conn *cp = con->priv;

    if (cp == NULL || cp->my == NULL || !cp->have_endpoint || len == 0)
        return -1;
    snprintf(buf, len, "%s", cp->endpoint);
    return 0;
}

/* The client library's version, for result files. */
static int sb_mysql_client_version(char *buf, size_t len)
{
    const char *v = mysql_get_client_info();

    if (v == NULL)
        return -1;
    snprintf(buf, len, "%s", v);
    return 0;
}

/* The server's "in transaction" flag from its last OK packet. An error
 * packet carries no status, so after a deadlock (which already rolled
 * back) this may still say yes: one harmless extra ROLLBACK. A lock-wait
 * timeout leaves the transaction open, and sysbench 1.0 does not roll it
 * back: its retried BEGIN then commits the half-done transaction. */
static bool sb_mysql_in_transaction(struct sb_conn *con)
{
    struct sb_mysql_conn *cp = con->priv;
    return cp != NULL && cp->my != NULL && (cp->my->server_status & SERVER_STATUS_IN_TRANS);
}

/* From the server's last OK packet, which carries its sql_mode's
 * NO_BACKSLASH_ESCAPES. */
static bool sb_mysql_backslash_escapes(struct sb_conn *con)
{
    struct sb_mysql_conn *cp = con->priv;
    return cp == NULL || cp->my == NULL ||
           !(cp->my->server_status & SERVER_STATUS_NO_BACKSLASH_ESCAPES);
}

/* ------------------------------------------------------------ cancel */

/* A cancel sweep's side connections, one per server (a run may spread its
 * connections over several with --mysql-host/--mysql-socket lists). */
#define SB_MYSQL_SIDES 16
struct sb_mysql_sweep {
    size_t n;
    struct {
        const char *host, *sock;
        unsigned port;
        MYSQL *my;               /* NULL: that server could not be reached */
    } side[SB_MYSQL_SIDES];
};

/* The side connection to con's server, opened on first use; NULL when it
 * cannot be opened. */
static MYSQL *sb_mysql_side(struct sb_mysql_sweep *sw, const struct sb_conn *con)
{
    struct sb_conn tmp;
    struct sb_mysql_conn tcp;
    const char *host = NULL, *sock = NULL;
    unsigned port = 0, rto = 5;
    const struct sb_mysql_config *c = &sb_mysql_cfg;

    memset(&tmp, 0, sizeof(tmp));
    memset(&tcp, 0, sizeof(tcp));
    tmp.index = con->index;
    sb_mysql_pick_server(&tmp, &tcp, &host, &sock, &port);
    for (size_t i = 0; i < sw->n; i++)
        if (sw->side[i].host == host && sw->side[i].sock == sock && sw->side[i].port == port)
            return sw->side[i].my;
    if (sw->n == SB_MYSQL_SIDES || sb_mysql_new_handle(&tmp, &tcp) != SB_DB_OK)
        return NULL;
    /* A hung server must not hang the canceller for ever. */
    mysql_options(tcp.my, MYSQL_OPT_READ_TIMEOUT, &rto);
    mysql_options(tcp.my, MYSQL_OPT_WRITE_TIMEOUT, &rto);
    if (mysql_real_connect(tcp.my, host, c->user, c->password, c->db, port, sock, 0) == NULL) {
        mysql_close(tcp.my);
        tcp.my = NULL;
    }
    sw->side[sw->n].host = host;
    sw->side[sw->n].sock = sock;
    sw->side[sw->n].port = port;
    sw->side[sw->n].my = tcp.my;
    sw->n++;
    return tcp.my;
}

/* KILL QUERY for the connection's server thread, sent on a side
 * connection: the statement ends with error 1317 (or, for SLEEP(), with
 * its result 1); the connection stays open. */
static bool sb_mysql_cancel(struct sb_conn *con, void **sweep)
{
    struct sb_mysql_conn *cp = con->priv;
    struct sb_mysql_sweep *sw = *sweep;
    unsigned long id;
    char q[64];
    MYSQL *side;

    if (cp->my == NULL)
        return false; /* dry run: nothing in flight on a server */
    /* A plain field of the handle, fixed since the connect. */
    id = mysql_thread_id(cp->my);
    if (sw == NULL) {
        mysql_thread_init();
        sw = calloc(1, sizeof(*sw));
        if (sw == NULL)
            return false;
        *sweep = sw;
    }
    side = sb_mysql_side(sw, con);
    if (side == NULL)
        return false;
    snprintf(q, sizeof(q), "KILL QUERY %lu", id);
    return mysql_real_query(side, q, (unsigned long)strlen(q)) == 0;
}

static void sb_mysql_cancel_end(void *sweep)
{
    struct sb_mysql_sweep *sw = sweep;

    if (sw == NULL)
        return;
    for (size_t i = 0; i < sw->n; i++)
        if (sw->side[i].my != NULL)
            mysql_close(sw->side[i].my);
    free(sw);
}

const struct sb_driver_ops sb_driver_mysql = {
    .name = "mysql",
    .description = "MySQL driver",
    .options = sb_mysql_options,
    .ignore_option = "mysql-ignore-errors",
    .init = sb_mysql_init,
    .done = sb_mysql_done,
    .thread_init = sb_mysql_thread_init,
    .thread_done = sb_mysql_thread_done,
    .connect = sb_mysql_connect,
#ifdef SB_MYSQL_ASYNC
    .connect_start = sb_mysql_connect_start,
    .connect_cont = sb_mysql_connect_cont,
#endif
    .disconnect = sb_mysql_disconnect,
    .query = sb_mysql_query,
    .prepare = sb_mysql_prepare,
    .execute = sb_mysql_execute,
    .close = sb_mysql_close,
#ifdef SB_MYSQL_ASYNC
    .query_start = sb_mysql_query_start,
    .execute_start = sb_mysql_execute_start,
    .resume = sb_mysql_resume,
#endif
    .fetch_row = sb_mysql_fetch_row,
    .free_result = sb_mysql_free_result,
    .quote = sb_mysql_quote,
    .client_version = sb_mysql_client_version,
    .server_version = sb_mysql_server_version,
    .server_endpoint = sb_mysql_server_endpoint,
    .settings_query = "SHOW GLOBAL VARIABLES",
    .in_transaction = sb_mysql_in_transaction,
    .backslash_escapes = sb_mysql_backslash_escapes,
    .copy_begin = sb_mysql_copy_begin,
    .copy_data = sb_mysql_copy_data,
    .copy_end = sb_mysql_copy_end,
    .copy_chunk = 4 << 20,
    .copy_name = "LOAD DATA LOCAL INFILE",
    .statement_limit = sb_mysql_statement_limit,
    .cancel = sb_mysql_cancel,
    .cancel_end = sb_mysql_cancel_end,
};
