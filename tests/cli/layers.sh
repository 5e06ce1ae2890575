#!/usr/bin/env bash
# The folders' rules of docs/architecture.md ("Rules of the folders"): cprof-report's
# model (reports/model/) includes and calls no view, no view includes the model's private
# raw.h, and no two files of reports/ include or call each other in a circle
# (tests/lib/layers.py, from the #include lines and nm's symbols of objects compiled
# here).  Then the same check on a copy of the sources with each kind of breach put in
# (a view including raw.h, the model including a view's header, the model calling a
# view, a circle of calls, a circle of includes): each must fail, naming the breach.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

mkdir -p src/docs
cp -r "$root/reports" "$root/format" src/
cp "$root/docs/architecture.md" src/docs/
cp -r src pristine
jansson=$(pkg-config --cflags jansson)

# compile FILE...: src/FILE.c to obj/FILE.o, by the pass's compiler.
compile() {
    local f
    for f in "$@"; do
        mkdir -p "obj/$(dirname "$f")"
        "$plain_cc" -std=gnu11 -O0 $jansson -c "src/$f.c" -o "obj/$f.o" 2>> cc.err || return 1
    done
}
all=$(cd src && ls reports/main.c reports/model/*.c reports/views/*.c | sed 's/\.c$//')
# shellcheck disable=SC2086
if ! compile $all; then
    nok "reports/ compiles with $plain_cc" "$(indent cc.err)"
    finish
    exit
fi

python3 "$root/tests/lib/layers.py" src obj > out 2>&1
rc=$?
check "reports/ keeps docs/architecture.md's rules, no circle between files" "$(indent out)" -- \
    test "$rc" = 0

# breach NAME FILE LINE EXPECTED: LINE appended to src/FILE, its object compiled again;
# layers.py must fail and print EXPECTED; then the copy is put back.
breach() {
    local name=$1 file=$2 line=$3 want=$4
    printf '%s\n' "$line" >> "src/$file"
    case $file in *.c) compile "${file%.c}" ;; esac
    python3 "$root/tests/lib/layers.py" src obj > out 2>&1
    local rc=$?
    check "fails on $name" "status $rc, wanted 1 and: $want" "$(indent out)" -- \
        eval '[ "$rc" = 1 ] && grep -qF -- "$want" out'
    cp "pristine/$file" "src/$file"
    case $file in *.c) compile "${file%.c}" ;; esac
}
# NAME|FILE|LINE|EXPECTED, one breach a line.
while IFS='|' read -r name file line want; do
    breach "$name" "$file" "$line" "$want"
done <<'EOF2'
a view including the model's private raw.h|reports/views/flat.c|#include "../model/raw.h"|reports/views/flat.c includes reports/model/raw.h, private to reports/model/
the model including a view's header|reports/model/view.c|#include "../views/table.h"|reports/model/view.c includes reports/views/table.h: reports/model/ may include only
the model calling a view (nm)|reports/model/sources.c|char *cprof_json_text(struct json_t *, int); char *cprof_layers_probe(void) { return cprof_json_text(0, 0); }|reports/model/sources.c calls cprof_json_text of reports/views/table.c: reports/model/ may call only
a circle of calls in the model (rows.c calling profile.c)|reports/model/rows.c|void *cprof_layers_probe(void) { return (void *)cprof_profile_load; }|reports/model/rows.c calls cprof_profile_load of reports/model/profile.c
a circle of includes (table.h including report.h)|reports/views/table.h|#include "report.h"|reports/views/table.h includes reports/views/report.h
a circle of calls between two views (table.c calling text.c)|reports/views/table.c|char *cprof_tables_text(); void *cprof_layers_probe(void) { return (void *)cprof_tables_text; }|reports/views/table.c calls cprof_tables_text of reports/views/text.c
EOF2

finish
