/* paths.c: the calling contexts of the merged profile (profile.h), from the workers'
 * "paths" rows (docs/profile-format.md) and from two profiles being summed.
 *
 * Contexts are keyed by (parent, routine, site file, site line).  A parent always comes
 * before its children, in the files and here, so a context's key is known when it is
 * met; a hash table finds the contexts already made.
 */
#include "raw.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

static bool clamped;

int64_t cprof_add(int64_t a, int64_t b)
{
    int64_t s;
    if (!__builtin_add_overflow(a, b, &s))
        return s;
    clamped = true;
    return INT64_MAX;
}

bool cprof_sums_clamped(void)
{
    return clamped;
}

struct index {
    size_t *slot;           /* context + 1; 0 empty */
    size_t cap;             /* a power of 2 */
};

static uint64_t hash_key(size_t parent, size_t routine, const char *file, int64_t line)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t parts[3] = {parent, routine, (uint64_t)line};
    for (int i = 0; i < 3; i++)
        h = (h ^ parts[i]) * 1099511628211ull;
    for (const char *c = file ? file : ""; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

static bool same_key(const cprof_prof_path *x, size_t parent, size_t routine, const char *file,
                     int64_t line)
{
    return x->parent == parent && x->routine == routine && x->site_line == line &&
           (x->site_file == file || (x->site_file && file && !strcmp(x->site_file, file)));
}

static void index_grow(struct index *ix, const cprof_profile *p)
{
    size_t cap = ix->cap ? 2 * ix->cap : 256;
    size_t *slot = cprof_xcalloc(cap, sizeof *slot);
    for (size_t i = 0; i < p->npaths; i++) {
        const cprof_prof_path *x = &p->paths[i];
        size_t h = hash_key(x->parent, x->routine, x->site_file, x->site_line) & (cap - 1);
        while (slot[h])
            h = (h + 1) & (cap - 1);
        slot[h] = i + 1;
    }
    free(ix->slot);
    ix->slot = slot;
    ix->cap = cap;
}

/* The context of p with this key, made (zero, folding into itself) if need be. */
static size_t context(cprof_profile *p, struct index *ix, size_t *cap, size_t parent,
                      size_t routine, const char *file, int64_t line)
{
    if (2 * (p->npaths + 1) > ix->cap)
        index_grow(ix, p);
    size_t h = hash_key(parent, routine, file, line) & (ix->cap - 1);
    for (; ix->slot[h]; h = (h + 1) & (ix->cap - 1))
        if (same_key(&p->paths[ix->slot[h] - 1], parent, routine, file, line))
            return ix->slot[h] - 1;
    if (p->npaths == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        p->paths = cprof_xrealloc(p->paths, *cap * sizeof *p->paths);
    }
    size_t i = p->npaths++;
    p->paths[i] = (cprof_prof_path){
        .parent = parent, .routine = routine, .site_file = file ? cprof_xstrdup(file) : NULL,
        .site_line = line, .folds_into = i,
        .worker = cprof_xcalloc(p->nworkers ? p->nworkers : 1, sizeof(cprof_tally)),
        .samples = p->nresources ? cprof_xcalloc(2 * p->nresources, sizeof(int64_t)) : NULL};
    ix->slot[h] = i + 1;
    return i;
}

static bool add(int64_t *a, int64_t b)
{
    return !__builtin_add_overflow(*a, b, a);
}

static bool tally_add(cprof_tally *a, const cprof_tally *b)
{
    return add(&a->n, b->n) && add(&a->t, b->t) && add(&a->nested, b->nested) &&
           add(&a->rec_t, b->rec_t);
}

static int overflow(struct loader *l)
{
    return cprof_fail(l, "a sum of the profile's calling contexts overflows 64 bits");
}

int cprof_paths_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf,
                        size_t **ctx)
{
    struct index ix = {0};
    size_t cap = 0;
    int rc = 0;
    for (size_t w = 0; w < rf->nworkers && !rc; w++) {
        const struct raw_worker *wk = &rf->workers[w];
        size_t *row_to = ctx[w] = cprof_xcalloc(wk->npath_rows + 1, sizeof *row_to);
        for (size_t i = 0; i < wk->npath_rows && !rc; i++) {
            const int64_t *v = wk->path_rows[i];
            int64_t kind = v[CPROF_P_KIND];
            bool construct = kind == CPROF_PATH_REGION || kind == CPROF_PATH_TASK;
            const struct raw_site *s = kind == CPROF_PATH_CALL ? &rf->sites[v[CPROF_P_SITE]]
                                     : construct && v[CPROF_P_SITE] ? &rf->sites[v[CPROF_P_SITE] - 1]
                                     : NULL;
            size_t parent = v[CPROF_P_PARENT] ? row_to[v[CPROF_P_PARENT] - 1] : CPROF_NO_PATH;
            size_t routine = kind == CPROF_PATH_OTHER ? CPROF_OTHER_ROUTINE
                           : kind == CPROF_PATH_REGION ? CPROF_REGION_ROUTINE
                           : kind == CPROF_PATH_TASK ? CPROF_TASK_ROUTINE
                           : rf->routines[v[CPROF_P_CALLEE]].global;
            size_t c = context(p, &ix, &cap, parent, routine, s ? s->file : NULL, s ? s->line : 0);
            row_to[i] = c;
            cprof_prof_path *x = &p->paths[c];
            if (v[CPROF_P_FOLDS])
                x->folds_into = row_to[v[CPROF_P_FOLDS] - 1];
            for (int k = 0; k < CPROF_COLUMN_CASES && !rc; k++) {
                cprof_tally t = {v[CPROF_P_OF(CPROF_C_CALLS(k))], v[CPROF_P_OF(CPROF_C_TIME(k))],
                                 v[CPROF_P_OF(CPROF_C_NESTED(k))],
                                 v[CPROF_P_OF(CPROF_C_REC_TIME(k))]};
                if (!tally_add(&x->cases[k], &t) || !tally_add(&x->worker[w], &t))
                    rc = overflow(l);
            }
            if (!add(&x->self, v[CPROF_P_SELF_TIME]))
                rc = overflow(l);
            /* The file's resources are the profile's, in its order (resources.c). */
            for (size_t r = 0; r < 2 * p->nresources && !rc; r++)
                if (!add(&x->samples[r], v[SAMPLES_COL(0) + r]))
                    rc = overflow(l);
        }
    }
    free(ix.slot);
    return rc;
}

