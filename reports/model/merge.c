/* merge.c: summing one file's rows into a profile (routines by name and file, arcs
 * by caller, callee and site), and summing two profiles (raw.h). */
#include "raw.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

const char cprof_external_name[] = "<external>";

static bool add(int64_t *a, int64_t b)
{
    return !__builtin_add_overflow(*a, b, a);
}

static bool tally_add(cprof_tally *a, int64_t n, int64_t t, int64_t nested, int64_t rec_t)
{
    return add(&a->n, n) && add(&a->t, t) && add(&a->nested, nested) && add(&a->rec_t, rec_t);
}

/* Sum b into a. */
static bool tally_sum(cprof_tally *a, const cprof_tally *b)
{
    return tally_add(a, b->n, b->t, b->nested, b->rec_t);
}

static int overflow(struct loader *l)
{
    return cprof_fail(l, "counts or times overflow 64 bits when summed");
}

static int cmp_raw_routine(const void *x, const void *y)
{
    const struct raw_routine *a = *(struct raw_routine *const *)x;
    const struct raw_routine *b = *(struct raw_routine *const *)y;
    int d = strcmp(a->name, b->name);
    if (!d)
        d = strcmp(a->file, b->file);
    if (!d)
        d = CMP(a->line, b->line);
    return d;
}

/* Give every (name, file) of file rf one routine of p, in report order; its line is the
 * smallest declared (units of a program may declare one key at several lines). */
static void merge_routines(cprof_profile *p, struct raw_file *rf)
{
    size_t n = rf->nroutines;
    struct raw_routine **refs = cprof_xcalloc(n, sizeof *refs);
    for (size_t k = 0; k < n; k++)
        refs[k] = &rf->routines[k];
    qsort(refs, n, sizeof *refs, cmp_raw_routine);

    p->routines = cprof_xcalloc(n, sizeof *p->routines);
    for (size_t k = 0; k < n; k++) {
        struct raw_routine *r = refs[k];
        cprof_prof_routine *last = p->nroutines ? &p->routines[p->nroutines - 1] : NULL;
        if (!last || strcmp(last->name, r->name) || strcmp(last->file, r->file)) {
            last = &p->routines[p->nroutines++];
            last->name = cprof_xstrdup(r->name);
            last->file = cprof_xstrdup(r->file);
            last->line = r->line;
            last->worker = cprof_xcalloc(p->nworkers, sizeof *last->worker);
        }
        last->counted |= r->counted != NULL;
        last->inlinable |= r->inlinable != NULL;
        r->global = p->nroutines - 1;
    }
    free(refs);
}

/* What one row adds to one arc, at one call site (none for an external caller). */
struct contrib {
    const char *caller_name, *caller_file;  /* cprof_external_name and NULL if external */
    size_t caller, callee;
    const char *file;
    int64_t line;
    cprof_tally s, c;
    cprof_tally kase[CPROF_COLUMN_CASES];   /* at a site: S-S, S-C, C-S, C-C */
    size_t worker;
};

