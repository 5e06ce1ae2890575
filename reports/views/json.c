/* json.c: the --json report, documented field by field in docs/report-json.md.
 *
 * The text must be byte-for-byte reproducible (tests compare it): keys are written in
 * insertion order (jansson >= 2.8 keeps it), indented by 2.  Every json_pack below
 * returns NULL if it runs out of memory, and a NULL "o" argument makes the enclosing
 * json_pack fail too, so one check at the end covers the whole document.
 */
#include "report.h"
#include "../model/alloc.h"
#include "../../format/schema.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append v to array a, both stolen; NULL if either is NULL or memory runs out. */
static json_t *append(json_t *a, json_t *v)
{
    if (json_array_append_new(a, v)) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* A time, or null where it was not measured (docs/report-json.md, version 2). */
static json_t *time_of(bool measured, int64_t ns)
{
    return measured ? json_integer(ns) : json_null();
}

/* An error in ns, rounded; null where it is unknown (docs/report-json.md). */
static json_t *error_of(cprof_error e)
{
    double ns = cprof_error_ns(e);
    return isnan(ns) ? json_null() : json_integer((json_int_t)llround(ns));
}

/* Sampled timing: where some of o's times are estimates, "time_estimated": true and
 * the errors of keys[0..n) (0 where that time is exact); nothing where none is, o
 * itself.  NULL (o released) if memory runs out. */
static json_t *mark_estimates(json_t *o, const char *const *keys, const cprof_error *e, size_t n)
{
    bool any = false;
    for (size_t k = 0; k < n; k++)
        any |= e[k].estimated;
    if (!o || !any)
        return o;
    bool bad = json_object_set_new(o, "time_estimated", json_true());
    for (size_t k = 0; k < n && !bad; k++)
        bad = json_object_set_new(o, keys[k], error_of(e[k]));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The int64_t at byte offset off in every worker's entry of routine r, as an array
 * indexed by worker id; null for times not measured. */
static json_t *per_worker(const cprof_profile *p, const cprof_prof_routine *r, size_t off,
                          bool measured)
{
    if (!measured)
        return json_null();
    json_t *a = json_array();
    for (size_t w = 0; w < p->nworkers; w++)
        a = append(a, json_integer(*(const int64_t *)((const char *)&r->worker[w] + off)));
    return a;
}

#define PER_WORKER(field) per_worker(p, r, offsetof(cprof_prof_routine_worker, field), true)
#define PER_WORKER_T(field, m) per_worker(p, r, offsetof(cprof_prof_routine_worker, field), m)

/* The outer time (cprof_outer) of the tally at byte offset off, per worker. */
static json_t *per_worker_outer(const cprof_profile *p, const cprof_prof_routine *r, size_t off,
                                bool measured)
{
    if (!measured)
        return json_null();
    json_t *a = json_array();
    for (size_t w = 0; w < p->nworkers; w++)
        a = append(a, json_integer(cprof_outer((const cprof_tally *)((const char *)&r->worker[w] +
                                                                    off))));
    return a;
}

#define PER_WORKER_OUTER(field, m) \
    per_worker_outer(p, r, offsetof(cprof_prof_routine_worker, field), m)

/* The routine's times in the two units, as the text report derives them (view.c). */
static json_t *units(const cprof_rview *rv)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "self_worker_t", time_of(rv->timed, rv->self),
                     "inclusive_worker_t", time_of(rv->timed, rv->inclusive),
                     "self_wall_t", time_of(rv->wall_timed, rv->wall_self),
                     "inclusive_wall_t", time_of(rv->wall_timed, rv->wall),
                     "team_self_worker_t", time_of(rv->timed, rv->team_self),
                     "team_inclusive_worker_t", time_of(rv->timed, rv->team));
}

/* Whether the callee times of routine i's calls at byte offset off (a per-worker tally)
 * were measured: calls of counted routines only, or a count-only run, add none. */
static bool callees_timed(const cprof_view *v, size_t i, size_t off)
{
    return v->r[i].c_callees_timed || !cprof_view_spread(v, i, off).sum.n;
}

/* One time over the ranks (view.h). */
static json_t *rank_spread(const cprof_profile *p, const cprof_rank_spread *s)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:f}", "min", (json_int_t)s->min,
                     "mean", (json_int_t)llround(s->mean), "max", (json_int_t)s->max,
                     "slowest_rank", (json_int_t)p->ranks[s->slowest].rank,
                     "imbalance", cprof_rank_imbalance(s));
}

