#!/usr/bin/env bash
# What sampling resources costs (docs/resources.md): each example in examples/, built
# once by cprof-cc, run with and without CPROF_RESOURCES=cpu,faults at the default
# periods (a CPU sample per ms of a thread's CPU time, a fault sample per 100 faults),
# interleaved, BENCH_ROUNDS rounds, timed to the microsecond.  Each round's ratio (with
# over without) cancels the machine's slow drifts; the figure judged is their median,
# with its 95% confidence interval (order statistics: a sign test, no assumption on the
# noise's shape).  Target: at most 3% slower: "met" when the interval's top is at most
# 1.03, "NOT met" when its bottom is above, else the run's noise cannot tell.  Beside
# them the best runs' ratio and the median ratio of CPU time (user + system).  Then what one sample
# and one page fault cost, and the instructions a profiled call takes with and without
# the resources (callgrind on bench/calls.c, sequential: the facade is the same code).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-11}
res=${BENCH_RESOURCES:-cpu,faults}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=2
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1); load: $(cut -d' ' -f1-3 /proc/loadavg)"
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
printf '%-10s %9s %9s %8s %15s %8s %8s %8s %8s  %s\n' example "best off" "best on" ratio "95% interval" \
    "best" "cpu" "cpu smp" "flt smp" target
med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
least() { sort -g | head -1; }
# The 95% interval of the median of the numbers read: "low high" (n >= 6).
interval() { sort -g | awk '{ a[NR] = $1 } END { k = int((NR - 1.96 * sqrt(NR)) / 2);
    if (k < 1) k = 1; print a[k], a[NR + 1 - k] }'; }
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
    off=$(awk '{ print $1 }' "$tmp/off" | least); on=$(awk '{ print $1 }' "$tmp/on" | least)
    ratio=$(paste "$tmp/off" "$tmp/on" | awk '{ print $3 / $1 }' | med)
    ci=$(paste "$tmp/off" "$tmp/on" | awk '{ print $3 / $1 }' | interval)
    cratio=$(paste "$tmp/off" "$tmp/on" | awk '{ print ($2 > 0 ? $4 / $2 : 0) }' | med)
    "$bin/cprof-report" --json "$tmp/on.out" > "$tmp/on.json"
    smp() { jq --arg r "$1" '([.paths[]?.samples[$r] | add] | add // 0) +
                ([.resources[] | select(.name == $r) | .outside[] | add] | add)' "$tmp/on.json"; }
    awk -v n="$name" -v a="$off" -v b="$on" -v r="$ratio" -v ci="$ci" -v q="$cratio" \
        -v c="$(smp cpu)" -v f="$(smp faults)" 'BEGIN {
        split(ci, i, " ")
        verdict = "<= 1.03x: noise too large to tell"
        if (i[2] <= 1.03) verdict = "<= 1.03x met"
        if (i[1] > 1.03) verdict = "<= 1.03x NOT met"
        printf "%-10s %9.3f %9.3f %7.3fx %7.3f-%-7.3f %7.3fx %7.3fx %8s %8s  %s\n", n, a, b, r,
            i[1], i[2], b / a, q, c, f, verdict }'
done
# What one sample costs: a loop of fixed work timed by its own CPU clock, without
# resources and with a CPU sample every 0.25 ms (a signal each, from the thread's
# task-clock counter).
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
awk -v b="$base" -v rt="$rt" 'BEGIN {
    n = b * rt * 1e9 / 250000
    printf "fixed work, %.4f s of CPU without samples (median)\n", b
    printf "a CPU sample every 0.25 ms: %+.2f%%, %.1f us a sample\n", 100 * (rt - 1), (rt - 1) * b * 1e6 / n }'
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
awk -v a="$(med < "$tmp/f.off")" -v b="$(paste "$tmp/f.off" "$tmp/f.on" | awk '{ print $2 / $1 }' | med)" 'BEGIN {
    printf "a page fault: %.0f ns of CPU without resources, %+.0f ns (%+.1f%%) with faults sampled (median ratio)\n",
        a, (b - 1) * a, 100 * (b - 1) }'
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
