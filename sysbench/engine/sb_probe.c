/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The server probe before a run: the server's processes for CPU accounting
 * and its version; see sb_probe.h.
 */
#include "engine/sb_probe.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_clock.h"
#include "cpu/sb_cpu.h"
#include "core/sb_log.h"
#include "core/sb_stop.h"
#include "config/sb_config.h"
#include "config/sb_lua_env.h"
#include "config/sb_point.h"
#include "drivers/sb_driver.h"
#include "engine/sb_signal.h"
#include "results/sb_server_info.h"

/* Round trips timed by check_rate_against_rtt. */
#define SB_PROBE_RTT_TRIES 5
/* Periods (threads / rate) from which no round trip is timed. */
#define SB_PROBE_RTT_MAX_PERIOD_NS 5e6

/*
 * Before a rate run on a server: the quickest of a few 'SELECT 1' round
 * trips on the probe connection, held against the time each thread has
 * per transaction (threads / target). When even that round trip is
 * longer, no transaction that sends a statement can keep the schedule:
 * that is said now, as what it is (a bound from a measurement, for
 * transactions with at least one statement), instead of only as lag
 * afterwards. Anything shorter cannot be judged before the run.
 */
static bool check_rate_against_rtt(const struct sb_lua_env *env, struct sb_conn *con)
{
    const struct sb_point_config *pc = env->point;
    uint64_t best = UINT64_MAX;
    double period_ns, needed;

    /* --find-max probes past what the threads reach on purpose. */
    if (pc == NULL || !sb_pace_rated(pc->mode) || !(pc->target_tps > 0) || pc->threads == 0 ||
        sb_compat10() || pc->probe)
        return false;
    period_ns = (double)pc->threads / pc->target_tps * 1e9;
    /* A period of milliseconds is longer than a round trip on any network
     * a benchmark client should use: not worth statements the server
     * counts (the first second's check still applies). */
    if (period_ns >= SB_PROBE_RTT_MAX_PERIOD_NS)
        return false;
    for (int i = 0; i < SB_PROBE_RTT_TRIES && !sb_stopping(); i++) {
        uint64_t t0 = sb_now_ns(), d;

        if (sb_db_query(con, "SELECT 1", 8) != SB_DB_DONE)
            return false;
        while (sb_db_fetch(con) == 1)
            ;
        sb_db_free_result(con);
        d = sb_now_ns() - t0;
        if (d < best)
            best = d;
    }
    if (best == UINT64_MAX || (double)best <= period_ns)
        return false;
    needed = ceil(pc->target_tps * (double)best / 1e9);
    sb_warn("%s=%.15g over %u thread(s) leaves each thread %.1f us per transaction, but the "
            "quickest of %d 'SELECT 1' round trips to the server took %.1f us: transactions "
            "that send a statement cannot keep this schedule (lag will grow for the whole "
            "run); one statement each needs at least %.0f threads, or a lower rate",
            pc->mode == SB_PACE_POISSON ? "--rate" : "--tx-rate",
            pc->rate, pc->threads,
            period_ns / 1e3, SB_PROBE_RTT_TRIES, (double)best / 1e3, needed);
    return true;
}

/* What the one probe connection to a server learnt. */
struct server_probe {
    bool connected, have_endpoint;
    char endpoint[320];
    char conn_err[256];
};

/*
 * Connects once to a server driver's server (nothing for an embedded
 * engine or no driver): its version into version, its settings into
 * info, where it listens into pr, and whether --tx-rate is beyond its
 * round trip into *rate_warned. A failed connect leaves its message in
 * pr->conn_err.
 */