/* In an MPI job: routine i on each rank, and spread over the ranks. */
static json_t *routine_ranks(const cprof_view *v, size_t i)
{
    const cprof_profile *p = v->p;
    json_t *ranks = json_array();
    for (size_t k = 0; k < p->nranks; k++) {
        cprof_figures f = cprof_view_rank(v, i, k);
        ranks = append(ranks, json_pack("{s:I, s:I, s:I, s:o, s:o}",
                                        "rank", (json_int_t)p->ranks[k].rank,
                                        "s_calls", (json_int_t)f.s_calls,
                                        "c_calls", (json_int_t)f.c_calls,
                                        "self_worker_t", time_of(v->r[i].timed, f.self),
                                        "inclusive_worker_t", time_of(v->r[i].timed, f.inclusive)));
    }
    cprof_rank_balance b = cprof_view_rank_balance(v, i);
    json_t *threads = b.threads > 0 ? json_pack("{s:f, s:I}", "imbalance", b.threads, "rank",
                                                (json_int_t)p->ranks[b.threads_rank].rank)
                                    : json_null();
    return json_pack("{s:o, s:{s:I, s:o, s:o, s:o}}", "ranks", ranks, "rank_imbalance",
                     "ranks", (json_int_t)b.ran, "inclusive", rank_spread(p, &b.inclusive),
                     "threads", threads, "self", rank_spread(p, &b.self));
}

static json_t *routine(const cprof_view *v, size_t i)
{
    const cprof_profile *p = v->p;
    const cprof_prof_routine *r = &p->routines[i];
    const cprof_rview *rv = &v->r[i];
    /* Its own times, and those of the calls it made in each case, where measured. */
    bool own = rv->timed, ss = rv->s_callees_timed || !r->s_callee.n;
    bool sc = callees_timed(v, i, offsetof(cprof_prof_routine_worker, c_callee));
    bool cs = callees_timed(v, i, offsetof(cprof_prof_routine_worker, cs_callee));
    bool cc = callees_timed(v, i, offsetof(cprof_prof_routine_worker, cc_callee));
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o,"
                     " s:o, s:o, s:I, s:o, s:o, s:I, s:o, s:I, s:o}",
                     "name", r->name, "file", r->file, "line", (json_int_t)r->line,
                     "s_caller", (json_int_t)r->s_caller.n,
                     "s_caller_t", time_of(own, r->s_caller.t),
                     "c_caller", PER_WORKER(c_caller.n), "c_caller_t", PER_WORKER_T(c_caller.t, own),
                     "s_callee", (json_int_t)r->s_callee.n,
                     "s_callee_t", time_of(ss, r->s_callee.t),
                     "c_callee", PER_WORKER(c_callee.n), "c_callee_t", PER_WORKER_T(c_callee.t, sc),
                     "cs_callee", PER_WORKER(cs_callee.n),
                     "cs_callee_t", PER_WORKER_T(cs_callee.t, cs),
                     "cc_callee", PER_WORKER(cc_callee.n),
                     "cc_callee_t", PER_WORKER_T(cc_callee.t, cc),
                     "max_depth", (json_int_t)r->max_depth,
                     "s_self_t", time_of(own, r->s_self_t), "c_self_t", PER_WORKER_T(c_self_t, own),
                     "s_nested", (json_int_t)r->s_caller.nested,
                     "c_nested", PER_WORKER(c_caller.nested),
                     "s_direct", (json_int_t)r->s_direct, "c_direct", PER_WORKER(c_direct));
    if (!o)
        return NULL;
    /* Counted at its call sites: its times are its callers' (docs/performance.md). */
    if (r->counted)
        json_object_set_new(o, "counted", json_true());
    if (r->inlinable)
        json_object_set_new(o, "inlinable", json_true());
    json_t *more = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                             "c_caller_thread_t", PER_WORKER_T(c_thread_t, own),
                             "team_t", PER_WORKER_T(team_t, own),
                             "team_self_t", PER_WORKER_T(team_self_t, own),
                             "s_callee_outer_t", time_of(ss, cprof_outer(&r->s_callee)),
                             "c_callee_outer_t", PER_WORKER_OUTER(c_callee, sc),
                             "cs_callee_outer_t", PER_WORKER_OUTER(cs_callee, cs),
                             "cc_callee_outer_t", PER_WORKER_OUTER(cc_callee, cc));
    if (json_object_update_new(o, more) || json_object_update_new(o, units(rv))) {
        json_decref(o);
        return NULL;
    }
    static const char *const keys[] = {"time_error_ns", "self_time_error_ns",
                                       "wall_time_error_ns", "wall_self_time_error_ns"};
    const cprof_error e[] = {rv->incl_err, rv->self_err, rv->wall_err, rv->wall_self_err};
    return mark_estimates(o, keys, e, 4);
}