static int cmp_null_first(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

/* Report order: caller name and file, callee (routine indexes are in name, file order),
 * site file and line. */
static int cmp_contrib(const void *x, const void *y)
{
    const struct contrib *a = x, *b = y;
    int d = strcmp(a->caller_name, b->caller_name);
    if (!d)
        d = cmp_null_first(a->caller_file, b->caller_file);
    if (!d)
        d = CMP(a->callee, b->callee);
    if (!d)
        d = cmp_null_first(a->file, b->file);
    if (!d)
        d = CMP(a->line, b->line);
    return d;
}

static bool same_site(const struct contrib *a, const struct contrib *b)
{
    return !strcmp(a->file, b->file) && a->line == b->line;
}

/* Sum the sorted contributions in[0..n-1] into p's arcs and their sites. */
static int fold_arcs(struct loader *l, cprof_profile *p, const struct contrib *in, size_t n)
{
    p->arcs = cprof_xcalloc(n, sizeof *p->arcs);
    for (size_t i = 0, end; i < n; i = end) {
        cprof_prof_arc *arc = &p->arcs[p->narcs++];
        arc->caller = in[i].caller;
        arc->callee = in[i].callee;
        for (end = i; end < n && in[end].caller == arc->caller && in[end].callee == arc->callee;
             end++)
            if (in[end].file && (end == i || !same_site(&in[end], &in[end - 1])))
                arc->nsites++;
        arc->sites = cprof_xcalloc(arc->nsites, sizeof *arc->sites);
        cprof_prof_site *site = NULL;
        for (size_t k = i; k < end; k++) {
            const struct contrib *x = &in[k];
            if (!tally_sum(&arc->s, &x->s) || !tally_sum(&arc->c, &x->c))
                return overflow(l);
            if (!x->file)
                continue;
            if (!site || !same_site(x, x - 1)) {
                site = site ? site + 1 : arc->sites;
                site->file = cprof_xstrdup(x->file);
                site->line = x->line;
                site->worker = cprof_xcalloc(p->nworkers, sizeof *site->worker);
            }
            bool ok = tally_sum(&site->s, &x->s) && tally_sum(&site->c, &x->c) &&
                      tally_sum(&site->worker[x->worker], &x->s) &&
                      tally_sum(&site->worker[x->worker], &x->c);
            for (int k = 0; k < CPROF_COLUMN_CASES && ok; k++)
                ok = tally_sum(&site->cases[k], &x->kase[k]);
            if (!ok)
                return overflow(l);
        }
    }
    return 0;
}

/* Nested counts too: compensation may zero a time, and must list the same arcs. */
static bool nonzero(const struct contrib *c)
{
    return c->s.n || c->s.t || c->s.nested || c->c.n || c->c.t || c->c.nested;
}

/* Add file rf's rows to the routines of p and list what they add to arcs in c[*n...]. */
static int merge_rows(struct loader *l, cprof_profile *p, const struct raw_file *rf,
                      struct contrib *c, size_t *n)
{
    for (size_t w = 0; w < rf->nworkers; w++) {
        const struct raw_worker *wk = &rf->workers[w];
        for (size_t i = 0; i < wk->nroutine_rows; i++) {
            const int64_t *v = wk->routine_rows[i];
            size_t g = rf->routines[v[CPROF_R_ROUTINE]].global;
            cprof_prof_routine *r = &p->routines[g];
            cprof_prof_routine_worker *rw = &r->worker[w];
            if (!tally_add(&r->s_caller, v[CPROF_R_S_ENTRIES], v[CPROF_R_S_TIME],
                           v[CPROF_R_S_NESTED], 0) ||
                !tally_add(&rw->s_caller, v[CPROF_R_S_ENTRIES], v[CPROF_R_S_TIME],
                           v[CPROF_R_S_NESTED], 0) ||
                !tally_add(&rw->c_caller, v[CPROF_R_C_ENTRIES], v[CPROF_R_C_TIME],
                           v[CPROF_R_C_NESTED], 0) ||
                !add(&r->s_self_t, v[CPROF_R_S_SELF]) || !add(&rw->s_self_t, v[CPROF_R_S_SELF]) ||
                !add(&rw->c_self_t, v[CPROF_R_C_SELF]) ||
                !add(&r->s_direct, v[CPROF_R_S_DIRECT]) || !add(&rw->c_direct, v[CPROF_R_C_DIRECT]) ||
                !add(&rw->c_thread_t, v[CPROF_R_C_THREAD_TIME]) ||
                !add(&rw->team_t, v[CPROF_R_TEAM_TIME]) ||
                !add(&rw->team_self_t, v[CPROF_R_TEAM_SELF]))
                return overflow(l);
            /* Every entry, external or not, went through one profiled call's facade:
             * a counted routine's, its call site's count. */
            double cost = (r->counted ? rf->count_cost_ns : rf->call_cost_ns) *
                          ((double)v[CPROF_R_S_ENTRIES] + (double)v[CPROF_R_C_ENTRIES]);
            r->overhead_ns += cost;
            p->overhead_ns += cost;
            if (v[CPROF_R_MAX_DEPTH] > r->max_depth)
                r->max_depth = v[CPROF_R_MAX_DEPTH];
            c[*n] = (struct contrib){cprof_external_name, NULL, CPROF_EXTERNAL, g, NULL, 0,
                                     {v[CPROF_R_S_EXT], v[CPROF_R_S_EXT_TIME],
                                      v[CPROF_R_S_EXT_NESTED], v[CPROF_R_S_EXT_REC_TIME]},
                                     {v[CPROF_R_C_EXT], v[CPROF_R_C_EXT_TIME],
                                      v[CPROF_R_C_EXT_NESTED], v[CPROF_R_C_EXT_REC_TIME]},
                                     {{0}}, w};
            *n += nonzero(&c[*n]);
        }
        for (size_t i = 0; i < wk->ncall_rows; i++) {
            const int64_t *v = wk->call_rows[i];
            const struct raw_site *s = &rf->sites[v[CPROF_C_SITE]];
            size_t g = rf->routines[s->caller].global;
            cprof_prof_routine *r = &p->routines[g];
            cprof_prof_routine_worker *rw = &r->worker[w];
            cprof_tally kase[CPROF_COLUMN_CASES] = {{0}}, conc = {0};  /* conc: S-C + C-S + C-C */
            for (int k = 0; k < CPROF_COLUMN_CASES; k++)
                if (!tally_add(&kase[k], v[CPROF_C_CALLS(k)], v[CPROF_C_TIME(k)],
                               v[CPROF_C_NESTED(k)], v[CPROF_C_REC_TIME(k)]) ||
                    (k > 0 && !tally_sum(&conc, &kase[k])))
                    return overflow(l);
            if (!tally_sum(&r->s_callee, &kase[0]) || !tally_sum(&rw->c_callee, &kase[1]) ||
                !tally_sum(&rw->cs_callee, &kase[2]) || !tally_sum(&rw->cc_callee, &kase[3]))
                return overflow(l);
            c[*n] = (struct contrib){r->name, r->file, g, rf->routines[v[CPROF_C_CALLEE]].global,
                                     s->file, s->line, kase[0], conc,
                                     {kase[0], kase[1], kase[2], kase[3]}, w};
            *n += nonzero(&c[*n]);
        }
    }
    return 0;
}

/* Unit (file, reason) in p's list of units compiled without profiling, kept in order
 * and once (the list is short: a linear search). */
static void add_unprofiled(cprof_profile *p, const char *file, const char *reason)
{
    size_t k = 0;
    int d = 1;
    for (; k < p->nunprofiled; k++) {
        d = strcmp(p->unprofiled[k].file, file);
        if (!d)
            d = strcmp(p->unprofiled[k].reason, reason);
        if (d >= 0)
            break;
    }
    if (k < p->nunprofiled && d == 0)
        return;
    p->unprofiled = cprof_xrealloc(p->unprofiled, (p->nunprofiled + 1) * sizeof *p->unprofiled);
    memmove(&p->unprofiled[k + 1], &p->unprofiled[k], (p->nunprofiled - k) * sizeof *p->unprofiled);
    p->unprofiled[k] = (cprof_prof_unprofiled){cprof_xstrdup(file), cprof_xstrdup(reason)};
    p->nunprofiled++;
}

/* Sum one file, already read, into a profile of its own. */
int cprof_merge_file(struct loader *l, cprof_profile *p, struct raw_file *rf, bool comp)
{
    p->nfiles = 1;
    p->compensated = comp;
    p->programs = cprof_xcalloc(1, sizeof *p->programs);
    p->programs[0] = (cprof_prof_program){cprof_xstrdup(rf->program), 1};
    p->nprograms = 1;
    p->program = p->programs[0].name;
    p->clock = cprof_xstrdup(rf->clock);
    p->untimed_files = !strcmp(rf->clock, "none");
    p->path_self = rf->path_self;
    p->pid = rf->pid;
    p->start_unix_ns = rf->start_unix_ns;
    p->call_cost_ns = rf->call_cost_ns;
    p->count_cost_ns = rf->count_cost_ns;
    if (rf->ovh_method && !strcmp(rf->ovh_method, "none")) {
        p->ovh_none_files = 1;
        p->ovh_reason = cprof_xstrdup(rf->ovh_reason);
    } else if (rf->ovh_method) {
        p->ovh_files = 1;
        p->ovh_samples = rf->ovh_samples;
        p->ovh_in_cprof = rf->ovh_in_cprof;
        p->ovh_period_ns = rf->ovh_period_ns;
        p->ovh_not_covered = cprof_xstrdup(rf->ovh_not_covered);
        p->ovh_notes = rf->ovh_reason ? cprof_xstrdup(rf->ovh_reason) : NULL;
    }
    if (rf->omp_runtime) {
        p->omp_runtime = cprof_xstrdup(rf->omp_runtime);
        p->omp_observed = cprof_xstrdup(rf->omp_observed);
        p->omp_reason = rf->omp_reason ? cprof_xstrdup(rf->omp_reason) : NULL;
        p->omp_uncased_files = !json_is_true(rf->omp_cases);
        p->omp_unseen_files = !json_is_true(rf->omp_regions);
    }
    p->trace_files = rf->traced;
    p->trace_events = rf->trace_events;
    p->trace_dropped = rf->trace_dropped;
    p->pus = rf->pus;
    p->cores = rf->cores;
    p->packages = rf->packages;
    p->elapsed_ns = rf->elapsed_ns;
    p->nworkers = rf->nworkers;
    p->size = -1;
    for (size_t i = 0; i < rf->nunprofiled; i++)
        add_unprofiled(p, rf->unprofiled[i].file, rf->unprofiled[i].reason);
    /* A rank of a job (job.c has seen that the files are all ranks or none). */
    if (rf->rank >= 0) {
        p->size = rf->size;
        p->job = cprof_xstrdup(rf->job);
        p->ranks = cprof_xcalloc(1, sizeof *p->ranks);
        p->ranks[0] = (cprof_prof_rank){rf->rank, cprof_xstrdup(rf->host ? rf->host : ""),
                                        rf->pid, rf->start_unix_ns, rf->elapsed_ns, 0,
                                        rf->nworkers};
        p->nranks = 1;
    }
    size_t ncontrib = 0;
    p->workers = cprof_xcalloc(p->nworkers, sizeof *p->workers);
    for (size_t w = 0; w < rf->nworkers; w++) {
        const struct raw_worker *wk = &rf->workers[w];
        p->workers[w] = (cprof_prof_worker){rf->rank, (int64_t)w, wk->tid, wk->omp_thread,
                                            wk->pu, wk->core};
        ncontrib += wk->nroutine_rows + wk->ncall_rows;
    }

    int rc = cprof_sources_of_file(l, p, rf);
    merge_routines(p, rf);

    struct contrib *c = cprof_xcalloc(ncontrib, sizeof *c);
    size_t n = 0;
    if (comp)
        cprof_raw_compensate(p, rf);
    if (!rc)
        rc = merge_rows(l, p, rf, c, &n);
    if (!rc) {
        qsort(c, n, sizeof *c, cmp_contrib);
        rc = fold_arcs(l, p, c, n);
    }
    free(c);
    if (!rc)
        rc = cprof_resources_of_file(l, p, rf);
    if (!rc)
        rc = cprof_regions_of_file(l, p, rf);
    if (!rc)
        rc = cprof_placement_of_file(l, p, rf);
    /* The contexts first: the sizes' rows name them by each worker's paths rows. */
    size_t **ctx = cprof_xcalloc(rf->nworkers + 1, sizeof *ctx);
    if (!rc)
        rc = cprof_paths_of_file(l, p, rf, ctx);
    if (!rc)
        rc = cprof_sizes_of_file(l, p, rf, ctx);
    if (!rc)
        rc = cprof_estimates_of_file(l, p, rf, ctx);
    for (size_t w = 0; w < rf->nworkers; w++)
        free(ctx[w]);
    free(ctx);
    return rc;
}

/* ---- summing two profiles ----
 * profile.c adds them up pairwise, so that memory follows the merged result and not the
 * number of files. */

static bool routine_worker_sum(cprof_prof_routine_worker *a, const cprof_prof_routine_worker *b)
{
    return tally_sum(&a->s_caller, &b->s_caller) && add(&a->s_self_t, b->s_self_t) &&
           tally_sum(&a->c_caller, &b->c_caller) && tally_sum(&a->c_callee, &b->c_callee) &&
           tally_sum(&a->cs_callee, &b->cs_callee) && tally_sum(&a->cc_callee, &b->cc_callee) &&
           add(&a->c_self_t, b->c_self_t) && add(&a->c_direct, b->c_direct) &&
           add(&a->c_thread_t, b->c_thread_t) && add(&a->team_t, b->team_t) &&
           add(&a->team_self_t, b->team_self_t);
}

/* Sum routine b (of a profile with nw workers, worker w being a's worker wmap[w]) into
 * a. */
static bool routine_sum(cprof_prof_routine *a, const cprof_prof_routine *b, size_t nw,
                        const size_t *wmap)
{
    if (b->line < a->line)
        a->line = b->line;
    if (b->max_depth > a->max_depth)
        a->max_depth = b->max_depth;
    a->counted |= b->counted;
    a->inlinable |= b->inlinable;
    a->overhead_ns += b->overhead_ns;
    bool ok = tally_sum(&a->s_caller, &b->s_caller) && tally_sum(&a->s_callee, &b->s_callee) &&
              add(&a->s_self_t, b->s_self_t) && add(&a->s_direct, b->s_direct);
    for (size_t w = 0; w < nw && ok; w++)
        ok = routine_worker_sum(&a->worker[wmap[w]], &b->worker[w]);
    return ok;
}

/* A new routine of the sum, a copy of r's key (its numbers are summed in after). */
static void routine_key(cprof_prof_routine *out, const cprof_prof_routine *r, size_t nw)
{
    out->name = cprof_xstrdup(r->name);
    out->file = cprof_xstrdup(r->file);
    out->line = r->line;
    out->worker = cprof_xcalloc(nw, sizeof *out->worker);
}

static int cmp_routine_key(const cprof_prof_routine *a, const cprof_prof_routine *b)
{
    int d = strcmp(a->name, b->name);
    return d ? d : strcmp(a->file, b->file);
}

/* An arc of one of the two profiles, with its routines' indexes in the sum, and its
 * workers' (nw of them). */
struct arc_ref {
    const cprof_prof_arc *arc;
    size_t caller, callee;
    const cprof_profile *sum;
    const size_t *wmap;
    size_t nw;
};

static int cmp_arc_ref(const void *x, const void *y)
{
    const struct arc_ref *a = x, *b = y;
    const cprof_prof_routine *r = a->sum->routines;
    bool ea = a->caller == CPROF_EXTERNAL, eb = b->caller == CPROF_EXTERNAL;
    int d = strcmp(ea ? cprof_external_name : r[a->caller].name,
                   eb ? cprof_external_name : r[b->caller].name);
    if (!d)
        d = cmp_null_first(ea ? NULL : r[a->caller].file, eb ? NULL : r[b->caller].file);
    if (!d)
        d = CMP(a->callee, b->callee);
    return d;
}

static int cmp_site(const cprof_prof_site *a, const cprof_prof_site *b)
{
    int d = strcmp(a->file, b->file);
    return d ? d : CMP(a->line, b->line);
}

/* Site a (of a profile with nw workers, worker w being the sum's wmap[w]) into s. */
static bool site_sum(cprof_prof_site *s, const cprof_prof_site *a, size_t nw, const size_t *wmap)
{
    bool ok = tally_sum(&s->s, &a->s) && tally_sum(&s->c, &a->c);
    for (int k = 0; k < CPROF_COLUMN_CASES && ok; k++)
        ok = tally_sum(&s->cases[k], &a->cases[k]);
    for (size_t w = 0; w < nw && ok; w++)
        ok = tally_sum(&s->worker[wmap[w]], &a->worker[w]);
    return ok;
}

/* out = x + y (an arc of each profile, the same caller and callee; y may be NULL), in
 * a sum of nw workers. */
static bool arc_sum(cprof_prof_arc *out, const struct arc_ref *x, const struct arc_ref *y,
                    size_t nw)
{
    const cprof_prof_arc *xa = x->arc, *ya = y ? y->arc : NULL;
    size_t ny = y ? ya->nsites : 0, i = 0, j = 0;
    out->sites = cprof_xcalloc(xa->nsites + ny, sizeof *out->sites);
    bool ok = tally_sum(&out->s, &xa->s) && tally_sum(&out->c, &xa->c) &&
              (!y || (tally_sum(&out->s, &ya->s) && tally_sum(&out->c, &ya->c)));
    while (ok && (i < xa->nsites || j < ny)) {
        int d = i == xa->nsites ? 1 : j == ny ? -1 : cmp_site(&xa->sites[i], &ya->sites[j]);
        const cprof_prof_site *from = d <= 0 ? &xa->sites[i] : &ya->sites[j];
        cprof_prof_site *s = &out->sites[out->nsites++];
        s->file = cprof_xstrdup(from->file);
        s->line = from->line;
        s->worker = cprof_xcalloc(nw, sizeof *s->worker);
        if (d <= 0)
            ok = site_sum(s, &xa->sites[i++], x->nw, x->wmap);
        if (ok && d >= 0)
            ok = site_sum(s, &ya->sites[j++], y->nw, y->wmap);
    }
    return ok;
}

/* Sum the routines of a and b into out (in report order); amap and bmap give each
 * routine's index in out (their workers' are set). */
static int sum_routines(struct loader *l, cprof_profile *out, const cprof_profile *a,
                        const cprof_profile *b, struct sum_map *amap, struct sum_map *bmap)
{
    out->routines = cprof_xcalloc(a->nroutines + b->nroutines, sizeof *out->routines);
    size_t i = 0, j = 0;
    while (i < a->nroutines || j < b->nroutines) {
        int d = i == a->nroutines   ? 1
                : j == b->nroutines ? -1
                                    : cmp_routine_key(&a->routines[i], &b->routines[j]);
        cprof_prof_routine *r = &out->routines[out->nroutines++];
        routine_key(r, d <= 0 ? &a->routines[i] : &b->routines[j], out->nworkers);
        if (d <= 0 && !routine_sum(r, &a->routines[i], a->nworkers, amap->worker))
            return overflow(l);
        if (d >= 0 && !routine_sum(r, &b->routines[j], b->nworkers, bmap->worker))
            return overflow(l);
        if (d <= 0)
            amap->routine[i++] = out->nroutines - 1;
        if (d >= 0)
            bmap->routine[j++] = out->nroutines - 1;
    }
    return 0;
}

static int sum_arcs(struct loader *l, cprof_profile *out, const cprof_profile *a,
                    const cprof_profile *b, const struct sum_map *amap,
                    const struct sum_map *bmap)
{
    size_t n = a->narcs + b->narcs, k = 0;
    struct arc_ref *refs = cprof_xcalloc(n, sizeof *refs);
    for (size_t s = 0; s < 2; s++) {
        const cprof_profile *p = s ? b : a;
        const size_t *map = (s ? bmap : amap)->routine;
        for (size_t i = 0; i < p->narcs; i++, k++) {
            const cprof_prof_arc *arc = &p->arcs[i];
            refs[k] = (struct arc_ref){arc,
                                       arc->caller == CPROF_EXTERNAL ? CPROF_EXTERNAL
                                                                     : map[arc->caller],
                                       map[arc->callee], out, (s ? bmap : amap)->worker,
                                       p->nworkers};
        }
    }
    /* Each profile has an arc once: equal keys come in pairs, one of a and one of b. */
    qsort(refs, n, sizeof *refs, cmp_arc_ref);
    out->arcs = cprof_xcalloc(n, sizeof *out->arcs);
    int rc = 0;
    for (k = 0; k < n && !rc; k++) {
        bool pair = k + 1 < n && !cmp_arc_ref(&refs[k], &refs[k + 1]);
        cprof_prof_arc *arc = &out->arcs[out->narcs++];
        arc->caller = refs[k].caller;
        arc->callee = refs[k].callee;
        if (!arc_sum(arc, &refs[k], pair ? &refs[k + 1] : NULL, out->nworkers))
            rc = overflow(l);
        k += pair;
    }
    free(refs);
    return rc;
}

/* The programs of a, then those of b that a has not, with their numbers of files. */
static void sum_programs(cprof_profile *out, const cprof_profile *a, const cprof_profile *b)
{
    out->programs = cprof_xcalloc(a->nprograms + b->nprograms, sizeof *out->programs);
    for (size_t s = 0; s < 2; s++)
        for (size_t i = 0; i < (s ? b : a)->nprograms; i++) {
            const cprof_prof_program *g = &(s ? b : a)->programs[i];
            size_t k = 0;
            while (k < out->nprograms && strcmp(out->programs[k].name, g->name))
                k++;
            if (k == out->nprograms)
                out->programs[out->nprograms++] = (cprof_prof_program){cprof_xstrdup(g->name), 0};
            out->programs[k].nfiles += g->nfiles;
        }
    out->program = out->programs[0].name;
}

static int cmp_worker(const cprof_prof_worker *a, const cprof_prof_worker *b)
{
    int d = CMP(a->rank, b->rank);
    return d ? d : CMP(a->id, b->id);
}

/* The workers of a and b in (rank, id) order, one per key: repeated runs add up worker
 * by worker, the ranks of a job keep theirs apart.  A worker's description is a's if
 * both have it. */
static void sum_workers(cprof_profile *out, const cprof_profile *a, const cprof_profile *b,
                        struct sum_map *amap, struct sum_map *bmap)
{
    out->workers = cprof_xcalloc(a->nworkers + b->nworkers, sizeof *out->workers);
    size_t i = 0, j = 0;
    while (i < a->nworkers || j < b->nworkers) {
        int d = i == a->nworkers   ? 1
                : j == b->nworkers ? -1
                                   : cmp_worker(&a->workers[i], &b->workers[j]);
        out->workers[out->nworkers] = d <= 0 ? a->workers[i] : b->workers[j];
        if (d <= 0)
            amap->worker[i++] = out->nworkers;
        if (d >= 0)
            bmap->worker[j++] = out->nworkers;
        out->nworkers++;
    }
}

/* The ranks of a and b (disjoint: job.c), by rank, each with its workers' place in out. */
static void sum_ranks(cprof_profile *out, const cprof_profile *a, const cprof_profile *b,
                      const struct sum_map *amap, const struct sum_map *bmap)
{
    out->job = cprof_xstrdup(a->job);
    out->ranks = cprof_xcalloc(a->nranks + b->nranks, sizeof *out->ranks);
    for (size_t i = 0, j = 0; i < a->nranks || j < b->nranks; out->nranks++) {
        bool from_a = j == b->nranks || (i < a->nranks && a->ranks[i].rank < b->ranks[j].rank);
        const cprof_prof_rank *r = from_a ? &a->ranks[i++] : &b->ranks[j++];
        const size_t *wmap = (from_a ? amap : bmap)->worker;
        cprof_prof_rank *o = &out->ranks[out->nranks];
        *o = *r;
        o->host = cprof_xstrdup(r->host);
        o->first_worker = r->nworkers ? wmap[r->first_worker] : 0;
    }
}

/* out = a + b.  What describes the run (pid, machine...) comes from the first file: a's,
 * or in a job the lowest rank's, whatever the order of the files. */
int cprof_sum_profiles(struct loader *l, cprof_profile *out, const cprof_profile *a,
                        const cprof_profile *b)
{
    memset(out, 0, sizeof *out);
    const cprof_profile *first =
        a->nranks && b->nranks && a->ranks[0].rank > b->ranks[0].rank ? b : a;
    out->nfiles = a->nfiles + b->nfiles;
    sum_programs(out, a, b);
    for (size_t s = 0; s < 2; s++)
        for (size_t i = 0; i < (s ? b : a)->nunprofiled; i++)
            add_unprofiled(out, (s ? b : a)->unprofiled[i].file, (s ? b : a)->unprofiled[i].reason);
    out->clock = cprof_xstrdup(first->clock);
    out->untimed_files = a->untimed_files + b->untimed_files;
    /* A file without contexts takes nothing from their self times. */
    out->path_self = (a->path_self || !a->npaths) && (b->path_self || !b->npaths);
    out->pid = first->pid;
    out->start_unix_ns = first->start_unix_ns;
    out->call_cost_ns = first->call_cost_ns;
    out->count_cost_ns = first->count_cost_ns;
    out->overhead_ns = a->overhead_ns + b->overhead_ns;
    out->compensated = a->compensated;
    out->compensated_ns = a->compensated_ns + b->compensated_ns;
    const cprof_profile *named = a->omp_runtime ? a : b;
    out->omp_runtime = named->omp_runtime ? cprof_xstrdup(named->omp_runtime) : NULL;
    out->omp_observed = named->omp_observed ? cprof_xstrdup(named->omp_observed) : NULL;
    named = a->omp_reason ? a : b;
    out->omp_reason = named->omp_reason ? cprof_xstrdup(named->omp_reason) : NULL;
    out->omp_uncased_files = a->omp_uncased_files + b->omp_uncased_files;
    out->omp_unseen_files = a->omp_unseen_files + b->omp_unseen_files;
    out->ovh_files = a->ovh_files + b->ovh_files;
    out->ovh_none_files = a->ovh_none_files + b->ovh_none_files;
    if (__builtin_add_overflow(a->ovh_samples, b->ovh_samples, &out->ovh_samples) ||
        __builtin_add_overflow(a->ovh_in_cprof, b->ovh_in_cprof, &out->ovh_in_cprof))
        return overflow(l);
    named = a->ovh_files ? a : b;
    out->ovh_period_ns = named->ovh_period_ns;
    out->ovh_not_covered = named->ovh_not_covered ? cprof_xstrdup(named->ovh_not_covered) : NULL;
    named = a->ovh_notes ? a : b;
    out->ovh_notes = named->ovh_notes ? cprof_xstrdup(named->ovh_notes) : NULL;
    named = a->ovh_reason ? a : b;
    out->ovh_reason = named->ovh_reason ? cprof_xstrdup(named->ovh_reason) : NULL;
    out->trace_files = a->trace_files + b->trace_files;
    if (__builtin_add_overflow(a->trace_events, b->trace_events, &out->trace_events) ||
        __builtin_add_overflow(a->trace_dropped, b->trace_dropped, &out->trace_dropped))
        return overflow(l);
    out->pus = first->pus;
    out->cores = first->cores;
    out->packages = first->packages;
    out->size = a->size;
    /* A job's ranks ran at one time: its elapsed time is its longest rank's. */
    if (a->nranks)
        out->elapsed_ns = a->elapsed_ns > b->elapsed_ns ? a->elapsed_ns : b->elapsed_ns;
    else if (__builtin_add_overflow(a->elapsed_ns, b->elapsed_ns, &out->elapsed_ns))
        return overflow(l);
    struct sum_map amap = {cprof_xcalloc(a->nroutines, sizeof(size_t)),
                           cprof_xcalloc(a->nworkers, sizeof(size_t)),
                           cprof_xcalloc(a->npaths + 1, sizeof(size_t))};
    struct sum_map bmap = {cprof_xcalloc(b->nroutines, sizeof(size_t)),
                           cprof_xcalloc(b->nworkers, sizeof(size_t)),
                           cprof_xcalloc(b->npaths + 1, sizeof(size_t))};
    sum_workers(out, a, b, &amap, &bmap);
    if (a->nranks)
        sum_ranks(out, a, b, &amap, &bmap);
    int rc = sum_routines(l, out, a, b, &amap, &bmap);
    if (!rc)
        rc = sum_arcs(l, out, a, b, &amap, &bmap);
    if (!rc)
        rc = cprof_resources_sum(l, out, a, b, &amap, &bmap);
    if (!rc)
        rc = cprof_regions_sum(l, out, a, b, &amap, &bmap);
    if (!rc)
        rc = cprof_paths_sum(l, out, a, b, &amap, &bmap);
    if (!rc)
        rc = cprof_sizes_sum(l, out, a, b, &amap, &bmap);
    if (!rc)
        rc = cprof_estimates_sum(l, out, a, b, &amap, &bmap);
    if (!rc)
        rc = cprof_sources_sum(l, out, a, b);
    if (!rc)
        cprof_placement_sum(out, a, b, &amap, &bmap);
    for (int s = 0; s < 2; s++) {
        struct sum_map *m = s ? &bmap : &amap;
        free(m->routine);
        free(m->worker);
        free(m->path);
    }
    return rc;
}
