#!/usr/bin/env bash
# bench/merge.sh: cprof-report's peak memory (max RSS, /usr/bin/time -f %M) summing N
# profile files, for N in $BENCH_FILES (default "1 8 32 256").  The profile is a real
# one, of a generated program with $BENCH_ROUTINES routines (default 6000; about 3 MB of
# profile) run on 2 workers; the N files are N copies of it.  Files are summed one at a
# time, so the peak should stay near that of one file whatever N is.
#   bench/merge.sh                 uses build/bin
#   CPROF_REPORT=path bench/merge.sh   another cprof-report (e.g. an older build)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
report=${CPROF_REPORT:-$bin/cprof-report}
n=${BENCH_ROUTINES:-6000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/merge.txt}"
results_settings BENCH_ROUTINES BENCH_FILES

. "$root/bench/generated.sh"
generated_program "$n" > "$tmp/gen.c"
(cd "$tmp" && "$bin/cprof-cc" -fopenmp -O1 gen.c -o gen) || exit 1
(cd "$tmp" && CPROF_OUT=$tmp/prof.out OMP_NUM_THREADS=2 ./gen) || exit 1
printf 'profile: %s bytes, %d routines\n' "$(stat -c %s "$tmp/prof.out")" "$n"
printf '%6s %10s %8s\n' files "peak MB" seconds
for k in ${BENCH_FILES:-1 8 32 256}; do
    files=()
    for ((i = 0; i < k; i++)); do
        [ -e "$tmp/p$i.out" ] || cp "$tmp/prof.out" "$tmp/p$i.out"
        files+=("$tmp/p$i.out")
    done
    /usr/bin/time -f '%M %e' -o "$tmp/time" "$report" --json "${files[@]}" > /dev/null || exit 1
    read -r kb s < "$tmp/time"
    printf '%6d %10.1f %8.2f\n' "$k" "$(echo "$kb / 1024" | bc -l)" "$s"
done
results_done
