/* process_db: the example of Hall and Goldberg's call path profiling paper (USENIX
 * Summer 1993), in parallel.
 *
 * Computes: a database of employee records, split in shards (departments), is made
 * unique by name and then summarized by salary, one shard per iteration of a parallel
 * loop.  Both phases sort with the same routine, sort_keys, which compares with the
 * same routine, key_before.  The names share a long prefix (as records of one
 * department do), so comparing two names reads over 160 characters; salaries are
 * short strings, compared in two or three.  So key_before is expensive when uniquify
 * calls sort_keys and cheap when salary_stats does.
 *
 * Shape: the question of the paper.  An arc profile has one arc sort_keys -> key_before
 * and cannot say which caller of sort_keys its time belongs to (gprof would split it by
 * calls, which are the same in both); the call paths main > uniquify > sort_keys >
 * key_before and main > salary_stats > sort_keys > key_before can, on every worker.
 *
 * Checks: every shard's names sorted and its distinct count and median salary equal to
 * those found by a slow, independent count.  Prints the totals and the number of
 * comparisons each phase made (the same on every run and any number of threads).
 * Exit status 0 if the checks pass, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHARDS 96
#define PER_SHARD 2000
#define NAME_LEN 224

struct record {
    char name[NAME_LEN];
    char salary[8];             /* "%07d" */
};

static struct record db[SHARDS][PER_SHARD];
static long comparisons[2];     /* [0] uniquify, [1] salary_stats */

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* 1 if a sorts before b.  A loop of its own (not strcmp) so that the comparison is the
 * routine's own time, whatever libc does. */
int key_before(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a < (unsigned char)*b;
}

/* Bottom-up merge sort of n key pointers; tmp has room for n.  Returns the comparisons
 * made. */
long sort_keys(const char **keys, const char **tmp, int n)
{
    long made = 0;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                made++;
                tmp[k++] = key_before(keys[j], keys[i]) ? keys[j++] : keys[i++];
            }
            while (i < mid)
                tmp[k++] = keys[i++];
            while (j < hi)
                tmp[k++] = keys[j++];
        }
        memcpy(keys, tmp, (size_t)n * sizeof *keys);
    }
    return made;
}

/* The distinct names of a shard, from its names in order. */
int uniquify(int shard, const char **keys, const char **tmp)
{
    for (int i = 0; i < PER_SHARD; i++)
        keys[i] = db[shard][i].name;
    long made = sort_keys(keys, tmp, PER_SHARD);
    __atomic_fetch_add(&comparisons[0], made, __ATOMIC_RELAXED);
    int distinct = PER_SHARD > 0;
    for (int i = 1; i < PER_SHARD; i++)
        distinct += strcmp(keys[i - 1], keys[i]) != 0;
    return distinct;
}

/* The median salary of a shard. */
int salary_stats(int shard, const char **keys, const char **tmp)
{
    for (int i = 0; i < PER_SHARD; i++)
        keys[i] = db[shard][i].salary;
    long made = sort_keys(keys, tmp, PER_SHARD);
    __atomic_fetch_add(&comparisons[1], made, __ATOMIC_RELAXED);
    return atoi(keys[PER_SHARD / 2]);
}

static void read_db(void)
{
    unsigned s = 2718281u;
    for (int d = 0; d < SHARDS; d++)
        for (int i = 0; i < PER_SHARD; i++) {
            /* Names repeat now and then (the duplicates uniquify finds). */
            unsigned who = lcg(&s) % (PER_SHARD * 7 / 8);
            snprintf(db[d][i].name, NAME_LEN, "%0*d: employee record of department %02d, number %06u",
                     160, 0, d, who);
            snprintf(db[d][i].salary, sizeof db[d][i].salary, "%07u", 20000 + lcg(&s) % 180000);
        }
}

/* The check, by other means: distinct names by hashing, the median by counting. */
static int check_shard(int shard, int distinct, int median)
{
    enum { SLOTS = 4 * PER_SHARD };
    static const char *table[SLOTS];
    memset(table, 0, sizeof table);
    int d = 0, below = 0, at_most = 0;
    for (int i = 0; i < PER_SHARD; i++) {
        const char *name = db[shard][i].name;
        unsigned h = 2166136261u;
        for (const char *c = name; *c; c++)
            h = (h ^ (unsigned char)*c) * 16777619u;
        unsigned at = h % SLOTS;
        while (table[at] && strcmp(table[at], name))
            at = (at + 1) % SLOTS;
        if (!table[at]) {
            table[at] = name;
            d++;
        }
        int v = atoi(db[shard][i].salary);
        below += v < median;
        at_most += v <= median;
    }
    return d == distinct && below <= PER_SHARD / 2 && at_most > PER_SHARD / 2;
}

int main(void)
{
    static int distinct[SHARDS], median[SHARDS];
    read_db();
#pragma omp parallel
    {
        const char **keys = malloc(PER_SHARD * sizeof *keys);
        const char **tmp = malloc(PER_SHARD * sizeof *tmp);
#pragma omp for schedule(dynamic)
        for (int d = 0; d < SHARDS; d++)
            distinct[d] = uniquify(d, keys, tmp);
#pragma omp for schedule(dynamic)
        for (int d = 0; d < SHARDS; d++)
            median[d] = salary_stats(d, keys, tmp);
        free(keys);
        free(tmp);
    }
    long total = 0, sum_median = 0;
    int ok = 1;
    for (int d = 0; d < SHARDS; d++) {
        total += distinct[d];
        sum_median += median[d];
        ok &= check_shard(d, distinct[d], median[d]);
    }
    printf("distinct names %ld, sum of medians %ld\n", total, sum_median);
    printf("comparisons: uniquify %ld, salary_stats %ld\n", comparisons[0], comparisons[1]);
    if (!ok) {
        printf("FAILED: a shard's distinct names or median differ from the slow count\n");
        return 1;
    }
    return 0;
}
