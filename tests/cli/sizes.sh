#!/usr/bin/env bash
# cprof-cc -fcprof-input-size (docs/input-size.md): the seed's examples 1-4 give their
# read memory sizes exactly (at -O0, less the parameters gcc keeps in registers); the
# fitted growth of insertion sort, a scan and a constant routine, alone and in a
# parallel loop on 2 and 4 threads; library calls' ranges; atomics done; programs
# behave as gcc's build; a program built without the option carries none of it.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

# jq: routine NAME's tuples in a --json report, and its fit of cost C.
sz() { printf '.input_sizes.routines[] | select(.name == "%s")' "$1"; }

cat > seed.c <<'EOF2'
#include <stdio.h>
/* Example 1: its trace, on globals (volatile: each access is one load or store). */
volatile int x, y, z, w;
void g(void) { (void)x; (void)y; (void)z; w = 1; }
void f(void) { (void)x; y = 1; g(); (void)w; }
/* Example 2 */
int get(int v[], int i) { return v[i]; }
int mid(int v[], int n) { int m = get(v, n / 2); return m; }
/* Example 3 */
int count_zero(int v[], int n)
{
    int i, count = 0;
    for (i = 0; i < n; i++)
        count += (v[i] == 0 ? 1 : 0);
    return count;
}
/* Example 4 */
int count_zero_rec(int v[], int n)
{
    if (n < 1)
        return 0;
    return (v[n - 1] == 0 ? 1 : 0) + count_zero_rec(v, n - 1);
}
int main(void)
{
    int a[10] = { 0, 1, 0, 2, 0, 3, 0, 4, 0, 5 };
    f();
    printf("%d %d %d %d\n", mid(a, 10), count_zero(a, 10), count_zero(a, 4), count_zero_rec(a, 5));
    return 0;
}
EOF2
"$plain_cc" -O0 seed.c -o seed_ref && ./seed_ref > ref.out
"$bin/cprof-cc" -O0 -fcprof-input-size seed.c -o seed 2> e
check "compiles and links in one step" "$(indent e)" -- test ! -s e
CPROF_OUT=seed.out ./seed > out
check "runs as $plain_cc's build" "$(indent out)" -- cmp -s out ref.out
"$bin/cprof-report" --json seed.out > seed.json 2> e
check "cprof-report reads the sizes" "$(indent e)" -- test ! -s e
# [n, calls] of each routine's tuples.
nc() { printf '[%s | .tuples[] | [.[0], .[1]]]' "$(sz "$1")"; }
expect_jq "example 1: g reads x, y, z first: RMS 3" seed.json "$(nc g)" '[[3, 1]]'
expect_jq "example 1: f's RMS is 2 (x, z; y and w written first)" seed.json "$(nc f)" '[[2, 1]]'
expect_jq "example 2: get reads v[i] (v, i in registers): RMS 1" seed.json "$(nc get)" '[[1, 1]]'
expect_jq "example 2: mid reads v[n/2] through get, m is written: RMS 1" seed.json "$(nc mid)" '[[1, 1]]'
expect_jq "example 3: count_zero(v, n) has RMS n" seed.json "$(nc count_zero)" '[[4, 1], [10, 1]]'
expect_jq "example 4: count_zero_rec(v, 5) gives n + 1 tuples, RMS 0..5" seed.json \
    "$(nc count_zero_rec)" '[[0, 1], [1, 1], [2, 1], [3, 1], [4, 1], [5, 1]]'
if [ "$plain_cc" = gcc ]; then
    expect_jq "main's RMS is its callees' inputs it did not write: x, z" seed.json "$(nc main)" '[[2, 1]]'
else
    # clang fills a[10] with a memcpy from a constant copy of its initializer, which
    # main reads before writing: 10 cells more than gcc's stores of each element.
    expect_jq "main's RMS is its callees' inputs it did not write, x, z, and under $plain_cc a's 10-int initializer" \
        seed.json "$(nc main)" '[[12, 1]]'
