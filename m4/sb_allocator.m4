dnl SPDX-License-Identifier: GPL-2.0-or-later
# SB_CHECK_ALLOCATOR: --with-allocator=system|jemalloc|tcmalloc|mimalloc.
# Links the chosen malloc replacement into the binary (ALLOCATOR_LIBS) and
# defines SB_ALLOCATOR to its name so --version and the run header say which.
AC_DEFUN([SB_CHECK_ALLOCATOR], [
  AC_ARG_WITH([allocator],
    [AS_HELP_STRING([--with-allocator=NAME],
      [memory allocator: system, jemalloc, tcmalloc or mimalloc (default: system)])],
    [], [with_allocator=system])
  ALLOCATOR_LIBS=
  AS_CASE([$with_allocator],
    [system], [],
    [jemalloc], [AC_CHECK_LIB([jemalloc], [malloc], [ALLOCATOR_LIBS=-ljemalloc],
                  [AC_MSG_ERROR([jemalloc not found: install libjemalloc-dev])])],
    [tcmalloc], [AC_CHECK_LIB([tcmalloc_minimal], [malloc], [ALLOCATOR_LIBS=-ltcmalloc_minimal],
                  [AC_CHECK_LIB([tcmalloc], [malloc], [ALLOCATOR_LIBS=-ltcmalloc],
                    [AC_MSG_ERROR([tcmalloc not found: install libgoogle-perftools-dev])])])],
    [mimalloc], [AC_CHECK_LIB([mimalloc], [mi_malloc], [ALLOCATOR_LIBS=-lmimalloc],
                  [AC_MSG_ERROR([mimalloc not found: install libmimalloc-dev])])],
    [AC_MSG_ERROR([unknown allocator '$with_allocator': use system, jemalloc, tcmalloc or mimalloc])])
  AC_SUBST([ALLOCATOR_LIBS])
  AC_DEFINE_UNQUOTED([SB_ALLOCATOR], ["$with_allocator"], [The memory allocator linked in])
])
