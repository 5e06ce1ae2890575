#!/usr/bin/env bash
# The folders' rules of docs/architecture.md ("Rules of the folders"): cprof-report's
# model (reports/model/) includes and calls no view, no view includes the model's private
# raw.h; the runtime's core (runtime/core/) includes and calls no extension
# (runtime/ext/) nor start.c; and no two files include or call each other in a circle
# (tests/lib/layers.py, from the #include lines and nm's symbols of objects compiled
# here).  Then the same check on a copy of the sources
# with each kind of breach put in (a view including raw.h, the model including a view's
# header, the model calling a view, the core including or calling an extension,
# circles of calls and of includes): each must fail, naming the breach.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

mkdir -p src/docs
cp -r "$root/reports" "$root/format" "$root/runtime" src/
cp "$root/docs/architecture.md" src/docs/
cp -r src pristine
jansson=$(pkg-config --cflags jansson)

# compile FILE...: src/FILE.c to obj/FILE.o, by the pass's compiler.
compile() {
    local f
    for f in "$@"; do
        mkdir -p "obj/$(dirname "$f")"
        case $f in
            runtime/*) "$plain_cc" -std=gnu11 -O0 -DCPROF_BUILDING_RUNTIME $ompt -c "src/$f.c" \
                           -o "obj/$f.o" 2>> cc.err || return 1 ;;
            *) "$plain_cc" -std=gnu11 -O0 $jansson -c "src/$f.c" -o "obj/$f.o" 2>> cc.err || return 1 ;;
        esac
    done
}
# omp-tools.h for runtime/ext/ompt.c, as the Makefile finds it.
ompt_h=$(ls /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h 2> /dev/null | head -n 1)
ompt=${ompt_h:+-idirafter $(dirname "$ompt_h")}
all=$(cd src && ls reports/main.c reports/model/*.c reports/views/*.c runtime/start.c runtime/core/*.c \
          runtime/ext/*.c | sed 's/\.c$//')
# shellcheck disable=SC2086
if ! compile $all; then
    nok "reports/ and runtime/ compile with $plain_cc" "$(indent cc.err)"
    finish
    exit
fi

python3 "$root/tests/lib/layers.py" src obj > out 2>&1
rc=$?
check "reports/ and runtime/ keep docs/architecture.md's rules, no circle between files" "$(indent out)" -- \
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
the runtime's core including an extension's header|runtime/core/clock.c|#include "../ext/trace.h"|runtime/core/clock.c includes runtime/ext/trace.h: runtime/core/ may include only
the facade naming the tracer (nm)|runtime/core/facade.c|struct cprof_frame *cprof_trace_enter(); void *cprof_layers_probe(void) { return (void *)cprof_trace_enter; }|runtime/core/facade.c calls cprof_trace_enter of runtime/ext/trace.c: runtime/core/ may call only
the workers calling placement at a worker's start (nm)|runtime/core/workers.c|void cprof_placement_new(struct cprof_worker *); void cprof_layers_probe(struct cprof_worker *w) { cprof_placement_new(w); }|runtime/core/workers.c calls cprof_placement_new of runtime/ext/placement.c
the units starting the runtime by name (start.c, nm)|runtime/core/units.c|void cprof_register_unit_v9(struct cprof_unit *); void *cprof_layers_probe(void) { return (void *)cprof_register_unit_v9; }|runtime/core/units.c calls cprof_register_unit_v9 of runtime/start.c
a circle of calls between extensions (signals.c calling resources.c)|runtime/ext/signals.c|int cprof_resources_signal_owned(int); void *cprof_layers_probe(void) { return (void *)cprof_resources_signal_owned; }|runtime/ext/signals.c calls cprof_resources_signal_owned of runtime/ext/resources.c
a circle in the core (clock.c calling the facade)|runtime/core/clock.c|void *cprof_layers_probe(void) { return (void *)cprof_facade_select; }|runtime/core/clock.c calls cprof_facade_select of runtime/core/facade.c
EOF2

finish
