dnl SPDX-License-Identifier: GPL-2.0-or-later
# SB_CHECK_CHECK: the Check unit-test framework, needed only by "make check".
# Sets CHECK_CFLAGS/CHECK_LIBS and the conditional HAVE_CHECK.
AC_DEFUN([SB_CHECK_CHECK], [
  PKG_CHECK_MODULES([CHECK], [check >= 0.9.10], [have_check=yes],
    [have_check=no
     AC_MSG_WARN([Check not found: unit tests will fail to build (install check)])])
  AM_CONDITIONAL([HAVE_CHECK], [test "x$have_check" = xyes])
])
