/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Server-side prepared statements of the MySQL driver: bind arrays sized
 * once at prepare time so executions allocate nothing, and result rows
 * fetched into text buffers that grow on truncation. See drv_mysql_stmt.h.
 */

#include "drivers/mysql/drv_mysql_stmt.h"

/* ------------------------------------------------- prepared statements */

static void sb_mysql_free_result_binds(struct sb_mysql_stmt *sp)
{
    for (unsigned i = 0; i < sp->nfields; i++)
        free(sp->rbuf[i]);
    free(sp->rbind);
    free(sp->rbuf);
    free(sp->rcap);
    free(sp->rlen);
    free(sp->rnull);
    free(sp->rerr);
    free(sp->row);
    sp->rbind = NULL;
    sp->rbuf = NULL;
    sp->rcap = NULL;
    sp->rlen = NULL;
    sp->rnull = NULL;
    sp->rerr = NULL;
    sp->row = NULL;
    sp->nfields = 0;
}

static void sb_mysql_stmt_free(struct sb_mysql_stmt *sp)
{
    if (sp == NULL)
        return;
    /* mysql_close() detaches a connection's statements, so closing one
     * after its connection is gone only frees client memory. */
    if (sp->ps != NULL)
        mysql_stmt_close(sp->ps);
    sb_mysql_free_result_binds(sp);
    free(sp->pbind);
    free(sp->pnum);
    free(sp->plen);
    free(sp->pnull);
    free(sp);
}

/*
 * Binds every result column as text so that sb_value can point at it.
 * Buffers start small and grow when a value is truncated.
 */
static int sb_mysql_setup_result(struct sb_mysql_stmt *sp, unsigned nf)
{
    MYSQL_RES *meta = mysql_stmt_result_metadata(sp->ps);
    MYSQL_FIELD *fields = meta != NULL ? mysql_fetch_fields(meta) : NULL;

    sb_mysql_free_result_binds(sp);
    sp->rbind = calloc(nf, sizeof(*sp->rbind));
    sp->rbuf = calloc(nf, sizeof(*sp->rbuf));
    sp->rcap = calloc(nf, sizeof(*sp->rcap));
    sp->rlen = calloc(nf, sizeof(*sp->rlen));
    sp->rnull = calloc(nf, sizeof(*sp->rnull));
    sp->rerr = calloc(nf, sizeof(*sp->rerr));
    sp->row = calloc(nf, sizeof(*sp->row));
    if (sp->rbind == NULL || sp->rbuf == NULL || sp->rcap == NULL ||
        sp->rlen == NULL || sp->rnull == NULL || sp->rerr == NULL || sp->row == NULL)
        goto fail;
    sp->nfields = nf;
    for (unsigned i = 0; i < nf; i++) {
        unsigned long cap = SB_MY_COLBUF_MIN;

        if (fields != NULL && fields[i].length + 1 > cap)
            cap = fields[i].length + 1;
        if (cap > SB_MY_COLBUF_MAX_INITIAL)
            cap = SB_MY_COLBUF_MAX_INITIAL;
        sp->rbuf[i] = malloc(cap);
        if (sp->rbuf[i] == NULL)
            goto fail;
        sp->rcap[i] = cap;
        sp->rbind[i].buffer_type = MYSQL_TYPE_STRING;
        sp->rbind[i].buffer = sp->rbuf[i];
        sp->rbind[i].buffer_length = cap;
        sp->rbind[i].length = &sp->rlen[i];
        sp->rbind[i].is_null = &sp->rnull[i];
        sp->rbind[i].error = &sp->rerr[i];
    }
    if (meta != NULL)
        mysql_free_result(meta);
    return 0;

fail:
    if (meta != NULL)
        mysql_free_result(meta);
    sb_mysql_free_result_binds(sp);
    return -1;
}

