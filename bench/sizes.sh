#!/usr/bin/env bash
# cprof-cc -fcprof-input-size (docs/input-size.md): the slowdown and peak memory of the
# seed's examples 1-4 in a loop (bench/sizes.c) and of each example in examples/, on
# BENCH_THREADS threads (1), against gcc's build and cprof's usual one: every activation
# sized (the option's default build: every routine timed), and sampled with
# CPROF_SIZES_SLOWDOWN=BENCH_SLOWDOWN (3) in a build that keeps cprof's usual small
# routines (-fcprof-small=64: loop-free static routines counted at their sites, not
# sized; their accesses are their callers').  Times are user +
# system CPU seconds (medians of ROUNDS runs; a loaded machine stretches wall time, not
# these; on several threads wall time, printed beside them, is what the budget bounds),
# memory the peak RSS; the sizes' shadow memory, which the profile reports (its tables
# as allocated: pages never touched count there, not in the RSS), is shown apart.
# Targets (issue 15): slowdown <= 8x (the sampled run), memory <= 2x the plain peak plus
# the shadow (mem/bound <= 1, the run that sizes every activation).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/sizes.txt}"
results_settings BENCH_ROUNDS BENCH_THREADS BENCH_SLOWDOWN
budget=${BENCH_SLOWDOWN:-3}
export OMP_NUM_THREADS=${BENCH_THREADS:-1}
echo "threads: $OMP_NUM_THREADS; sampled: -fcprof-small=64, CPROF_SIZES_SLOWDOWN=$budget"

med() { awk -v k="$2" '{ print $k }' "$1" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# bench NAME SOURCE FLAGS...: one row.
bench() {
    local name=$1 src=$2 v
    shift 2
    gcc "$@" "$src" -o "$tmp/plain" -lm
    "$bin/cprof-cc" "$@" "$src" -o "$tmp/cprof" -lm
    "$bin/cprof-cc" -fcprof-input-size "$@" "$src" -o "$tmp/sizes" -lm
    "$bin/cprof-cc" -fcprof-input-size -fcprof-small=64 "$@" "$src" -o "$tmp/sampled" -lm
    "$tmp/plain" > "$tmp/plain.txt"
    local run
    for run in plain cprof sizes sampled; do
        : > "$tmp/$run.t"
        for r in $(seq "$rounds"); do
            CPROF_SIZES_SLOWDOWN=$([ $run = sampled ] && echo "$budget") CPROF_OUT=$tmp/$run.out \
                /usr/bin/time -f '%U %S %M %e' -a -o "$tmp/$run.t" "$tmp/$run" > "$tmp/$run.txt"
        done
        awk '{ print $1 + $2, $3, $4 }' "$tmp/$run.t" > "$tmp/$run.s"
    done
    local same=yes
    cmp -s "$tmp/plain.txt" "$tmp/sizes.txt" && cmp -s "$tmp/plain.txt" "$tmp/sampled.txt" || same=NO
    local ps cs ss qs pw qw pm sm shadow
    ps=$(med "$tmp/plain.s" 1); cs=$(med "$tmp/cprof.s" 1); ss=$(med "$tmp/sizes.s" 1)
    qs=$(med "$tmp/sampled.s" 1); pw=$(med "$tmp/plain.s" 3); qw=$(med "$tmp/sampled.s" 3)
    pm=$(med "$tmp/plain.s" 2); sm=$(med "$tmp/sizes.s" 2)
    shadow=$(jq '.input_sizes.shadow_bytes / 1024' "$tmp/sizes.out")
    awk -v n="$name" -v ps="$ps" -v cs="$cs" -v ss="$ss" -v qs="$qs" -v pw="$pw" -v qw="$qw" \
        -v pm="$pm" -v sm="$sm" -v sh="$shadow" -v same="$same" 'BEGIN {
        if (ps < 0.01) ps = 0.01
        if (pw < 0.01) pw = 0.01
        r = qs / ps; m = sm / (2 * pm + sh)
        printf "%-10s %7.2f %7.2f %8.2f %7.1fx %8.2f %7.1fx %7.1fx %7.1fx %7.0f %8.0f %9.0f %6.2fx  %-4s %s\n",
               n, ps, cs, ss, ss / ps, qs, qs / ps, qs / (cs < 0.01 ? 0.01 : cs), qw / pw,
               pm / 1024, sm / 1024, sh / 1024, m, same,
               (r <= 8 ? "time met" : "time NOT met") (m <= 1 ? ", memory met" : ", memory NOT met") }'
}

printf '%-10s %7s %7s %8s %8s %8s %8s %8s %8s %7s %8s %9s %7s  %-4s %s\n' program "gcc s" "cprof s" \
    "every s" "/gcc" "sampled" "/gcc" "/cprof" "wall/gcc" "gcc MB" "sizes MB" "shadow MB" "mem/bound" \
    same targets
# Arguments: the programs to run (seed, examples' names), else all.
only=" $* "
want() { [ "$only" = "  " ] || [[ $only == *" $1 "* ]]; }
want seed && bench seed "$root/bench/sizes.c" -O2
for dir in "$root"/examples/*/; do
    grep -q '^MPICC' "$dir/Makefile" && continue    # an MPI job: mpirun's, not one program
    name=$(basename "$dir")
    want "$name" || continue
    bench "$name" "$dir$name.c" -fopenmp -O2
done
results_done
