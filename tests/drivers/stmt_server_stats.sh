#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Figures per statement (--report-per-statement) against the servers' own
# statement statistics (issue 31): a MariaDB with performance_schema and a
# PostgreSQL with pg_stat_statements, started for this file by
# servers.sh with SB_SERVER_STATS=on (the suite's servers keep them off).
# After a reset of the server's statistics, oltp_read_write runs 2,000
# transactions (PostgreSQL: on 2 threads; MariaDB: on 1, since
# performance_schema adds to a digest's figures without a lock, and two
# threads finishing the same statement at once lose one: 2 of 3,000
# point selects seen lost), and for each statement:
#  - counts: MariaDB's COUNT_STAR (events_statements_summary_by_digest)
#    is our executions, failed or not, and SUM_ERRORS our errors;
#    PostgreSQL's calls (pg_stat_statements) our successful ones; rows
#    sent / rows affected equal ours (pg_stat_statements: one "rows");
#  - latency: our time of an execution runs from before the request is
#    sent to after the whole result is read. PostgreSQL's executor time
#    lies inside it (the reply ends after the executor), so our sum is at
#    least the server's (which leaves failed executions out). MariaDB's
#    statement ends after its reply is sent (closing tables, ending the
#    statement), so one of ours may be shorter by that tail (1.4 us on
#    COMMIT on a calm machine; 70 us per DELETE at load 20, the server
#    thread off its CPU in it). The client waits for that tail in its
#    next statement, so over all statements ours hold the server's but
#    for tails in the client's own work between statements: the sum of
#    ours is at least 95% of the server's, and each statement's mean at
#    least half the server's less 50 us. The gap per execution is the
#    round trip, the client library and, on a loaded machine, the wait
#    for a CPU on both ends. It is bounded by the gap of the statement
#    with the most executions, the point select (the round trip of this
#    very run): at most 4 times it plus 0.5 ms (3.5 times seen at load
#    18), wide enough for a loaded machine, narrow enough to catch a
#    timer that takes in the client's work between statements or a whole
#    transaction. The issue's "within 10% or 50 us" is printed, not
#    asserted: MariaDB's figures met it for 11 of 11 statements in one
#    run at load 19 and 7 of 11 in the next; PostgreSQL's never can (its
#    figure is the executor's alone). bench/README.md has the numbers.
# MariaDB's digest table has no server-side prepared statements (10.11
# records their executions only as statement/com/Execute, and
# prepared_statements_instances counts none), so its per-statement run
# sends text (--db-ps-mode=disable) and a second, prepared run is checked
# in total against statement/com/Execute. PostgreSQL runs both ways.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

SRV="$PWD/srv"
stop_servers() { bash "$SB_SRCDIR/tests/harness/servers.sh" stop "$SRV" >/dev/null 2>&1 || true; }
trap stop_servers EXIT
if ! SB_SERVER_STATS=on bash "$SB_SRCDIR/tests/harness/servers.sh" start "$SRV" >srv.log 2>&1; then
    cat srv.log
    echo "FAIL: servers with statement statistics did not start"
    exit 1
fi
set -a
# shellcheck source=/dev/null
. "$SRV/servers.env"
set +a

RUN=(oltp_read_write --tables=1 --table-size=10000 --events=2000 --time=0 --rand-seed=7
     --report-per-statement=on)

# The server's statistics as JSON lines {key, count, sum_ns, rows,
# affected, errors} (errors, affected: MariaDB only).
server_stats() {
    case "$1" in
    mysql)
        sb_cli mysql "SELECT DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT, SUM_ROWS_SENT,
                             SUM_ROWS_AFFECTED, SUM_ERRORS
                      FROM performance_schema.events_statements_summary_by_digest
                      WHERE SCHEMA_NAME = 'sbtest' AND DIGEST_TEXT IS NOT NULL"
        ;;
    pgsql)
        sb_cli pgsql "SELECT query, calls, total_exec_time, rows, 0, 0 FROM pg_stat_statements s
                      JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = 'sbtest'"
        ;;
    esac
}

reset_stats() {
    case "$1" in
    mysql) sb_cli mysql "TRUNCATE performance_schema.events_statements_summary_by_digest;
                         TRUNCATE performance_schema.events_statements_summary_global_by_event_name" ;;
    pgsql) sb_cli pgsql "SELECT pg_stat_statements_reset()" >/dev/null ;;
    esac
}

