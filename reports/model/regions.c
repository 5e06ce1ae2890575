/* regions.c: the parallel regions and tasks of the merged profile (profile.h): the
 * workers' "regions" rows summed per construct and worker, over the rows of a file
 * (units that share a header share its constructs) and over files. */
#include "raw.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

/* Report order: by file, line and kind; the unnamed (no file) last. */
static int cmp_region(const cprof_prof_region *a, const cprof_prof_region *b)
{
    int d = !a->file || !b->file ? (a->file == NULL) - (b->file == NULL) : strcmp(a->file, b->file);
    if (!d)
        d = CMP(a->line, b->line);
    return d ? d : CMP(a->kind, b->kind);
}

static bool add(int64_t *a, int64_t b)
{
    return !__builtin_add_overflow(*a, b, a);
}

/* Sum b into a: team sizes over the executions of both (0: none). */
static bool worker_sum(cprof_prof_region_worker *a, const cprof_prof_region_worker *b)
{
    if (b->team_max && (!a->team_max || b->team_min < a->team_min))
        a->team_min = b->team_min;
    if (b->team_max > a->team_max)
        a->team_max = b->team_max;
    return add(&a->executions, b->executions) && add(&a->busy_t, b->busy_t) &&
           add(&a->nested, b->nested) && add(&a->barriers, b->barriers) &&
           add(&a->barrier_wait, b->barrier_wait) && add(&a->end_wait, b->end_wait) &&
           add(&a->team_sum, b->team_sum) && add(&a->opened, b->opened) &&
           add(&a->max_busy, b->max_busy) && add(&a->mean_busy, b->mean_busy);
}

static int overflow(struct loader *l)
{
    return cprof_fail(l, "counts or times overflow 64 bits when summed");
}

/* A row of one worker of the file, with its construct's key. */
struct row_ref {
    cprof_prof_region key;
    size_t worker;
    const int64_t *v;
};

static int cmp_row_ref(const void *x, const void *y)
{
    return cmp_region(&((const struct row_ref *)x)->key, &((const struct row_ref *)y)->key);
}

int cprof_regions_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf)
{
    size_t n = 0, k = 0;
    for (size_t w = 0; w < rf->nworkers; w++)
        n += rf->workers[w].nregion_rows;
    struct row_ref *refs = cprof_xcalloc(n + 1, sizeof *refs);
    for (size_t w = 0; w < rf->nworkers; w++)
        for (size_t i = 0; i < rf->workers[w].nregion_rows; i++, k++) {
            const int64_t *v = rf->workers[w].region_rows[i];
            const struct raw_site *s = v[CPROF_G_CONSTRUCT] ? &rf->sites[v[CPROF_G_CONSTRUCT] - 1]
                                                            : NULL;
            refs[k] = (struct row_ref){
                {(int)v[CPROF_G_KIND], (char *)(s ? s->file : NULL), s ? s->line : 0, s ? s->d : 0,
                 s ? rf->routines[s->caller].global : CPROF_OTHER_ROUTINE, NULL},
                w, v};
        }
    qsort(refs, n, sizeof *refs, cmp_row_ref);
    p->regions = cprof_xcalloc(n + 1, sizeof *p->regions);
    int rc = 0;
    for (k = 0; k < n && !rc; k++) {
        cprof_prof_region *g = p->nregions ? &p->regions[p->nregions - 1] : NULL;
        if (!g || cmp_region(g, &refs[k].key)) {
            g = &p->regions[p->nregions++];
            *g = refs[k].key;
            g->file = g->file ? cprof_xstrdup(g->file) : NULL;
            g->worker = cprof_xcalloc(p->nworkers, sizeof *g->worker);
        }
        const int64_t *v = refs[k].v;
        const cprof_prof_region_worker x = {
            v[CPROF_G_EXECUTIONS], v[CPROF_G_BUSY], v[CPROF_G_NESTED], v[CPROF_G_BARRIERS],
            v[CPROF_G_BARRIER_WAIT], v[CPROF_G_END_WAIT], v[CPROF_G_TEAM_MIN],
            v[CPROF_G_TEAM_MAX], v[CPROF_G_TEAM_SUM], v[CPROF_G_OPENED], v[CPROF_G_MAX_BUSY],
            v[CPROF_G_MEAN_BUSY]};
        if (!worker_sum(&g->worker[refs[k].worker], &x))
            rc = overflow(l);
    }
    free(refs);
    return rc;
}

/* Construct r of q (its routine and workers placed by map) summed into out. */
static bool region_add(cprof_prof_region *out, const cprof_prof_region *r, size_t nw,
                       const struct sum_map *map)
{
    for (size_t w = 0; w < nw; w++)
        if (!worker_sum(&out->worker[map->worker[w]], &r->worker[w]))
            return false;
    return true;
}

int cprof_regions_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                      const cprof_profile *b, const struct sum_map *amap,
                      const struct sum_map *bmap)
{
    out->regions = cprof_xcalloc(a->nregions + b->nregions + 1, sizeof *out->regions);
    size_t i = 0, j = 0;
    while (i < a->nregions || j < b->nregions) {
        int d = i == a->nregions   ? 1
                : j == b->nregions ? -1
                                   : cmp_region(&a->regions[i], &b->regions[j]);
        const cprof_prof_region *from = d <= 0 ? &a->regions[i] : &b->regions[j];
        const struct sum_map *map = d <= 0 ? amap : bmap;
        cprof_prof_region *r = &out->regions[out->nregions++];
        *r = *from;
        r->file = from->file ? cprof_xstrdup(from->file) : NULL;
        r->routine = from->routine == CPROF_OTHER_ROUTINE ? CPROF_OTHER_ROUTINE
                                                          : map->routine[from->routine];
        r->worker = cprof_xcalloc(out->nworkers, sizeof *r->worker);
        if ((d <= 0 && !region_add(r, &a->regions[i++], a->nworkers, amap)) ||
            (d >= 0 && !region_add(r, &b->regions[j++], b->nworkers, bmap)))
            return overflow(l);
    }
    return 0;
}

void cprof_regions_free(cprof_profile *p)
{
    for (size_t i = 0; i < p->nregions; i++) {
        free(p->regions[i].file);
        free(p->regions[i].worker);
    }
    free(p->regions);
    p->regions = NULL;
    p->nregions = 0;
}
