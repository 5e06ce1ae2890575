#!/usr/bin/env bash
# cprof-report's text report on a real program compiled with cprof-cc: every section is
# there, and the counts are the program's (derived from its text below).
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

# main -> work (1 call) -> leaf: 1000 concurrent calls (S-C) in a parallel for;
# main -> fact(5): 1 call from main + 5 self-recursive calls.
cat > prog.c <<'EOF2'
#include <stdio.h>
static double leaf(int i) { return i * 0.5; }
static double work(void)
{
    double s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 1000; i++)
        s += leaf(i);
    return s;
}
static long fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int main(void)
{
    printf("%.1f %ld\n", work(), fact(6));
    return 0;
}
EOF2
"$bin/cprof-cc" -fopenmp -O2 prog.c -o prog > cc.err 2>&1 || nok "build the program" "$(indent cc.err)"
CPROF_OUT=$tmp/prof.out OMP_NUM_THREADS=2 ./prog > run.out 2>&1
"$bin/cprof-report" prof.out > report.txt 2> report.err; st=$?
check "text report: exit status 0, nothing on stderr" "status $st" "$(indent report.err)" -- \
    eval '[ $st = 0 ] && [ ! -s report.err ]'
sections=$(grep -xE 'Summary|Flat profile|Concurrency cases|Call arcs|Call graph|Per-thread concurrency|Concurrent callee time per worker' report.txt | tr '\n' ,)
check "the six sections, in order" "got: $sections" -- \
    [ "$sections" = "Summary,Flat profile,Concurrency cases,Call arcs,Call graph,Per-thread concurrency,Concurrent callee time per worker," ]
flat() { sed -n '/^Flat profile$/,/^Concurrency cases$/p' report.txt; }
check "summary: 2 workers" "$(indent report.txt)" -- grep -qE '^workers +2$' report.txt
check "summary: 1008 calls profiled (1 + 1 + 1000 + 6)" -- grep -qE '^calls profiled +1008$' report.txt
check "summary: 1000 of them concurrent" -- grep -qE '^  concurrent +1000$' report.txt
# leaf is small and static: counted at its call sites, and marked so; its times were
# not measured: "-", never 0.
check "flat: leaf has 0 sequential and 1000 concurrent calls, counted, no time" "$(flat | grep leaf)" -- \
    eval "flat | grep -qE '^ *- +- +- +- +- +0 +1000 +- +- +leaf \[counted\]\$'"
check "summary: 1 routine counted, 1000 calls" "$(grep -A1 counted report.txt)" -- \
    eval "grep -qE '^counted, not timed: routines +1\$' report.txt && grep -qE '^  their calls +1000\$' report.txt"
check "flat: fact has 6 sequential calls" "$(flat | grep fact)" -- \
    eval "flat | grep -qE '^ *[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +6 +0 +.* fact\$'"
pct=$(flat | awk '$1 ~ /^[0-9]+\.[0-9][0-9]$/ { s += $1 } END { printf "%.2f", s }')
check "flat: %time adds up to 100 ($pct)" -- awk -v s="$pct" 'BEGIN { exit !(s > 99.9 && s < 100.1) }'
check "arcs: work -> leaf has 1000 concurrent calls, their time not measured" "$(grep ' -> leaf' report.txt)" -- \
    eval "grep -qE '^ +0 +[0-9.]+ +[0-9.]+ +1000 +- +- +work -> leaf ' report.txt"
check "call graph: fact called 1+5" "$(grep 'fact \[' report.txt)" -- \
    eval "grep -qE '^ +\[[0-9]+\] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\+5 +fact \[[0-9]+\]\$' report.txt"
check "call graph: leaf's parent line is work with 1000/1000, its time not measured" -- \
    eval "grep -qE '^ +- +- +1000/1000 +work \[[0-9]+\]\$' report.txt"
# (13 columns: node and moves from the placement; the program ran a parallel region,
# whose busy time per worker is the last two)
nworkers=$(sed -n '/^Per-thread concurrency$/,/^Placement$/p' report.txt | awk '$1 ~ /^[01]$/ && NF == 13' | wc -l)
check "per-thread: one row per worker (2)" "got $nworkers" -- [ "$nworkers" = 2 ]
entries=$(sed -n '/^Per-thread concurrency$/,/^Placement$/p' report.txt | awk '$1 ~ /^[01]$/ && NF == 13 { s += $8 } END { print s }')
check "per-thread: concurrent entries add up to 1000" "got $entries" -- [ "$entries" = 1000 ]
"$bin/cprof-report" prof.out prof.out > twice.txt 2>/dev/null
check "two copies: 2016 calls profiled" -- grep -qE '^calls profiled +2016$' twice.txt
"$bin/cprof-report" --csv flat prof.out > flat.csv
check "--csv flat: leaf row with c_calls 1000" "$(indent flat.csv)" -- \
    eval "tr -d '\r' < flat.csv | awk -F, '\$10 == \"leaf\" && \$7 == 1000 { f = 1 } END { exit !f }'"
# A hot routine gcc would inline in a plain build (static, called from one site), timed:
# the summary counts it, and the flat profile's overhead line marks it (*) and says why.
cat > hot.c <<'EOF2'
#include <stdio.h>
static double once(double x) { double s = 0; for (int i = 0; i < 3; i++) s += x * i; return s; }
int main(void)
{
    double s = 0;
    for (int i = 0; i < 200000; i++)
        s += once(i);
    printf("%.1f\n", s);
    return 0;
}
EOF2
"$bin/cprof-cc" -O2 hot.c -o hot > cc.err 2>&1 || nok "build hot.c" "$(indent cc.err)"
CPROF_OUT=$tmp/hot.out ./hot > /dev/null
"$bin/cprof-report" hot.out > hot.txt 2>&1
check "summary: 1 timed routine gcc may inline, 200000 calls" "$(grep -A1 'may inline' hot.txt)" -- \
    eval "grep -qE '^timed, gcc may inline: routines +1\$' hot.txt && grep -qE '^  their calls +200000\$' hot.txt"
check "flat: the overhead line marks once (*) and explains it" "$(grep -A1 'profiling took' hot.txt)" -- \
    eval "grep -qE 'most in the calls of: once \(\*\) ' hot.txt && grep -q '^(\*) gcc may inline it in a plain build' hot.txt"
finish
