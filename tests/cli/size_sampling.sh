#!/usr/bin/env bash
# cprof-cc -fcprof-input-size with CPROF_SIZES_SLOWDOWN (docs/input-size.md,
# "Sampling"): each routine has a plain copy, which gcc compiles without the access
# hooks, and an instrumented twin; sampled runs size some activations with all they
# call, and each sized activation's tuple is exactly the one a run that sizes every
# activation gives; the fits hold; the program behaves as gcc's build (its output, its
# exit status, __func__, a routine with a static variable, a noreturn one, a void one
# that returns early, the kinds of definitions of tests/cases/14_function_kinds, a type
# from a system header's macro); a bad budget is refused in one line and every
# activation is sized.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > samp.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
/* noinline: both copies stay functions of their own, for objdump. */
__attribute__((noinline)) static void isort(int *a, int n)
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
/* Small (no loop): counted at its sites when built with -fcprof-small=64. */
static int at(const int *a, int i)
{
    return a[i];
}
__attribute__((noinline)) static long scan(const int *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += at(a, i);
    return s;
}
/* 64 reads whatever n: n distinct cells while n <= 64. */
static long probe(const int *a, int n)
{
    long s = 0;
    for (int j = 0; j < 64; j++)
        s += a[(j * 7) % n];
    return s;
}
/* A static variable: one copy only, which counts every call. */
static int ticket(void)
{
    static int next;
    return __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);  /* called by every thread */
}
/* Declared noreturn apart from its definition: its copy returns nothing either. */
static void die(const char *why) __attribute__((noreturn));
static void die(const char *why)
{
    fprintf(stderr, "%s\n", why);
    exit(3);
}
/* The same, C11's way. */
_Noreturn static void give_up(int code);
static void give_up(int code)
{
    exit(code);
}
/* void, with a return in its body and a variable-length array parameter. */
static void fill(int n, int a[n], unsigned seed)
{
    if (n <= 0)
        return;
    for (int i = 0; i < n; i++)
        a[i] = rand_r(&seed) % 100000;
}
static long one_round(int k)
{
    int n = 100 * k;
    int *a = malloc(n * sizeof *a);
    if (!a)
        die("out of memory");
    fill(n, a, k);              /* the same array for k in every round */
    isort(a, n);
    long got = scan(a, n) % 1000 + a[0] + probe(a, 2 + k % 30) + ticket();
    for (int i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            give_up(4);
    free(a);
    return got;
}
int main(void)
{
    long total = 0;
#pragma omp parallel for schedule(dynamic) reduction(+:total)
    for (int r = 0; r < 300; r++)
        total += one_round(1 + r % 30);
    printf("%ld %d %s\n", total, ticket(), __func__);
}
EOF2
"$plain_cc" -fopenmp -O2 samp.c -o samp_ref && OMP_NUM_THREADS=1 ./samp_ref > ref.out
ref_status=$?
"$bin/cprof-cc" -fopenmp -O2 -fcprof-input-size samp.c -o samp 2> e
check "compiles" "$(indent e)" -- test ! -s e
# hooks FUNCTION [BINARY]: its calls of an access hook; "absent" if it has no code of its own.
hooks() {
    objdump -d "${2:-samp}" | awk -v f="<$1>:" '$2 == f { on = 1; next } on && /^$/ { exit }
        on && /__tsan_/ { n++ } END { print on ? n + 0 : "absent" }'
}
check "the plain copy has no access hook, the twin has" "plain $(hooks isort), twin $(hooks __cprof_tw_isort)" -- \
    test "$(hooks isort)" = 0 -a "$(hooks __cprof_tw_isort)" -gt 0

# Every activation sized: the reference tuples.
OMP_NUM_THREADS=1 CPROF_OUT=all.out ./samp > out
status=$?
check "every activation sized: output and exit status as $plain_cc's (__func__, the static variable)" \
    "$(indent out) status $status, $plain_cc's $ref_status" -- \
    test "$(cat out)" = "$(cat ref.out)" -a $status = $ref_status
"$bin/cprof-report" --json all.out > all.json
sz() { printf '.input_sizes.routines[] | select(.name == "%s")' "$1"; }
expect_jq "every activation sized: 300 calls of isort, no samples, no budget" all.json \
    "[([$(sz isort) | .tuples[][1]] | add), .input_sizes.samples, .input_sizes.slowdown_budget]" '[300, 0, 0]'
# n -> accesses of one call, from the reference (each size's array is the same each time).
jq -c "[$(sz isort) | .tuples[] | {key: (.[0] | tostring), value: (.[8] / .[1])}] | from_entries" \
    all.json > isort_ref.json

# A generous budget (95% of the run in samples): how many activations a budget admits
# depends on the machine's load (a sample descheduled takes longer), and the checks
# below want several sizes; a context's first activation is never a sample, so some
# are left out all the same.
for t in 1 2; do
    OMP_NUM_THREADS=$t CPROF_SIZES_SLOWDOWN=20 CPROF_OUT=s$t.out ./samp > out 2> e
    status=$?
    check "$t threads, sampled: output and exit status as $plain_cc's" "$(indent out)$(indent e)" -- \
        test "$(cat out)" = "$(cat ref.out)" -a $status = $ref_status -a ! -s e
    "$bin/cprof-report" --json s$t.out > s$t.json
    expect_jq "$t threads, sampled: the budget and some samples in the profile" s$t.json \
        '[.input_sizes.slowdown_budget, .input_sizes.samples > 0, .input_sizes.sampled_ns > 0]' \
        '[20, true, true]'
    calls=$(jq "[$(sz isort) | .tuples[][1]] | add" s$t.json)
    check "$t threads, sampled: some of isort's 300 activations sized, not all" "sized $calls" -- \
        test "$calls" -gt 0 -a "$calls" -lt 300
    expect_jq "$t threads, sampled: each sized isort's RMS is its array's length" s$t.json \
        "[$(sz isort) | .tuples[][0] | select(. % 100 != 0 or . < 100 or . > 3000)]" '[]'
    expect_jq "$t threads, sampled: each sized isort's accesses are the full run's for its size" \
        s$t.json "$(cat isort_ref.json) as \$ref | [$(sz isort) | .tuples[]
            | select(.[6] != .[7] or .[6] != \$ref[.[0] | tostring])] | length" 0
    sizes=$(jq "[$(sz isort) | .tuples[]] | length" s$t.json)
    check "$t threads, sampled: isort sized at 5 sizes or more" "sizes $sizes" -- test "$sizes" -ge 5
    fit() { printf '%s | .fit.accesses | (.b - %s | fabs) < %s' "$(sz "$1")" "$2" "$3"; }
    expect_jq "$t threads, sampled: insertion sort's accesses grow as n^2 (b = 2 +- 0.15)" s$t.json \
        "$(fit isort 2 0.15)" true
    expect_jq "$t threads, sampled: the scan's as n, probe's not at all" s$t.json \
        "[($(fit scan 1 0.1)), ($(fit probe 0 0.1))]" '[true, true]'
