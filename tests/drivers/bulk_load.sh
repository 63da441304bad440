#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# prepare through the servers' bulk paths (issue 32), on all three drivers:
#
#  - the same rows whichever way they are loaded: with one --rand-seed,
#    --bulk-mode=copy (COPY, LOAD DATA LOCAL, SQLite's prepared INSERT)
#    and --bulk-mode=insert (multi-row INSERTs) leave tables with the same
#    checksum (md5 of the rows in id order), for the OLTP tables split
#    over two threads and for a script's rows with quotes, backslashes,
#    tabs, newlines, NULL and an expression; --db-debug shows which path
#    each took; the rows oltp_common makes in C (con:bulk_insert_rows)
#    are those its Lua loop of bulk_insert_next makes (a script that
#    replaces rand_c takes the loop);
#  - a MariaDB that refuses LOAD DATA LOCAL (local_infile=0) gets INSERTs
#    sized to max_allowed_packet, the same rows, and one notice;
#  - a malformed row is one FATAL line naming it, and no "Prepare done";
#    so is a bad template of con:bulk_insert_rows;
#  - a prepare interrupted by SIGINT says which tables are complete, and
#    those are;
#  - PostgreSQL's binary COPY (the rows of con:bulk_insert_rows, where
#    the columns' types allow): the OLTP tables and a table of int2,
#    int8, text, char and varchar columns hold the same rows as with
#    --bulk-mode=copy-text and insert; a column of another type
#    (numeric), a domain, or values a smallint cannot hold send text
#    (the last then fails as text does, nothing cut to 16 bits); a row
#    of SQL text between generated rows ends the binary load and goes as
#    text;
#  - PostgreSQL, where prepare adds the primary key after the load: the
#    tables end as with the key in CREATE TABLE (their indexes in
#    pg_indexes; \d the same as that of a table made by the old CREATE
#    TABLE), whether 2 threads split a table or SB_COMPAT=1.0 loads by
#    table with generated ids, and oltp_insert's generated ids after
#    prepare collide with no loaded row.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

driver_args() {
    case "$1" in
    sqlite) echo "--db-driver=sqlite --sqlite-db=$PWD/bulk.db" ;;
    *) sb_driver_args "$1" ;;
    esac
}

# sbx DRV ARGS...: sb_run of the driver's arguments and ARGS, output to
# x.txt and x.err.
sbx() {
    local drv=$1
    shift
    local -a args
    # shellcheck disable=SC2207
    args=($(driver_args "$drv"))
    sb_run x.txt x.err "${args[@]}" "$@"
}

# sql DRV SQL: rows tab-separated, as the administrator (sqlite: the file).
sql() {
    if [ "$1" = sqlite ]; then
        sqlite3 -separator $'\t' "$PWD/bulk.db" "$2"
    else
        sb_cli "$1" "$2"
    fi
}

# digest DRV TABLE COLUMNS: md5 of the table's rows in id order.
digest() {
    sql "$1" "SELECT $3 FROM $2 ORDER BY id" | md5sum | cut -d' ' -f1
}

oltp_digests() {
    local drv=$1 n out=""
    for n in 1 2 3; do
        out="$out $(digest "$drv" "sbtest$n" "id, k, c, pad")"
    done
    echo "$out"
}

# oltp_prepare DRV TAG ARGS...: cleanup, then prepare 3 tables of 2,000
# rows on 2 threads (the middle table split between them) with
# --db-debug into TAG.txt; checks the row counts.
oltp_prepare() {
    local drv=$1 tag=$2 n got
    shift 2
    local -a args
    # shellcheck disable=SC2207
    args=($(driver_args "$drv") "${OLTP_SCRIPT:-oltp_read_write}" --tables=3 --table-size=2000)
    sb_run clean.txt clean.err "${args[@]}" cleanup || true
    sb_run_ok "prepare $tag" "$tag.txt" "$tag.err" "${args[@]}" --threads=2 --rand-seed=7 \
        --db-debug --verbosity=5 "$@" prepare || return 1
    for n in 1 2 3; do
        got=$(sql "$drv" "SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM sbtest$n" |
            tr '\t' ' ')
        [ "$got" = "2000 2000 1 2000" ] ||
            { sb_fail "$tag: sbtest$n holds '$got' (count, distinct, min, max)"; return 1; }
    done
    grep -q '^Prepare done in .* 6000 rows' "$tag.txt" ||
        { sb_show "$tag.txt"; sb_fail "$tag: no 'Prepare done' line for 6000 rows"; return 1; }
}

