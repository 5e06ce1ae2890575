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
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/compile.txt}"
results_settings BENCH_RUNS BENCH_UNIT BENCH_UNIT_RUNS

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

# A large unit (bench/generated.sh's generated_unit: BENCH_UNIT routines, 10000 by
# default), compiled -c by gcc and by cprof-cc without the rewrite server, so that the
# CPU time of cprof-cc and of every process it waited for is all its work: gcc -E, the
# rewriter, gcc on the rewritten text.  CPU time (user + system), less disturbed by the
# machine's other work than wall time; BENCH_UNIT_RUNS rounds (3), medians.  Then, from
# one more compile that keeps its temporary files, where cprof-cc's time goes.
. "$root/bench/generated.sh"
units=${BENCH_UNIT:-10000}
unit_runs=${BENCH_UNIT_RUNS:-3}
generated_unit "$units" > "$tmp/unit.c"
# cpu CMD...: the CPU seconds CMD and the processes it waited for took.
cpu() {
    ( "$@" > /dev/null 2>&1 || echo "FAILED: $*" >&2; times ) | tail -1 |
        awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.2f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}
echo
echo "A generated unit of $units small routines (bench/generated.sh), -fopenmp -c, CPU seconds"
echo "($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), medians of $unit_runs rounds)"
printf '%-6s %10s %12s %7s   %s\n' "flags" "gcc s" "cprof-cc s" "ratio" "target <= 1.50"
for opt in -O2 -O0; do
    : > "$tmp/g"; : > "$tmp/c"; : > "$tmp/r"
    for i in $(seq "$unit_runs"); do
        g=$(cpu gcc -fopenmp $opt -c "$tmp/unit.c" -o "$tmp/g.o")
        c=$(CPROF_SERVER=0 cpu "$bin/cprof-cc" -fopenmp $opt -c "$tmp/unit.c" -o "$tmp/c.o")
        echo "$g" >> "$tmp/g"; echo "$c" >> "$tmp/c"
        awk -v c="$c" -v g="$g" 'BEGIN { printf "%.4f\n", c / g }' >> "$tmp/r"
    done
    ratio=$(median < "$tmp/r" | awk '{ printf "%.2f", $1 }')
    printf '%-6s %10.2f %12.2f %6sx   %s\n' "$opt" "$(median < "$tmp/g")" "$(median < "$tmp/c")" "$ratio" \
        "$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? "met" : "NOT met" }')"
    # Where it goes: the three steps, each timed alone on the same files.
    rm -rf "$tmp/keep"; mkdir "$tmp/keep"
    TMPDIR=$tmp/keep CPROF_KEEP_TEMPS=1 CPROF_SERVER=0 "$bin/cprof-cc" -fopenmp $opt -c "$tmp/unit.c" -o "$tmp/c.o" 2> /dev/null
    pre=$(ls "$tmp"/keep/cprof-cc.*/0/unit.i) rewritten=$(ls "$tmp"/keep/cprof-cc.*/0/unit.cprof.i)
    rewriter_flags=(--openmp --small=64)
    [ "$opt" != -O0 ] && rewriter_flags+=(--optimizing)
    rewrite_alone() { "$bin/../libexec/cprof/cprof-rewrite" "${rewriter_flags[@]}" unit.c "$tmp/copy.i" "$tmp/r.i" < "$pre"; }
    printf '       steps: gcc -E %.2f, rewriter %.2f, gcc on the rewritten text %.2f (%s KB of text, from %s KB)\n' \
        "$(cpu gcc -fopenmp -E "$tmp/unit.c" -o "$tmp/p.i")" "$(cpu rewrite_alone)" \
        "$(cpu gcc -fopenmp $opt -c -x cpp-output "$rewritten" -o "$tmp/c.o")" \
        "$(( $(stat -c %s "$rewritten") / 1024 ))" "$(( $(stat -c %s "$pre") / 1024 ))"
done
results_done