enum sb_db_status sb_mysql_prepare(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;
    struct sb_mysql_conn *cp = con->priv;
    struct sb_mysql_stmt *sp;
    unsigned n;

    /* A re-prepare after a reconnect replaces the old handle. */
    if (st->priv != NULL) {
        sb_mysql_stmt_free(st->priv);
        st->priv = NULL;
    }

    sp = calloc(1, sizeof(*sp));
    if (sp == NULL)
        return sb_mysql_oom(con);
    n = st->nparams;
    sp->nparams = n;
    if (n > 0) {
        sp->pbind = calloc(n, sizeof(*sp->pbind));
        sp->pnum = calloc(n, sizeof(*sp->pnum));
        sp->plen = calloc(n, sizeof(*sp->plen));
        sp->pnull = calloc(n, sizeof(*sp->pnull));
        if (sp->pbind == NULL || sp->pnum == NULL || sp->plen == NULL || sp->pnull == NULL) {
            sb_mysql_stmt_free(sp);
            return sb_mysql_oom(con);
        }
    }
    if (cp->my == NULL) {
        st->priv = sp;     /* dry run */
        return SB_DB_OK;
    }

    sp->ps = mysql_stmt_init(cp->my);
    if (sp->ps == NULL) {
        enum sb_db_status rc = sb_mysql_conn_error(con, cp->my);

        sb_mysql_stmt_free(sp);
        return rc;
    }
    if (mysql_stmt_prepare(sp->ps, st->sql, (unsigned long)st->sql_len) != 0) {
        unsigned no = mysql_stmt_errno(sp->ps);
        enum sb_db_status rc;

        if (no == SB_MY_ER_UNSUPPORTED_PS) {
            /* The server cannot prepare this statement kind; the common
             * layer substitutes parameters into the text instead. */
            sb_mysql_stmt_free(sp);
            st->emulated = true;
            return SB_DB_OK;
        }
        rc = sb_mysql_stmt_error(con, sp->ps);
        sb_mysql_stmt_free(sp);
        return rc;
    }
    if (mysql_stmt_param_count(sp->ps) != n) {
        char msg[160];

        snprintf(msg, sizeof(msg),
                 "the server counts %lu parameters in the statement, the client %u",
                 (unsigned long)mysql_stmt_param_count(sp->ps), n);
        sb_mysql_set_err(con, 0, "HY000", msg);
        sb_mysql_stmt_free(sp);
        return SB_DB_ERROR;
    }
    n = mysql_stmt_field_count(sp->ps);
    if (n > 0 && sb_mysql_setup_result(sp, n) != 0) {
        sb_mysql_stmt_free(sp);
        return sb_mysql_oom(con);
    }
    st->priv = sp;
    return SB_DB_OK;
}

/*
 * Points the parameter binds at st->params. Buffer types and addresses
 * depend only on which parameter objects are bound (their types and text
 * buffers never change), so this runs when sb_db_bind changed them, not on
 * every execution, and the server is sent the types once.
 */
static int sb_mysql_bind_params(struct sb_stmt *st, struct sb_mysql_stmt *sp)
{
    for (unsigned i = 0; i < sp->nparams; i++) {
        const struct sb_bind *b = st->params[i];
        MYSQL_BIND *mb = &sp->pbind[i];

        memset(mb, 0, sizeof(*mb));
        mb->is_null = &sp->pnull[i];
        /* Every member of the number union starts at its address. */
        mb->buffer = &sp->pnum[i];
        switch (b != NULL ? b->type : SB_SQL_NONE) {
        case SB_SQL_TINYINT: mb->buffer_type = MYSQL_TYPE_TINY; break;
        case SB_SQL_SMALLINT: mb->buffer_type = MYSQL_TYPE_SHORT; break;
        case SB_SQL_INT: mb->buffer_type = MYSQL_TYPE_LONG; break;
        case SB_SQL_BIGINT: mb->buffer_type = MYSQL_TYPE_LONGLONG; break;
        case SB_SQL_FLOAT: mb->buffer_type = MYSQL_TYPE_FLOAT; break;
        case SB_SQL_DOUBLE: mb->buffer_type = MYSQL_TYPE_DOUBLE; break;
        case SB_SQL_NONE:
            /* An unbound or unset parameter is sent as NULL rather than
             * garbage (sb_mysql_fill_params keeps its flag set). */
            mb->buffer_type = MYSQL_TYPE_NULL;
            mb->buffer = NULL;
            break;
        default:
            /* Text and temporal values travel as strings; the server
             * converts them to the column's type as it would a literal. */
            mb->buffer_type = b->type == SB_SQL_VARCHAR ? MYSQL_TYPE_VAR_STRING
                                                        : MYSQL_TYPE_STRING;
            mb->buffer = b->str;
            mb->buffer_length = (unsigned long)b->cap;
            mb->length = &sp->plen[i];
            break;
        }
    }
    if (mysql_stmt_bind_param(sp->ps, sp->pbind) != 0)
        return -1;
    sp->bind_gen = st->bind_gen;
    return 0;
}

/* Copies st->params' current values into the buffers the binds point at. */
static void sb_mysql_fill_params(struct sb_stmt *st, struct sb_mysql_stmt *sp)
{
    for (unsigned i = 0; i < sp->nparams; i++) {
        const struct sb_bind *b = st->params[i];

        if (b == NULL || b->type == SB_SQL_NONE) {
            sp->pnull[i] = 1;
            continue;
        }
        sp->pnull[i] = b->is_null;
        switch (b->type) {
        case SB_SQL_TINYINT: sp->pnum[i].i8 = (int8_t)b->i; break;
        case SB_SQL_SMALLINT: sp->pnum[i].i16 = (int16_t)b->i; break;
        case SB_SQL_INT: sp->pnum[i].i32 = (int32_t)b->i; break;
        case SB_SQL_BIGINT: sp->pnum[i].i64 = b->i; break;
        case SB_SQL_FLOAT: sp->pnum[i].f = (float)b->d; break;
        case SB_SQL_DOUBLE: sp->pnum[i].d = b->d; break;
        default:
            sp->plen[i] = (unsigned long)b->len;
            if (b->str == NULL)
                sp->pnull[i] = 1;
            break;
        }
    }
}

enum sb_db_status sb_mysql_execute(struct sb_stmt *st, struct sb_sql_result *rs)
{
    struct sb_conn *con = st->con;
    struct sb_mysql_stmt *sp = st->priv;
    enum sb_db_status rc;

