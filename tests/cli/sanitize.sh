#!/usr/bin/env bash
# The tools built with -fsanitize=address,undefined (LeakSanitizer included) compile
# every case program and report on a real profile with no sanitizer report.  Catches
# what only shows on some inputs, like a memcpy from the null site table of a unit
# with no calls.  The rewriter runs as a process of its own (CPROF_SERVER=0), so that
# LeakSanitizer checks every rewrite; then a few cases go through the rewrite server,
# whose workers outlive their requests (errors, not leaks, show there).
# A compile passes only if it also succeeded and profiled every unit: a sanitizer can
# make cprof-cc fail or fall back to gcc alone ("compiled without profiling"), and a
# program built that way shows no sanitizer report either.
. "$(dirname "$0")/../lib/cli.sh"

if ! make -s -C "$root" B="$tmp/build" SANITIZE=1 all > "$tmp/make.log" 2>&1; then
    nok "build the tools with SANITIZE=1" "$(indent "$tmp/make.log" 20)"
    finish
    exit
fi
ok "build the tools with SANITIZE=1"
san=$tmp/build/bin
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=0
export CPROF_SERVER=0

# profiled PROG UNITS STATUS ERR: cprof-cc exited 0, did not fall back, and PROG has
# the registration of UNITS profiled units.
profiled() {
    [ "$3" = 0 ] && [ -f "$1" ] && ! grep -q 'compiled without profiling' "$4" &&
        [ "$(nm "$1" | grep -c ' __cprof_unit_init$')" -ge "$2" ]
}