static void probe_server(const struct sb_lua_env *env, struct server_probe *pr,
                         char *version, size_t vlen, struct sb_server_info *info,
                         bool *rate_warned)
{
    const struct sb_driver_ops *drv = env->driver;
    struct sb_db_counters cnt;
    struct sb_db_error err;
    struct sb_conn *con;
    const char *v;
    char why[256];

    memset(pr, 0, sizeof(*pr));
    if (drv == NULL || drv->server_endpoint == NULL)
        return;
    memset(&cnt, 0, sizeof(cnt));
    con = sb_db_connect(drv, &cnt, &err);
    if (con == NULL) {
        snprintf(pr->conn_err, sizeof(pr->conn_err), "%.200s", err.msg);
        return;
    }
    v = drv->server_version ? drv->server_version(con) : NULL;
    pr->connected = true;
    if (v != NULL)
        snprintf(version, vlen, "%s", v);
    pr->have_endpoint = drv->server_endpoint(con, pr->endpoint, sizeof(pr->endpoint)) == 0;
    if (drv->settings_query != NULL &&
        sb_server_info_read_settings(info, con, drv->settings_query, why,
                                     sizeof(why)) != 0 && !sb_compat10())
        sb_warn("the server's settings are not recorded: %s", why);
    *rate_warned = check_rate_against_rtt(env, con);
    sb_db_disconnect(con);
}

/*
 * Finds the server's processes for CPU accounting: --server-pid when
 * given, else the local process listening where the driver connects.
 * A server that forks per connection (the driver says so) is counted as
 * its whole process tree. Returns true when found; otherwise `label` says why not.
 *
 * A server driver gets one probe connection, which also yields the
 * server's version string for the result files (version, "" if unknown).
 * An embedded engine runs inside the client, so its library version is
 * the server's, and no probe is made (it would create a database file).
 * The probe connection also reads the server's settings into info, and
 * the binary of a server found on this machine is recorded there.
 */
bool sb_run_find_server(const struct sb_lua_env *env, struct sb_cpu_server *srv,
                        char *label, size_t len, char *version, size_t vlen,
                        struct sb_server_info *info, bool *rate_warned)
{
    /* The list as the user wrote it: sb_cpu_parse_pid_list checks it. */
    const char *pids = sb_optset_str(env->general, "server-pid");
    const struct sb_driver_ops *drv = env->driver;
    struct server_probe pr;
    char why[256];
    int found;

    *rate_warned = false;

    memset(srv, 0, sizeof(*srv));
    version[0] = '\0';
    if (drv != NULL && drv->server_endpoint == NULL && drv->client_version != NULL &&
        drv->client_version(version, vlen) != 0)
        version[0] = '\0';
    probe_server(env, &pr, version, vlen, info, rate_warned);
    if (pids != NULL && *pids != '\0') {
        found = sb_cpu_parse_pid_list(pids, srv->pids, SB_CPU_MAX_SERVER_PIDS, why, sizeof(why));
        if (found <= 0) {
            snprintf(label, len, "not measured (%s)", why);
            return false;
        }
        srv->npids = (size_t)found;
        srv->include_children = true;
        sb_server_info_binary(info, srv->pids[0]);
        snprintf(label, len, "--server-pid=%s and their children", pids);
        return true;
    }
    if (drv == NULL) {
        snprintf(label, len, "not measured (no database driver)");
        return false;
    }
    if (drv->server_endpoint == NULL) {
        snprintf(label, len, "not measured (%s runs inside the client: its CPU is the client's)",
                 drv->name);
        return false;
    }
    if (!pr.connected) {
        snprintf(label, len, "not measured (cannot connect: %s)", pr.conn_err);
        return false;
    }
    if (!pr.have_endpoint) {
        snprintf(label, len, "not measured (the driver cannot tell where the server listens)");
        return false;
    }
    found = sb_cpu_find_server(pr.endpoint, srv->pids, SB_CPU_MAX_SERVER_PIDS, why, sizeof(why));
    if (found <= 0) {
        snprintf(label, len, "not measured (%s)", why);
        return false;
    }
    srv->npids = (size_t)found;
    srv->include_children = drv->server_forks;
    sb_server_info_binary(info, srv->pids[0]);
    snprintf(srv->endpoint, sizeof(srv->endpoint), "%s", pr.endpoint);
    snprintf(label, len, "pid %d%s (listening on %s)", (int)srv->pids[0],
             srv->include_children ? " and its children" : "", pr.endpoint);
    return true;
}


struct probe_call {
    const struct sb_lua_env *env;
    struct sb_cpu_server srv;
    char label[512], version[256];
    struct sb_server_info info;
    bool found, rate_warned;
};

static void *probe_main(void *p)
{
    struct probe_call *c = p;
    c->found = sb_run_find_server(c->env, &c->srv, c->label, sizeof(c->label), c->version,
                                  sizeof(c->version), &c->info, &c->rate_warned);
    return NULL;
}