    /* The common layer freed the previous result, cleared rs and checked
     * that the parameters are bound. */
    if (sp == NULL || sp->ps == NULL)
        return SB_DB_OK;   /* dry run */

    rc = sb_mysql_stmt_params(st);
    if (rc != SB_DB_OK)
        return rc;
    if (mysql_stmt_execute(sp->ps) != 0)
        return sb_mysql_stmt_error(con, sp->ps);
    if (mysql_stmt_field_count(sp->ps) == 0) {
        rs->affected = sb_mysql_affected(mysql_stmt_affected_rows(sp->ps));
        return SB_DB_OK;
    }
    rc = sb_mysql_stmt_bind_result(st);
    if (rc != SB_DB_OK)
        return rc;
    if (mysql_stmt_store_result(sp->ps) != 0) {
        rc = sb_mysql_stmt_error(con, sp->ps);
        mysql_stmt_free_result(sp->ps);
        return rc;
    }
    return sb_mysql_stmt_stored(st, rs);
}

enum sb_db_status sb_mysql_stmt_params(struct sb_stmt *st)
{
    struct sb_mysql_stmt *sp = st->priv;

    if (sp->nparams > 0) {
        if (sp->bind_gen != st->bind_gen && sb_mysql_bind_params(st, sp) != 0)
            return sb_mysql_stmt_error(st->con, sp->ps);
        sb_mysql_fill_params(st, sp);
    }
    return SB_DB_OK;
}

enum sb_db_status sb_mysql_stmt_bind_result(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;
    struct sb_mysql_stmt *sp = st->priv;
    unsigned nf = mysql_stmt_field_count(sp->ps);

    /* The shape fixed at prepare time changes only for odd statements
     * (CALL); rebuilding then keeps the common path allocation-free. */
    if (nf != sp->nfields && sb_mysql_setup_result(sp, nf) != 0) {
        mysql_stmt_free_result(sp->ps);
        return sb_mysql_oom(con);
    }
    if (mysql_stmt_bind_result(sp->ps, sp->rbind) != 0) {
        enum sb_db_status rc = sb_mysql_stmt_error(con, sp->ps);

        mysql_stmt_free_result(sp->ps);
        return rc;
    }
    return SB_DB_OK;
}

enum sb_db_status sb_mysql_stmt_stored(struct sb_stmt *st, struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = st->con->priv;
    struct sb_mysql_stmt *sp = st->priv;

    cp->rs_stmt = sp;
    rs->active = true;
    rs->nrows = (uint64_t)mysql_stmt_num_rows(sp->ps);
    rs->nfields = sp->nfields;
    rs->row = sp->row;
    rs->priv = cp;
    return SB_DB_OK;
}

void sb_mysql_close(struct sb_stmt *st)
{
    struct sb_mysql_conn *cp = st->con != NULL ? st->con->priv : NULL;

    /* A result still open on this statement must not outlive it. */
    if (cp != NULL && st->priv != NULL && cp->rs_stmt == st->priv) {
        mysql_stmt_free_result(cp->rs_stmt->ps);
        cp->rs_stmt = NULL;
        st->con->rs.active = false;
        st->con->rs.priv = NULL;
    }
    sb_mysql_stmt_free(st->priv);
    st->priv = NULL;
}

/* ---------------------------------------------------------- result sets */

int sb_mysql_fetch_stmt_row(struct sb_sql_result *rs, struct sb_mysql_stmt *sp)
{
    int rc = mysql_stmt_fetch(sp->ps);

    if (rc == MYSQL_NO_DATA)
        return 0;
    if (rc == 1) {
        sb_mysql_stmt_error(rs->con, sp->ps);
        return -1;
    }
    if (rc == MYSQL_DATA_TRUNCATED) {
        bool grown = false;

        for (unsigned i = 0; i < sp->nfields; i++) {
            unsigned long need;
            char *buf;

            if (!sp->rerr[i] || sp->rnull[i])
                continue;
            need = sp->rlen[i] + 1;
            buf = realloc(sp->rbuf[i], need);
            if (buf == NULL) {
                sb_mysql_oom(rs->con);
                return -1;
            }
            sp->rbuf[i] = buf;
            sp->rcap[i] = need;
            sp->rbind[i].buffer = buf;
            sp->rbind[i].buffer_length = need;
            if (mysql_stmt_fetch_column(sp->ps, &sp->rbind[i], i, 0) != 0) {
                sb_mysql_stmt_error(rs->con, sp->ps);
                return -1;
            }
            grown = true;
        }
        /* Later rows go straight into the bigger buffers. */
        if (grown && mysql_stmt_bind_result(sp->ps, sp->rbind) != 0) {
            sb_mysql_stmt_error(rs->con, sp->ps);
            return -1;
        }
    }
    for (unsigned i = 0; i < sp->nfields; i++) {
        if (sp->rnull[i]) {
            sp->row[i].ptr = NULL;
            sp->row[i].len = 0;
        } else {
            sp->row[i].ptr = sp->rbuf[i];
            sp->row[i].len = sp->rlen[i];
        }
    }
    rs->row = sp->row;
    return 1;
}
