dnl SPDX-License-Identifier: GPL-2.0-or-later
# SB_CHECK_PGSQL: the PostgreSQL driver on libpq (--with-pgsql, default yes).
# Sets PGSQL_CFLAGS/PGSQL_LIBS and defines USE_PGSQL.
AC_DEFUN([SB_CHECK_PGSQL], [
  AC_ARG_WITH([pgsql],
    [AS_HELP_STRING([--with-pgsql], [build the PostgreSQL driver (default: yes)])],
    [], [with_pgsql=yes])
  AS_IF([test "x$with_pgsql" != xno], [
    PKG_CHECK_MODULES([PGSQL], [libpq], [],
      [AC_PATH_PROG([PG_CONFIG], [pg_config])
       AS_IF([test -z "$PG_CONFIG"],
         [AC_MSG_ERROR([libpq not found: install libpq-dev or use --without-pgsql])])
       PGSQL_CFLAGS="-I`$PG_CONFIG --includedir`"
       PGSQL_LIBS="-L`$PG_CONFIG --libdir` -lpq"])
    AC_DEFINE([USE_PGSQL], [1], [Define to build the PostgreSQL driver])
  ])
  AM_CONDITIONAL([USE_PGSQL], [test "x$with_pgsql" != xno])
])
