/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The closest bundled script to a misspelt name; see sb_script_hint.h.
 */
#include "engine/sb_script_hint.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "builtin/sb_builtin.h"
#include "core/sb_options.h"
#include "lua/sb_lua.h"

/* Keeps candidate c in best (capacity len) when it is closer to name
 * than the best so far (*bestd). */
static void closer_script(const char *name, const char *c, size_t clen, char *best,
                          size_t len, size_t *bestd)
{
    char cand[80];
    size_t d;

    if (clen >= sizeof(cand))
        return;
    memcpy(cand, c, clen);
    cand[clen] = '\0';
    d = sb_opt_distance(name, cand);
    if (d < *bestd) {
        *bestd = d;
        snprintf(best, len, "%s", cand);
    }
}

const char *sb_script_suggest(const char *script, char *best, size_t len)
{
    char name[80];
    size_t n = strlen(script), bestd = SIZE_MAX;
    const struct sb_builtin *b;
    DIR *dir;
    struct dirent *e;

    if (strchr(script, '/') != NULL || n >= sizeof(name))
        return NULL;
    if (n > 4 && strcmp(script + n - 4, ".lua") == 0)
        n -= 4;
    memcpy(name, script, n);
    name[n] = '\0';
    for (size_t i = 0; (b = sb_builtin_at(i)) != NULL; i++)
        closer_script(name, b->name, strlen(b->name), best, len, &bestd);
    dir = opendir(sb_lua_scenario_dir());
    while (dir != NULL && (e = readdir(dir)) != NULL) {
        size_t l = strlen(e->d_name);
        /* oltp_common.lua is a library the scenarios load, not one. */
        if (l > 4 && strcmp(e->d_name + l - 4, ".lua") == 0 &&
            strcmp(e->d_name, "oltp_common.lua") != 0)
            closer_script(name, e->d_name, l - 4, best, len, &bestd);
    }
    if (dir != NULL)
        closedir(dir);
    return bestd <= 2 && bestd * 3 <= n ? best : NULL;
}

bool sb_script_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *sb_script_resolve(const char *name)
{
    char buf[4096];

    if (sb_script_is_file(name))
        return strdup(name);
    if (strchr(name, '/') == NULL) {
        const char *ext = strlen(name) > 4 && strcmp(name + strlen(name) - 4, ".lua") == 0 ? "" : ".lua";
        snprintf(buf, sizeof(buf), "./%s%s", name, ext);
        if (sb_script_is_file(buf))
            return strdup(buf);
        snprintf(buf, sizeof(buf), "%s/%s%s", sb_lua_scenario_dir(), name, ext);
        if (sb_script_is_file(buf))
            return strdup(buf);
    }
    return NULL;
}