# check JSON STATS DRIVER TAG: ours against the server's, per statement.
check() {
    python3 - "$@" <<'EOF'
import json, re, sys
res, stats, drv, tag = sys.argv[1:5]
p = json.load(open(res))["points"][0]

def key(t):
    # Both sides' normalised texts to words: MariaDB's digest quotes
    # names, spaces operators and says DISTINCTROW; PostgreSQL's has $N.
    t = re.sub(r"\$\d+", "?", t.lower().replace("`", ""))
    t = re.sub(r"\bdistinctrow\b", "distinct", t)
    return " ".join(re.findall(r"[a-z_][a-z0-9_]*", t))

srv = {}
for line in open(stats):
    f = line.rstrip("\n").split("\t")
    k = key(f[0])
    a = srv.setdefault(k, [0, 0.0, 0, 0, 0])
    # MariaDB: picoseconds; PostgreSQL: milliseconds.
    ns = float(f[2]) / 1e3 if drv == "mysql" else float(f[2]) * 1e6
    for i, v in enumerate((int(f[1]), ns, int(f[3]), int(f[4]), int(f[5]))):
        a[i] += v
ours = p["statements"]
assert len({key(s["text"]) for s in ours}) == len(ours) == 11, [s["text"] for s in ours]
bad = []
rows = []
near = tot_ours = tot_srv = 0
for s in ours:
    k = key(s["text"])
    if k not in srv:
        bad.append("the server has no %r" % s["text"])
        continue
    n, sum_ns, srows, saff, serr = srv[k]
    execs = s["count"] + s["errors"]
    ours_sum = s["histogram"]["sum_ns"]
    if drv == "mysql":
        if n != execs or serr != s["errors"]:
            bad.append("%s: server %d executions, %d errors; ours %d, %d" % (k, n, serr, execs, s["errors"]))
        if srows != s["rows"] or saff != s["affected_rows"]:
            bad.append("%s: server rows %d/%d; ours %d/%d" % (k, srows, saff, s["rows"], s["affected_rows"]))
    else:
        want = s["rows"] if s["kind"] == "read" else s["affected_rows"]
        if n != s["count"] or srows != want:
            bad.append("%s: server %d calls, %d rows; ours %d, %d" % (k, n, srows, s["count"], want))
    # PostgreSQL's interval lies inside ours (0.1% for its rounding);
    # MariaDB's may end after ours by its tail.
    low = sum_ns * 0.999 if drv == "pgsql" else sum_ns * 0.5 - 50e3 * execs
    if ours_sum < low:
        bad.append("%s: our latency sum %.0f ns below the server's %.0f" % (k, ours_sum, sum_ns))
    mo, ms_ = ours_sum / execs / 1e3, sum_ns / max(n, 1) / 1e3
    rows.append((s["text"], execs, n, mo, ms_, mo - ms_))
    near += abs(mo - ms_) <= max(50, 0.1 * ms_)
    tot_ours += ours_sum
    tot_srv += sum_ns
ref = max(rows, key=lambda r: r[1])
bound = 4 * ref[5] + 500
print("%s %s: per statement (us): ours, server's, gap; the gap bound %.0f us (4 x %.0f + 500)"
      % (drv, tag, bound, ref[5]))
for t, execs, n, mo, ms_, gap in rows:
    print("  %7d %7d %9.1f %9.1f %8.1f  %s" % (execs, n, mo, ms_, gap, t))
    if gap > bound:
        bad.append("%s: ours %.1f us, the server's %.1f: %.1f apart, over %.0f" % (t, mo, ms_, gap, bound))
print("  within the issue's 10%% or 50 us: %d of %d statements; in all %.3f s ours, %.3f s the server's"
      % (near, len(rows), tot_ours / 1e9, tot_srv / 1e9))
if tot_ours < tot_srv * 0.95:
    bad.append("our latency sum %.0f ns below 95%% of the server's %.0f" % (tot_ours, tot_srv))
for b in bad:
    print("MISMATCH:", b)
sys.exit(1 if bad else 0)
EOF
}

# per_statement DRIVER TAG ARGS...: one run checked statement by statement.
per_statement() {
    local drv=$1 tag=$2
    shift 2
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    reset_stats "$drv"
    sb_run_ok "the run" "$tag.txt" "$tag.err" "${args[@]}" "${RUN[@]}" --json="$tag.json" "$@" run ||
        return 1
    server_stats "$drv" >"$tag.stats"
    if ! check "$tag.json" "$tag.stats" "$drv" "$tag" | tee "$drv-$tag.check"; then
        sb_show "$tag.stats"
        sb_fail "$tag: per-statement figures differ from the server's"
        return 1
    fi
}

against_server() {
    local drv=$1
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    sb_run_ok prepare p.txt p.err "${args[@]}" oltp_read_write --tables=1 --table-size=10000 prepare ||
        return 1
    if [ "$drv" = mysql ]; then
        per_statement mysql text --threads=1 --db-ps-mode=disable || return 1
        # Prepared: the executions and their latency in total.
        reset_stats mysql
        sb_run_ok "the prepared run" ps.txt ps.err "${args[@]}" "${RUN[@]}" --threads=1 --json=ps.json run || return 1
        sb_cli mysql "SELECT COUNT_STAR, SUM_TIMER_WAIT FROM
                      performance_schema.events_statements_summary_global_by_event_name
                      WHERE EVENT_NAME = 'statement/com/Execute'" >ps.stats
        python3 - ps.json ps.stats <<'EOF' | tee mysql-prepared.check || { sb_fail "prepared executions differ from the server's"; return 1; }
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
n, ps = open(sys.argv[2]).read().split()
st = [s for s in p["statements"] if s["text"] not in ("BEGIN", "COMMIT")]
execs = sum(s["count"] + s["errors"] for s in st)
ours = sum(s["histogram"]["sum_ns"] for s in st)
print("mysql prepared: %d executions (server %s), mean %.1f us (server %.1f)"
      % (execs, n, ours / execs / 1e3, int(ps) / int(n) / 1e6))
assert len(st) == 9 and execs == int(n), (execs, n)
assert ours >= int(ps) / 1e3 * 0.95, (ours, ps)
EOF
    else
        per_statement pgsql prepared --threads=2 || return 1
        per_statement pgsql text --threads=2 --db-ps-mode=disable || return 1
    fi
    sb_run c1.txt c1.err "${args[@]}" oltp_read_write --tables=1 cleanup || true
}

sb_case mysql-statements-against-performance-schema against_server mysql
sb_case pgsql-statements-against-pg-stat-statements against_server pgsql
# The figures, for the record (bench/README.md keeps some).
cat ./*.check 2>/dev/null | sed 's/^/# /'
