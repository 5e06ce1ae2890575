#!/usr/bin/env bash
# What sampling resources costs (docs/resources.md): each example in examples/, built
# once by cprof-cc, run with and without CPROF_RESOURCES=cpu,faults at the default
# periods (a sample per ms of CPU time, per 100 faults), interleaved, medians
# of BENCH_ROUNDS runs.  Target: at most 3% slower.  The CPU-time ratio (user + system)
# is printed beside the wall-time one: on a loaded machine it is the steadier.  Also the samples each run took,
# and the instructions a profiled call adds with and without the resources (callgrind
# on bench/calls.c, sequential: the facade is the same code, so the difference is the
# signal handler's share).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-5}
res=${BENCH_RESOURCES:-cpu,faults}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=2
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1); load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %9s %9s %8s %9s %9s %9s  %s\n' example "off s" "on s" ratio "cpu ratio" "cpu smp" "flt smp" target
med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for dir in "$root"/examples/*/; do
    name=$(basename "$dir")
    # An MPI example is built by mpicc and run by mpirun (tests/cli/mpi.sh), not here.
    [ -f "$dir$name.c" ] && ! grep -q '<mpi.h>' "$dir$name.c" || continue
    "$bin/cprof-cc" -fopenmp -O2 "$dir$name.c" -o "$tmp/prof" -lm || continue
    : > "$tmp/off"; : > "$tmp/on"
    for r in $(seq "$rounds"); do
        CPROF_OUT=$tmp/off.out /usr/bin/time -f '%e %U %S' -a -o "$tmp/off" "$tmp/prof" > /dev/null
        CPROF_RESOURCES=$res CPROF_OUT=$tmp/on.out /usr/bin/time -f '%e %U %S' -a -o "$tmp/on" "$tmp/prof" > /dev/null
    done
    off=$(awk '{ print $1 }' "$tmp/off" | med); on=$(awk '{ print $1 }' "$tmp/on" | med)
    coff=$(awk '{ print $2 + $3 }' "$tmp/off" | med); con=$(awk '{ print $2 + $3 }' "$tmp/on" | med)
    "$bin/cprof-report" --json "$tmp/on.out" > "$tmp/on.json"
    smp() { jq --arg r "$1" '([.paths[]?.samples[$r] | add] | add // 0) +
                ([.resources[] | select(.name == $r) | .outside[] | add] | add)' "$tmp/on.json"; }
    awk -v n="$name" -v a="$off" -v b="$on" -v ca="$coff" -v cb="$con" -v c="$(smp cpu)" \
        -v f="$(smp faults)" 'BEGIN {
        r = b / a; q = ca > 0 ? cb / ca : 0
        printf "%-10s %9.2f %9.2f %7.3fx %8.3fx %9s %9s  %s\n", n, a, b, r, q, c, f,
            (r <= 1.03 ? "<= 1.03x met" : "<= 1.03x NOT met") }'
done
# The cost of one sample: a loop of fixed work timed by its own CPU clock, without
# resources and with CPU samples at 10 ms (gprof's rate) and at the default 1 ms
# (medians).
cat > "$tmp/spin.c" <<'C'
#include <stdio.h>
#include <time.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
volatile double sink;
void work(long n) { double x = 0; for (long i = 0; i < n; i++) x += i * 0.5; sink = x; }
int main(void) { double t0 = cpu(); work(400000000L); printf("%.6f\n", cpu() - t0); return 0; }
C
"$bin/cprof-cc" -O1 "$tmp/spin.c" -o "$tmp/spin"
: > "$tmp/s.none"; : > "$tmp/s.10000000"; : > "$tmp/s.1000000"
for r in $(seq "$rounds"); do
    CPROF_OUT=$tmp/s.out "$tmp/spin" >> "$tmp/s.none"
    for p in 10000000 1000000; do
        CPROF_RESOURCES=cpu:$p CPROF_OUT=$tmp/s.out "$tmp/spin" >> "$tmp/s.$p"
    done
done
base=$(med < "$tmp/s.none")
for p in 10000000 1000000; do
    awk -v b="$base" -v t="$(med < "$tmp/s.$p")" -v p="$p" 'BEGIN {
        n = t * 1e9 / p
        printf "a sample every %.1f ms of CPU: %.4f s against %.4f s without, %.2f%%; %.1f us a sample\n",
            p / 1e6, t, b, 100 * (t - b) / b, (t - b) * 1e6 / n }'
done
# Why no exact mode (docs/resources.md): what reading a thread's CPU time costs, the
# cheapest exact reading there is, against the ~20 ns of a whole timed call.
cat > "$tmp/clock.c" <<'C'
#include <stdio.h>
#include <time.h>
int main(void)
{
    struct timespec a, b, t;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 200000; i++)
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 200000);
    return 0;
}
C
gcc -O2 "$tmp/clock.c" -o "$tmp/clock"
for r in $(seq "$rounds"); do "$tmp/clock"; done | med |
    awk '{ printf "reading the thread CPU clock (an exact mode would, twice a call): %.1f ns a read\n", $1 }'
if command -v valgrind > /dev/null; then
    "$bin/cprof-cc" -O2 -fopenmp "$root/bench/calls.c" -o "$tmp/calls" 2> /dev/null
    for n in 1000000 2000000; do
        for mode in off on; do
            env $([ $mode = on ] && echo CPROF_RESOURCES=$res) CPROF_OUT=$tmp/cg.out \
                valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$tmp/calls" "$n" 2>&1 |
                sed -n 's/.*Collected : //p' > "$tmp/ir.$mode.$n"
        done
    done
    for mode in off on; do
        awk -v a="$(cat "$tmp/ir.$mode.1000000")" -v b="$(cat "$tmp/ir.$mode.2000000")" -v m="$mode" \
            'BEGIN { printf "instructions a profiled call takes (callgrind, sequential), resources %s: %.1f\n", m, (b - a) / 1000000 }'
    done
else
    echo "instructions: skipped (valgrind not installed)"
fi