fi
expect_jq "the profile declares the section, 4-byte cells, a shadow within its bound" seed.out \
    '[(.sections | map(.name) | index("input_sizes") != null), .input_sizes.cell_bytes,
      .input_sizes.shadow_bytes > 0, .input_sizes.shadow_bytes <= .input_sizes.shadow_limit_bytes,
      .input_sizes.untracked_accesses]' '[true, 4, true, true, 0]'
"$bin/cprof-report" --sizes=count_zero seed.out > text 2> e
check "--sizes=NAME prints that routine's tuples" "$(indent text)$(indent e)" -- \
    grep -q '^count_zero  *10  *1 ' text
"$bin/cprof-report" --csv sizes seed.out > csv
check "--csv sizes: a row per routine and size" "$(indent csv)" -- \
    test "$(grep -c '^count_zero_rec,' csv)" = 6
"$bin/cprof-report" --sizes=nothing seed.out > /dev/null 2> e
status=$?
check "--sizes of a routine without tuples: one line, status 1" "$(indent e)" -- \
    test $status = 1 -a "$(wc -l < e)" = 1

# Separate compile and link (the link given the option too, for the library calls).
"$bin/cprof-cc" -O0 -fcprof-input-size -c seed.c -o seed.o && "$bin/cprof-cc" -fcprof-input-size seed.o -o seed2
CPROF_OUT=seed2.out ./seed2 > out2
expect_jq "compiled and linked apart: the same sizes" seed2.out \
    '[.workers[0].input_sizes[] | .[2]] | sort' "$(jq -c '[.workers[0].input_sizes[] | .[2]] | sort' seed.out)"

# Without the option: no sizes, none of their code linked.
"$bin/cprof-cc" -O0 seed.c -o plain 2> e
CPROF_OUT=plain.out ./plain > /dev/null
expect_jq "without -fcprof-input-size: no sizes section" plain.out 'has("input_sizes")' 'false'
check "without -fcprof-input-size: no __tsan_ entry point linked" -- \
    sh -c "! nm plain | grep -q __tsan_"
"$bin/cprof-report" --sizes plain.out > /dev/null 2> e
status=$?
check "--sizes of a profile without sizes: one line, status 1" "$(indent e)" -- \
    test $status = 1 -a "$(wc -l < e)" = 1