# used_insert FILE: the debug output shows multi-row INSERTs of the load.
used_insert() {
    grep -q 'query: INSERT INTO sbtest[0-9] (id, k, c, pad) VALUES(' "$1"
}

same_rows_every_mode() {
    local drv=$1 a b
    oltp_prepare "$drv" insert --bulk-mode=insert || return 1
    used_insert insert.txt || { sb_fail "--bulk-mode=insert sent no multi-row INSERT"; return 1; }
    a=$(oltp_digests "$drv")
    oltp_prepare "$drv" copy || return 1
    if used_insert copy.txt; then
        sb_fail "the default --bulk-mode (auto) loaded with multi-row INSERTs"
        return 1
    fi
    if [ "$drv" != sqlite ] && ! grep -q 'begin bulk load into sbtest' copy.txt; then
        sb_fail "the default --bulk-mode (auto) did not take the server's bulk path"
        return 1
    fi
    b=$(oltp_digests "$drv")
    echo "insert:$a"
    echo "copy:  $b"
    [ "$a" = "$b" ] || { sb_fail "the tables differ between the bulk modes"; return 1; }
    if [ "$drv" = pgsql ]; then
        # auto's COPY was binary (int4 and char columns); copy-text's is
        # text, and the rows are the same.
        grep -q 'begin bulk load into sbtest2, binary' copy.txt ||
            { sb_fail "the generated rows were not sent in binary"; return 1; }
        oltp_prepare "$drv" text --bulk-mode=copy-text || return 1
        if grep -q 'begin bulk load into .*, binary' text.txt; then
            sb_fail "--bulk-mode=copy-text sent binary"
            return 1
        fi
        a=$(oltp_digests "$drv")
        echo "text:  $a"
        [ "$a" = "$b" ] || { sb_fail "the tables differ between binary and text COPY"; return 1; }
    fi
    cat >luarows.lua <<'EOF'
-- oltp_common with a generator of its own: rows from the Lua loop.
local oltp = require("oltp_common")
local rand_c = oltp.rand_c
oltp.rand_c = function() return rand_c() end
EOF
    OLTP_SCRIPT=luarows.lua oltp_prepare "$drv" luarows || return 1
    a=$(oltp_digests "$drv")
    echo "lua:   $a"
    [ "$a" = "$b" ] || { sb_fail "the rows made in C differ from the Lua loop's"; return 1; }
    sbx "$drv" oltp_read_write --tables=3 cleanup || true
}