/* An arc's or site's times, where measured: an arc into a counted routine has none. */
#define ARC_TIME(m, x) time_of((m) || !(x).n, (x).t)
#define ARC_OUTER(m, x) time_of((m) || !(x).n, cprof_outer(&(x)))

/* A site; its cases in the order S-S, S-C, C-S, C-C, as a path's. */
static json_t *site(const cprof_prof_site *s, bool m)
{
    json_t *calls = json_array(), *time = json_array(), *outer = json_array();
    for (int k = 0; k < 4; k++) {
        calls = append(calls, json_integer(s->cases[k].n));
        time = append(time, ARC_TIME(m, s->cases[k]));
        outer = append(outer, ARC_OUTER(m, s->cases[k]));
    }
    return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o}",
                     "file", s->file, "line", (json_int_t)s->line,
                     "s_callarc", (json_int_t)s->s.n, "c_callarc", (json_int_t)s->c.n,
                     "s_callarc_t", ARC_TIME(m, s->s), "c_callarc_t", ARC_TIME(m, s->c),
                     "s_nested", (json_int_t)s->s.nested, "c_nested", (json_int_t)s->c.nested,
                     "s_callarc_outer_t", ARC_OUTER(m, s->s),
                     "c_callarc_outer_t", ARC_OUTER(m, s->c),
                     "case_calls", calls, "case_t", time, "case_outer_t", outer);
}

static json_t *arc(const cprof_view *v, size_t i)
{
    const cprof_prof_arc *a = &v->p->arcs[i];
    const cprof_profile *p = v->p;
    const cprof_prof_routine *callee = &p->routines[a->callee];
    const cprof_prof_routine *caller =
        a->caller == CPROF_EXTERNAL ? NULL : &p->routines[a->caller];
    bool m = cprof_view_arc_timed(v, a);
    json_t *sites = json_array();
    for (size_t i = 0; i < a->nsites; i++)
        sites = append(sites, site(&a->sites[i], m));
    static const char *const key = "time_error_ns";
    json_t *o = json_pack("{s:s, s:s?, s:s, s:s, s:I, s:I, s:o, s:o, s:I, s:I, s:o, s:o, s:o}",
                     "caller", caller ? caller->name : cprof_external_name,
                     "caller_file", caller ? caller->file : NULL,
                     "callee", callee->name, "callee_file", callee->file,
                     "s_callarc", (json_int_t)a->s.n, "c_callarc", (json_int_t)a->c.n,
                     "s_callarc_t", ARC_TIME(m, a->s), "c_callarc_t", ARC_TIME(m, a->c),
                     "s_nested", (json_int_t)a->s.nested, "c_nested", (json_int_t)a->c.nested,
                     "s_callarc_outer_t", ARC_OUTER(m, a->s),
                     "c_callarc_outer_t", ARC_OUTER(m, a->c), "sites", sites);
    return v->arc_err ? mark_estimates(o, &key, &v->arc_err[i], 1) : o;
}

/* A calling context; its cases in the order S-S, S-C, C-S, C-C.  Its calls' times,
 * where measured (not a counted routine's); its worker self and inclusive time, where
 * measured (cprof_view_path_timed). */
