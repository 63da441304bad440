/*
 * libFuzzer harness: script loading. The input is a Lua chunk, loaded into
 * a state built like the main state (sb_lua_new_state: standard libraries,
 * built-in modules, sysbench.*) and run. A prelude gives it an instruction
 * budget (a count hook that, once spent, fails every further instruction,
 * so pcall cannot swallow it) and removes what could touch the machine
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
    "local sethook, jit_ = debug.sethook, jit "
    "if jit_ then jit_.off() end "
    "sethook(function() sethook(function() error('instruction budget spent', 0) end, '', 1) "
    "error('instruction budget spent', 0) end, '', 200000) "
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
