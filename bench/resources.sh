#!/usr/bin/env bash
# What sampling resources costs (docs/resources.md).  First what each part costs, apart:
# a CPU sample (a loop of fixed work sampled every 0.25 ms), a page fault counted, and
# a run's fixed cost (a program that does almost nothing: the counters opened and read
# on each thread).  Then each example in examples/, built once by cprof-cc, run with
# and without CPROF_RESOURCES=cpu,faults at the default periods (a CPU sample per 10 ms
# of a thread's CPU time, a fault sample per 100 faults), interleaved, BENCH_ROUNDS
# rounds, timed to the microsecond.  Each round's ratio (with over without) cancels the
# machine's slow drifts; the figure judged is their median, with its 95% confidence
# interval (order statistics: a sign test, no assumption on the noise's shape), for
# wall time and for CPU time (user + system).  Beside them what the parts predict: the
# run's samples and faults (read from its profile) at the parts' costs, plus the fixed
# cost, over the CPU time without resources.  Target: at most 3% slower: "met" when the
# wall interval's top is at most 1.03, "NOT met" when its bottom is above, else the
# noise cannot tell, and the prediction is the figure to read.  Last, the instructions
# a profiled call takes with and without the resources (callgrind on bench/calls.c,
# sequential: the facade is the same code).
set -u
# BENCH_THREADS: the examples' threads (default 2).  With one, the runs are disturbed
# less by other work on a small machine; a sample costs the same per CPU second.
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-11}
res=${BENCH_RESOURCES:-cpu,faults}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/resources.txt}"
results_settings BENCH_ROUNDS BENCH_RESOURCES BENCH_THREADS
export OMP_NUM_THREADS=${BENCH_THREADS:-2}
# timed CMD...: runs it, its output to /dev/null; prints wall s and user + system s.
cat > "$tmp/timed.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    struct timespec a, b;
    struct rusage ru;
    int st;
    if (argc < 2)
        return 2;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t p = fork();
    if (p == 0) {
        dup2(open("/dev/null", O_WRONLY), 1);
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    wait4(p, &st, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.6f %.6f\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9,
           (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6);
    return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
C
gcc -O2 "$tmp/timed.c" -o "$tmp/timed"
med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# The 95% interval of the median of the numbers read: "low high"; with fewer than 6
# there is none, and "min max few" says so.
interval() { sort -g | awk '{ a[NR] = $1 } END { k = int((NR - 1.96 * sqrt(NR)) / 2);
    if (k < 1) k = 1; print a[k], a[NR + 1 - k], (NR < 6 ? "few" : "") }'; }
# The target judged on such an interval: at most 3% slower.
verdict() { awk -v ci="$1" 'BEGIN { split(ci, i, " ")
    v = "<= 1.03x: noise too large to tell"
    if (i[2] <= 1.03) v = "<= 1.03x met"
    if (i[1] > 1.03) v = "<= 1.03x NOT met"
    if (i[3] == "few") v = "<= 1.03x: too few rounds to tell (BENCH_ROUNDS >= 6)"
    print v }'; }
# What one sample costs: a loop of fixed work timed by its own CPU clock, without
# resources and with a CPU sample every 0.25 ms (a signal each, from the thread's
# task-clock counter).  A fault sample is its signal alone (no timer interrupt): the
# CPU sample's cost bounds it.
cat > "$tmp/spin.c" <<'C'
#include <stdio.h>
#include <time.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
volatile double sink;
void work(long n) { double x = 0; for (long i = 0; i < n; i++) x += i * 0.5; sink = x; }
int main(void) { double t0 = cpu(); work(400000000L); printf("%.6f\n", cpu() - t0); return 0; }
C
"$bin/cprof-cc" -O1 "$tmp/spin.c" -o "$tmp/spin"
: > "$tmp/s.none"; : > "$tmp/s.on"
for r in $(seq "$rounds"); do
    CPROF_OUT=$tmp/s.out "$tmp/spin" >> "$tmp/s.none"
    CPROF_RESOURCES=cpu:250000 CPROF_OUT=$tmp/s.out "$tmp/spin" >> "$tmp/s.on"
done
# Each round's ratio to its own run without samples, then the median: the VM's speed
# drifts between rounds by more than what is measured here.
base=$(med < "$tmp/s.none")
rt=$(paste "$tmp/s.none" "$tmp/s.on" | awk '{ print $2 / $1 }' | med)
sample_us=$(awk -v b="$base" -v rt="$rt" 'BEGIN { printf "%.2f", (rt - 1) * b * 1e6 / (b * rt * 1e9 / 250000) }')
awk -v b="$base" -v rt="$rt" -v us="$sample_us" 'BEGIN {
    printf "fixed work, %.4f s of CPU without samples (median)\n", b
    printf "a CPU sample every 0.25 ms: %+.2f%%, %.1f us a sample: %.2f%% of a busy thread at 1 ms, %.2f%% at 10 ms (the default)\n",
        100 * (rt - 1), us, us / 10, us / 100 }'
# What counting page faults costs each fault: a loop that touches fresh pages, 200,000
# faults, without resources and with faults sampled at the default period (a perf
# software counter enabled in the kernel's fault path).
cat > "$tmp/faults.c" <<'C'
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
long touch(int n)
{
    char *p = mmap(0, (size_t)n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    madvise(p, (size_t)n * 4096, MADV_NOHUGEPAGE);
    for (int i = 0; i < n; i++)
        p[(size_t)i * 4096] = 1;
    munmap(p, (size_t)n * 4096);
    return n;
}
int main(void)
{
    double t0 = cpu();
    for (int r = 0; r < 20; r++)
        touch(10000);
    printf("%.1f\n", (cpu() - t0) * 1e9 / 200000);
    return 0;
}
C
"$bin/cprof-cc" -O1 "$tmp/faults.c" -o "$tmp/faults"
: > "$tmp/f.off"; : > "$tmp/f.on"
for r in $(seq "$rounds"); do
    CPROF_OUT=$tmp/f.out "$tmp/faults" >> "$tmp/f.off"
    CPROF_RESOURCES=faults CPROF_OUT=$tmp/f.out "$tmp/faults" >> "$tmp/f.on"
done
fa=$(med < "$tmp/f.off"); fr=$(paste "$tmp/f.off" "$tmp/f.on" | awk '{ print $2 / $1 }' | med)
fault_ns=$(awk -v a="$fa" -v b="$fr" 'BEGIN { printf "%.1f", (b - 1) * a }')
awk -v a="$fa" -v b="$fr" 'BEGIN {
    printf "a page fault: %.0f ns of CPU without resources, %+.0f ns (%+.1f%%) with faults sampled (median ratio)\n",
        a, (b - 1) * a, 100 * (b - 1) }'
# A run's fixed cost: a team's threads that do almost nothing, with and without cpu,faults
# (the counters opened on each, read and closed at exit); CPU time of the whole
# process, median of each round's difference over 5 x BENCH_ROUNDS rounds.
cat > "$tmp/idle.c" <<'C'
#include <stdio.h>
int main(void)
{
    int n = 0;
#pragma omp parallel reduction(+ : n)
    n++;
    printf("%d\n", n);
    return 0;
}
C
"$bin/cprof-cc" -O2 -fopenmp "$tmp/idle.c" -o "$tmp/idle"
: > "$tmp/i.off"; : > "$tmp/i.on"
for r in $(seq $((5 * rounds))); do
    CPROF_OUT=$tmp/i.out "$tmp/timed" "$tmp/idle" >> "$tmp/i.off"
    CPROF_RESOURCES=$res CPROF_OUT=$tmp/i.out "$tmp/timed" "$tmp/idle" >> "$tmp/i.on"
done
fixed_us=$(paste "$tmp/i.off" "$tmp/i.on" | awk '{ print ($4 - $2) * 1e6 }' | med)
awk -v f="$fixed_us" -v w="$(paste "$tmp/i.off" "$tmp/i.on" | awk '{ print ($3 - $1) * 1e6 }' | med)" 'BEGIN {
    printf "a run'"'"'s fixed cost (%s threads, %s): %+.0f us of CPU, %+.0f us of wall time (median differences)\n",
        "'"$OMP_NUM_THREADS"'", "'"$res"'", f, w }'