const char *cprof_path_special_name(size_t routine)
{
    return routine == CPROF_REGION_ROUTINE ? "<parallel>"
         : routine == CPROF_TASK_ROUTINE ? "<task>" : "<other>";
}

/* The contexts of a and b into out, their routines and workers renumbered by the maps. */
int cprof_paths_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                    const cprof_profile *b, const struct sum_map *amap,
                    const struct sum_map *bmap)
{
    struct index ix = {0};
    size_t cap = 0;
    int rc = 0;
    for (int s = 0; s < 2 && !rc; s++) {
        const cprof_profile *q = s ? b : a;
        const struct sum_map *map = s ? bmap : amap;
        size_t *to = map->path;
        for (size_t i = 0; i < q->npaths && !rc; i++) {
            const cprof_prof_path *y = &q->paths[i];
            size_t parent = y->parent == CPROF_NO_PATH ? CPROF_NO_PATH : to[y->parent];
            size_t routine = CPROF_IS_ROUTINE(y->routine) ? map->routine[y->routine] : y->routine;
            size_t c = context(out, &ix, &cap, parent, routine, y->site_file, y->site_line);
            to[i] = c;
            cprof_prof_path *x = &out->paths[c];
            if (y->folds_into != i)
                x->folds_into = to[y->folds_into];
            for (int k = 0; k < CPROF_COLUMN_CASES && !rc; k++)
                if (!tally_add(&x->cases[k], &y->cases[k]))
                    rc = overflow(l);
            if (!add(&x->self, y->self))
                rc = overflow(l);
            for (size_t w = 0; w < q->nworkers && !rc; w++)
                if (!tally_add(&x->worker[map->worker[w]], &y->worker[w]))
                    rc = overflow(l);
            for (size_t r = 0; r < 2 * out->nresources && !rc; r++)
                if (!add(&x->samples[r], y->samples[r]))
                    rc = overflow(l);
        }
    }
    free(ix.slot);
    return rc;
}

void cprof_paths_inclusive(cprof_prof_path *paths, size_t npaths)
{
    for (size_t i = 0; i < npaths; i++)
        paths[i].inclusive = paths[i].self;
    for (size_t i = npaths; i-- > 0;)
        if (paths[i].parent != CPROF_NO_PATH)
            paths[paths[i].parent].inclusive = cprof_add(paths[paths[i].parent].inclusive,
                                                         paths[i].inclusive);
}

void cprof_paths_free(cprof_profile *p)
{
    for (size_t i = 0; i < p->npaths; i++) {
        free(p->paths[i].site_file);
        free(p->paths[i].worker);
        free(p->paths[i].samples);
    }
    free(p->paths);
    p->paths = NULL;
    p->npaths = 0;
}

/* ---- derived trees: from a routine down, and from a routine up to the roots ----
 * Contexts of a routine inside another context of the same routine are its recursion:
 * part of the outer one's tree, never a tree of their own (Hall and Goldberg's lock). */

static bool named(const cprof_profile *p, size_t i, const char *name)
{
    size_t r = p->paths[i].routine;
    return CPROF_IS_ROUTINE(r) && !strcmp(p->routines[r].name, name);
}

/* Whether context i of a routine named name has an ancestor of that name. */
static bool inner(const cprof_profile *p, size_t i, const char *name)
{
    for (size_t a = p->paths[i].parent; a != CPROF_NO_PATH; a = p->paths[a].parent)
        if (named(p, a, name))
            return true;
    return false;
}