write_values_script() {
    cat >values.lua <<'EOF'
-- Rows whose text is hard to carry: quotes, backslashes (escapes on
-- MySQL, plain characters elsewhere), tabs, newlines, NULL, negatives,
-- UTF-8, several tuples in one call, and an expression halfway through.
function prepare()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  con:query("DROP TABLE IF EXISTS sbvalues")
  -- MariaDB's default character set may be latin1: the text is UTF-8.
  con:query("CREATE TABLE sbvalues (id INTEGER NOT NULL PRIMARY KEY, " ..
            "s VARCHAR(200), n INTEGER)" ..
            (drv:name() == "mysql" and " CHARACTER SET utf8mb4" or ""))
  local texts = { "plain", "it''s", "back\\slash", "tab\there", "new\nline",
                  "end\\\\", "é ü 字", "", "  spaced  ", "quote\\'d" }
  con:bulk_insert_init("INSERT INTO sbvalues (id, s, n) VALUES")
  for i = 1, 3000 do
    local t = texts[i % #texts + 1]
    if drv:name() ~= "mysql" and t:find("\\'", 1, true) then t = "q" end
    if i == 2000 then
      con:bulk_insert_next(string.format("(%d, 'expr', 1 + %d)", i, i))
    elseif i % 7 == 0 then
      con:bulk_insert_next(string.format("(%d, NULL, -%d),(%d, '%s', NULL)",
                                         i, i, i + 100000, t))
    else
      con:bulk_insert_next(string.format("(%d, '%s', %d)", i, t, i * 3))
    end
  end
  con:bulk_insert_done()
end
function cleanup()
  sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS sbvalues")
end
EOF
}

values_every_mode() {
    local drv=$1 mode got
    local -a d=()
    write_values_script
    for mode in insert copy; do
        sbx "$drv" --bulk-mode="$mode" values.lua prepare ||
            { sb_show x.txt x.err; sb_fail "prepare with --bulk-mode=$mode failed"; return 1; }
        got=$(sql "$drv" "SELECT COUNT(*), COUNT(s), SUM(n) FROM sbvalues" | tr '\t' ' ')
        [ "$got" = "3428 3000 10929933" ] ||
            { sb_fail "$mode: sbvalues holds '$got' (rows, strings, sum of n)"; return 1; }
        d+=("$(digest "$drv" sbvalues "id, s, n")")
    done
    sbx "$drv" values.lua cleanup || true
    echo "insert ${d[0]} copy ${d[1]}"
    [ "${d[0]}" = "${d[1]}" ] || { sb_fail "sbvalues differs between the bulk modes"; return 1; }
}

load_data_refused() {
    local rc=0 a b n
    oltp_prepare mysql insert --bulk-mode=insert || return 1
    a=$(oltp_digests mysql)
    sb_cli mysql "SET GLOBAL local_infile = 0"
    oltp_prepare mysql refused || rc=$?
    sb_cli mysql "SET GLOBAL local_infile = 1"
    [ "$rc" -eq 0 ] || return 1
    b=$(oltp_digests mysql)
    n=$(grep -c 'refuses LOAD DATA LOCAL INFILE' refused.txt refused.err | awk -F: '{ s += $2 } END { print s }')
    grep 'refuses' refused.txt || true
    [ "$n" = 1 ] || { sb_fail "the refusal was reported $n times, expected once"; return 1; }
    grep -q 'refuses LOAD DATA LOCAL INFILE (.*local infile.*): bulk inserts send multi-row INSERTs of up to [0-9]* KB' refused.txt ||
        { sb_fail "the notice does not say what happens instead"; return 1; }
    used_insert refused.txt || { sb_fail "no multi-row INSERT after the refusal"; return 1; }
    [ "$a" = "$b" ] || { sb_fail "the tables differ from the INSERT-loaded ones"; return 1; }
    sbx mysql oltp_read_write --tables=3 cleanup || true
}

malformed_row() {
    local drv=$1 mode=$2 rc=0
    cat >bad.lua <<'EOF'
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbbad")
  con:query("CREATE TABLE sbbad (id INTEGER NOT NULL PRIMARY KEY, s VARCHAR(20))")
  con:bulk_insert_init("INSERT INTO sbbad (id, s) VALUES")
  for i = 1, 1000 do
    if i == 500 then
      con:bulk_insert_next(string.format("(%d, 'no end)", i))
    else
      con:bulk_insert_next(string.format("(%d, 'r%d')", i, i))
    end
  end
  con:bulk_insert_done()
end
EOF
    sbx "$drv" --bulk-mode="$mode" bad.lua prepare || rc=$?
    [ "$rc" -eq 1 ] || { sb_show x.txt x.err; sb_fail "exit $rc, expected 1"; return 1; }
    sb_expect_one_line_error x.err \
        "^FATAL: bad.lua:[0-9]+: bulk insert into sbbad: row 500 is malformed \(a quoted value does not end, at character 7\): \(500, 'no end\)$" ||
        return 1
    if grep -q 'Prepare done' x.txt; then
        sb_fail "a failed prepare printed 'Prepare done'"
        return 1
    fi
    sql "$drv" "DROP TABLE sbbad" >/dev/null || true
}

# con:bulk_insert_rows with a bad template or a column count other than
# the head's: one FATAL line naming it, exit 1; a good one loads its rows
# (quotes in the template doubled on the INSERT path).
rows_template() {
    local drv=$1 c rc got
    cat >gen.lua <<'EOF'
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbgen")
  con:query("CREATE TABLE sbgen (id INTEGER NOT NULL PRIMARY KEY, k INTEGER, s VARCHAR(20))")
  con:bulk_insert_init("INSERT INTO sbgen (id, k, s) VALUES")
  local case = os.getenv("GEN_CASE")
  if case == "template" then
    con:bulk_insert_rows(1, 100, {"id", {"uniform", 1, 9}, {"string", "ab\\c"}})
  elseif case == "count" then
    con:bulk_insert_rows(1, 100, {"id", {"string", "###"}})
  else
    con:bulk_insert_rows(1, 3000, {"id", {"uniform", 1, 9}, {"string", "it's @#"}})
  end
  con:bulk_insert_done()
end
EOF
    for c in template count; do
        rc=0
        GEN_CASE=$c sbx "$drv" gen.lua prepare || rc=$?
        [ "$rc" -eq 1 ] || { sb_show x.txt x.err; sb_fail "$c: exit $rc, expected 1"; return 1; }
        case $c in
        template) sb_expect_one_line_error x.err \
            "^FATAL: gen.lua:[0-9]+: bulk_insert_rows: column 3: the string template has a control character or a backslash at character 3$" ||
            return 1 ;;
        count) sb_expect_one_line_error x.err \
            "^FATAL: gen.lua:[0-9]+: bulk insert into sbgen: (row 1 is malformed \(2 values|generated rows have 2 values) where the column list has 3" ||
            return 1 ;;
        esac
    done
    for mode in insert copy; do
        sbx "$drv" --bulk-mode="$mode" --rand-seed=7 gen.lua prepare ||
            { sb_show x.txt x.err; sb_fail "$mode: the template's rows failed"; return 1; }
        got=$(sql "$drv" "SELECT COUNT(*), MIN(k), MAX(k), COUNT(DISTINCT k), MIN(LENGTH(s)), MAX(LENGTH(s)) FROM sbgen WHERE s LIKE 'it''s %'" |
            tr '\t' ' ')
        [ "$got" = "3000 1 9 9 7 7" ] ||
            { sb_fail "$mode: sbgen holds '$got' (rows, k from, to, distinct, s's lengths)"; return 1; }
    done
    sql "$drv" "DROP TABLE sbgen" >/dev/null || true
}

