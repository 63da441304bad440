#ifndef SB_LUA_SQL_INTERNAL_H
#define SB_LUA_SQL_INTERNAL_H

/*
 * Shared between the files of sysbench.sql's native half: sb_lua_sql.c
 * (driver objects, class set-up, the module), sb_lua_sql_conn.c
 * (connections and error raising), sb_lua_sql_stmt.c (prepared statements
 * and parameters) and sb_lua_sql_result.c (result sets).
 *
 * Ownership: a connection's C state (struct lconn) is shared with its
 * statements and results and freed when the last of them is collected, so
 * the order in which the garbage collector finalises them never matters.
 * Result sets are views of the connection's one current result and become
 * invalid (an error, not a crash) once the connection runs another
 * statement.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stdint.h>

#include "sb_driver.h"
#include "sb_lua.h"
#include "sb_lua_sql.h"

#define MT_DRIVER "sysbench.sql.driver"
#define MT_CONN "sysbench.sql.connection"
#define MT_STMT "sysbench.sql.statement"
#define MT_PARAM "sysbench.sql.param"
#define MT_RESULT "sysbench.sql.result"

/* con.error, as sysbench 1.0 numbers it (sysbench.sql.error). */
enum lconn_error {
    LCONN_ERROR_NONE = 0,
    LCONN_ERROR_IGNORABLE = 1,
    LCONN_ERROR_FATAL = 2
};

struct lconn {
    struct sb_conn *con;   /* NULL once disconnected */
    int refs;              /* the connection object and its statements */
    uint64_t rs_gen;       /* bumped whenever the current result changes */
    enum lconn_error last_error; /* of the last statement (con.error) */
};

struct ldriver {
    const struct sb_driver_ops *drv;
};

struct lconn_ud {
    struct lconn *c;
};

struct lstmt {
    struct lconn *c;
    struct sb_stmt *st;    /* NULL once closed */
    struct sb_bind **params;
};

struct lresult {
    struct lconn *c;
    uint64_t gen;
    uint64_t nrows;
    unsigned nfields;
    enum sb_query_kind kind; /* rs.counter */
    bool from_stmt;        /* the environment holds the statement */
    bool have_row;         /* a fetched row is current (rs.row) */
};

/* Drops one reference; the last one disconnects and frees c. */
void sb_lsql_conn_unref(struct lconn *c);
/* The state's thread and environment (set by sb_lua.c in the registry). */
const struct sb_lua_thread *sb_lsql_thread_of(lua_State *L);
const struct sb_lua_env *sb_lsql_env_of(lua_State *L);
/* The open connection at idx; raises "connection is closed" otherwise. */
struct lconn *sb_lsql_check_conn(lua_State *L, int idx);
/* Pushes a new driver object for drv. */
void sb_lsql_push_driver(lua_State *L, const struct sb_driver_ops *drv);

/* Raises the Lua error an outcome other than SB_DB_DONE calls for (see
 * sb_lua_sql_conn.c); records con.error either way. */
void sb_lsql_raise_outcome(lua_State *L, int conn_idx, struct lconn *c,
                           enum sb_db_outcome o, const char *query);
/* Pushes a result object for c's rows, or the shared empty result (upvalue
 * 1 of the calling C closure) when the statement returned none. */
struct lresult *sb_lsql_push_rows_or_empty(lua_State *L, struct lconn *c,
                                           enum sb_query_kind kind);

/* Methods that need the empty-result upvalue (sb_lsql_set_method_closure). */
int sb_lsql_conn_query(lua_State *L);
int sb_lsql_stmt_execute(lua_State *L);
/* native.sb_lsql_param_fields and native.sb_lsql_stmt_connection (see sb_lua_sql_stmt.c). */
int sb_lsql_param_fields(lua_State *L);
int sb_lsql_stmt_connection(lua_State *L);

/* Class set-up helpers (sb_lua_sql.c). */
void sb_lsql_new_class(lua_State *L, const char *name, const luaL_Reg *methods,
                       lua_CFunction index, lua_CFunction newindex, lua_CFunction gc);
void sb_lsql_set_tostring(lua_State *L, const char *mt, const char *text);
void sb_lsql_set_method_closure(lua_State *L, const char *mt, const char *name,
                                lua_CFunction f);

/* Each class file registers its metatable. */
void sb_lsql_open_conn(lua_State *L);
void sb_lsql_open_stmt(lua_State *L);
void sb_lsql_open_result(lua_State *L);

#endif /* SB_LUA_SQL_INTERNAL_H */