static json_t *path(const cprof_view *v, size_t i)
{
    const cprof_profile *p = v->p;
    const cprof_prof_path *x = &p->paths[i];
    const cprof_prof_routine *r = CPROF_IS_ROUTINE(x->routine) ? &p->routines[x->routine] : NULL;
    bool m = v->timed && !(r && r->counted), own = cprof_view_path_timed(v, i);
    json_t *calls = json_array(), *time = m ? json_array() : json_null(),
           *outer = m ? json_array() : json_null(), *nested = json_array(),
           *wcalls = json_array(), *wtime = m ? json_array() : json_null();
    for (int k = 0; k < 4; k++) {
        calls = append(calls, json_integer(x->cases[k].n));
        if (m) {
            time = append(time, json_integer(x->cases[k].t));
            outer = append(outer, json_integer(cprof_outer(&x->cases[k])));
        }
        nested = append(nested, json_integer(x->cases[k].nested));
    }
    for (size_t w = 0; w < p->nworkers; w++) {
        wcalls = append(wcalls, json_integer(x->worker[w].n));
        if (m)
            wtime = append(wtime, json_integer(cprof_outer(&x->worker[w])));
    }
    json_t *parent = x->parent == CPROF_NO_PATH ? json_null() : json_integer((json_int_t)x->parent);
    json_t *site = x->site_file ? json_pack("{s:s, s:I}", "file", x->site_file,
                                            "line", (json_int_t)x->site_line)
                                : json_null();
    json_t *samples = NULL;
    for (size_t res = 0; res < p->nresources; res++)
        if (p->resources[res].period) {
            if (!samples)
                samples = json_object();
            json_object_set_new(samples, p->resources[res].name,
                                json_pack("[I, I]", (json_int_t)x->samples[2 * res],
                                          (json_int_t)x->samples[2 * res + 1]));
        }
    static const char *const keys[] = {"time_error_ns", "self_time_error_ns"};
    const cprof_error e[] = {x->time_err, x->self_err};
    json_t *o = json_pack("{s:I, s:o, s:s, s:s?, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
                     " s:o*}",
                     "id", (json_int_t)i, "parent", parent,
                     "routine", r ? r->name : cprof_path_special_name(x->routine), "file", r ? r->file : NULL,
                     "site", site, "folds_into", (json_int_t)x->folds_into,
                     "calls", calls, "time", time, "outer_time", outer, "nested", nested,
                     "worker_calls", wcalls, "worker_outer_time", wtime,
                     "self_worker_t", time_of(own, x->self),
                     "inclusive_worker_t", time_of(own, x->inclusive), "samples", samples);
    return mark_estimates(o, keys, e, 2);
}

/* A share in % (cprof_cpu_share), null where it has none. */
static json_t *share(int64_t cpu_ns, int64_t time_ns)
{
    double pct = cprof_cpu_share(cpu_ns, time_ns);
    return isnan(pct) ? json_null() : json_real(pct);
}

/* A resource beyond time (docs/resources.md): as declared, each worker's total (null:
 * no counter) and samples outside any profiled routine, and the routines it was
 * charged to; for cpu, each worker's utilisation and each routine's cpu/wall (the
 * columns of --resources, rescols.c). */
static json_t *resource(const cprof_view *v, size_t r)
{
    const cprof_profile *p = v->p;
    const cprof_prof_resource *x = &p->resources[r];
    bool cpu = cprof_resource_is_cpu(x);
    json_t *totals = json_array(), *outside = json_array(), *routines = json_array();
    json_t *utilisation = cpu ? json_array() : NULL;
    for (size_t w = 0; w < p->nworkers; w++) {
        int64_t t = cprof_resource_total(p, w, r);
        const int64_t *o = &p->res_outside[(w * p->nresources + r) * 2];
        totals = append(totals, t < 0 ? json_null() : json_integer(t));
        outside = append(outside, json_pack("[I, I]", (json_int_t)o[0], (json_int_t)o[1]));
        if (cpu)
            utilisation = append(utilisation, share(t, p->elapsed_ns));
    }
    if (x->period) {
        int64_t (*self)[2] = cprof_xcalloc(p->nroutines + 1, sizeof *self);
        int64_t *incl = cprof_xcalloc(p->nroutines + 1, sizeof *incl);
        int64_t *path_incl = cprof_xcalloc(p->npaths + 1, sizeof *path_incl);
        cprof_resource_sums(p, r, self, incl, path_incl);
        for (size_t i = 0; i < p->nroutines; i++) {
            if (!incl[i])
                continue;
            json_t *o = json_pack(
                "{s:s, s:s, s:I, s:I, s:I}", "name", p->routines[i].name,
                "file", p->routines[i].file, "s_samples", (json_int_t)self[i][0],
                "c_samples", (json_int_t)self[i][1], "inclusive_samples", (json_int_t)incl[i]);
            if (o && cpu &&
                json_object_set_new(o, "pct_cpu_wall",
                                    share(v->r[i].timed ? cprof_resource_amount(x, incl[i]) : -1,
                                          v->r[i].inclusive))) {
                json_decref(o);
                o = NULL;
            }
            routines = append(routines, o);
        }
        free(self);
        free(incl);
        free(path_incl);
    }
    return json_pack("{s:s, s:s, s:s, s:I, s:b, s:s?, s:o, s:o, s:o, s:o*}", "name", x->name,
                     "unit", x->unit, "event", x->event, "period", (json_int_t)x->period,
                     "available", x->available, "reason", x->reason, "totals", totals,
                     "outside", outside, "routines", routines, "pct_elapsed", utilisation);
}

