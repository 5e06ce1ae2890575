#!/usr/bin/env bash
# Each example in examples/: wall time profiled / plain (interleaved runs, medians),
# the profiler's share of the run as the profile measures it (its CPU samples in cprof's
# code: docs/overhead.md; "-" where it could not sample), the profile's size, and peak
# memory profiled / plain.  Target: loop-parallel examples slowed by <= 10%; call-heavy
# ones (the measured share above 3%) are reported with that share.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/examples.txt}"
results_settings BENCH_ROUNDS
export OMP_NUM_THREADS=2

printf '%-10s %9s %9s %8s %8s %9s %9s %9s  %s\n' example "plain s" "cprof s" slowdown "share" \
    "profile" "plain MB" "cprof MB" "target"
for dir in "$root"/examples/*/; do
    # An MPI example (its Makefile builds with mpicc) is a job of several processes
    # sharing the cores, not one program to time against its plain build: left out.
    grep -q '^MPICC' "$dir/Makefile" && continue
    name=$(basename "$dir")
    gcc -fopenmp -O2 "$dir$name.c" -o "$tmp/plain" -lm
    "$bin/cprof-cc" -fopenmp -O2 "$dir$name.c" -o "$tmp/prof" -lm
    : > "$tmp/p"; : > "$tmp/c"
    for r in $(seq "$rounds"); do
        /usr/bin/time -f '%e %M' -a -o "$tmp/p" "$tmp/plain" > /dev/null
        CPROF_OUT=$tmp/prof.out /usr/bin/time -f '%e %M' -a -o "$tmp/c" "$tmp/prof" > /dev/null
    done
    med() { awk -v k="$2" '{ print $k }' "$1" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
    ps=$(med "$tmp/p" 1); cs=$(med "$tmp/c" 1)
    pm=$(med "$tmp/p" 2); cm=$(med "$tmp/c" 2)
    share=$(jq 'if .overhead.method == "cpu samples" and .overhead.samples > 0
                then 100 * .overhead.in_cprof / .overhead.samples else "-" end' "$tmp/prof.out")
    size=$(stat -c %s "$tmp/prof.out")
    read -r slow verdict < <(awk -v c="$cs" -v p="$ps" -v s="$share" 'BEGIN {
        r = c / p; v = (s != "\"-\"" && s + 0 > 3) ? "call-heavy: profiler share reported" : (r <= 1.10 ? "<= 1.10x met" : "<= 1.10x NOT met")
        printf "%.2f %s\n", r, v }')
    [ "$share" = '"-"' ] && share=- || share=$(printf '%.1f%%' "$share")
    printf '%-10s %9.2f %9.2f %7sx %8s %8.1fK %9.1f %9.1f  %s\n' "$name" "$ps" "$cs" "$slow" "$share" \
        "$(awk -v b="$size" 'BEGIN { print b / 1024 }')" "$(awk -v k="$pm" 'BEGIN { print k / 1024 }')" \
        "$(awk -v k="$cm" 'BEGIN { print k / 1024 }')" "$verdict"
done
results_done