int sb_run_probe(const struct sb_lua_env *env, struct sb_cpu_server *srv, char *label,
                 size_t len, char *version, size_t vlen, struct sb_server_info *info,
                 bool *found, bool *rate_warned)
{
    struct probe_call *c = calloc(1, sizeof(*c));
    int rc;

    *found = *rate_warned = false;
    if (c == NULL)
        return -1;
    /* Its own buffers: an abandoned thread may still write into them. */
    c->env = env;
    rc = sb_signal_guarded(env->driver, probe_main, c);
    if (rc != 0)
        return rc; /* c stays with an abandoned thread */
    *found = c->found;
    *rate_warned = c->rate_warned;
    *srv = c->srv;
    snprintf(label, len, "%s", c->label);
    snprintf(version, vlen, "%s", c->version);
    sb_server_info_move(info, &c->info);
    free(c);
    return 0;
}

void sb_server_watch_start(struct sb_server_watch *w, struct sb_cpu_server *srv,
                           const struct sb_cpu_sample *s, uint64_t now_ns)
{
    memset(w, 0, sizeof(*w));
    w->srv = srv != NULL && srv->endpoint[0] != '\0' ? srv : NULL;
    w->last = s->server;
    w->last_ok = s->server_nprocs > 0;
    w->last_ns = now_ns;
    w->next_check_ns = now_ns + SB_NS_PER_SEC;
}

bool sb_server_watch_check(struct sb_server_watch *w, uint64_t now_ns,
                           struct sb_cpu_times *fresh, size_t *nprocs)
{
    struct sb_cpu_server found;
    char why[256];
    int n;

    if (w->srv == NULL || now_ns < w->next_check_ns)
        return false;
    w->next_check_ns = now_ns + SB_NS_PER_SEC;
    /* A signal 0 is the cheapest test of life: a full sample walks the
     * process table (PostgreSQL's children) and would cost the client CPU
     * it measures. EPERM means it exists. */
    if (kill(w->srv->pids[0], 0) == 0 || errno == EPERM)
        return false;
    /* Gone: whoever listens at the endpoint now is the server. */
    found = *w->srv;
    n = sb_cpu_find_server(w->srv->endpoint, found.pids, SB_CPU_MAX_SERVER_PIDS, why,
                           sizeof(why));
    if (n <= 0)
        return false;
    found.npids = (size_t)n;
    *nprocs = sb_cpu_sample_server(&found, fresh);
    if (*nprocs == 0)
        return false;
    if (w->last_ok) {
        w->carry_user_ns += (int64_t)(w->last.user_ns - fresh->user_ns);
        w->carry_system_ns += (int64_t)(w->last.system_ns - fresh->system_ns);
    }
    w->gap_ns += now_ns - w->last_ns;
    w->restarts++;
    *w->srv = found;
    w->last = *fresh;
    w->last_ok = true;
    w->last_ns = now_ns;
    sb_warn("the server at %s restarted: measuring pid %d from now on (%.1f s of its CPU "
            "not measured)", found.endpoint, (int)found.pids[0],
            (double)w->gap_ns / 1e9);
    return true;
}

void sb_server_watch_note(struct sb_server_watch *w, const struct sb_cpu_sample *s,
                          uint64_t now_ns)
{
    if (w->srv != NULL && s->server_nprocs > 0) {
        w->last = s->server;
        w->last_ok = true;
        w->last_ns = now_ns;
    }
}

void sb_server_watch_adjust(const struct sb_server_watch *w, struct sb_cpu_sample *final,
                            char *label, size_t len)
{
    size_t used = strlen(label);

    if (w->restarts == 0)
        return;
    if (final->server_nprocs > 0) {
        final->server.user_ns = (uint64_t)((int64_t)final->server.user_ns + w->carry_user_ns);
        final->server.system_ns =
            (uint64_t)((int64_t)final->server.system_ns + w->carry_system_ns);
    }
    if (used < len)
        snprintf(label + used, len - used, "; restarted %u time(s) during the run, %.1f s "
                 "not measured", w->restarts, (double)w->gap_ns / 1e9);
}