# Generated rows into columns of several types (GEN_CASE picks the
# table): binary where every column takes it, text otherwise, the same
# rows whichever way.
write_types_script() {
    cat >types.lua <<'EOF'
local tables = {
  binary = "id BIGINT, k SMALLINT, s TEXT, c CHAR(10), v VARCHAR(12), n TEXT",
  numeric = "id INTEGER, k NUMERIC, s TEXT, c CHAR(10), v VARCHAR(12), n TEXT",
  domain = "id INTEGER, k sbpositive, s TEXT, c CHAR(10), v VARCHAR(12), n TEXT",
  range = "id INTEGER, k SMALLINT, s TEXT, c CHAR(10), v VARCHAR(12), n TEXT",
  mixed = "id BIGINT, k SMALLINT, s TEXT, c CHAR(10), v VARCHAR(12), n TEXT",
}
function prepare()
  local case = os.getenv("GEN_CASE")
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbtypes")
  con:query("DROP DOMAIN IF EXISTS sbpositive")
  con:query("CREATE DOMAIN sbpositive AS INTEGER CHECK (VALUE > 0)")
  con:query("CREATE TABLE sbtypes (" .. tables[case] .. ")")
  con:bulk_insert_init("INSERT INTO sbtypes (id, k, s, c, v, n) VALUES")
  local hi = case == "range" and 40000 or 30000
  local cols = {"id", {"uniform", 1, hi}, {"string", "@@-##"}, {"string", "###"},
                {"string", "@@@@ #"}, "id"}
  if case == "mixed" then
    -- A row of SQL text between generated rows: it ends the binary load.
    con:bulk_insert_rows(1, 1000, cols)
    con:bulk_insert_next("(1001, 5, 'ab-12', '123', 'abcd 1', '1001')")
    con:bulk_insert_rows(1002, 3000, cols)
  else
    con:bulk_insert_rows(1, 3000, cols)
  end
  con:bulk_insert_done()
end
function cleanup()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbtypes")
  con:query("DROP DOMAIN IF EXISTS sbpositive")
end
EOF
}

