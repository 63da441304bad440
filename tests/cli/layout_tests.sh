#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The layout of sysbench/: every C file lies in one layer folder, every
# include names the folder it reaches into ("core/sb_log.h"), no include
# points to a higher layer, and no file includes itself through others
# (no circular include). No two .c files call each other in a loop, and a
# header declares only its own concept's functions (check_calls).
# LAYERS below is the one place the order is written; doc/design.md
# ("Layers") draws it and each folder's README.md says what it may use.
# The checkers are also run on small planted trees, so a violation is
# known to be caught.
#
# Run by `make check`, or by hand: bash tests/cli/layout_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# Bottom first: a file may include files of its own layer and of the
# layers before it. main.c, directly in sysbench/, is the top.
LAYERS="core cpu pure drivers config measure results lua builtin engine plot compare"

# layer_rank DIR: the position of a file's folder (its first path part)
# in LAYERS, 1-based; the top (main) for a file directly in the root; 0
# for a folder that is no layer.
layer_rank() {
    local dir=$1 i=1 l
    [ "$dir" = "." ] && { echo 99; return; }
    for l in $LAYERS; do
        [ "$l" = "$dir" ] && { echo "$i"; return; }
        i=$((i + 1))
    done
    echo 0
}

# check_layout ROOT: prints one line per violation in the tree ROOT (a
# sysbench/ folder) and returns 1 when there is any. Generated files
# (lua/sb_lua_modules.c) and the autoconf header (config.h) are no part
# of it.
check_layout() {
    local root=$1 bad=0 f dir inc idir rank irank edges
    edges=$(mktemp)
    while IFS= read -r f; do
        f=${f#./}
        [ "$f" = "lua/sb_lua_modules.c" ] && continue
        dir=$(dirname "$f")
        dir=${dir%%/*}
        rank=$(layer_rank "$dir")
        if [ "$rank" -eq 0 ]; then
            echo "$f: folder '$dir' is no layer (LAYERS: $LAYERS)"
            bad=1
            continue
        fi
        echo "$f $f" >>"$edges"
        while IFS= read -r inc; do
            [ "$inc" = "config.h" ] && continue
            idir=${inc%%/*}
            if [ "$idir" = "$inc" ]; then
                echo "$f: #include \"$inc\" does not name its folder"
                bad=1
                continue
            fi
            if [ ! -f "$root/$inc" ]; then
                echo "$f: #include \"$inc\": no such file under sysbench/"
                bad=1
                continue
            fi
            irank=$(layer_rank "$idir")
            if [ "$irank" -eq 0 ] || [ "$irank" -gt "$rank" ]; then
                echo "$f: #include \"$inc\" points upward ($dir uses $idir)"
                bad=1
            fi
            echo "$f $inc" >>"$edges"
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$root/$f")
    done < <(cd "$root" && find . -name '*.[ch]' | sort)
    # tsort reads "a b" pairs as a -> b and names every loop it finds.
    if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
        echo "circular include: $(grep -v 'input contains a loop' "$edges.err" |
            sed 's/^tsort: //' | tr '\n' ' ')"
        bad=1
    fi
    rm -f "$edges" "$edges.err"
    return "$bad"
}

tcase "sysbench/: every file in a layer folder, includes name their layer, none upward, no circle"
check_layout "$SB_SRCDIR/sysbench" >report || fail "layout violations:" "$(cat report)"
[ -s report ] && cat report

tcase "the folders of sysbench/ are the layers, each with its README.md"
for l in $LAYERS; do
    [ -d "$SB_SRCDIR/sysbench/$l" ] || fail "layer folder sysbench/$l is missing"
    [ -s "$SB_SRCDIR/sysbench/$l/README.md" ] || fail "sysbench/$l has no README.md"
done
for d in "$SB_SRCDIR"/sysbench/*/; do
    d=$(basename "$d")
    [ "$(layer_rank "$d")" -gt 0 ] || fail "sysbench/$d is no layer of LAYERS"
done

tcase "doc/design.md draws the same layers in the same order"
drawn=$(sed -n 's/^Layers, bottom first: *//p' "$SB_SRCDIR/doc/design.md" | tr -d '.' | tr ',' ' ' | xargs)
assert_eq "$drawn" "$LAYERS" "the order in doc/design.md"

# The checker itself, on planted trees: each must be caught.
tcase "the check catches an upward include"
mkdir -p t/core t/engine
echo '#include "engine/sb_b.h"' >t/core/sb_a.h
: >t/engine/sb_b.h
check_layout t >report && fail "no violation reported"
assert_contains report 'core/sb_a.h: #include "engine/sb_b.h" points upward (core uses engine)'

tcase "the check catches a circular include inside one layer"
mkdir -p t/results
echo '#include "results/sb_b.h"' >t/results/sb_a.h
echo '#include "results/sb_c.h"' >t/results/sb_b.h
echo '#include "results/sb_a.h"' >t/results/sb_c.h
check_layout t >report && fail "no violation reported"
assert_contains report "circular include:"
assert_contains report "results/sb_b.h"

tcase "the check catches an include without its folder, and a file outside the layers"
mkdir -p t/core t/misc
echo '#include "sb_log.h"' >t/core/sb_a.c
: >t/core/sb_log.h
: >t/misc/sb_x.c
check_layout t >report && fail "no violation reported"
assert_contains report 'core/sb_a.c: #include "sb_log.h" does not name its folder'
assert_contains report "misc/sb_x.c: folder 'misc' is no layer"

tcase "a clean planted tree passes"
mkdir -p t/core t/engine
echo '#include "core/sb_log.h"' >t/engine/sb_w.c
: >t/core/sb_log.h
echo '#include "engine/sb_w.h"' >t/main.c
: >t/engine/sb_w.h
check_layout t >report || fail "violations in a clean tree: $(cat report)"


# C_SCAN: reads C files and prints "D file name" for each function a .c
# file defines with external linkage, "P file name" for each function
# prototype at file scope, and "U file name" for each identifier a .c
# file uses inside braces (a call, or a function's address taken), after
# dropping comments, string and character literals and preprocessor
# lines. A simple parser, not a compiler: it knows the project's style
# (a definition's name and "(" on one line, no K&R definitions, no
# function-like macros standing for calls), which keeps it a second for
# the whole tree.
C_SCAN='
FNR == 1 { incom = 0; inpp = 0; depth = 0; pdepth = 0; reset() }
function reset() { fname = ""; isstatic = 0; istypedef = 0; haseq = 0; prev = "" }
{
    line = $0
    if (!incom && (inpp || line ~ /^[ \t]*#/)) { inpp = (line ~ /\\$/); next }
    out = ""
    while (line != "") {
        if (incom) {
            k = index(line, "*/")
            if (k == 0) { line = ""; break }
            line = substr(line, k + 2); incom = 0; out = out " "
            continue
        }
        if (!match(line, /\/\*|\/\/|"|\x27/)) { out = out line; break }
        out = out substr(line, 1, RSTART - 1)
        tok = substr(line, RSTART, RLENGTH)
        line = substr(line, RSTART)
        if (tok == "//") break
        if (tok == "/*") { incom = 1; line = substr(line, 3); continue }
        re = tok == "\"" ? "^\"([^\"\\\\]|\\\\.)*\"" : "^\x27([^\x27\\\\]|\\\\.)*\x27"
        line = match(line, re) ? substr(line, RLENGTH + 1) : ""
        out = out " 0 "
    }
    s = out
    while (match(s, /[A-Za-z_][A-Za-z0-9_]*|->|[{}();=.]/)) {
        t = substr(s, RSTART, RLENGTH)
        s = substr(s, RSTART + RLENGTH)
        if (t == "{") {
            if (depth == 0 && pdepth == 0 && fname != "" && !haseq && !istypedef &&
                !isstatic && FILENAME ~ /\.c$/)
                print "D", FILENAME, fname
            depth++
        } else if (t == "}") {
            if (depth > 0) depth--
            if (depth == 0) reset()
        } else if (t == "(") {
            if (depth == 0 && pdepth == 0 && fname == "" && !haseq &&
                prev ~ /^[a-z_][A-Za-z0-9_]*$/ && prev !~ /^__/)
                fname = prev
            pdepth++
        } else if (t == ")") {
            if (pdepth > 0) pdepth--
        } else if (t == ";") {
            if (depth == 0 && pdepth == 0) {
                if (fname != "" && !haseq && !istypedef && !isstatic)
                    print "P", FILENAME, fname
                reset()
            }
        } else if (t == "=") {
            if (depth == 0 && pdepth == 0) haseq = 1
        } else if (t ~ /^[A-Za-z_]/) {
            if (depth == 0) {
                if (t == "static") isstatic = 1
                if (t == "typedef") istypedef = 1
            } else if (prev != "." && prev != "->" && prev != "struct" && prev != "union" &&
                       prev != "enum" && FILENAME ~ /\.c$/) {
                print "U", FILENAME, t
            }
        }
        prev = t
    }
}'

# C_JUDGE: reads C_SCAN's lines; prints "header: declares NAME, defined in
# FILE" for a prototype in X.h (or X_int.h) of a function defined outside
# X.c and X_*.c (a concept split over files shares its header), and "E A
# B" once for each .c file A that uses a function B defines. Prototypes
# of functions no scanned file defines (generated code) are left alone.
C_JUDGE='
$1 == "D" { if (!($3 in def)) def[$3] = $2; next }
{ kind[NR] = $1; file[NR] = $2; name[NR] = $3 }
END {
    for (i = 1; i <= NR; i++) {
        if (!(i in kind) || !(name[i] in def)) continue
        d = def[name[i]]
        if (kind[i] == "P" && file[i] ~ /\.h$/) {
            stem = file[i]; sub(/(_int)?\.h$/, "", stem)
            base = d; sub(/\.c$/, "", base)
            if (base != stem && index(base, stem "_") != 1)
                print file[i] ": declares " name[i] ", defined in " d
        } else if (kind[i] == "U" && d != file[i] && !((file[i], d) in seen)) {
            seen[file[i], d] = 1
            print "E", file[i], d
        }
    }
}'

# Calls that close a loop and are known debt, one "FROM TO" per line, each
# with its reason; the check fails when a listed call no longer exists, so
# the list cannot outlive its reason. None left: the last one
# (drivers/sb_db_bulk.c <-> sb_driver.c) ended when the policy, the
# registry and connections left sb_driver.c and the statements came to
# pause a bulk insert through con->bulk_pause.
KNOWN_CALLS=''

# check_calls ROOT [KNOWN]: prints one line per header that declares
# another concept's function and per loop of .c files calling each other
# in the tree ROOT (leaving out the "FROM TO" calls in KNOWN, each of
# which must exist), and returns 1 when there is any.
check_calls() {
    local root=$1 known=${2:-} out bad=0 k
    out=$(mktemp)
    (cd "$root" && find . -name '*.[ch]' ! -name sb_lua_modules.c | sed 's|^\./||' | sort |
        xargs awk "$C_SCAN") | awk "$C_JUDGE" >"$out"
    grep -v '^E ' "$out" && bad=1
    while IFS= read -r k; do
        [ -n "$k" ] || continue
        if grep -qxF "E $k" "$out"; then
            grep -vxF "E $k" "$out" >"$out.k"; mv "$out.k" "$out"
        else
            echo "known call '$k' no longer exists: take it off KNOWN_CALLS"
            bad=1
        fi
    done <<<"$known"
    # tsort names the files of every loop it finds.
    if ! sed -n 's/^E //p' "$out" | tsort >/dev/null 2>"$out.err"; then
        echo "circular calls: $(grep -v 'input contains a loop' "$out.err" |
            sed 's/^tsort: //' | tr '\n' ' ')"
        bad=1
    fi
    rm -f "$out" "$out.err"
    return "$bad"
}

tcase "sysbench/: no two .c files call each other in a loop, headers declare their own functions"
check_calls "$SB_SRCDIR/sysbench" "$KNOWN_CALLS" >report || fail "call violations:" "$(cat report)"
[ -s report ] && cat report

tcase "the check catches two .c files calling each other"
mkdir -p t/drivers
printf 'int sb_b(void);\nint sb_a(void)\n{\n    return sb_b();\n}\n' >t/drivers/sb_a.c
printf 'int sb_a(void);\nint sb_b(void)\n{\n    return 0;\n}\nstatic int f(void) { return sb_a(); }\n' >t/drivers/sb_b.c
check_calls t >report && fail "no violation reported"
assert_contains report "circular calls:"
assert_contains report "drivers/sb_a.c"
assert_contains report "drivers/sb_b.c"

tcase "the check catches a loop through three files, and a function's address taken"
mkdir -p t/plot
printf 'void sb_y(void);\nvoid sb_x(void)\n{\n    sb_y();\n}\n' >t/plot/sb_x.c
printf 'void sb_z(void);\nvoid sb_y(void)\n{\n    sb_z ();\n}\n' >t/plot/sb_y.c
printf 'void sb_x(void);\nstatic void (*hook)(void);\nvoid sb_z(void)\n{\n    hook = sb_x;\n}\n' >t/plot/sb_z.c
check_calls t >report && fail "no violation reported"
assert_contains report "circular calls:"
assert_contains report "plot/sb_z.c"

tcase "the check catches a header declaring another file's function"
mkdir -p t/drivers
printf '#ifndef SB_P_H\n#define SB_P_H\nint sb_p_take(void);\nstruct sb_conn *sb_conn_new(int a,\n                            int b);\n#endif\n' >t/drivers/sb_p.h
printf 'int sb_p_take(void)\n{\n    return 1;\n}\n' >t/drivers/sb_p.c
printf 'struct sb_conn;\nstruct sb_conn *sb_conn_new(int a, int b)\n{\n    return 0;\n}\n' >t/drivers/sb_driver.c
check_calls t >report && fail "no violation reported"
assert_contains report "drivers/sb_p.h: declares sb_conn_new, defined in drivers/sb_driver.c"
assert_not_contains report "sb_p_take"

tcase "the calls check passes a clean tree: one concept's files share a header, no false uses"
mkdir -p t/results t/core
# sb_m.h declares sb_m.c's and sb_m_print.c's functions; a comment, a
# string, a struct tag and a member named like a function are no use.
printf 'struct sb_m_print { int sb_m_run; };\nint sb_m_run(void);\nvoid sb_m_print(void);\n' >t/results/sb_m.h
printf '#include "results/sb_m.h"\nint sb_m_run(void)\n{\n    sb_m_print();\n    return sb_log_x();\n}\n' >t/results/sb_m.c
printf '/* sb_m_run() is not called */\nvoid sb_m_print(void)\n{\n    struct sb_m_print p = { 0 };\n    const char *s = "sb_m_run()";\n    p.sb_m_run = 1; (void)s;\n}\n' >t/results/sb_m_print.c
printf 'int sb_log_x(void)\n{\n    return 0;\n}\n' >t/core/sb_log.c
printf 'int sb_log_x(void);\n' >t/core/sb_log.h
check_calls t >report || fail "violations in a clean tree: $(cat report)"


# spdx_missing ROOT: prints each source file of the tree ROOT without the
# licence line (C, headers, shell, Lua, gnuplot, m4, Makefile.am,
# configure.ac, debian/rules), so a file added later without it fails
# here. The line is in the first three lines (after a "#!" line), or, in
# Lua, also the last (a line on top would move the line numbers error
# messages show). Fuzz corpora and generated files are no source.
SPDX="SPDX-License-Identifier: GPL-2.0-or-later"
spdx_missing() {
    local root=$1 f bad=0
    while IFS= read -r f; do
        if head -n 3 "$root/$f" | grep -qF "$SPDX"; then continue; fi
        case $f in *.lua) tail -n 1 "$root/$f" | grep -qF "$SPDX" && continue ;; esac
        echo "$f: no '$SPDX' line"
        bad=1
    done < <(cd "$root" && {
        find sysbench tests scripts bench examples m4 -type f \( -name '*.c' -o -name '*.h' \
            -o -name '*.sh' -o -name '*.lua' -o -name '*.gp' -o -name '*.m4' -o -name '*.am' \) \
            -not -path 'tests/fuzz/corpus/*' -not -path 'tests/fuzz/regress/*' \
            -not -name sb_lua_modules.c 2>/dev/null
        for f in Makefile.am configure.ac autogen.sh build-aux/lua2c.sh debian/rules .ci/run; do
            [ -f "$f" ] && echo "$f"
        done
    } | sort)
    return "$bad"
}

tcase "every source file carries the licence's SPDX line"
spdx_missing "$SB_SRCDIR" >report || fail "files without the SPDX line:" "$(cat report)"
[ -s "$SB_SRCDIR/COPYING" ] || fail "COPYING is missing"

tcase "the SPDX check catches a file without the line"
mkdir -p s/sysbench/core s/tests
printf '/* %s */\nint x;\n' "$SPDX" >s/sysbench/core/sb_ok.c
printf 'local x = 1\n-- %s\n' "$SPDX" >s/tests/ok.lua
printf '#!/bin/sh\n# %s\n' "$SPDX" >s/tests/ok.sh
spdx_missing s >report || fail "a clean tree reported: $(cat report)"
printf 'int y;\n' >s/sysbench/core/sb_bad.c
printf '#!/bin/sh\necho\n' >s/tests/bad.sh
spdx_missing s >report && fail "no file reported"
assert_contains report "sysbench/core/sb_bad.c: no"
assert_contains report "tests/bad.sh: no"
assert_not_contains report "sb_ok.c"


# too_long ROOT: the C files under ROOT/sysbench of more than 1,000 lines
# (the style's limit: split a file by concept before it passes it; the
# generated sb_lua_modules.c is no source). Prints one line per file.
too_long() {
    (cd "$1" && find sysbench -name '*.c' -not -name sb_lua_modules.c -print0 |
        xargs -0 wc -l | awk '$2 != "total" && $1 > 1000 { print $2 ": " $1 " lines" }')
}

tcase "every C file of sysbench/ is at most 1,000 lines"
too_long "$SB_SRCDIR" >report
[ -s report ] && fail "files over 1,000 lines (split them by concept):" "$(cat report)"

tcase "the length check catches a long file"
mkdir -p l/sysbench/core
seq 1001 | sed 's/.*/int x&;/' >l/sysbench/core/sb_long.c
seq 1000 | sed 's/.*/int y&;/' >l/sysbench/core/sb_ok.c
too_long l >report
assert_contains report "sysbench/core/sb_long.c: 1001 lines"
assert_not_contains report "sb_ok.c"

finish