/* y's figures added to x's; its resources' samples from samples. */
static void add_figures(cprof_prof_path *x, const cprof_prof_path *y, const int64_t *samples,
                        const cprof_profile *p)
{
    for (int k = 0; k < 4; k++)
        tally_add(&x->cases[k], &y->cases[k]);
    x->self = cprof_add(x->self, y->self);
    x->inclusive = cprof_add(x->inclusive, y->inclusive);
    x->time_err = cprof_error_add(x->time_err, y->time_err);
    x->self_err = cprof_error_add(x->self_err, y->self_err);
    for (size_t w = 0; w < p->nworkers; w++)
        tally_add(&x->worker[w], &y->worker[w]);
    for (size_t r = 0; r < 2 * p->nresources; r++)
        add(&x->samples[r], samples[r]);
}

struct derived {
    cprof_profile out;      /* only paths, nworkers and nresources are used */
    struct index ix;
    size_t cap;
};

/* Context i of p and its subtree, as a child of parent in d (its site kept).  A
 * recursive call's context folds into its routine's context above it there too. */
static void copy_down(struct derived *d, const cprof_profile *p, const size_t *first,
                      const size_t *next, size_t i, size_t parent)
{
    const cprof_prof_path *y = &p->paths[i];
    size_t c = context(&d->out, &d->ix, &d->cap, parent, y->routine, y->site_file, y->site_line);
    for (size_t a = parent; y->folds_into != i && a != CPROF_NO_PATH; a = d->out.paths[a].parent)
        if (d->out.paths[a].routine == y->routine) {
            d->out.paths[c].folds_into = a;
            break;
        }
    add_figures(&d->out.paths[c], y, y->samples, p);
    for (size_t k = first[i]; k != SIZE_MAX; k = next[k])
        copy_down(d, p, first, next, k, c);
}

/* Each context's samples with those of the contexts under it: [i * 2 * nresources +
 * 2 * r + side]. */
static int64_t *subtree_samples(const cprof_profile *p)
{
    size_t n = 2 * p->nresources;
    int64_t *sub = cprof_xcalloc(p->npaths * n + 1, sizeof *sub);
    for (size_t i = 0; i < p->npaths; i++)
        memcpy(sub + i * n, p->paths[i].samples, n * sizeof *sub);
    /* Parents come before their children. */
    for (size_t i = p->npaths; i-- > 0;)
        for (size_t r = 0; p->paths[i].parent != CPROF_NO_PATH && r < n; r++)
            add(&sub[p->paths[i].parent * n + r], sub[i * n + r]);
    return sub;
}

int cprof_paths_derive(const cprof_profile *p, const char *name, bool up,
                       cprof_prof_path **paths, size_t *npaths)
{
    struct derived d = {.out = {.nworkers = p->nworkers, .nresources = p->nresources}};
    size_t *first = cprof_xcalloc(p->npaths + 1, sizeof *first);
    size_t *next = cprof_xcalloc(p->npaths + 1, sizeof *next);
    for (size_t i = 0; i < p->npaths; i++)
        first[i] = next[i] = SIZE_MAX;
    for (size_t i = p->npaths; i-- > 0;)
        if (p->paths[i].parent != CPROF_NO_PATH) {
            next[i] = first[p->paths[i].parent];
            first[p->paths[i].parent] = i;
        }
    /* Up, a step has the routine's figures through it: its context's time, which holds
     * its callees', and so its subtree's samples. */
    int64_t *sub = up && p->nresources ? subtree_samples(p) : NULL;
    bool found = false;
    for (size_t i = 0; i < p->npaths; i++) {
        if (!named(p, i, name) || inner(p, i, name))
            continue;
        found = true;
        if (!up) {
            /* The tree under it, rooted at its routine (the site it was called from is
             * the path's, not the tree's). */
            const cprof_prof_path *y = &p->paths[i];
            size_t c = context(&d.out, &d.ix, &d.cap, CPROF_NO_PATH, y->routine, NULL, 0);
            add_figures(&d.out.paths[c], y, y->samples, p);
            for (size_t k = first[i]; k != SIZE_MAX; k = next[k])
                copy_down(&d, p, first, next, k, c);
            continue;
        }
        /* Up: the routine, then each caller in turn, every step with this context's
         * figures; a step's site is where it called the step before. */
        const int64_t *samples = sub ? sub + i * 2 * p->nresources : p->paths[i].samples;
        size_t c = context(&d.out, &d.ix, &d.cap, CPROF_NO_PATH, p->paths[i].routine, NULL, 0);
        add_figures(&d.out.paths[c], &p->paths[i], samples, p);
        for (size_t below = i, a = p->paths[i].parent; a != CPROF_NO_PATH;
             below = a, a = p->paths[a].parent) {
            const cprof_prof_path *b = &p->paths[below];
            c = context(&d.out, &d.ix, &d.cap, c, p->paths[a].routine, b->site_file, b->site_line);
            add_figures(&d.out.paths[c], &p->paths[i], samples, p);
        }
    }
    free(sub);
    free(first);
    free(next);
    free(d.ix.slot);
    *paths = d.out.paths;
    *npaths = d.out.npaths;
    return found ? 0 : -1;
}