echo
printf '%-10s %8s %15s %8s %15s %9s %7s %8s %7s  %s\n' example wall "95% interval" cpu "95% interval" \
    predicted "cpu smp" faults "flt smp" target
: > "$tmp/all.wr"; : > "$tmp/all.cr"
for dir in "$root"/examples/*/; do
    name=$(basename "$dir")
    # An MPI example is built by mpicc and run by mpirun (tests/cli/mpi.sh), not here.
    [ -f "$dir$name.c" ] && ! grep -q '<mpi.h>' "$dir$name.c" || continue
    "$bin/cprof-cc" -fopenmp -O2 "$dir$name.c" -o "$tmp/prof" -lm || continue
    : > "$tmp/off"; : > "$tmp/on"
    for r in $(seq "$rounds"); do
        CPROF_OUT=$tmp/off.out "$tmp/timed" "$tmp/prof" >> "$tmp/off"
        CPROF_RESOURCES=$res CPROF_OUT=$tmp/on.out "$tmp/timed" "$tmp/prof" >> "$tmp/on"
    done
    paste "$tmp/off" "$tmp/on" | awk '{ print $3 / $1 }' > "$tmp/wr"
    paste "$tmp/off" "$tmp/on" | awk '{ print ($2 > 0 ? $4 / $2 : 0) }' > "$tmp/cr"
    cat "$tmp/wr" >> "$tmp/all.wr"; cat "$tmp/cr" >> "$tmp/all.cr"
    "$bin/cprof-report" --json "$tmp/on.out" > "$tmp/on.json"
    # A resource's samples in the last run (its contexts' and those outside any), and
    # its exact total over the workers.
    smp() { jq --arg r "$1" '([.paths[]?.samples[$r] | add] | add // 0) +
                ([.resources[] | select(.name == $r) | .outside[] | add] | add)' "$tmp/on.json"; }
    total() { jq --arg r "$1" '[.resources[] | select(.name == $r) | .totals[]] | add' "$tmp/on.json"; }
    awk -v n="$name" -v r="$(med < "$tmp/wr")" -v ci="$(interval < "$tmp/wr")" \
        -v q="$(med < "$tmp/cr")" -v qi="$(interval < "$tmp/cr")" \
        -v c="$(smp cpu)" -v fl="$(total faults)" -v f="$(smp faults)" \
        -v base="$(awk '{ print $2 }' "$tmp/off" | med)" \
        -v us="$sample_us" -v ns="$fault_ns" -v fix="$fixed_us" -v v="$(verdict "$(interval < "$tmp/wr")")" 'BEGIN {
        split(ci, i, " "); split(qi, j, " ")
        p = 1 + ((c + f) * us * 1e-6 + fl * ns * 1e-9 + fix * 1e-6) / base
        verdict = v ~ /tell/ ? sprintf("%s; the parts: %.3fx", v, p) : v
        printf "%-10s %7.3fx %7.3f-%-7.3f %7.3fx %7.3f-%-7.3f %8.4fx %7d %8d %7d  %s\n", n, r,
            i[1], i[2], q, j[1], j[2], p, c, fl, f, verdict }'
done
# The examples together: every round of every example, one ratio each.  Per example
# the VM's noise (runs of the same binary differ by 5-10%) makes the intervals wide;
# pooled, the interval of the median is narrower, and what it bounds is the typical
# example's slowdown.
awk -v r="$(med < "$tmp/all.wr")" -v ci="$(interval < "$tmp/all.wr")" -v q="$(med < "$tmp/all.cr")" \
    -v qi="$(interval < "$tmp/all.cr")" -v n="$(wc -l < "$tmp/all.wr")" \
    -v verdict="$(verdict "$(interval < "$tmp/all.wr")")" 'BEGIN {
    split(ci, i, " "); split(qi, j, " ")
    printf "%-10s %7.3fx %7.3f-%-7.3f %7.3fx %7.3f-%-7.3f  (%d rounds)  %s\n", "all", r, i[1], i[2], q,
        j[1], j[2], n, verdict }'
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
results_done
