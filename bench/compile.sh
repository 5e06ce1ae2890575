#!/usr/bin/env bash
# Compile time of cprof-cc against gcc, per example: each source compiled with
# -fopenmp -O2 -c by both, back to back, N times.  The machine is shared and noisy,
# and its speed drifts over seconds: each round's ratio compares two compiles made
# under the same conditions, and the median over rounds discards the disturbed ones.
# Target: cprof-cc <= 1.5 x gcc.
#
# cprof-cc's rewrite server (preprocessor/server.h) is started by a first, untimed
# compile, as in any build after its first file; CPROF_SERVER=0 measures without it.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
runs=${BENCH_RUNS:-7}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ms() { local s=$(date +%s%N); "$@" > /dev/null 2>&1 || echo "FAILED: $*" >&2; echo $(( ($(date +%s%N) - s) / 1000 )); }

# Not an example: one function making 5000 calls of a small routine that gcc inlines,
# the shape that once made gcc's points-to analysis quadratic on instrumented code.
mkdir -p "$tmp/many_calls"
{ echo 'static int leaf(int x) { return x + 1; }'; echo 'int many(void) { int s = 0;'
  for i in $(seq 5000); do echo "  s += leaf($i);"; done; echo '  return s; }'; } > "$tmp/many_calls/many.c"

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

"$bin/cprof-cc" -fopenmp -O2 -c "$tmp/many_calls/many.c" -o "$tmp/c.o"     # starts the server
printf '%-12s %10s %12s %7s   %s\n' "example" "gcc ms" "cprof-cc ms" "ratio" "target <= 1.50 (medians of $runs rounds)"
for dir in "$root"/examples/*/ "$tmp/many_calls/"; do
    name=$(basename "$dir")
    # An MPI example (its Makefile builds with mpicc) needs MPI's headers, where Open
    # MPI's mpicc says they are.
    flags=
    if grep -q '^MPICC' "$dir/Makefile" 2> /dev/null && ! flags=$(mpicc --showme:compile 2> /dev/null); then
        printf '%-12s skipped: no Open MPI mpicc\n' "$name"
        continue
    fi
    : > "$tmp/g"; : > "$tmp/c"; : > "$tmp/r"
    for i in $(seq "$runs"); do
        g=0; c=0
        for src in "$dir"*.c; do
            g=$(( g + $(ms gcc -fopenmp -O2 $flags -c "$src" -o "$tmp/g.o") ))
            c=$(( c + $(ms "$bin/cprof-cc" -fopenmp -O2 $flags -c "$src" -o "$tmp/c.o") ))
        done
        echo "$g" >> "$tmp/g"; echo "$c" >> "$tmp/c"
        awk -v c="$c" -v g="$g" 'BEGIN { printf "%.4f\n", c / g }' >> "$tmp/r"
    done
    ratio=$(median < "$tmp/r" | awk '{ printf "%.2f", $1 }')
    met=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? "met" : "NOT met" }')
    [ "$name" = many_calls ] && met="(not an example: extreme inlining, no target)"
    printf '%-12s %10.1f %12.1f %6sx   %s\n' "$name" "$(median < "$tmp/g" | awk '{ print $1 / 1000 }')" \
        "$(median < "$tmp/c" | awk '{ print $1 / 1000 }')" "$ratio" "$met"
done
