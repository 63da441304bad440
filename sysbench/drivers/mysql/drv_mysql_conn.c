/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every file of the MySQL driver shares: errors into the connection,
 * and a plain query's result as the connection's result set. See
 * drv_mysql_conn.h.
 */
#include "drivers/mysql/drv_mysql_conn.h"

void sb_mysql_set_err(struct sb_conn *con, unsigned no, const char *state,
                             const char *msg)
{
    con->err.sql_errno = no;
    snprintf(con->err.sql_state, sizeof(con->err.sql_state), "%s",
             state != NULL ? state : "");
    snprintf(con->err.msg, sizeof(con->err.msg), "%s", msg != NULL ? msg : "");
    /* A multi-line server message would break the one-line error rule. */
    for (char *p = con->err.msg; *p != '\0'; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

bool sb_mysql_is_conn_lost(unsigned no)
{
    switch (no) {
    case SB_MY_CR_SERVER_GONE_ERROR:
    case SB_MY_CR_SERVER_LOST:
    case SB_MY_CR_SERVER_LOST_EXTENDED:
    case SB_MY_CR_CONNECTION_ERROR:
    case SB_MY_CR_CONN_HOST_ERROR:
    case SB_MY_ER_CONNECTION_KILLED:
    case SB_MY_ER_CLIENT_INTERACTION_TIMEOUT:
    case SB_MY_ER_SERVER_SHUTDOWN:
        return true;
    default:
        /* ER_NET_READ_ERROR .. ER_NET_WRITE_INTERRUPTED: the server gave up
         * on the socket and closes it next. */
        return no >= SB_MY_ER_NET_READ_ERROR && no <= SB_MY_ER_NET_WRITE_INTERRUPTED;
    }
}

enum sb_db_status sb_mysql_conn_error(struct sb_conn *con, MYSQL *my)
{
    unsigned no = mysql_errno(my);

    sb_mysql_set_err(con, no, mysql_sqlstate(my), mysql_error(my));
    return sb_mysql_is_conn_lost(no) ? SB_DB_CONN_LOST : SB_DB_ERROR;
}

enum sb_db_status sb_mysql_stmt_error(struct sb_conn *con, MYSQL_STMT *ps)
{
    unsigned no = mysql_stmt_errno(ps);

    sb_mysql_set_err(con, no, mysql_stmt_sqlstate(ps), mysql_stmt_error(ps));
    return sb_mysql_is_conn_lost(no) ? SB_DB_CONN_LOST : SB_DB_ERROR;
}

enum sb_db_status sb_mysql_oom(struct sb_conn *con)
{
    sb_mysql_set_err(con, 0, "HY001", "out of memory in the MySQL driver");
    return SB_DB_ERROR;
}

/* Releases whichever result set is open on the connection. */
void sb_mysql_drop_results(struct sb_mysql_conn *cp)
{
    if (cp->rs_stmt != NULL) {
        if (cp->rs_stmt->ps != NULL)
            mysql_stmt_free_result(cp->rs_stmt->ps);
        cp->rs_stmt = NULL;
    }
    if (cp->res != NULL) {
        mysql_free_result(cp->res);
        cp->res = NULL;
    }
}

enum sb_db_status sb_mysql_take_result(struct sb_conn *con, MYSQL_RES *res,
                                       struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = con->priv;
    unsigned nf;

    if (res == NULL) {
        /* No result is normal for statements without rows; a field count
         * means rows were due and fetching them failed. */
        if (mysql_field_count(cp->my) != 0)
            return sb_mysql_conn_error(con, cp->my);
        rs->affected = sb_mysql_affected(mysql_affected_rows(cp->my));
        return SB_DB_OK;
    }

    nf = mysql_num_fields(res);
    if (nf > cp->rowcap) {
        struct sb_value *row = realloc(cp->row, nf * sizeof(*row));

        if (row == NULL) {
            mysql_free_result(res);
            return sb_mysql_oom(con);
        }
        cp->row = row;
        cp->rowcap = nf;
    }
    cp->res = res;
    cp->rs_stmt = NULL;
    rs->active = true;
    rs->nrows = (uint64_t)mysql_num_rows(res);
    rs->nfields = nf;
    rs->row = cp->row;
    rs->priv = cp;
    return SB_DB_OK;
}
