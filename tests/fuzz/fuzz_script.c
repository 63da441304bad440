/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness: script loading. The input is a Lua chunk, loaded into
 * a state built like the main state (sb_lua_new_state: standard libraries,
 * built-in modules, sysbench.*) and run. A prelude gives it an instruction
 * budget and a memory budget (a hook on every instruction that, once
 * either is spent, fails every further one, so pcall cannot swallow it;
 * LuaJIT here is GC64, so nothing else bounds a script's memory, and
 * string.rep, which allocates any size in one instruction, is bounded
 * itself) and removes what could touch the machine
 * (os, io, file loading, require and FFI), so a fuzzed chunk cannot delete
 * files, run commands or exit the fuzzer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/sb_config.h"
#include "lua/sb_lua.h"
#include "pure/sb_rand.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char prelude[] =
    "local sethook, jit_, gc, rep = debug.sethook, jit, collectgarbage, string.rep "
    "if jit_ then jit_.off() end "
    "local n = 0 "
    "sethook(function() n = n + 1 "
    "if n > 200000 then error('instruction budget spent', 0) end "
    "if gc('count') > 262144 then error('memory budget spent', 0) end end, '', 1) "
    "string.rep = function(s, k, sep) "
    "if (#tostring(s) + #tostring(sep or '')) * (tonumber(k) or 0) > 67108864 then "
    "error('string.rep: over the harness memory budget', 0) end return rep(s, k, sep) end "
    "os, io, dofile, loadfile, require, package, debug, jit, ffi = nil "
    "collectgarbage = nil "
    "local load, loadstring, string = load, loadstring, string "
    /* Line numbers of the chunk start at 1 on the next line. */
    "\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sb_lua_env env;
    struct sb_lua_thread thr;
    static const struct sb_point_config point = {.threads = 1, .repeat = 1, .nrepeat = 1};
    struct sb_rand rand;
    struct sb_db_counters counters;
    char err[1024];
    char *text;
    lua_State *L;

    if (size > 64 * 1024)
        return 0;
    text = malloc(sizeof(prelude) + size);
    if (text == NULL)
        return 0;
    memcpy(text, prelude, sizeof(prelude) - 1);
    memcpy(text + sizeof(prelude) - 1, data, size);
    memset(&env, 0, sizeof(env));
    memset(&thr, 0, sizeof(thr));
    memset(&counters, 0, sizeof(counters));
    sb_rand_seed_stream(&rand, 1, 0, &sb_cfg->rand);
    env.script_text = text;
    env.script_len = sizeof(prelude) - 1 + size;
    env.point = &point;
    thr.tid = -1;
    thr.rand = &rand;
    thr.counters = &counters;
    L = sb_lua_new_state(&env, &thr, false, err, sizeof(err));
    sb_lua_close(L);
    free(text);
    return 0;
}
