dnl SPDX-License-Identifier: GPL-2.0-or-later
# SB_CHECK_SQLITE: the embedded SQLite driver, on by default (--with-sqlite).
# Sets SQLITE_CFLAGS/SQLITE_LIBS, defines USE_SQLITE, conditional USE_SQLITE.
AC_DEFUN([SB_CHECK_SQLITE], [
  AC_ARG_WITH([sqlite],
    [AS_HELP_STRING([--with-sqlite], [build the embedded SQLite driver (default: yes)])],
    [], [with_sqlite=yes])
  AS_IF([test "x$with_sqlite" != xno], [
    PKG_CHECK_MODULES([SQLITE], [sqlite3 >= 3.7.0], [],
      [AC_MSG_ERROR([SQLite 3 not found: install libsqlite3-dev or use --without-sqlite])])
    AC_DEFINE([USE_SQLITE], [1], [Define to build the SQLite driver])
  ])
  AM_CONDITIONAL([USE_SQLITE], [test "x$with_sqlite" != xno])
])
