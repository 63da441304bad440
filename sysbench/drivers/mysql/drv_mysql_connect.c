/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MySQL driver's connections: one MYSQL handle per connection, its
 * server chosen round-robin over the configured hosts, ports and sockets,
 * with the TLS, timeout and option-file settings of drv_mysql_opts.c;
 * connecting (blocking, or started and continued without blocking with
 * MariaDB Connector/C) and disconnecting. See drv_mysql.h.
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
void sb_mysql_pick_server(const struct sb_conn *con, struct sb_mysql_conn *cp,
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
enum sb_db_status sb_mysql_new_handle(struct sb_conn *con, struct sb_mysql_conn *cp)
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

enum sb_db_status sb_mysql_connect(struct sb_conn *con)
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
    sb_mysql_wait_for(con, my, status);
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

enum sb_db_status sb_mysql_connect_start(struct sb_conn *con)
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

enum sb_db_status sb_mysql_connect_cont(struct sb_conn *con, bool timed_out)
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
    status = mysql_real_connect_cont(&ret, cp->my, sb_mysql_ready_status(con));
    if (status != 0)
        return sb_mysql_connect_wait(con, cp->my, status);
    return sb_mysql_connect_end(con, ret);
}
#endif

void sb_mysql_disconnect(struct sb_conn *con)
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
