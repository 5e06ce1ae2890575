#!/usr/bin/env bash
# The profiler's share of a run, three ways, on call-heavy programs (docs/overhead.md):
# the truth, (cprof's CPU time - gcc's) / cprof's, from user+system CPU times of the
# same program built by gcc -O2 and by cprof-cc -O2 (ROUNDS interleaved runs, medians,
# one thread: CPU time is then the run's, and the load of the machine does not enter);
# the profile's measure, the CPU samples in cprof's code (in_cprof / samples, from the
# median run); and the old estimate, calls x the cost of one call measured at
# start-up / (elapsed x workers), both from cprof-report's summary.  What the measure leaves out (the calls' inline
# parts, optimizations lost) is the gap between it and the truth.
# What it prints is also written to BENCH_RESULTS (default bench/results/overhead.txt,
# the file docs/overhead.md quotes), after the machine, the compiler and the commit.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-3}
results=${BENCH_RESULTS:-$root/bench/results/overhead.txt}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "$results"
echo "rounds: $rounds, OMP_NUM_THREADS=1, default settings (CPROF_TIMING unset)"
export OMP_NUM_THREADS=1
cd "$tmp"

# A tiny routine called 10^7 times (cprof dominant), and one long call (cprof absent).
cat > hot.c <<'EOT'
#include <stdio.h>
__attribute__((noinline)) int tiny(int x) { return x * 3 + 1; }
int main(void) { int s = 0; for (long i = 0; i < 20000000; i++) s += tiny((int)i); printf("%d\n", s); return 0; }
EOT
cat > cold.c <<'EOT'
#include <stdio.h>
__attribute__((noinline)) double work(long n) { double s = 0; for (long i = 1; i <= n; i++) s += 1.0 / ((double)i * (double)i); return s; }
int main(void) { printf("%f\n", work(300000000)); return 0; }
EOT
programs="hot.c cold.c"
for ex in uts rsbench stencil process_db; do
    programs="$programs $root/examples/$ex/$ex.c"
done

printf '%-11s %8s %8s %9s %10s %9s %9s\n' program "gcc s" "cprof s" "true" "measured" "samples" \
    "estimated"
for src in $programs; do
    name=$(basename "$src" .c)
    gcc -fopenmp -O2 "$src" -o plain -lm
    "$bin/cprof-cc" -fopenmp -O2 "$src" -o prof -lm
    : > p; : > c
    for r in $(seq "$rounds"); do
        /usr/bin/time -f '%U %S' -a -o p ./plain > /dev/null
        CPROF_OUT=$tmp/prof.$r.out /usr/bin/time -f "%U %S $r" -a -o c ./prof > /dev/null
    done
    # The median run by CPU time (user + system), its profile with it.
    med() { awk '{ print $1 + $2, $3 }' "$1" | sort -g | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }
    read -r ps _ < <(med p)
    read -r cs run < <(med c)
    # The report's summary, as a user reads it: the estimate and the measure.
    "$bin/cprof-report" --csv summary "prof.$run.out" > summary.csv
    value() { awk -F, -v k="$1" '$1 == k { print $2 }' summary.csv; }
    est=$(value overhead_pct) k=$(value overhead_in_cprof) n=$(value overhead_samples)
    awk -v n="$name" -v p="$ps" -v c="$cs" -v k="$k" -v s="$n" -v e="$est" 'BEGIN {
        printf "%-11s %8.2f %8.2f %8.1f%% %9.1f%% %9d %8.1f%%\n", n, p, c, 100 * (c - p) / c,
               s ? 100 * k / s : 0, s, e }'
done
echo
echo "true: (cprof's CPU s - gcc's) / cprof's; measured: the profile's samples in cprof's code"
echo "(a sample each 4 ms of user-mode CPU); estimated: the summary's calls x the cost of one call"
echo "measured at start-up / (elapsed x workers)."
