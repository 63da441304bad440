/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DRV_MYSQL_H
#define SB_DRV_MYSQL_H

/*
 * The MySQL driver's files: the ops table, plain queries and quoting
 * (drv_mysql.c), the options (drv_mysql_opts.c), connections
 * (drv_mysql_connect.c) and cancelling (drv_mysql_cancel.c), all declared
 * here; and the halves they stand on: prepared statements
 * (drv_mysql_stmt.h), non-blocking statements (drv_mysql_async.h), bulk
 * loads (drv_mysql_load.h) and what all of them share (drv_mysql_conn.h).
 */

#include "drivers/mysql/drv_mysql_conn.h"
#include "drivers/mysql/drv_mysql_async.h"
#include "drivers/mysql/drv_mysql_stmt.h"
#include "drivers/mysql/drv_mysql_load.h"

enum sb_mysql_ssl {
    SB_MYSQL_SSL_OFF = 0,
    SB_MYSQL_SSL_PREFERRED,
    SB_MYSQL_SSL_REQUIRED,
    SB_MYSQL_SSL_VERIFY_CA,
    SB_MYSQL_SSL_VERIFY_IDENTITY
};

/* Parsed options: written once by init() in the main thread, read-only
 * while workers run, freed by done(). */
struct sb_mysql_config {
    char **hosts;
    size_t nhosts;
    unsigned *ports;
    size_t nports;
    char **sockets;
    size_t nsockets;
    char *user;
    char *password;
    char *db;
    enum sb_mysql_ssl ssl;
    char *ssl_ca, *ssl_cert, *ssl_key, *ssl_cipher;
    bool compression;
    unsigned connect_timeout;
    bool dry_run;
    /* --mysql-read-default-file/-group: the client library reads that
     * option file group at connect; options not given are then left to
     * it (host, port, socket, password), or given 1.0's default only when
     * the file has none (user, db: default_user, default_db). */
    char *cnf_file, *cnf_group;
    bool host_from_cnf, port_from_cnf;
    char *default_user, *default_db;
    /* What chose the host and port, for connection errors:
     * "--mysql-host", "the default", "the option file". */
    char src_host[48], src_port[48];
};

/* The parsed options (drv_mysql_opts.c): written by sb_mysql_init in the
 * main thread, read-only while workers run. */
extern struct sb_mysql_config sb_mysql_cfg;

/* The driver's options ({NULL}-ended), for the ops table. */
extern const struct sb_opt_def sb_mysql_options[];

/* The driver's init (parses the options into sb_mysql_cfg and initialises
 * the client library; -1 with a one-line reason in err) and done, and a
 * worker thread's init and done of the client library (sb_driver.h). */
int sb_mysql_init(const struct sb_optset *opts, char *err, size_t errlen);
void sb_mysql_done(void);
int sb_mysql_thread_init(void);
void sb_mysql_thread_done(void);

/* Connections (drv_mysql_connect.c), the connect, connect_start,
 * connect_cont and disconnect ops of sb_driver.h: con->priv becomes a
 * struct sb_mysql_conn owned by the connection until disconnect. */
enum sb_db_status sb_mysql_connect(struct sb_conn *con);
#ifdef SB_MYSQL_ASYNC
enum sb_db_status sb_mysql_connect_start(struct sb_conn *con);
enum sb_db_status sb_mysql_connect_cont(struct sb_conn *con, bool timed_out);
#endif
void sb_mysql_disconnect(struct sb_conn *con);

/* Picks con's server (round-robin by con->index over the sockets, else
 * the hosts and ports) into *host, *sock and *port (NULL or 0: the option
 * file's), and records it in cp->endpoint when it names one. */
void sb_mysql_pick_server(const struct sb_conn *con, struct sb_mysql_conn *cp,
                          const char **host, const char **sock, unsigned *port);

/* Makes cp->my, a handle with the timeout, compression, option-file and
 * TLS settings of sb_mysql_cfg, not connected. Returns SB_DB_OK, or an
 * error in con->err with no handle left open. */
enum sb_db_status sb_mysql_new_handle(struct sb_conn *con, struct sb_mysql_conn *cp);

/* The cancel and cancel_end ops (drv_mysql_cancel.c): KILL QUERY for
 * con's statement on a side connection to its server, kept in *sweep
 * (made on first use) until cancel_end closes and frees them. cancel
 * returns whether the KILL was sent. */
bool sb_mysql_cancel(struct sb_conn *con, void **sweep);
void sb_mysql_cancel_end(void *sweep);

#endif /* SB_DRV_MYSQL_H */
