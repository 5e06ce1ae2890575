#!/usr/bin/env bash
# What the region hooks of runtime/ext/omp.c add per parallel region execution (issue 19:
# per execution and member, never per loop iteration): bench/regions.c built with gcc
# and with cprof-cc, wall time per execution on 1, 2 and 4 threads (median of ROUNDS
# interleaved rounds), and callgrind's instruction count per execution (the same on
# every CPU: valgrind runs the team's threads one at a time).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-5}
r=${BENCH_REGIONS:-100000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/regions.txt}"
results_settings BENCH_ROUNDS BENCH_REGIONS
cd "$tmp"
gcc -O2 -fopenmp "$root/bench/regions.c" -o plain
"$bin/cprof-cc" -O2 -fopenmp "$root/bench/regions.c" -o cprof
# clang and libomp: the same model, fed by OMPT's callbacks instead of the wrappers.
have_clang=$(command -v clang > /dev/null && echo 1 || echo 0)
if [ "$have_clang" = 1 ]; then
    clang -O2 -fopenmp "$root/bench/regions.c" -o plain_clang
    "$bin/cprof-clang" -O2 -fopenmp "$root/bench/regions.c" -o cprof_clang
fi

for round in $(seq "$rounds"); do
    for t in 1 2 4; do
        for v in plain cprof; do
            echo "$v $t $(OMP_NUM_THREADS=$t CPROF_OUT=/dev/null ./$v "$r" | awk '{ print $1 }')" >> raw
        done
    done
done
median() { awk -v v="$1" -v t="$2" '$1 == v && $2 == t { print $3 }' raw | sort -g |
           awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
printf '%-10s %14s %14s %12s\n' threads "gcc ns/exec" "cprof ns/exec" added
for t in 1 2 4; do
    p=$(median plain "$t"); c=$(median cprof "$t")
    printf '%-10s %14.1f %14.1f %12.1f\n' "$t" "$p" "$c" "$(echo "$c - $p" | bc -l)"
done

# Instructions per execution: the difference between runs of 2000 and 1000 executions
# (start-up and exit cancel out), the team waiting passively (a spinning wait's count
# depends on the scheduler).
ir() {  # ir VARIANT THREADS EXECUTIONS; traced: cprof with CPROF_TRACE=1 (docs/tracing.md)
    local trace=0 prog=$1
    [ "$1" = traced ] && trace=1 prog=cprof
    CPROF_TRACE=$trace OMP_NUM_THREADS=$2 OMP_WAIT_POLICY=passive CPROF_OUT=/dev/null valgrind --tool=callgrind \
        --callgrind-out-file=cg.out ./"$prog" "$3" > /dev/null 2>&1
    awk '/^summary:/ { print $2 }' cg.out
}
if command -v valgrind > /dev/null; then
    for t in 1 2; do
        for v in plain cprof traced; do
            eval "per_$v=\$(( (\$(ir $v $t 2000) - \$(ir $v $t 1000)) / 1000 ))"
        done
        # shellcheck disable=SC2154
        echo "callgrind, $t thread(s): $per_plain instructions per region execution with gcc," \
             "$per_cprof with cprof: $((per_cprof - per_plain)) added (all members);" \
             "traced (each member's body an event): $((per_traced - per_cprof)) more"
        if [ "$have_clang" = 1 ]; then
            for v in plain_clang cprof_clang; do
                eval "per_$v=\$(( (\$(ir $v $t 2000) - \$(ir $v $t 1000)) / 1000 ))"
            done
            # shellcheck disable=SC2154
            echo "callgrind, $t thread(s), clang and libomp: $per_plain_clang instructions per" \
                 "region execution with clang, $per_cprof_clang with cprof-clang:" \
                 "$((per_cprof_clang - per_plain_clang)) added (all members, OMPT's callbacks)"
        fi
    done
else
    echo "valgrind not installed: no instruction counts"
fi
results_done