pg_binary_types() {
    local c mode rc got want
    local -a d
    write_types_script
    for c in binary numeric domain mixed; do
        d=()
        for mode in auto copy-text insert; do
            GEN_CASE=$c sbx pgsql --bulk-mode="$mode" --rand-seed=7 --db-debug --verbosity=5 \
                types.lua prepare ||
                { sb_show x.txt x.err; sb_fail "$c, $mode: prepare failed"; return 1; }
            if [ "$mode" = auto ]; then
                got=no want=no
                grep -q 'begin bulk load into sbtypes, binary' x.txt && got=yes
                case $c in binary | mixed) want=yes ;; esac
                [ "$got" = "$want" ] || { sb_fail "$c: sent in binary: $got"; return 1; }
                # mixed: the binary load, then one in text from the row
                # of SQL text on.
                got=$(grep 'begin bulk load into sbtypes' x.txt | tr '\n' '|')
                [ "$c" != mixed ] ||
                    [ "$got" = "DEBUG: begin bulk load into sbtypes, binary|DEBUG: begin bulk load into sbtypes|" ] ||
                    { sb_fail "mixed: the loads began as '$got'"; return 1; }
            fi
            # char(10) pads to 10, the ids sum to 3000 * 3001 / 2.
            got=$(sql pgsql "SELECT COUNT(*), MAX(LENGTH(s)), MAX(OCTET_LENGTH(c)), MIN(LENGTH(v)), SUM(n::bigint), SUM(id) FROM sbtypes" |
                tr '\t' ' ')
            [ "$got" = "3000 5 10 6 4501500 4501500" ] ||
                { sb_fail "$c, $mode: sbtypes holds '$got'"; return 1; }
            d+=("$(digest pgsql sbtypes "id, k, s, c, v, n")")
        done
        echo "$c: auto ${d[0]} copy-text ${d[1]} insert ${d[2]}"
        if [ "${d[0]}" != "${d[1]}" ] || [ "${d[1]}" != "${d[2]}" ]; then
            sb_fail "$c: sbtypes differs between the bulk modes"
            return 1
        fi
    done
    # 40,000 does not fit a smallint: text, which the server refuses as
    # it refuses the INSERTs, instead of binary values cut to 16 bits.
    for mode in auto insert; do
        rc=0
        GEN_CASE=range sbx pgsql --bulk-mode="$mode" --rand-seed=7 types.lua prepare || rc=$?
        [ "$rc" -eq 1 ] || { sb_show x.txt x.err; sb_fail "range, $mode: exit $rc, expected 1"; return 1; }
        grep -q -E 'smallint out of range|out of range for type smallint' x.err ||
            { sb_show x.err; sb_fail "range, $mode: not the server's range error"; return 1; }
    done
    sbx pgsql types.lua cleanup || true
}

# interrupted_prepare DRV: interrupted_load, and the tables dropped
# whatever it found, so that a failure does not leave the next case
# tables it does not expect.
interrupted_prepare() {
    local rc=0
    local -a args
    interrupted_load "$1" || rc=1
    # shellcheck disable=SC2207
    args=($(driver_args "$1") oltp_read_write --tables=4)
    sb_run clean.txt clean.err "${args[@]}" cleanup || true
    return $rc
}

