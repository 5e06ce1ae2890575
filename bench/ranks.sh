#!/usr/bin/env bash
# bench/ranks.sh: cprof-report reading and merging the profiles of an MPI job's ranks
# (docs/mpi.md): for N in $BENCH_RANKS (default "1 64 256 1024") ranks, the seconds and
# peak memory (max RSS, /usr/bin/time -f %M) of the text report and of --json.
# The ranks' profiles are made from one real profile, of a generated program of
# $BENCH_ROUTINES routines (default 200: f_i calls f_(i+1) and f_(i+2), main calls every
# f_i from a parallel region) run on 2 workers as rank 0 of a job: each rank's file is
# that one with its rank, pid and host rewritten (32 ranks a host), so N ranks are N x 2
# workers.  The job's workers stay apart, so the merged profile grows with N: the
# figure to read is memory against the files' total size.
#   bench/ranks.sh                  uses build/bin
#   CPROF_REPORT=path bench/ranks.sh    another cprof-report
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
report=${CPROF_REPORT:-$bin/cprof-report}
n=${BENCH_ROUTINES:-200}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/ranks.txt}"
results_settings BENCH_ROUTINES BENCH_RANKS

. "$root/bench/generated.sh"
generated_program "$n" > "$tmp/gen.c"
(cd "$tmp" && "$bin/cprof-cc" -fopenmp -O1 gen.c -o gen) || exit 1
max=0
for k in ${BENCH_RANKS:-1 64 256 1024}; do ((k > max)) && max=$k; done
(cd "$tmp" && CPROF_OUT=$tmp/rank.out OMP_NUM_THREADS=2 PMI_RANK=0 PMI_SIZE=$max \
     PMIX_NAMESPACE=bench ./gen) || exit 1
read -r pid host < <(jq -r '"\(.pid) \(.host)"' "$tmp/rank.out")
mkdir "$tmp/job"
for ((r = 0; r < max; r++)); do
    sed "s/\"pid\":$pid,\"host\":\"$host\",\"rank\":0,/\"pid\":$((pid + r)),\"host\":\"node$((r / 32))\",\"rank\":$r,/" \
        "$tmp/rank.out" > "$tmp/job/rank.$r.out"
done
[ "$(jq .rank "$tmp/job/rank.$((max - 1)).out")" = $((max - 1)) ] || { echo "ranks.sh: rewriting the rank failed" >&2; exit 1; }
printf 'one rank: %s bytes, %d routines, %d workers\n' "$(stat -c %s "$tmp/rank.out")" "$n" \
    "$(jq '.workers | length' "$tmp/rank.out")"
printf '%6s %9s  %10s %8s  %10s %8s  %10s\n' ranks "files MB" "text MB" seconds "json MB" seconds "json out MB"
for k in ${BENCH_RANKS:-1 64 256 1024}; do
    files=()
    for ((r = 0; r < k; r++)); do files+=("$tmp/job/rank.$r.out"); done
    bytes=$(cat "${files[@]}" | wc -c)
    /usr/bin/time -f '%M %e' -o "$tmp/t.text" "$report" "${files[@]}" > "$tmp/out.txt" || exit 1
    /usr/bin/time -f '%M %e' -o "$tmp/t.json" "$report" --json "${files[@]}" > "$tmp/out.json" || exit 1
    read -r tkb ts < "$tmp/t.text"
    read -r jkb js < "$tmp/t.json"
    printf '%6d %9.1f  %10.1f %8.2f  %10.1f %8.2f  %10.1f\n' "$k" "$(echo "$bytes / 1048576" | bc -l)" \
        "$(echo "$tkb / 1024" | bc -l)" "$ts" "$(echo "$jkb / 1024" | bc -l)" "$js" \
        "$(echo "$(stat -c %s "$tmp/out.json") / 1048576" | bc -l)"
done
results_done