done
"$bin/cprof-report" --sizes=isort s1.out > text
check "the text report says the tuples are sampled" "$(indent text 30)" -- \
    grep -q '^sampled (CPROF_SIZES_SLOWDOWN=20): [0-9]* samples, .*calls count sized activations only' text

# Built with -fcprof-small=64, at() is counted at its sites: no hook, and scan's twin
# calls at's twin (at's reads are scan's input), scan's original the original, inlined.
"$bin/cprof-cc" -fopenmp -O2 -fcprof-input-size -fcprof-small=64 samp.c -o samp64 2> e
check "-fcprof-small=64: compiles" "$(indent e)" -- test ! -s e
check "-fcprof-small=64: the plain scan has no access hook (at() inlined plainly)" \
    "plain $(hooks scan samp64)" -- test "$(hooks scan samp64)" = 0
OMP_NUM_THREADS=1 CPROF_SIZES_SLOWDOWN=20 CPROF_OUT=s64.out ./samp64 > out 2> e
check "-fcprof-small=64, sampled: output as $plain_cc's" "$(indent out)$(indent e)" -- \
    test "$(cat out)" = "$(cat ref.out)" -a ! -s e
"$bin/cprof-report" --json s64.out > s64.json
expect_jq "-fcprof-small=64, sampled: at() has no tuples, scan's RMS is its array's length" s64.json \
    "[([$(sz at)] | length), ([$(sz scan) | .tuples[][0] | select(. % 100 != 0)] | length),
      ([$(sz scan) | .tuples[]] | length > 0)]" '[0, 0, true]'

# Kinds of definitions the copies must get right: tests/cases/14_function_kinds (an
# old-style definition, f(), static inline, __func__ ...), and a parameter whose type
# comes from a macro of a system header (complex: gcc's line markers in the declarator).
cp "$root/tests/cases/14_function_kinds/"*.c .
cat > cplx.c <<'EOF2'
#include <complex.h>
#include <stdio.h>
static double complex twice(double complex z)
{
    return 2 * z;
}
int main(void)
{
    double complex z = twice(1.0 + 2.0 * I);
    printf("%g %g\n", creal(z), cimag(z));
    return 0;
}
EOF2
for prog in kinds cplx; do
    "$plain_cc" -fopenmp -O2 $prog.c -o ${prog}_ref && ./${prog}_ref > ref_$prog.out 2>&1
    "$bin/cprof-cc" -fopenmp -O2 -fcprof-input-size $prog.c -o $prog 2> e
    check "$prog.c: compiles with its copies" "$(indent e)" -- test ! -s e
    for budget in "" 4; do
        CPROF_SIZES_SLOWDOWN=$budget CPROF_OUT=$prog.out ./$prog > out 2>&1
        check "$prog.c: ${budget:+sampled: }output as $plain_cc's" "$(indent out)" -- cmp -s out ref_$prog.out
    done
done

for bad in abc 1 0.5 -3; do
    OMP_NUM_THREADS=1 CPROF_SIZES_SLOWDOWN=$bad CPROF_OUT=bad.out ./samp > out 2> e
    check "CPROF_SIZES_SLOWDOWN=$bad: one line, every activation sized, output as $plain_cc's" \
        "$(indent e)" -- test "$(wc -l < e)" = 1 -a "$(cat out)" = "$(cat ref.out)"
    grep -q "^cprof: CPROF_SIZES_SLOWDOWN: '$bad' is not a number above 1" e
    check "CPROF_SIZES_SLOWDOWN=$bad: the message names the variable and the value" "$(indent e)" -- test $? = 0
    rows='[.workers[].input_sizes[] | [.[0, 1, 2, 3, 8, 9, 10]]] | sort'
    expect_jq "CPROF_SIZES_SLOWDOWN=$bad: the full run's tuples (sizes, calls, accesses)" bad.out \
        "[.input_sizes.samples, .input_sizes.slowdown_budget, ($rows)]" \
        "$(jq -c "[0, 0, ($rows)]" all.out)"
done
finish