for dir in "$root"/tests/cases/*/; do
    name=$(basename "$dir")
    work=$tmp/$name
    mkdir -p "$work" && cp "$dir"*.c "$dir"*.h "$work"/ 2>/dev/null
    flags="-fopenmp -O2 -Wall"
    [ -f "$dir/cflags" ] && flags=$(cat "$dir/cflags")
    (cd "$work" && "$san/cprof-cc" $flags *.c -o prog > cc.err 2>&1)
    st=$?
    check "cprof-cc on $name: no sanitizer report" "$(indent "$work/cc.err" 12)" -- \
        bash -c "! grep -qE 'Sanitizer|runtime error:' '$work/cc.err'"
    check "cprof-cc on $name: exit 0, every unit profiled" "status $st" "$(indent "$work/cc.err" 12)" -- \
        profiled "$work/prog" "$(ls "$work"/*.c | wc -l)" "$st" "$work/cc.err"
done

# A unit without any call: the case that once passed a null table to memcpy.
printf 'int answer = 42;\nint get(void) { return answer; }\n' > "$tmp/nocall.c"
"$san/cprof-cc" -c "$tmp/nocall.c" -o "$tmp/nocall.o" > "$tmp/nocall.err" 2>&1
st=$?
check "cprof-cc on a unit with no call: no sanitizer report, profiled" "status $st" "$(indent "$tmp/nocall.err")" -- \
    profiled "$tmp/nocall.o" 1 "$st" "$tmp/nocall.err"
check "cprof-cc on a unit with no call: nothing on stderr" "$(indent "$tmp/nocall.err")" -- \
    test ! -s "$tmp/nocall.err"

# A unit that defines no function (only data): empty tables everywhere, the case
# that once passed null arrays to qsort.
printf 'int table[3] = { 1, 2, 3 };\n' > "$tmp/data.c"
"$san/cprof-cc" -c "$tmp/data.c" -o "$tmp/data.o" > "$tmp/data.err" 2>&1
st=$?
check "cprof-cc on a unit that defines no function: no sanitizer report, exit 0" "status $st" "$(indent "$tmp/data.err")" -- \
    test $st = 0 -a -f "$tmp/data.o" -a ! -s "$tmp/data.err"

mkdir -m 700 "$tmp/run"
for name in 10_function_pointers 23_evaluation 29_static_addresses; do
    work=$tmp/$name
    (cd "$work" && CPROF_SERVER=1 XDG_RUNTIME_DIR=$tmp/run "$san/cprof-cc" -fopenmp -O2 -Wall *.c -o prog2 > cc2.err 2>&1)
    st=$?
    check "cprof-cc on $name through the rewrite server: no sanitizer report" "$(indent "$work/cc2.err" 12)" -- \
        test ! -s "$work/cc2.err"
    check "cprof-cc on $name through the rewrite server: exit 0, every unit profiled" "status $st" -- \
        profiled "$work/prog2" "$(ls "$work"/*.c | wc -l)" "$st" "$work/cc2.err"
done
pkill -f -- "--server $tmp/run/"

w=$tmp/01_sequential
if (cd "$w" && OMP_NUM_THREADS=2 CPROF_OUT=prof.out ./prog > /dev/null 2>&1) && [ -f "$w/prof.out" ]; then
    "$san/cprof-report" --json "$w/prof.out" "$w/prof.out" > "$w/report.json" 2> "$w/report.err"
    st=$?
    check "cprof-report --json on two real profiles: no sanitizer report, exit 0, a report" "status $st" "$(indent "$w/report.err")" -- \
        bash -c "[ $st = 0 ] && [ ! -s '$w/report.err' ] && jq -e '.files == 2' '$w/report.json' > /dev/null"
    for mode in --dot "--diff $w/prof.out" --paths --folded --hatchet "--callers main" "--root main"; do
        "$san/cprof-report" $mode "$w/prof.out" > "$w/mode.out" 2> "$w/mode.err"
        st=$?
        check "cprof-report ${mode%% *} on a real profile: no sanitizer report, exit 0" "status $st" "$(indent "$w/mode.err")" -- \
            test $st = 0 -a -s "$w/mode.out" -a ! -s "$w/mode.err"
    done
    # The source view (docs/source.md): the files read, hashed and annotated.
    for mode in "--source" "--source --threshold 5" "--source --json" "--csv lines" \
                "--csv line-workers" "--html --embed-sources"; do
        (cd "$w" && "$san/cprof-report" $mode prof.out > mode.out 2> mode.err)
        st=$?
        check "cprof-report $mode on a real profile: no sanitizer report, exit 0" "status $st" "$(indent "$w/mode.err")" -- \
            test $st = 0 -a -s "$w/mode.out" -a ! -s "$w/mode.err"
    done
    # A page cut to its heaviest routines (html.c): tables without routine columns once
    # leaked the array their rows were to be kept in.
    {
        echo '#include <stdio.h>'
        for i in $(seq 0 309); do echo "void r$i(volatile int *x) { for (int k = 0; k < $i; k++) *x += k; }"; done
        echo 'int main(void) { volatile int x = 0;'
        for i in $(seq 0 309); do echo "r$i(&x);"; done
        echo 'printf("%d\n", x > 0); return 0; }'
    } > "$tmp/many.c"
    (cd "$tmp" && "$bin/cprof-cc" -O1 many.c -o many > /dev/null 2>&1 && CPROF_OUT=many.out ./many > /dev/null)
    "$san/cprof-report" --html "$tmp/many.out" > "$tmp/many.html" 2> "$tmp/many.err"
    st=$?
    check "cprof-report --html on 311 routines (a page cut to 300): no sanitizer report, exit 0" "status $st" \
        "$(indent "$tmp/many.err")" -- test $st = 0 -a -s "$tmp/many.html" -a ! -s "$tmp/many.err"
    # Placement (docs/placement.md) with the kernel's migrations, a resource counted,
    # never sampled: no resource columns (once a memcpy from their null array).
    (cd "$w" && OMP_NUM_THREADS=2 CPROF_RESOURCES=migrations CPROF_OUT=mig.out ./prog > /dev/null 2>&1)
    for mode in --resources "--paths --resources" "--csv flat --resources" --html --json "--csv placement" \
                "--csv placement-flags" "--csv binding" "--csv machine"; do
        "$san/cprof-report" $mode "$w/mig.out" > "$w/mode.out" 2> "$w/mode.err"
        st=$?
        check "cprof-report $mode on a profile with placement and migrations counted: no sanitizer report, exit 0" \
            "status $st" "$(indent "$w/mode.err")" -- test $st = 0 -a -s "$w/mode.out" -a ! -s "$w/mode.err"
    done
else
    nok "cprof-report --json on two real profiles: no sanitizer report, exit 0, a report" "the profiled program did not write prof.out"
fi
# A trace (docs/tracing.md): converted, drawn, and refused when cut short.
w=$tmp/05_nested
if (cd "$w" && OMP_NUM_THREADS=2 OMP_MAX_ACTIVE_LEVELS=2 CPROF_TRACE=1 CPROF_OUT=traced.out ./prog > /dev/null 2>&1) &&
   [ -f "$w/traced.out.trace" ]; then
    for mode in --trace --timeline; do
        "$san/cprof-report" $mode "$w/traced.out" > "$w/mode.out" 2> "$w/mode.err"
        st=$?
        check "cprof-report $mode on a real trace: no sanitizer report, exit 0" "status $st" "$(indent "$w/mode.err")" -- \
            test $st = 0 -a -s "$w/mode.out" -a ! -s "$w/mode.err"
    done
    head -c 200 "$w/traced.out.trace" > "$w/cut" && mv "$w/cut" "$w/traced.out.trace"
    "$san/cprof-report" --trace "$w/traced.out" > "$w/mode.out" 2> "$w/mode.err"
    st=$?
    check "cprof-report --trace on a cut trace: no sanitizer report, one line, exit 1" "status $st" "$(indent "$w/mode.err")" -- \
        bash -c "[ $st = 1 ] && [ ! -s '$w/mode.out' ] && [ \$(wc -l < '$w/mode.err') = 1 ]"
else
    nok "cprof-report --trace on a real trace" "the profiled program did not write traced.out.trace"
fi
finish
