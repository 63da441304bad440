/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LOAD DATA LOCAL INFILE from memory; see drv_mysql_load.h.
 */
#include "drivers/mysql/drv_mysql_load.h"

/* The name sysbench's loads ask for; the handler serves nothing else. */
#define SB_MY_LOAD_NAME "sysbench-bulk-rows"
/* How a server (or the client library) says it refuses local infile:
 * ER_NOT_ALLOWED_COMMAND, ER_CLIENT_LOCAL_FILES_DISABLED (MySQL 8),
 * ER_LOAD_INFILE_CAPABILITY_DISABLED (MariaDB), CR_LOAD_DATA_LOCAL_INFILE_REJECTED. */
#define SB_MY_ER_NOT_ALLOWED_COMMAND 1148
#define SB_MY_ER_CLIENT_LOCAL_FILES_DISABLED 3948
#define SB_MY_ER_LOAD_INFILE_CAPABILITY_DISABLED 4166
#define SB_MY_CR_LOAD_DATA_LOCAL_INFILE_REJECTED 2068
/* The error the handler gives a request it did not expect. */
#define SB_MY_LOAD_UNEXPECTED 2000

static int load_init(void **ptr, const char *filename, void *userdata)
{
    struct sb_mysql_conn *cp = userdata;

    *ptr = cp;
    return cp->load_active && strcmp(filename, SB_MY_LOAD_NAME) == 0 ? 0 : 1;
}

static int load_read(void *ptr, char *buf, unsigned int len)
{
    struct sb_mysql_conn *cp = ptr;
    size_t n = cp->load_left < len ? cp->load_left : len;

    memcpy(buf, cp->load_data, n);
    cp->load_data += n;
    cp->load_left -= n;
    return (int)n;
}

static void load_end(void *ptr)
{
    (void)ptr;
}

static int load_error(void *ptr, char *msg, unsigned int len)
{
    (void)ptr;
    snprintf(msg, len, "the server asked for a local file sysbench did not offer");
    return SB_MY_LOAD_UNEXPECTED;
}

void sb_mysql_load_setup(struct sb_mysql_conn *cp)
{
    unsigned on = 1;

    mysql_options(cp->my, MYSQL_OPT_LOCAL_INFILE, &on);
    mysql_set_local_infile_handler(cp->my, load_init, load_read, load_end, load_error, cp);
}

void sb_mysql_load_free(struct sb_mysql_conn *cp)
{
    free(cp->load_sql);
    cp->load_sql = NULL;
}

static bool refusal(unsigned no)
{
    return no == SB_MY_ER_NOT_ALLOWED_COMMAND || no == SB_MY_ER_CLIENT_LOCAL_FILES_DISABLED ||
           no == SB_MY_ER_LOAD_INFILE_CAPABILITY_DISABLED ||
           no == SB_MY_CR_LOAD_DATA_LOCAL_INFILE_REJECTED;
}

/* Runs the load statement over len bytes of data. */
static int run_load(struct sb_mysql_conn *cp, const char *data, size_t len)
{
    int rc;

    cp->load_data = data;
    cp->load_left = len;
    cp->load_active = true;
    rc = mysql_real_query(cp->my, cp->load_sql, (unsigned long)strlen(cp->load_sql));
    cp->load_active = false;
    return rc;
}

enum sb_db_status sb_mysql_copy_begin(struct sb_conn *con, const char *table, const char *cols)
{
    struct sb_mysql_conn *cp = con->priv;
    const char *cs;
    size_t n;

    if (cp->my == NULL)
        return SB_DB_OK;   /* dry run */
    if (cp->load_ok < 0)
        return SB_DB_REFUSED;
    /* The text arrives in the connection's character set, as an INSERT's
     * would (LOAD DATA reads character_set_database otherwise). */
    cs = mysql_character_set_name(cp->my);
    n = strlen(table) + strlen(cols) + strlen(cs) + 256;
    free(cp->load_sql);
    if ((cp->load_sql = malloc(n)) == NULL)
        return sb_mysql_oom(con);
    snprintf(cp->load_sql, n,
             "LOAD DATA LOCAL INFILE '" SB_MY_LOAD_NAME "' INTO TABLE %s CHARACTER SET %s "
             "FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' %s",
             table, cs, cols);
    if (cp->load_ok > 0)
        return SB_DB_OK;
    /* Once per connection, an empty load: a refusal then costs no rows. */
    if (run_load(cp, "", 0) != 0) {
        enum sb_db_status st = sb_mysql_conn_error(con, cp->my);
        if (refusal(mysql_errno(cp->my))) {
            cp->load_ok = -1;
            return SB_DB_REFUSED;
        }
        return st;
    }
    cp->load_ok = 1;
    return SB_DB_OK;
}

/* The first warning of the last statement, into con->err. */
static void first_warning(struct sb_conn *con, struct sb_mysql_conn *cp, uint64_t stored,
                          uint64_t nrows)
{
    char msg[400] = "";
    MYSQL_RES *res;
    MYSQL_ROW row;

    if (mysql_query(cp->my, "SHOW WARNINGS LIMIT 1") == 0 &&
        (res = mysql_store_result(cp->my)) != NULL) {
        if ((row = mysql_fetch_row(res)) != NULL && mysql_num_fields(res) >= 3 && row[2])
            snprintf(msg, sizeof(msg), " (the first: %s)", row[2]);
        mysql_free_result(res);
    }
    snprintf(con->err.msg, sizeof(con->err.msg),
             "LOAD DATA stored %llu of %llu rows and left warnings%s",
             (unsigned long long)stored, (unsigned long long)nrows, msg);
    con->err.sql_errno = 0;
    snprintf(con->err.sql_state, sizeof(con->err.sql_state), "HY000");
}

enum sb_db_status sb_mysql_copy_data(struct sb_conn *con, const char *data, size_t len,
                                     uint64_t nrows)
{
    struct sb_mysql_conn *cp = con->priv;
    uint64_t stored;

    if (cp->my == NULL)
        return SB_DB_OK;
    if (run_load(cp, data, len) != 0)
        return sb_mysql_conn_error(con, cp->my);
    stored = (uint64_t)mysql_affected_rows(cp->my);
    if (stored != nrows || mysql_warning_count(cp->my) != 0) {
        first_warning(con, cp, stored, nrows);
        return SB_DB_ERROR;
    }
    return SB_DB_OK;
}

enum sb_db_status sb_mysql_copy_end(struct sb_conn *con, bool abort)
{
    (void)con;
    (void)abort;
    return SB_DB_OK;
}

size_t sb_mysql_statement_limit(struct sb_conn *con)
{
    struct sb_mysql_conn *cp = con->priv;
    MYSQL_RES *res;
    MYSQL_ROW row;

    if (cp->my == NULL || cp->max_packet > 0)
        return cp->max_packet;
    if (mysql_query(cp->my, "SELECT @@max_allowed_packet") != 0)
        return 0;
    if ((res = mysql_store_result(cp->my)) == NULL)
        return 0;
    if ((row = mysql_fetch_row(res)) != NULL && row[0] != NULL)
        cp->max_packet = (size_t)strtoull(row[0], NULL, 10);
    mysql_free_result(res);
    return cp->max_packet;
}