cat > grow.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
static long scan(const int *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
/* 64 reads whatever n: n distinct cells while n <= 64 (7 is prime to most n). */
static long probe(const int *a, int n)
{
    long s = 0;
    for (int j = 0; j < 64; j++)
        s += a[(j * 7) % n];
    return s;
}
static size_t text_len(const char *s) { return strlen(s); }
int main(void)
{
    long total = 0;
    int hits = 0;
#pragma omp parallel for schedule(dynamic) reduction(+:total)
    for (int k = 1; k <= 30; k++) {
        int n = 100 * k;
        int *a = malloc(n * sizeof *a);
        unsigned seed = k;
        for (int i = 0; i < n; i++)
            a[i] = rand_r(&seed) % 100000;
        isort(a, n);
        total += scan(a, n) % 1000 + a[0] + probe(a, 2 + k * 2);
        for (int i = 1; i < n; i++)
            if (a[i - 1] > a[i])
                total = -1;
        #pragma omp atomic
        hits++;
        free(a);
    }
    char word[200];
    memset(word, 'x', sizeof word - 1);
    word[sizeof word - 1] = 0;
    printf("%ld %d %zu\n", total, hits, text_len(word));
    return 0;
}
EOF2
"$plain_cc" -fopenmp -O2 grow.c -o grow_ref && OMP_NUM_THREADS=1 ./grow_ref > ref.out
"$bin/cprof-cc" -fopenmp -O2 -fcprof-input-size grow.c -o grow 2> e
check "an OpenMP program compiles" "$(indent e)" -- test ! -s e
for t in 1 2 4; do
    OMP_NUM_THREADS=$t CPROF_OUT=grow$t.out ./grow > out
    check "$t threads: runs as $plain_cc's build (atomics done)" "$(indent out)" -- cmp -s out ref.out
    "$bin/cprof-report" --json grow$t.out > grow$t.json
    expect_jq "$t threads: isort's sizes are its arrays' lengths" grow$t.json \
        "[$(sz isort) | .tuples[][0]]" "$(jq -nc '[range(100; 3001; 100)]')"
    fit() { printf '%s | .fit.accesses | (.b - %s | fabs) < %s' "$(sz "$1")" "$2" "$3"; }
    expect_jq "$t threads: insertion sort's accesses grow as n^2 (b = 2 +- 0.15)" grow$t.json \
        "$(fit isort 2 0.15)" true
    expect_jq "$t threads: the scan's as n (b = 1 +- 0.1)" grow$t.json "$(fit scan 1 0.1)" true
    expect_jq "$t threads: probe's not at all (b = 0 +- 0.1)" grow$t.json "$(fit probe 0 0.1)" true
    expect_jq "$t threads: best models n^2, n, 1" grow$t.json \
        "[($(sz isort)), ($(sz scan)), ($(sz probe)) | .fit.accesses.best]" '["n^2", "n", "1"]'
    expect_jq "$t threads: strlen's range read: 200 bytes, 50 cells" grow$t.json \
        "[$(sz text_len) | .tuples[][0]]" '[50]'
done
expect_jq "4 threads: tuples on 4 workers" grow4.out '[.workers[] | select(.input_sizes | length > 0)] | length' 4

# A cell written by another worker, then read again, is new input: thread 1's outer
# reads a[] (100 cells), thread 0 rewrites it, thread 1 reads it again: 200.
cat > cross.c <<'EOF2'
#include <omp.h>
#include <stdio.h>
int a[100];
static void writer(void)
{
    for (int i = 0; i < 100; i++)
        a[i] = 2 * i;
}
static long outer(int me)
{
    long s = 0;
    if (me == 1)
        for (int i = 0; i < 100; i++)
            s += a[i];
#pragma omp barrier
    if (me == 0)
        writer();
#pragma omp barrier
    if (me == 1)
        for (int i = 0; i < 100; i++)
            s += a[i];
    return s;
}
int main(void)
{
    long got[2];
    for (int i = 0; i < 100; i++)
        a[i] = i;
#pragma omp parallel num_threads(2)
    got[omp_get_thread_num()] = outer(omp_get_thread_num());
    printf("%ld %ld\n", got[0], got[1]);
    return 0;
}
EOF2
"$bin/cprof-cc" -fopenmp -O2 -fcprof-input-size cross.c -o cross 2> e
CPROF_OUT=cross.out ./cross > out
check "a cross-thread program runs" "$(indent out)$(indent e)" -- test "$(cat out)" = "0 14850"
"$bin/cprof-report" --json cross.out > cross.json
expect_jq "read, written by the other worker, read again: 200 inputs (thread 0's outer: 0)" \
    cross.json "[$(sz outer) | .tuples[][0]]" '[0, 200]'

# cprof_reset() (issue 29): the tuples of the activations before it are forgotten, as
# everything else is: scan's 5 of RMS 100 go, its 3 of RMS 200 after the reset stay;
# on 2 threads too (a worker's tuples begin again at its next activation).
cat > reset.c <<'EOF2'
#include <stdio.h>
#include <cprof.h>
static int v[400];
__attribute__((noinline)) int scan(const int *a, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
int main(void)
{
    int s = 0;
#pragma omp parallel for num_threads(2) reduction(+:s)
    for (int i = 0; i < 4; i++)
        s += scan(v + 100 * i, 100);
    for (int i = 0; i < 5; i++)
        s += scan(v, 100);
    cprof_reset();
    for (int i = 0; i < 3; i++)
        s += scan(v + 200, 200);
    printf("%d\n", s);
    return 0;
}
EOF2
"$bin/cprof-cc" -O1 -fopenmp -fcprof-input-size -I"$bin/../include" reset.c -o reset 2> e
CPROF_OUT=reset.out ./reset > out 2>> e
"$bin/cprof-report" --json reset.out > reset.json 2>> e
check "a program calling cprof_reset() builds and runs" "$(indent e)" -- test "$(cat out)" = 0
expect_jq "cprof_reset(): only the tuples after it (scan: RMS 200, 3 calls)" reset.json \
    "[$(sz scan) | .tuples[] | [.[0], .[1]]]" '[[200, 3]]'
finish