interrupted_load() {
    local drv=$1 pid rc=0 line n c complete
    local -a args
    # shellcheck disable=SC2207
    # Enough rows that the load is still running when the signal comes,
    # now that the rows are made in C (4 x 300,000 could end within 2 s
    # on a quiet machine); the signal stops it long before the end.
    args=($(driver_args "$drv") oltp_read_write --tables=4 --table-size=1000000)
    sb_run clean.txt clean.err "${args[@]}" cleanup || true
    rm -f out.txt err.txt  # a previous case's output must not be read as this run's
    SB_PROGRESS=off timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" "${args[@]}" --threads=2 \
        prepare >out.txt 2>err.txt &
    pid=$!
    # Once rows are loading, and well before 1.2 million are in.
    for _ in $(seq 200); do
        grep -q '^Inserting' out.txt && break
        sleep 0.1
    done
    sleep 1
    kill -INT "$pid"
    wait "$pid" || rc=$?
    [ "$rc" -eq 130 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 130"; return 1; }
    line=$(grep '^WARNING: prepare did not finish: ' err.txt || true)
    echo "$line"
    [ -n "$line" ] || { sb_show err.txt; sb_fail "no line on what is complete"; return 1; }
    echo "$line" | grep -q "not complete: .*sbtest[1-4] (\(not created\|empty\|partly loaded\|loaded, not finished\))" ||
        { sb_fail "the line names no incomplete table"; return 1; }
    # Each table is named once, and those called complete are.
    for n in 1 2 3 4; do
        c=$(echo "$line" | grep -o "sbtest$n\b" | wc -l)
        [ "$c" = 1 ] || { sb_fail "sbtest$n is named $c times"; return 1; }
    done
    complete=$(echo "$line" | sed -n 's/.* complete (\([^)]*\));.*/\1/p' | tr -d ',')
    for n in $complete; do
        c=$(sql "$drv" "SELECT COUNT(*) FROM $n")
        [ "$c" = 1000000 ] || { sb_fail "$n is called complete with $c rows"; return 1; }
    done
}

# \d TABLE on PostgreSQL, in psql's default layout (footers included).
describe() {
    psql -X -h "$SB_PGSQL_SOCKET_DIR" -p "$SB_PGSQL_PORT" -U postgres -d "$SB_PGSQL_DB" \
        -c "\\d $1"
}

# The tables' indexes after a prepare (pg_indexes), each as CREATE TABLE
# with the key and the k index make them.
pg_keys_as_before() {
    local tag=$1 n got want
    for n in 1 2 3; do
        got=$(sql pgsql "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'sbtest$n' ORDER BY indexname")
        want=$(printf 'k_%s\tCREATE INDEX k_%s ON public.sbtest%s USING btree (k)\nsbtest%s_pkey\tCREATE UNIQUE INDEX sbtest%s_pkey ON public.sbtest%s USING btree (id)' \
            "$n" "$n" "$n" "$n" "$n" "$n")
        [ "$got" = "$want" ] ||
            { sb_fail "$tag: sbtest$n's indexes are '$got', expected '$want'"; return 1; }
        got=$(sql pgsql "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'sbtest$n'::regclass" |
            tr '\t' ' ')
        [ "$got" = "sbtest${n}_pkey p PRIMARY KEY (id)" ] ||
            { sb_fail "$tag: sbtest$n's constraints are '$got'"; return 1; }
        got=$(sql pgsql "SELECT last_value, is_called FROM sbtest${n}_id_seq" | tr '\t' ' ')
        [ "$got" = "2000 t" ] ||
            { sb_fail "$tag: sbtest$n's id sequence is at '$got', expected '2000 t'"; return 1; }
    done
}

# oltp_insert after a prepare of 3 x 2,000 rows: its new rows take ids
# from the sequence, and none may collide with a loaded one (PostgreSQL's
# 23505 is retried, so a collision shows as an ignored error, not as a
# failed run).
pg_inserts_after() {
    local tag=$1 got
    sbx pgsql oltp_insert --tables=3 --table-size=2000 --threads=2 --events=300 --time=0 run ||
        { sb_show x.txt x.err; sb_fail "$tag: oltp_insert after prepare failed"; return 1; }
    [ "$(sb_text_report_num x.txt 'ignored errors:')" = 0 ] ||
        { sb_show x.txt; sb_fail "$tag: oltp_insert's ids collided with the loaded rows"; return 1; }
    got=$(sql pgsql "SELECT SUM(c), SUM(m) FROM (SELECT COUNT(*) c, COUNT(*) FILTER (WHERE id > 2000) m FROM sbtest1 UNION ALL SELECT COUNT(*), COUNT(*) FILTER (WHERE id > 2000) FROM sbtest2 UNION ALL SELECT COUNT(*), COUNT(*) FILTER (WHERE id > 2000) FROM sbtest3) t" |
        tr '\t' ' ')
    [ "$got" = "6300 300" ] ||
        { sb_fail "$tag: after 300 inserts the tables hold '$got' (rows, rows past id 2000)"; return 1; }
}

pg_key_after_load() {
    local after before got
    oltp_prepare pgsql keyed || return 1
    grep -q 'ALTER TABLE sbtest2 ADD PRIMARY KEY (id)' keyed.txt ||
        { sb_fail "prepare added no primary key after the load"; return 1; }
    pg_keys_as_before "--threads=2" || return 1
    after=$(describe sbtest1)
    pg_inserts_after "--threads=2" || return 1
    # The table as the key in CREATE TABLE makes it (the statement before
    # the key moved), its k index and its sequence where prepare leaves it.
    sql pgsql "DROP TABLE sbtest1" >/dev/null
    sql pgsql "CREATE TABLE sbtest1 (id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))" >/dev/null
    sql pgsql "CREATE INDEX k_1 ON sbtest1(k)" >/dev/null
    before=$(describe sbtest1)
    echo "$after"
    [ "$after" = "$before" ] ||
        { echo "$before"; sb_fail "\\d sbtest1 differs from the table with the key in CREATE TABLE"; return 1; }
    # 1.0's way: a thread per table, ids from the sequence (and no
    # "Prepare done" line, so not through oltp_prepare).
    sbx pgsql oltp_read_write --tables=3 cleanup || true
    # shellcheck disable=SC2046 # the driver's arguments are several words
    SB_COMPAT=1.0 sb_run_ok "SB_COMPAT=1.0 prepare" compat.txt compat.err \
        $(driver_args pgsql) oltp_read_write --tables=3 --table-size=2000 --threads=2 prepare ||
        return 1
    got=$(sql pgsql "SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM sbtest3" | tr '\t' ' ')
    [ "$got" = "2000 2000 1 2000" ] ||
        { sb_fail "SB_COMPAT=1.0: sbtest3 holds '$got' (count, distinct, min, max)"; return 1; }
    pg_keys_as_before "SB_COMPAT=1.0" || return 1
    pg_inserts_after "SB_COMPAT=1.0" || return 1
    sbx pgsql oltp_read_write --tables=3 cleanup || true
}

for drv in mysql pgsql sqlite; do
    sb_case "$drv-prepare-same-rows-every-bulk-mode" same_rows_every_mode "$drv"
    sb_case "$drv-bulk-values-same-every-mode" values_every_mode "$drv"
    sb_case "$drv-bulk-malformed-row-copy" malformed_row "$drv" copy
    sb_case "$drv-bulk-malformed-row-insert" malformed_row "$drv" insert
    sb_case "$drv-bulk-rows-template" rows_template "$drv"
    sb_case "$drv-prepare-interrupted-names-tables" interrupted_prepare "$drv"
done
sb_case "mysql-load-data-refused-falls-back" load_data_refused
sb_case "pgsql-prepare-key-after-load-same-schema" pg_key_after_load
sb_case "pgsql-bulk-binary-copy-types" pg_binary_types
