/* resources.c: the resources beyond time of the merged profile (profile.h,
 * docs/resources.md): what the files declare, and each worker's totals.  The samples
 * of each calling context are summed with the contexts (paths.c).
 *
 * Files are summed only if they declare the same resources, in the same order and
 * with the same periods: a sample of one file would otherwise not weigh what a sample
 * of another does, and a resource measured in some runs only has no total.
 */
#include "raw.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

static char *dup_or_null(const char *s)
{
    return s ? cprof_xstrdup(s) : NULL;
}

int cprof_resources_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf)
{
    (void)l;
    size_t n = p->nresources = rf->nresources;
    if (!n)
        return 0;
    p->resources = cprof_xcalloc(n, sizeof *p->resources);
    for (size_t r = 0; r < n; r++) {
        const struct raw_resource *x = &rf->resources[r];
        bool on = json_is_true(x->available);
        p->resources[r] = (cprof_prof_resource){
            cprof_xstrdup(x->name), cprof_xstrdup(x->unit), cprof_xstrdup(x->event),
            on ? x->period : 0, on, dup_or_null(x->reason)};
    }
    p->res_total = cprof_xcalloc(p->nworkers * n + 1, sizeof *p->res_total);
    p->res_outside = cprof_xcalloc(2 * p->nworkers * n + 1, sizeof *p->res_outside);
    for (size_t w = 0; w < rf->nworkers; w++)
        for (size_t r = 0; r < n; r++) {
            p->res_total[w * n + r] = rf->workers[w].res_total[r];
            for (int k = 0; k < 2; k++)
                p->res_outside[(w * n + r) * 2 + k] = rf->workers[w].res_outside[r][k];
        }
    return 0;
}

static bool same_resources(const cprof_profile *a, const cprof_profile *b)
{
    if (a->nresources != b->nresources)
        return false;
    for (size_t r = 0; r < a->nresources; r++)
        if (strcmp(a->resources[r].name, b->resources[r].name) ||
            a->resources[r].period != b->resources[r].period ||
            a->resources[r].available != b->resources[r].available)
            return false;
    return true;
}

/* What a profile's resources are, in words, for the refusal. */
static void describe(const cprof_profile *p, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t r = 0; r < p->nresources && n < size; r++) {
        const cprof_prof_resource *x = &p->resources[r];
        n += (size_t)snprintf(buf + n, size - n, "%s%s", r ? "," : "", x->name);
        if (n < size && x->period)
            n += (size_t)snprintf(buf + n, size - n, ":%lld", (long long)x->period);
        else if (n < size && !x->available)
            n += (size_t)snprintf(buf + n, size - n, " (unavailable)");
    }
    if (!p->nresources)
        snprintf(buf, size, "none");
}

/* Each worker's figures of a and b go to its worker in out (the maps: merge.c's rule,
 * runs adding up worker by worker, a job's ranks keeping theirs apart). */
int cprof_resources_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                        const cprof_profile *b, const struct sum_map *amap,
                        const struct sum_map *bmap)
{
    if (!same_resources(a, b)) {
        char x[200], y[200];
        describe(a, x, sizeof x);
        describe(b, y, sizeof y);
        return cprof_fail(l, "its resources (%s) are not those of the files before it (%s): "
                          "profile the runs with the same CPROF_RESOURCES to sum them", y, x);
    }
    size_t n = out->nresources = a->nresources;
    if (!n)
        return 0;
    out->resources = cprof_xcalloc(n, sizeof *out->resources);
    for (size_t r = 0; r < n; r++) {
        const cprof_prof_resource *x = &a->resources[r];
        out->resources[r] = (cprof_prof_resource){
            cprof_xstrdup(x->name), cprof_xstrdup(x->unit), cprof_xstrdup(x->event), x->period,
            x->available, dup_or_null(x->reason)};
    }
    out->res_total = cprof_xcalloc(out->nworkers * n + 1, sizeof *out->res_total);
    out->res_outside = cprof_xcalloc(2 * out->nworkers * n + 1, sizeof *out->res_outside);
    for (int s = 0; s < 2; s++) {
        const cprof_profile *q = s ? b : a;
        const size_t *wmap = (s ? bmap : amap)->worker;
        for (size_t w = 0; w < q->nworkers; w++)
            for (size_t r = 0; r < n; r++) {
                size_t i = w * n + r, o = wmap[w] * n + r;
                /* A total missing from one file is missing from the sum. */
                if (q->res_total[i] < 0 || out->res_total[o] < 0)
                    out->res_total[o] = -1;
                else if (__builtin_add_overflow(out->res_total[o], q->res_total[i], &out->res_total[o]))
                    return cprof_fail(l, "a sum of the resources' totals overflows 64 bits");
                for (int k = 0; k < 2; k++)
                    if (__builtin_add_overflow(out->res_outside[2 * o + k], q->res_outside[2 * i + k],
                                               &out->res_outside[2 * o + k]))
                        return cprof_fail(l, "a sum of the resources' samples overflows 64 bits");
            }
    }
    return 0;
}

void cprof_resources_free(cprof_profile *p)
{
    for (size_t r = 0; r < p->nresources; r++) {
        free(p->resources[r].name);
        free(p->resources[r].unit);
        free(p->resources[r].event);
        free(p->resources[r].reason);
    }
    free(p->resources);
    free(p->res_total);
    free(p->res_outside);
    p->resources = NULL;
    p->res_total = p->res_outside = NULL;
    p->nresources = 0;
}
