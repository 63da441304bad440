#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The layout of sysbench/: every C file lies in one layer folder, every
# include names the folder it reaches into ("core/sb_log.h"), no include
# points to a higher layer, and no file includes itself through others
# (no circular include). LAYERS below is the one place the order is
# written; doc/design.md ("Layers") draws it and each folder's README.md
# says what it may use. The checker is also run on small planted trees,
# so a violation is known to be caught.
#
# Run by `make check`, or by hand: bash tests/cli/layout_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# Bottom first: a file may include files of its own layer and of the
# layers before it. main.c, directly in sysbench/, is the top.
LAYERS="core cpu pure drivers config results lua builtin engine plot compare"

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

finish
