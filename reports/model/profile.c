/* profile.c: read, validate and sum profile files (docs/profile-format.md).
 *
 * Each file is first checked completely and copied into a "raw" image (C arrays, with
 * strings still owned by the parsed JSON: read.c), so nothing is merged from a file
 * that turns out to be bad, and checked against the files before it (job.c: one
 * program's runs, or one job's ranks).  The raw image is summed into a cprof_profile of
 * its own (merge.c, after its times are compensated if asked: compensate.c) and freed;
 * then the files' profiles are added up pairwise (below), so memory follows the sum,
 * not the number of files.
 */
#include "raw.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

/* Partial sums of the files read so far, in file order.  Each file's profile is pushed,
 * then the two on top are summed: repeated runs always, so that memory is their sum
 * and one file; the ranks of a job, which keep their workers apart, so that their sum
 * grows with each file, while the lower one holds no more files than the upper, as in
 * a binary counter.  A rank's numbers are then copied about log2(N) times, not N times
 * as when every file is added to the sum of those before it, and memory is at most
 * about twice the sum's. */
struct partial {
    cprof_profile *p;
    size_t n, cap;
};

/* Sum the two partial sums on top into one. */
static int fold(struct loader *l, struct partial *s)
{
    cprof_profile both;
    if (cprof_sum_profiles(l, &both, &s->p[s->n - 2], &s->p[s->n - 1])) {
        cprof_profile_free(&both);
        return -1;
    }
    cprof_profile_free(&s->p[s->n - 2]);
    cprof_profile_free(&s->p[s->n - 1]);
    s->p[s->n - 2] = both;
    s->n--;
    return 0;
}

enum { BAD_FILE = -1, FAILED = -2 };

/* Push one file's profile and fold.  Where the file alone could not be added (a sum
 * overflows), it is taken out again, a bad file like any other; where partial sums of
 * several files could not, no one file is to blame and the load has failed. */
static int push(struct loader *l, struct partial *s, const cprof_profile *one)
{
    if (s->n == s->cap)
        s->p = cprof_xrealloc(s->p, (s->cap = 2 * s->cap + 4) * sizeof *s->p);
    s->p[s->n++] = *one;
    while (s->n >= 2 && (!one->nranks || s->p[s->n - 2].nfiles <= s->p[s->n - 1].nfiles))
        if (fold(l, s)) {
            if (s->p[s->n - 1].nfiles > 1)
                return FAILED;
            cprof_profile_free(&s->p[--s->n]);
            return BAD_FILE;
        }
    return 0;
}

/* Read file l->path and push its profile, if it goes with the files before it. */
static int add_file(struct loader *l, struct job_files *j, struct partial *s,
                    const cprof_load_opts *o)
{
    struct raw_file rf = {0};
    cprof_profile one = {0};
    int rc = cprof_raw_read(l, &rf);
    if (!rc)
        rc = cprof_job_check(l, j, &rf, o->force);
    if (!rc && cprof_merge_file(l, &one, &rf, o->compensate)) {
        cprof_profile_free(&one);
        rc = BAD_FILE;
    }
    if (!rc)
        rc = push(l, s, &one);
    if (!rc)
        cprof_job_add(j, &rf, l->path);
    cprof_raw_free(&rf);
    return rc;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* How many different hosts a job's ranks ran on. */
static size_t count_hosts(const cprof_profile *p)
{
    char **h = cprof_xcalloc(p->nranks, sizeof *h);
    for (size_t k = 0; k < p->nranks; k++)
        h[k] = p->ranks[k].host;
    qsort(h, p->nranks, sizeof *h, cmp_str);
    size_t n = 0;
    for (size_t k = 0; k < p->nranks; k++)
        n += k == 0 || strcmp(h[k - 1], h[k]);
    free(h);
    return n;
}

int cprof_profile_load(cprof_profile *p, const cprof_load_opts *o, char *err, size_t errlen)
{
    struct loader l = {.err = err, .errlen = errlen};
    struct job_files j = {0};
    struct partial s = {0};
    size_t skipped = 0;
    int rc = 0;
    for (size_t i = 0; i < o->npaths && !rc; i++) {
        l.path = o->paths[i];
        rc = add_file(&l, &j, &s, o);
        if (rc == BAD_FILE && o->warn) {
            o->warn(err);
            skipped++;
            rc = 0;
        }
    }
    while (!rc && s.n >= 2)
        rc = fold(&l, &s);
    cprof_job_free(&j);
    memset(p, 0, sizeof *p);
    if (!rc && s.n)
        *p = s.p[0];
    else
        while (s.n)
            cprof_profile_free(&s.p[--s.n]);
    free(s.p);
    if (rc)
        return -1;
    if (!p->nfiles) {
        l.path = o->paths[0];
        return cprof_fail(&l, "none of the %zu profile files could be used", o->npaths);
    }
    p->nskipped = skipped;
    p->nhosts = count_hosts(p);
    cprof_paths_inclusive(p->paths, p->npaths);
    cprof_estimates_paths(p);
    return 0;
}

void cprof_profile_free(cprof_profile *p)
{
    for (size_t i = 0; i < p->nroutines; i++) {
        free(p->routines[i].name);
        free(p->routines[i].file);
        free(p->routines[i].worker);
    }
    for (size_t i = 0; i < p->narcs; i++) {
        for (size_t j = 0; j < p->arcs[i].nsites; j++) {
            free(p->arcs[i].sites[j].file);
            free(p->arcs[i].sites[j].worker);
        }
        free(p->arcs[i].sites);
    }
    free(p->routines);
    free(p->arcs);
    cprof_paths_free(p);
    cprof_resources_free(p);
    cprof_regions_free(p);
    cprof_sizes_free(p);
    cprof_estimates_free(p);
    cprof_placement_free(p);
    cprof_sources_free(p);
    free(p->workers);
    for (size_t i = 0; i < p->nprograms; i++)
        free(p->programs[i].name);
    free(p->programs);
    for (size_t i = 0; i < p->nunprofiled; i++) {
        free(p->unprofiled[i].file);
        free(p->unprofiled[i].reason);
    }
    free(p->unprofiled);
    for (size_t k = 0; k < p->nranks; k++)
        free(p->ranks[k].host);
    free(p->ranks);
    free(p->job);
    free(p->clock);
    free(p->omp_runtime);
    free(p->omp_observed);
    free(p->omp_reason);
    free(p->ovh_not_covered);
    free(p->ovh_notes);
    free(p->ovh_reason);
    memset(p, 0, sizeof *p);
}

bool cprof_cases_unknown(const cprof_profile *p)
{
    return p->nfiles && p->omp_uncased_files == p->nfiles;
}
