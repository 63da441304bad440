/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interrupting Lua code after a signal; see sb_lua_interrupt.h.
 */
#include "lua/sb_lua_interrupt.h"

#include <lauxlib.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_clock.h"

/* One node per live state, found again through the registry. */
struct node {
    lua_State *L;
    struct node *prev, *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct node *head;
static uint64_t interrupt_at; /* monotonic ns; 0: no signal yet */

/* Instructions between two looks at the clock: a few microseconds. */
#define HOOK_COUNT 1000

static void hook(lua_State *L, lua_Debug *ar)
{
    uint64_t at = __atomic_load_n(&interrupt_at, __ATOMIC_ACQUIRE);

    (void)ar;
    if (at != 0 && sb_now_ns() >= at)
        luaL_error(L, "%s", SB_LUA_INTERRUPTED);
}

void sb_lua_interrupt_register(lua_State *L)
{
    struct node *n = calloc(1, sizeof(*n));

    if (n == NULL)
        return; /* not interruptible: the run's abandon still ends it */
    n->L = L;
    lua_pushlightuserdata(L, n);
    lua_setfield(L, LUA_REGISTRYINDEX, "sb_interrupt_node");
    pthread_mutex_lock(&lock);
    n->next = head;
    if (head != NULL)
        head->prev = n;
    head = n;
    if (__atomic_load_n(&interrupt_at, __ATOMIC_ACQUIRE) != 0)
        lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_COUNT);
    pthread_mutex_unlock(&lock);
}

void sb_lua_interrupt_unregister(lua_State *L)
{
    struct node *n;

    lua_getfield(L, LUA_REGISTRYINDEX, "sb_interrupt_node");
    n = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (n == NULL)
        return;
    pthread_mutex_lock(&lock);
    if (n->prev != NULL)
        n->prev->next = n->next;
    else
        head = n->next;
    if (n->next != NULL)
        n->next->prev = n->prev;
    pthread_mutex_unlock(&lock);
    free(n);
}

void sb_lua_interrupt_all(void)
{
    pthread_mutex_lock(&lock);
    __atomic_store_n(&interrupt_at,
                     sb_now_ns() + (uint64_t)(SB_LUA_INTERRUPT_DELAY_S * 1e9), __ATOMIC_RELEASE);
    for (struct node *n = head; n != NULL; n = n->next)
        lua_sethook(n->L, hook, LUA_MASKCOUNT, HOOK_COUNT);
    pthread_mutex_unlock(&lock);
}

bool sb_lua_is_interrupt(const char *err)
{
    return err != NULL && strstr(err, SB_LUA_INTERRUPTED) != NULL;
}
