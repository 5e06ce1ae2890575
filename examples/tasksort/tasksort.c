/* tasksort: recursive task-parallel merge sort of 8 million integers.
 *
 * Computes: a sort of N pseudo-random 32-bit keys (from a seeded LCG, so the data are
 * the same on every run).  The sort splits the array in halves, sorts each half in its
 * own OpenMP task, waits for both and merges them; the merge itself is split into tasks
 * by binary search (a parallel merge).  Below a cutoff the recursion stops spawning tasks
 * and continues as a sequential merge sort, which ends in insertion sort on short runs.
 *
 * Shape: one parallel region whose single thread starts the recursion (an S-C call);
 * the recursive calls are made inside tasks, so they are C-S calls of the task-parallel
 * routines; sequential fill and verification routines around it; the multiset checksum
 * is a parallel loop with an integer sum-reduction (exact, so independent of threads).
 *
 * Checks: the output is in non-decreasing order and has the same multiset checksum as
 * the input (an order-independent hash sum).  Prints the checksum and a few order
 * statistics, which do not depend on the number of threads.  Exit status 0 if the
 * checks pass, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 23)
#define TASK_CUTOFF 32768       /* below this many keys, sort sequentially */
#define MERGE_CUTOFF 65536      /* below this many keys, merge sequentially */
#define INSERTION_CUTOFF 32     /* below this many keys, insertion sort */

typedef uint32_t key_t_;

/* Pseudo-random keys from a 64-bit LCG (the high halves of its states). */
static void fill(key_t_ *a, size_t n, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        a[i] = (key_t_)(state >> 32);
    }
}

/* An order-independent checksum: the sum of a mixing function of every key. */
static uint64_t block_hash(const key_t_ *a, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = a[i];
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        x *= 0xc4ceb9fe1a85ec53ULL;
        x ^= x >> 33;
        sum += x;
    }
    return sum;
}

#define BLOCK 4096

static uint64_t checksum(const key_t_ *a, size_t n)
{
    uint64_t sum = 0;
    size_t blocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static) reduction(+:sum)
    for (size_t b = 0; b < blocks; b++) {
        size_t lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        sum += block_hash(a + lo, hi - lo);
    }
    return sum;
}

/* ---- sequential sort ---------------------------------------------------------- */

static void insertion_sort(key_t_ *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        key_t_ v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* Merges a[0..na) and b[0..nb) into out. */
static void merge_seq(const key_t_ *a, size_t na, const key_t_ *b, size_t nb, key_t_ *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = b[j] < a[i] ? b[j++] : a[i++];
    while (i < na)
        out[k++] = a[i++];
    while (j < nb)
        out[k++] = b[j++];
}

/* Sorts a[0..n) using tmp[0..n) as scratch; the result is in a. */
static void sort_seq(key_t_ *a, key_t_ *tmp, size_t n)
{
    if (n <= INSERTION_CUTOFF) {
        insertion_sort(a, n);
        return;
    }
    size_t h = n / 2;
    sort_seq(a, tmp, h);
    sort_seq(a + h, tmp + h, n - h);
    merge_seq(a, h, a + h, n - h, tmp);
    memcpy(a, tmp, n * sizeof *a);
}

/* ---- task-parallel sort ------------------------------------------------------- */

/* The number of keys of a[0..n) that are smaller than v (a is sorted). */
static size_t lower_bound(const key_t_ *a, size_t n, key_t_ v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Parallel merge: the middle key of the longer run splits both runs, and the two
 * halves are merged by two tasks. */
static void merge_par(const key_t_ *a, size_t na, const key_t_ *b, size_t nb, key_t_ *out)
{
    if (na + nb <= MERGE_CUTOFF) {
        merge_seq(a, na, b, nb, out);
        return;
    }
    if (na < nb) {              /* keep a the longer run; equal keys of a stay first */
        const key_t_ *t = a;
        a = b;
        b = t;
        size_t tn = na;
        na = nb;
        nb = tn;
    }
    size_t ma = na / 2;
    size_t mb = lower_bound(b, nb, a[ma]);
#pragma omp task
    merge_par(a, ma, b, mb, out);
#pragma omp task
    merge_par(a + ma, na - ma, b + mb, nb - mb, out + ma + mb);
#pragma omp taskwait
}

/* Sorts a[0..n) using tmp[0..n); the result is in a. */
static void sort_task(key_t_ *a, key_t_ *tmp, size_t n)
{
    if (n <= TASK_CUTOFF) {
        sort_seq(a, tmp, n);
        return;
    }
    size_t h = n / 2;
#pragma omp task
    sort_task(a, tmp, h);
#pragma omp task
    sort_task(a + h, tmp + h, n - h);
#pragma omp taskwait
    merge_par(a, h, a + h, n - h, tmp);
    memcpy(a, tmp, n * sizeof *a);
}

static void sort_parallel(key_t_ *a, size_t n)
{
    key_t_ *tmp = malloc(n * sizeof *tmp);
    if (!tmp) {
        fprintf(stderr, "tasksort: out of memory\n");
        exit(1);
    }
#pragma omp parallel
#pragma omp single
    sort_task(a, tmp, n);
    free(tmp);
}

/* ---- verification ------------------------------------------------------------- */

static size_t count_inversions(const key_t_ *a, size_t n)
{
    size_t bad = 0;
    for (size_t i = 1; i < n; i++)
        bad += a[i - 1] > a[i];
    return bad;
}

int main(void)
{
    key_t_ *a = malloc(N * sizeof *a);
    if (!a) {
        fprintf(stderr, "tasksort: out of memory\n");
        return 1;
    }
    fill(a, N, 20240607);
    uint64_t before = checksum(a, N);
    sort_parallel(a, N);
    uint64_t after = checksum(a, N);
    size_t bad = count_inversions(a, N);
    printf("tasksort: %d keys, checksum %016llx, min %u, median %u, max %u\n",
           N, (unsigned long long)after, (unsigned)a[0], (unsigned)a[N / 2],
           (unsigned)a[N - 1]);
    if (bad != 0 || after != before) {
        printf("FAILED: %zu keys out of order, checksum %016llx before, %016llx after\n",
               bad, (unsigned long long)before, (unsigned long long)after);
        free(a);
        return 1;
    }
    printf("ok\n");
    free(a);
    return 0;
}