static json_t *worker(const cprof_profile *p, size_t id)
{
    const cprof_prof_worker *w = &p->workers[id];
    json_t *o = json_pack("{s:I, s:I, s:I, s:o, s:o}", "id", (json_int_t)id,
                          "tid", (json_int_t)w->tid, "omp_thread", (json_int_t)w->omp_thread,
                          "pu", cprof_json_known(w->pu), "core", cprof_json_known(w->core));
    /* In an MPI job, the worker's rank and its id in that rank's file. */
    if (o && p->nranks &&
        json_object_update_new(o, json_pack("{s:I, s:I}", "rank", (json_int_t)w->rank,
                                            "rank_worker", (json_int_t)w->id))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* An MPI job: its id, size and hosts, and what each rank did. */
static json_t *job(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    json_t *ranks = json_array();
    for (size_t k = 0; k < p->nranks; k++) {
        const cprof_prof_rank *r = &p->ranks[k];
        json_t *workers = json_array();
        cprof_figures sum = {0, 0, 0, 0, 0, 0};
        for (size_t w = 0; w < r->nworkers; w++)
            workers = append(workers, json_integer((json_int_t)(r->first_worker + w)));
        for (size_t i = 0; i < p->nroutines; i++) {
            cprof_figures f = cprof_view_rank(v, i, k);
            sum.s_calls = cprof_add(sum.s_calls, f.s_calls);
            sum.c_calls = cprof_add(sum.c_calls, f.c_calls);
            sum.self = cprof_add(sum.self, f.self);
        }
        ranks = append(ranks, json_pack("{s:I, s:s, s:I, s:I, s:I, s:o, s:I, s:I, s:o}",
                                        "rank", (json_int_t)r->rank, "host", r->host,
                                        "pid", (json_int_t)r->pid,
                                        "start_unix_ns", (json_int_t)r->start_unix_ns,
                                        "elapsed_ns", (json_int_t)r->elapsed_ns,
                                        "workers", workers, "s_calls", (json_int_t)sum.s_calls,
                                        "c_calls", (json_int_t)sum.c_calls,
                                        "self_worker_t", time_of(v->timed, sum.self)));
    }
    return json_pack("{s:s, s:I, s:I, s:o}", "id", p->job, "size", (json_int_t)p->size,
                     "hosts", (json_int_t)p->nhosts, "ranks", ranks);
}

/* A construct's figures (docs/report-json.md, "Regions"): each summed over the workers
 * and, under "worker_" + its key, per worker; then what the report derives. */
static json_t *region(const cprof_view *v, size_t i)
{
    static const struct { const char *key; size_t off; } fig[] = {
#define FIG(key, field) {key, offsetof(cprof_prof_region_worker, field)}
        FIG("executions", executions), FIG("busy_t", busy_t), FIG("nested", nested),
        FIG("barriers", barriers), FIG("barrier_wait_t", barrier_wait),
        FIG("end_wait_t", end_wait), FIG("team_min", team_min), FIG("team_max", team_max),
        FIG("team_sum", team_sum), FIG("opened", opened), FIG("max_busy_t", max_busy),
        FIG("mean_busy_t", mean_busy),
#undef FIG
    };
    const cprof_profile *p = v->p;
    const cprof_prof_region *r = &p->regions[i];
    const cprof_gview *g = &v->g[i];
    json_t *o = json_pack("{s:s, s:s?, s:o, s:s?, s:o, s:i, s:I}",
                          "construct", cprof_region_kinds[r->kind],
                          "file", r->file, "line", r->file ? json_integer(r->line) : json_null(),
                          "routine", r->routine == CPROF_OTHER_ROUTINE ? NULL
                                                                       : p->routines[r->routine].name,
                          "enclosing", g->parent == SIZE_MAX ? json_null()
                                                             : json_integer((json_int_t)g->parent),
                          "depth", g->depth, "runs", (json_int_t)g->executions);
    for (size_t k = 0; o && k < sizeof fig / sizeof *fig; k++) {
        /* A time's key ends in _t: a count-only run measured none. */
        bool m = v->timed || !strstr(fig[k].key, "_t");
        json_t *per = json_array();
        for (size_t w = 0; w < p->nworkers; w++)
            per = append(per, time_of(m, *(const int64_t *)((const char *)&r->worker[w] +
                                                            fig[k].off)));
        char key[32];
        snprintf(key, sizeof key, "worker_%s", fig[k].key);
        if (json_object_set_new(o, fig[k].key,
                                time_of(m, *(const int64_t *)((const char *)&g->sum + fig[k].off))) ||
            !per || json_object_set_new(o, key, per)) {
            json_decref(o);
            o = NULL;
        }
    }
    json_t *more = json_pack("{s:I, s:o, s:o, s:o, s:o}", "workers", (json_int_t)g->workers,
                             "busy_min_t", time_of(v->timed, g->busy_min),
                             "busy_max_t", time_of(v->timed, g->busy_max),
                             "imbalance", v->timed ? json_real(g->imbalance) : json_null(),
                             "lost_t", time_of(v->timed, g->lost));
    if (!o || !more || json_object_update_new(o, more)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

char *cprof_report_json(const cprof_profile *p)
{
    json_t *workers = json_array(), *routines = json_array(), *arcs = json_array();
    for (size_t i = 0; i < p->nworkers; i++)
        workers = append(workers, worker(p, i));
    static const cprof_opts all;   /* every routine, no option */
    cprof_view v;
    cprof_view_init(&v, p, &all);
    for (size_t i = 0; i < p->nroutines; i++) {
        json_t *o = routine(&v, i);
        if (o && p->nranks && json_object_update_new(o, routine_ranks(&v, i))) {
            json_decref(o);
            o = NULL;
        }
        routines = append(routines, o);
    }
    json_t *the_job = p->nranks ? job(&v) : NULL;
    json_t *regions = p->nregions ? json_array() : NULL;
    for (size_t i = 0; i < p->nregions; i++)
        regions = append(regions, region(&v, i));
    json_t *res = p->nresources ? json_array() : NULL;
    for (size_t r = 0; r < p->nresources; r++)
        res = append(res, resource(&v, r));
    for (size_t i = 0; i < p->narcs; i++)
        arcs = append(arcs, arc(&v, i));
    json_t *programs = json_array();
    for (size_t i = 0; i < p->nprograms; i++)
        programs = append(programs, json_pack("{s:s, s:I}", "program", p->programs[i].name,
                                              "files", (json_int_t)p->programs[i].nfiles));
    json_t *doc = json_pack("{s:s, s:i, s:s, s:I, s:s, s:I, s:f, s:b, s:{s:o, s:o, s:o},"
                            " s:I, s:I, s:o, s:o, s:o, s:o}",
                            "format", "cprof", "version", 2, "program", p->program,
                            "elapsed_ns", (json_int_t)p->elapsed_ns, "clock", p->clock,
                            "start_unix_ns", (json_int_t)p->start_unix_ns,
                            "call_cost_ns", p->call_cost_ns, "compensated", p->compensated,
                            "machine", "pus", cprof_json_known(p->pus),
                            "cores", cprof_json_known(p->cores), "packages",
                            cprof_json_known(p->packages),
                            "files", (json_int_t)p->nfiles,
                            "files_skipped", (json_int_t)p->nskipped, "programs", programs,
                            "workers", workers, "routines", routines, "arcs", arcs);
    /* The ranks of an MPI job (docs/mpi.md) are described. */
    if (doc && p->nranks && (!the_job || json_object_set_new(doc, "job", the_job))) {
        json_decref(doc);
        doc = NULL;
    } else if (!doc)
        json_decref(the_job);
    /* Profiles with calling contexts (docs/semantics.md) list them. */
    if (doc && p->npaths) {
        json_t *paths = json_array();
        for (size_t i = 0; i < p->npaths; i++)
            paths = append(paths, path(&v, i));
        if (!paths || json_object_set_new(doc, "paths", paths)) {
            json_decref(doc);
            doc = NULL;
        }
    }
    cprof_view_free(&v);
    /* Profiles of programs that ran parallel regions or tasks list their constructs. */
    if (doc && p->nregions && (!regions || json_object_set_new(doc, "regions", regions))) {
        json_decref(doc);
        doc = NULL;
    } else if (!doc)
        json_decref(regions);
    if (doc && p->nresources && (!res || json_object_set_new(doc, "resources", res))) {
        json_decref(doc);
        doc = NULL;
    } else if (!doc)
        json_decref(res);
    /* The OpenMP runtime and what cprof could observe of it (docs/report-json.md). */
    if (doc && p->omp_runtime) {
        json_t *omp = json_pack("{s:s, s:s, s:b, s:b}", "runtime", p->omp_runtime, "observed",
                                p->omp_observed, "cases", !cprof_cases_unknown(p),
                                "regions", p->omp_unseen_files < p->nfiles);
        if (omp && p->omp_reason && json_object_set_new(omp, "reason", json_string(p->omp_reason)))
            omp = NULL;
        if (!omp || json_object_set_new(doc, "openmp", omp)) {
            json_decref(doc);
            doc = NULL;
        }
    }
    /* What profiling cost, measured (docs/overhead.md), where the files say. */
    if (doc && (p->ovh_files || p->ovh_none_files)) {
        json_t *o = p->ovh_files
            ? json_pack("{s:s, s:I, s:I, s:I, s:s}", "method", "cpu samples",
                        "samples", (json_int_t)p->ovh_samples, "in_cprof", (json_int_t)p->ovh_in_cprof,
                        "period_ns", (json_int_t)p->ovh_period_ns, "not_covered", p->ovh_not_covered)
            : json_pack("{s:s}", "method", "none");
        if (o && p->ovh_notes && json_object_set_new(o, "notes", json_string(p->ovh_notes)))
            o = NULL;
        if (o && p->ovh_none_files &&
            (json_object_set_new(o, "unmeasured_files", json_integer((json_int_t)p->ovh_none_files)) ||
             json_object_set_new(o, "reason", json_string(p->ovh_reason))))
            o = NULL;
        if (!o || json_object_set_new(doc, "overhead", o)) {
            json_decref(doc);
            doc = NULL;
        }
    }
    /* The units cprof-cc compiled without profiling (docs/cprof-cc.md). */
    if (doc && p->nunprofiled && json_object_set_new(doc, "unprofiled", cprof_unprofiled_json(p))) {
        json_decref(doc);
        doc = NULL;
    }
    /* Where the workers ran (docs/placement.md). */
    if (doc && p->nprocesses) {
        json_t *placement = cprof_placement_json(p);
        if (!placement || json_object_set_new(doc, "placement", placement)) {
            json_decref(doc);
            doc = NULL;
        }
    }
    /* Sampled timing (docs/semantics.md): how, and how many routines' times are
     * estimates. */
    const cprof_prof_timing *t = &p->timing;
    if (doc && t->sampled_files) {
        json_t *timing = json_pack("{s:I, s:I, s:I, s:b, s:I, s:f, s:f, s:I, s:I}",
                                   "files_sampled", (json_int_t)t->sampled_files,
                                   "files_uncorrected", (json_int_t)t->uncorrected_files,
                                   "period", (json_int_t)t->period,
                                   "periods_differ", t->periods_differ,
                                   "min_activations", (json_int_t)t->min_activations,
                                   "short_ns", t->short_ns,
                                   "call_cost_ns", t->call_cost_ns,
                                   "routines_estimated", (json_int_t)v.nestimated,
                                   "errors_unknown", (json_int_t)v.nunknown);
        if (!timing || json_object_set_new(doc, "timing", timing)) {
            json_decref(doc);
            doc = NULL;
        }
    }
    /* Input-sensitive profiles (docs/input-size.md). */
    if (doc && p->size_info.cell) {
        json_t *sizes = cprof_sizes_json(p);
        if (!sizes || json_object_set_new(doc, "input_sizes", sizes)) {
            json_decref(doc);
            doc = NULL;
        }
    }
    return cprof_json_text(doc, 2);
}

struct json_t *cprof_unprofiled_json(const cprof_profile *p)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->nunprofiled; i++)
        a = append(a, json_pack("{s:s, s:s}", "file", p->unprofiled[i].file,
                                "reason", p->unprofiled[i].reason));
    return a;
}
