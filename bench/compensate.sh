#!/usr/bin/env bash
# cprof-report --compensate against a program with known costs: bench/compensate.c's
# outer() calls tiny() N times and times that loop itself.  The plain gcc build's own
# figure is the truth; the profiled build's report gives outer's inclusive time, plain
# and compensated.  For a few amounts of work per call (WORK multiply-adds in tiny),
# ROUNDS interleaved runs, medians.  Target: compensated within 10% of the plain build.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-5}
n=${BENCH_CALLS:-2000000}
works=${BENCH_WORK:-0 64 256}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/compensate.txt}"
results_settings BENCH_ROUNDS BENCH_CALLS BENCH_WORK
cd "$tmp"

src=$root/bench/compensate.c
gcc -O2 "$src" -o plain
"$bin/cprof-cc" -O2 "$src" -o prof

# inclusive [OPTION]: outer's inclusive time (ns) in the report of the last profiled run.
inclusive() {
    "$bin/cprof-report" --csv flat "$@" prof.out | tr -d '\r' |
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                 $col["name"] == "outer" { print $col["inclusive_worker_ns"] }'
}
for r in $(seq "$rounds"); do
    for w in $works; do
        echo "$w plain $(./plain "$n" "$w" | awk '{ print $1 }')" >> raw
        echo "$w own $(CPROF_OUT=prof.out ./prof "$n" "$w" | awk '{ print $1 }')" >> raw
        echo "$w report $(inclusive)" >> raw
        echo "$w compensated $(inclusive --compensate)" >> raw
        echo "$w cost $(jq .call_cost_ns prof.out)" >> raw
    done
done

# median WORK WHAT
median() { awk -v w="$1" -v k="$2" '$1 == w && $2 == k { print $3 }' raw | sort -g |
           awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

echo "outer() calls tiny() $n times; tiny does WORK multiply-adds.  Medians of $rounds interleaved rounds."
echo "cost/call: the profile's call_cost_ns; added/call: (profiled loop - plain loop) / calls,"
echo "both measured by the program.  Ratios: outer's inclusive time in the report / plain loop."
printf '%5s %14s %10s %10s %14s %18s  %s\n' WORK "plain ns/call" cost/call added/call "report/plain" "compensated/plain" \
    "target: compensated within 10%"
for w in $works; do
    awk -v n="$n" -v w="$w" -v p="$(median "$w" plain)" -v o="$(median "$w" own)" \
        -v r="$(median "$w" report)" -v c="$(median "$w" compensated)" -v cost="$(median "$w" cost)" 'BEGIN {
        if (p <= 0) { printf "%5s  no measurement\n", w; exit }
        q = c / p
        printf "%5s %14.2f %10.2f %10.2f %14.2f %18.2f  %s\n", w, p / n, cost, (o - p) / n, r / p, q,
               (q >= 0.9 && q <= 1.1) ? "met" : "NOT met"
    }'
done
results_done
