dnl SPDX-License-Identifier: GPL-2.0-or-later
# SB_CHECK_LUAJIT: find LuaJIT through pkg-config (module "luajit").
# Sets LUAJIT_CFLAGS and LUAJIT_LIBS; LuaJIT is mandatory.
AC_DEFUN([SB_CHECK_LUAJIT], [
  PKG_CHECK_MODULES([LUAJIT], [luajit >= 2.0],
    [],
    [AC_MSG_ERROR([LuaJIT not found: install libluajit-5.1-dev (pkg-config module luajit)])])
])
