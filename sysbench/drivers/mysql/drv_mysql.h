/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DRV_MYSQL_H
#define SB_DRV_MYSQL_H

/*
 * The MySQL driver's options (drv_mysql.c), and the halves it stands on:
 * prepared statements (drv_mysql_stmt.h), non-blocking statements
 * (drv_mysql_async.h) and what all of them share (drv_mysql_conn.h).
 */

#include "drivers/mysql/drv_mysql_conn.h"
#include "drivers/mysql/drv_mysql_async.h"
#include "drivers/mysql/drv_mysql_stmt.h"

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

#endif /* SB_DRV_MYSQL_H */
