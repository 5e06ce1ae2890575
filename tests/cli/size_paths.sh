#!/usr/bin/env bash
# cprof-report's input sizes per calling context (docs/input-size.md, "Per calling
# context"): one routine, insertion sort, called from two callers on different sizes
# (100..3000 elements, and 10), is told apart by context: each context's read memory
# sizes and calls exactly, its own fit; a recursion's tuples in the context it folds
# into; the contexts of two workers merged, of two files summed; the per-routine sums
# unchanged; bad path indexes refused.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > two.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
static void isort(int *a, int n)
{
    for (int i = 1; i < n; i++) {
        int x = a[i], j = i - 1;
        while (j >= 0 && a[j] > x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
}
/* One level per element: RMS n at level n. */
static long rsum(const int *a, int n)
{
    return n < 1 ? 0 : a[n - 1] + rsum(a, n - 1);
}
/* Caller A: arrays of 100..3000 elements (with -fopenmp on every worker). */
static long sort_big(void)
{
    long total = 0;
#pragma omp parallel for schedule(dynamic) reduction(+:total)
    for (int k = 1; k <= 30; k++) {
        int n = 100 * k;
        int *a = malloc(n * sizeof *a);
        unsigned seed = k;
        for (int i = 0; i < n; i++)
            a[i] = rand_r(&seed) % 100000;
        isort(a, n);
        total += a[0] + a[n - 1];
        free(a);
    }
    return total;
}
/* Caller B: arrays of 10, 50 times. */
static long sort_small(void)
{
    long total = 0;
    for (int k = 0; k < 50; k++) {
        int a[10];
        for (int i = 0; i < 10; i++)
            a[i] = (k * 7 + i * 3) % 10;
        isort(a, 10);
        total += a[0] + 2 * a[9];
    }
    return total;
}
int main(void)
{
    int v[20];
    for (int i = 0; i < 20; i++)
        v[i] = i;
    long big = sort_big(), small = sort_small();
    printf("%ld %ld %ld\n", big, small, rsum(v, 20));
    return 0;
}
EOF2
"$plain_cc" -O2 two.c -o ref && ./ref > ref.out

# jq: routine NAME's object in --json's input_sizes; the path of context I as
# --paths writes it (the document's paths, root first).
sz() { printf '.input_sizes.routines[] | select(.name == "%s")' "$1"; }
LAB='def lab($i): .paths[$i] as $x
         | if $x.parent == null then $x.routine else lab($x.parent) + " > " + $x.routine end;'
# [path, sizes, calls] of each context of NAME, heaviest first.
ctx() { printf '%s . as $d | [%s | .contexts[] | [(.path as $i | $d | lab($i)), [.tuples[][0]], ([.tuples[][1]] | add)]]' "$LAB" "$(sz "$1")"; }
big_sizes=$(jq -nc '[range(100; 3001; 100)]')

# The sequential build (the pragma ignored), then the OpenMP one on 2 threads, whose
# caller A's path goes through its parallel loop.
for build in seq omp; do
    flags= a="main > sort_big > isort"
    if [ $build = omp ]; then flags=-fopenmp a="main > sort_big > <parallel> > isort"; fi
    b="main > sort_small > isort"
    "$bin/cprof-cc" -O2 $flags -fcprof-input-size two.c -o two_$build 2> e
    check "$build: compiles" "$(indent e)" -- test ! -s e
    CPROF_OUT=$build.out ./two_$build > out
    check "$build: runs as $plain_cc's build" "$(indent out)" -- cmp -s out ref.out
    "$bin/cprof-report" --json $build.out > $build.json
    expect_jq "$build: isort's two contexts, heaviest first, their sizes and calls exactly" \
        $build.json "$(ctx isort)" "[[\"$a\", $big_sizes, 30], [\"$b\", [10], 50]]"
    expect_jq "$build: caller A's context fits n^2 (accesses b = 2 +- 0.15)" $build.json \
        "$(sz isort) | .contexts[0].fit.accesses | [(.b - 2 | fabs) < 0.15, .best]" '[true, "n^2"]'
    expect_jq "$build: caller B's, one size, no fit" $build.json \
        "$(sz isort) | .contexts[1].fit" '{"time": null, "accesses": null}'
    expect_jq "$build: the routine's own tuples are its contexts' together" $build.json \
        "[$(sz isort) | .tuples[] | [.[0], .[1]]]" "$(jq -nc '[[10, 50]] + [range(100; 3001; 100) | [., 1]]')"
    # Every routine: per size, its calls, sums and extremes are its contexts' summed.
    expect_jq "$build: every routine's tuples are the sums of its contexts' (exact)" $build.json \
        '[.input_sizes.routines[] | [.tuples[] | [.[0], .[1], .[2], .[3], .[4], .[6], .[7], .[8]]]
          == ([.contexts[].tuples[]] | group_by(.[0])
              | map([.[0][0], (map(.[1]) | add), (map(.[2]) | max), (map(.[3]) | min),
                     (map(.[4]) | add), (map(.[6]) | max), (map(.[7]) | min), (map(.[8]) | add)]))]
         | all' true
    expect_jq "$build: a recursion's tuples are in the context it folds into, RMS 0..20" \
        $build.json "$(ctx rsum)" "[[\"main > rsum\", $(jq -nc '[range(0; 21)]'), 21]]"

    "$bin/cprof-report" --sizes=isort $build.out > text 2> e
    check "$build: --sizes=isort: the growth per context, A's row first" "$(indent text 40)$(indent e)" -- \
        sh -c "grep -A4 '^Input size growth per calling context' text | grep -E '^ *[0-9]' | head -1 |
               grep -Eq '^ +30 +30 .* n\^2 +$a\$'"
    check "$build: --sizes=isort: B's row: 1 size, 50 calls, no fit" "$(indent text 40)" -- \
        grep -Eq "^ +1 +50 +$b\$" text
    "$bin/cprof-report" --sizes=rsum $build.out > text
    check "$build: --sizes of a routine with one context: no such table" "$(indent text 40)" -- \
        sh -c "! grep -q 'per calling context' text"
    # CSV lines end in CRLF (RFC 4180).
    "$bin/cprof-report" --csv size-paths $build.out | tr -d '\r' > csv
    check "$build: --csv size-paths: a row per context and size (31 of isort)" "$(indent csv)" -- \
        test "$(grep -c ',isort,' csv)" = 31
    check "$build: --csv size-paths: B's tuple, its path and size, 50 calls" "$(indent csv)" -- \
        grep -Eq "^[0-9]+,$b,isort,10,50," csv
    "$bin/cprof-report" --csv size-path-growth --sizes=isort $build.out | tr -d '\r' > csv
    check "$build: --csv size-path-growth: isort's two contexts" "$(indent csv)" -- \
        sh -c "test \$(wc -l < csv) = 3 && grep -q ',n^2,.*,$a\$' csv"
done

expect_jq "2 threads: isort's tuples on both workers" omp.out \
    '(.routines | map(.name) | index("isort")) as $r
     | [.workers[] | select(any(.input_sizes[]; .[0] == $r))] | length' 2
"$bin/cprof-report" --json omp.out omp.out > twice.json
expect_jq "a file summed with itself: the same contexts, twice the calls" twice.json "$(ctx isort)" \
    "[[\"main > sort_big > <parallel> > isort\", $big_sizes, 60], [\"main > sort_small > isort\", [10], 100]]"

# Without calling contexts (CPROF_PATHS=0) the tuples have none: one context, unknown.
CPROF_PATHS=0 CPROF_OUT=nopaths.out ./two_seq > /dev/null
"$bin/cprof-report" --json nopaths.out > nopaths.json
expect_jq "CPROF_PATHS=0: one context, null, with every tuple" nopaths.json \
    "[$(sz isort) | .contexts[] | [.path, (.tuples | length)]]" '[[null, 31]]'
"$bin/cprof-report" --sizes=isort nopaths.out > text
check "CPROF_PATHS=0: --sizes=isort has no table per context" "$(indent text 40)" -- \
    sh -c "! grep -q 'per calling context' text"

# Bad path indexes: one line, status 1.
jq -c '.workers[0].input_sizes[0][1] = 999' seq.out > bad1.out
jq -c '(.routines | map(.name) | index("main")) as $m
       | (.workers[0].input_sizes[] | select(.[0] != $m))[1] = 1' seq.out > bad2.out
for f in "bad1 out of range" "bad2 does not reach its routine"; do
    "$bin/cprof-report" --sizes ${f%% *}.out > /dev/null 2> e
    status=$?
    check "${f%% *}: a path ${f#* }: one line, status 1" "$(indent e)" -- \
        sh -c "test $status = 1 && test \$(wc -l < e) = 1 && grep -q '${f#* }' e"
done
finish
