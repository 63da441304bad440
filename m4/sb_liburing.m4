dnl SPDX-License-Identifier: GPL-2.0-or-later
# SB_CHECK_LIBURING: io_uring through liburing for fileio's
# --file-io-mode=async; optional (--with-liburing=auto by default: used
# when found). Sets LIBURING_CFLAGS/LIBURING_LIBS, defines HAVE_LIBURING.
AC_DEFUN([SB_CHECK_LIBURING], [
  AC_ARG_WITH([liburing],
    [AS_HELP_STRING([--with-liburing], [io_uring for fileio --file-io-mode=async (default: auto)])],
    [], [with_liburing=auto])
  AS_IF([test "x$with_liburing" != xno], [
    PKG_CHECK_MODULES([LIBURING], [liburing >= 2.0],
      [with_liburing=yes
       AC_DEFINE([HAVE_LIBURING], [1], [Define when liburing (io_uring) is available])],
      [AS_IF([test "x$with_liburing" = xyes],
         [AC_MSG_ERROR([liburing not found: install liburing-dev or use --without-liburing])])
       with_liburing=no])
  ])
  AC_SUBST([LIBURING_CFLAGS])
  AC_SUBST([LIBURING_LIBS])
])
