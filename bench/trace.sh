#!/usr/bin/env bash
# Tracing (CPROF_TRACE=1, docs/tracing.md): for each example, its run untraced and
# traced (interleaved rounds, medians), the trace's events, bytes and bytes per event
# (the default buffer, OMP_NUM_THREADS=2), and what cprof-report --trace takes to convert
# it (seconds, peak memory, the JSON's size); then a trace of 10 million events
# converted by --trace and --timeline (target: seconds, in bounded memory).  The cost
# per call of tracing is bench/calls.sh's.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/trace.txt}"
results_settings BENCH_ROUNDS
export OMP_NUM_THREADS=2

med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

printf '%-10s %8s %8s %6s %11s %8s %9s %8s %8s %8s %9s\n' example "off s" "on s" ratio events \
    dropped "trace MB" "B/event" "json s" "json MB" "peak MB"
for dir in "$root"/examples/*/; do
    grep -q '^MPICC' "$dir/Makefile" && continue     # an MPI job: tests/cli/mpi.sh
    name=$(basename "$dir")
    "$bin/cprof-cc" -fopenmp -O2 "$dir$name.c" -o "$tmp/prof" -lm
    : > "$tmp/off"; : > "$tmp/on"
    for r in $(seq "$rounds"); do
        CPROF_OUT=$tmp/off.out /usr/bin/time -f %e -a -o "$tmp/off" "$tmp/prof" > /dev/null
        CPROF_TRACE=1 CPROF_OUT=$tmp/on.out /usr/bin/time -f %e -a -o "$tmp/on" "$tmp/prof" > /dev/null
    done
    off=$(med < "$tmp/off"); on=$(med < "$tmp/on")
    read -r events dropped bytes < <(jq -r '.trace | "\(.events) \(.dropped) \(.bytes)"' "$tmp/on.out")
    read -r js jm < <( { /usr/bin/time -f '%e %M' "$bin/cprof-report" --trace "$tmp/on.out" \
                          > "$tmp/t.json"; } 2>&1 | tail -1)
    printf '%-10s %8.2f %8.2f %5.2fx %11s %8s %9s %8s %8s %8s %9s\n' "$name" "$off" "$on" \
        "$(awk -v a="$on" -v b="$off" 'BEGIN { print a / b }')" "$events" "$dropped" "$(mb "$bytes")" \
        "$(awk -v b="$bytes" -v e="$events" 'BEGIN { printf "%.2f", e ? (b - 24 - 80) / e : 0 }')" \
        "$js" "$(mb "$(stat -c %s "$tmp/t.json")")" "$(awk -v k="$jm" 'BEGIN { printf "%.1f", k / 1024 }')"
done

# 10 million events: 5 million calls of a small routine, and main's.
cat > "$tmp/ten.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long tiny(long x) { __asm__ volatile("" ::: "memory"); return x ^ 1; }
int main(int argc, char **argv)
{
    long n = atol(argv[1]), s = 0;
    for (long i = 0; i < n; i++)
        s += tiny(i);
    printf("%ld\n", s & 1);
    return 0;
}
C
"$bin/cprof-cc" -O2 "$tmp/ten.c" -o "$tmp/ten"
CPROF_TRACE=1 CPROF_TRACE_BUFFER=1G CPROF_OUT=$tmp/ten.out "$tmp/ten" 4999999 > /dev/null
echo
echo "A trace of $(jq .trace.events "$tmp/ten.out") events, $(mb "$(jq .trace.bytes "$tmp/ten.out")") MB ($(jq .trace.dropped "$tmp/ten.out") dropped):"
for mode in --trace --timeline; do
    read -r s m < <( { /usr/bin/time -f '%e %M' "$bin/cprof-report" $mode "$tmp/ten.out" > "$tmp/ten.txt"; } 2>&1 | tail -1)
    printf '  cprof-report %-10s %6s s, peak %6.1f MB, output %7.1f MB  (target: seconds)\n' "$mode" "$s" \
        "$(awk -v k="$m" 'BEGIN { print k / 1024 }')" "$(mb "$(stat -c %s "$tmp/ten.txt")")"
done
results_done
