/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cancelling the MySQL driver's statements in flight at a stop: KILL
 * QUERY sent on side connections, one per server, opened for one sweep
 * over the run's connections. See drv_mysql.h.
 */

#include "drivers/mysql/drv_mysql.h"

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
bool sb_mysql_cancel(struct sb_conn *con, void **sweep)
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

void sb_mysql_cancel_end(void *sweep)
{
    struct sb_mysql_sweep *sw = sweep;

    if (sw == NULL)
        return;
    for (size_t i = 0; i < sw->n; i++)
        if (sw->side[i].my != NULL)
            mysql_close(sw->side[i].my);
    free(sw);
}
