#!/usr/bin/env bash
# Settings not understood (issue 29): every CPROF_ variable the runtime reads, given a
# value it does not understand, is said in exactly one line on stderr that names it, and
# its default is taken; the program's own output and status stay gcc's.  A good value
# says nothing.  The variables are found in the runtime's sources: one added without a
# bad value here fails the first check.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > prog.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + leaf(x + 1); }
int main(void)
{
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += mid(i);
    printf("%d\n", s);
    return 0;
}
C
"$bin/cprof-cc" -O2 prog.c -o prog > cc.err 2>&1 &&
    "$bin/cprof-cc" -O2 -fcprof-input-size prog.c -o sized >> cc.err 2>&1
check "build the program, plain and with -fcprof-input-size" "$(indent cc.err)" -- test -x prog -a -x sized
"$plain_cc" -O2 prog.c -o ref && ./ref > ref.txt

# VARIABLE|BAD VALUE|THE OTHER SETTINGS|PROGRAM: a value that must be said.
cases='CPROF_CLOCK|tsc2||prog
CPROF_MODE|counts||prog
CPROF_START|of||prog
CPROF_PATHS|no||prog
CPROF_PATHS|00||prog
CPROF_PATHS_MAX|abc||prog
CPROF_PATHS_MAX|0||prog
CPROF_PATHS_MAX|-1||prog
CPROF_PATHS_MAX|3x||prog
CPROF_PATHS_MAX|99999999999999999999||prog
CPROF_DEBUG|yes||prog
CPROF_TRACE|yes||prog
CPROF_TRACE|off||prog
CPROF_TRACE_BUFFER|abc|CPROF_TRACE=1|prog
CPROF_TRACE_BUFFER|100|CPROF_TRACE=1|prog
CPROF_TRACE_BUFFER|0|CPROF_TRACE=1|prog
CPROF_TRACE_MIN_NS|-1|CPROF_TRACE=1|prog
CPROF_TRACE_MIN_NS|1.5|CPROF_TRACE=1|prog
CPROF_TRACE_INCLUDE|,|CPROF_TRACE=1|prog
CPROF_TRACE_INCLUDE|main,,leaf|CPROF_TRACE=1|prog
CPROF_TRACE_EXCLUDE|leaf,|CPROF_TRACE=1|prog
CPROF_TRACE_OUT|t.%q|CPROF_TRACE=1|prog
CPROF_OUT|p.%q.out||prog
CPROF_RESOURCES|,||prog
CPROF_RESOURCES|cpu,,faults||prog
CPROF_RESOURCES|cpu,||prog
CPROF_SHADOW_MB|abc||sized
CPROF_SHADOW_MB|0||sized
CPROF_SHADOW_MB|-1||sized
CPROF_SIZES_SLOWDOWN|abc||sized
CPROF_SIZES_SLOWDOWN|0.5||sized
CPROF_TIMING|bogus||prog'

read_vars=$(grep -ohE '"CPROF_[A-Z_]+' "$root"/runtime/*.c | tr -d '"' | sort -u)
missing=$(for v in $read_vars; do grep -q "^$v|" <<< "$cases" || echo "$v"; done)
check "every CPROF_ variable the runtime reads has a bad value below ($(echo $read_vars | wc -w) variables)" \
    "without one: $missing" -- test -z "$missing"

n=0
while IFS='|' read -r var bad others program; do
    n=$((n + 1))
    mkdir "run$n"
    (cd "run$n" && env $others "$var=$bad" "../$program" > out.txt 2> err.txt; echo $? > status)
    lines=$(wc -l < "run$n/err.txt")
    check "$var=$bad${others:+ ($others)}: one line on stderr naming $var" "$(indent "run$n/err.txt")" -- \
        bash -c "[ $lines = 1 ] && grep -q '$var' run$n/err.txt"
    check "$var=$bad: the program's output and status are $plain_cc's" "status $(cat "run$n/status")" -- \
        bash -c "[ \"\$(cat run$n/status)\" = 0 ] && cmp -s run$n/out.txt ref.txt"
done <<< "$cases"

# The defaults taken, shown in the profiles.
# main, main > mid, and mid's two sites of leaf: 4 contexts.
expect_jq "CPROF_PATHS_MAX=0: the default limit (every context kept: 4)" run7/cprof.out \
    '[.workers[].paths | length] | add' 4
expect_jq "CPROF_PATHS=no: contexts kept (the default)" run4/cprof.out '[.workers[].paths | length] | add' 4
"$bin/cprof-report" --json run3/cprof.out > start.json
expect_jq "CPROF_START=of: counted from the start (the default: mid's 10 calls)" start.json 'r("mid").s_caller' 10
check "CPROF_TRACE=yes and off: no trace (the default)" -- \
    bash -c '! ls run12 run13 | grep -q trace'
expect_jq "CPROF_TRACE_BUFFER=100: the default buffer, 32M" run15/cprof.out '.trace.buffer' $((32 << 20))
expect_jq "CPROF_TRACE_INCLUDE=',': every routine traced" run19/cprof.out '.trace.include' '""'
expect_jq "CPROF_RESOURCES=cpu,,faults: none measured" run25/cprof.out '.resources // [] | length' 0
check "CPROF_OUT=p.%q.out: the profile written to p.%q.out" -- test -s run23/p.%q.out
expect_jq "CPROF_TIMING=bogus: sampled timing (the default)" run32/cprof.out '.timing.mode' '"sampled"'
# CPROF_TIMING=sampled asked for with each extension whose facade has no sampled variant:
# one line says every activation is timed, and the profile says "every".
n=0
for ext in CPROF_TRACE=1 CPROF_RESOURCES=cpu CPROF_PATHS=0 CPROF_DEBUG=1; do
    n=$((n + 1)); mkdir -p ext$n
    (cd ext$n && env CPROF_TIMING=sampled $ext ../prog > out.txt 2> err.txt)
    check "CPROF_TIMING=sampled with $ext: one line says every activation is timed" "$(indent ext$n/err.txt)" -- \
        bash -c "[ \$(grep -c 'CPROF_TIMING=sampled: this run' ext$n/err.txt) = 1 ]"
    expect_jq "CPROF_TIMING=sampled with $ext: the profile says every" ext$n/cprof.out '.timing.mode' '"every"'
done
(cd ext1 && CPROF_TRACE=1 ../prog > /dev/null 2> quiet.txt)
check "CPROF_TRACE=1 alone (sampled by default, not asked for): nothing said" "$(indent ext1/quiet.txt)" -- \
    test ! -s ext1/quiet.txt

# Good values say nothing.
mkdir good && (cd good && CPROF_PATHS_MAX=5 CPROF_PATHS=1 CPROF_START=on CPROF_DEBUG=0 CPROF_CLOCK=monotonic \
    CPROF_TRACE=1 CPROF_TRACE_BUFFER=64K CPROF_TRACE_MIN_NS=0 CPROF_TRACE_INCLUDE='m*,leaf' \
    CPROF_TRACE_EXCLUDE=leaf CPROF_TRACE_OUT=t.%p.trace CPROF_OUT=p.%%.out CPROF_RESOURCES=cpu,faults CPROF_TIMING=every \
    ../prog > out.txt 2> err.txt)
check "good values of every kind: nothing on stderr" "$(indent good/err.txt)" -- test ! -s good/err.txt
finish
