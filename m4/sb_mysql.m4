dnl SPDX-License-Identifier: GPL-2.0-or-later
# SB_CHECK_MYSQL: the MySQL/MariaDB driver (--with-mysql, default yes).
# Prefers pkg-config libmariadb, then mysqlclient, then mysql_config /
# mariadb_config. Sets MYSQL_CFLAGS/MYSQL_LIBS and defines USE_MYSQL; also
# probes for mysql_ssl_set, which Oracle's libmysqlclient 8.3 removed.
AC_DEFUN([SB_CHECK_MYSQL], [
  AC_ARG_WITH([mysql],
    [AS_HELP_STRING([--with-mysql], [build the MySQL/MariaDB driver (default: yes)])],
    [], [with_mysql=yes])
  AS_IF([test "x$with_mysql" != xno], [
    PKG_CHECK_MODULES([MYSQL], [libmariadb], [],
      [PKG_CHECK_MODULES([MYSQL], [mysqlclient], [],
        [AC_PATH_PROGS([MYSQL_CONFIG], [mariadb_config mysql_config])
         AS_IF([test -z "$MYSQL_CONFIG"],
           [AC_MSG_ERROR([MySQL client library not found: install libmariadb-dev or use --without-mysql])])
         MYSQL_CFLAGS=`$MYSQL_CONFIG --include`
         MYSQL_LIBS=`$MYSQL_CONFIG --libs`])])
    sb_save_CFLAGS=$CFLAGS; sb_save_LIBS=$LIBS
    CFLAGS="$CFLAGS $MYSQL_CFLAGS"; LIBS="$LIBS $MYSQL_LIBS"
    AC_CHECK_FUNCS([mysql_ssl_set])
    CFLAGS=$sb_save_CFLAGS; LIBS=$sb_save_LIBS
    AC_DEFINE([USE_MYSQL], [1], [Define to build the MySQL driver])
  ])
  AM_CONDITIONAL([USE_MYSQL], [test "x$with_mysql" != xno])
])
