#!/usr/bin/env bash
# What writing the profile costs a program at exit: a program with ROUTINES routines
# (default 10000), every one called once by each of WORKERS threads (default 64), so
# the profile has WORKERS x ROUTINES routine rows and as many call rows.  Exit cost: from
# the end of main (the program prints the time) to the end of the process, minus the
# same span of gcc's build; medians of ROUNDS runs.  Also the profile's size and the
# process's peak RSS, and the instructions the write itself takes (callgrind, with
# CG_WORKERS workers, default 4: the same on every run and every CPU).
# BEFORE_BIN=DIR (another build's bin/) runs that build's profiled program too,
# interleaved with this one, for a before/after comparison on the same load.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-5}
nr=${ROUTINES:-10000}
nw=${WORKERS:-64}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/exit.txt}"
results_settings BENCH_ROUNDS ROUTINES WORKERS CG_WORKERS BEFORE_BIN
cd "$tmp"
{
    echo '#include <stdio.h>'
    echo '#include <time.h>'
    for i in $(seq 0 $((nr - 1))); do
        echo "void r$i(volatile int *x) { for (int i = 0; i < 2; i++) *x += i; }"
    done
    echo "void (*const tab[$nr])(volatile int *) = {"
    for i in $(seq 0 $((nr - 1))); do echo "r$i,"; done
    echo '};'
    cat <<EOF2
int main(void)
{
#pragma omp parallel
    {
        volatile int x = 0;
        for (int k = 0; k < $nr; k++)
            tab[k](&x);
    }
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    fprintf(stderr, "%lld\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
    return 0;
}
EOF2
} > many.c
gcc -O1 -fopenmp many.c -o plain
"$bin/cprof-cc" -O1 -fopenmp many.c -o prof
builds=prof
if [ -n "${BEFORE_BIN:-}" ]; then
    "$BEFORE_BIN/cprof-cc" -O1 -fopenmp many.c -o before
    builds="before prof"
fi
span() {  # span PROG: ms from the end of main to the end of the process
    local end after
    end=$(OMP_NUM_THREADS=$nw CPROF_OUT=$tmp/p.out /usr/bin/time -f %M -o rss ./"$1" 2>&1 >/dev/null)
    after=$(date +%s%N)
    echo "$(( (after - end) / 1000 ))" "$(cat rss)"
}
med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
: > p
for b in $builds; do : > "$b.c"; : > "$b.m"; done
for r in $(seq "$rounds"); do
    span plain | awk '{ print $1 }' >> p
    for b in $builds; do
        span "$b" > s; awk '{ print $1 }' s >> "$b.c"; awk '{ print $2 }' s >> "$b.m"
    done
done
size=$(stat -c %s p.out)
printf 'profile of %d routines x %d workers: %.1f MB\n' "$nr" "$nw" "$(echo "$size / 1000000" | bc -l)"
for b in $builds; do
    awk -v b="$b" -v p="$(med < p)" -v c="$(med < "$b.c")" -v m="$(med < "$b.m")" 'BEGIN {
        printf "%-6s exit, end of main to end of process (ms): gcc %.1f, cprof %.1f: writing the profile %.1f ms; peak RSS %.1f MB\n", b, p / 1000, c / 1000, (c - p) / 1000, m / 1000 }'
done
if command -v valgrind > /dev/null; then
    for b in $builds; do
        n=$(OMP_NUM_THREADS=${CG_WORKERS:-4} CPROF_OUT=$tmp/cg.out valgrind --tool=callgrind \
                --child-silent-after-fork=yes --toggle-collect=cprof_write --callgrind-out-file=$tmp/cg ./"$b" 2>&1 |
            sed -n 's/.*Collected : //p')
        printf '%-6s instructions writing the profile of %d workers (callgrind): %s\n' "$b" "${CG_WORKERS:-4}" "$n"
    done
else
    echo "instructions: skipped (valgrind not installed)"
fi
# The topology helper (runtime/ext/topology.c), which the first profile a process writes
# runs and waits for: its own time, median of ROUNDS runs (within each exit above).
: > h
for r in $(seq "$rounds"); do
    t0=$(date +%s%N); "$bin/../libexec/cprof/cprof-topology" > /dev/null; t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000 )) >> h
done
printf 'cprof-topology (hwloc), run once per process by its first profile: %.1f ms\n' \
    "$(echo "$(med < h) / 1000" | bc -l)"
results_done
