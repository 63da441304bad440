/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MySQL driver's options: the --mysql-* option table, their parsed,
 * read-only copy (sb_mysql_cfg) and the driver's init and done, which
 * also set up and end the client library. See drv_mysql.h.
 *
 * --mysql-ssl is a STRING rather than a BOOL so that the verification level
 * can be chosen: off (or disabled), preferred, on (or required), verify_ca,
 * verify_identity, case-insensitive. "on" encrypts without verifying the
 * server's certificate, as sysbench 1.0's --mysql-ssl=on did.
 */

#include "drivers/mysql/drv_mysql.h"

#include <unistd.h>

/* The parsed --mysql-* options; read-only after init. */
struct sb_mysql_config sb_mysql_cfg;

/* ------------------------------------------------------------- options */

const struct sb_opt_def sb_mysql_options[] = {
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

int sb_mysql_init(const struct sb_optset *opts, char *err, size_t errlen)
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

void sb_mysql_done(void)
{
    mysql_library_end();
    sb_mysql_free_config();
}

int sb_mysql_thread_init(void)
{
    return mysql_thread_init() == 0 ? 0 : -1;
}

void sb_mysql_thread_done(void)
{
    mysql_thread_end();
}
