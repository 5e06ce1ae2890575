/* placeview.c: where the workers ran, as the report shows it (docs/placement.md): each
 * worker's PUs and their cores, packages and NUMA nodes, the pairs of workers that
 * shared a PU or a core at the same time, and the flags a user can act on; the
 * sections placement, placement-flags, binding and machine, and --json's "placement".
 *
 * Two workers share a PU (or a core: its SMT siblings) for the time both were placed
 * on it in the same stretch of the run.  Each worker's bins are laid on one grid per
 * host: the earliest start of its processes, the widest bin of its workers (a bin that
 * straddles two of the grid's is split between them by time); in a bin of the grid,
 * two workers on the same PU share the smaller of their times there.
 */
#define _GNU_SOURCE
#include "report.h"
#include "../model/alloc.h"
#include "../../format/topology.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define NELEM(a) (sizeof (a) / sizeof *(a))
/* A pair sharing less than this share of the run is not flagged (--json lists it). */
#define SHARE_FLAG_PCT 1.0
/* Flags of one kind past these are counted in one line. */
#define MAX_SHARE_FLAGS 16
#define MAX_MOVE_FLAGS 8
/* The bins of the grid workers are compared on, at most. */
#define GRID_MAX 65536

json_t *cprof_json_known(int64_t v)
{
    return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

/* ---- text ---- */

/* PUs as ranges: "0-3,8,10-11"; "" for none. */
static char *ranges(const int64_t *v, size_t n)
{
    char *s = cprof_xstrdup("");
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k + 1 < n && v[k + 1] == v[k] + 1)
            k++;
        char *t = k == i ? cprof_xasprintf("%s%s%lld", s, *s ? "," : "", (long long)v[i])
                         : cprof_xasprintf("%s%s%lld-%lld", s, *s ? "," : "", (long long)v[i],
                                           (long long)v[k]);
        free(s);
        s = t;
        i = k + 1;
    }
    return s;
}

static char *set_text(const cprof_pu_set *s)
{
    return ranges(s->pu, s->n);
}

/* An affinity mask, or "-" (CSV: empty) where it was not read. */
static void affinity_cell(cprof_table *t, bool known, const cprof_pu_set *s)
{
    char *mask = known ? set_text(s) : cprof_xstrdup("");
    cprof_cell_str2(t, known ? mask : "-", mask);
    free(mask);
}

/* Bytes as "48 KiB", "32 MiB", "15.7 GiB". */
static char *bytes(int64_t b)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)b;
    size_t u = 0;
    while (x >= 1024 && u + 1 < NELEM(units)) {
        x /= 1024;
        u++;
    }
    return x == (double)(int64_t)x ? cprof_xasprintf("%lld %s", (long long)x, units[u])
                                   : cprof_xasprintf("%.1f %s", x, units[u]);
}

/* s with more appended (s freed). */
static char *append(char *s, const char *sep, const char *more)
{
    char *t = cprof_xasprintf("%s%s%s", s, *s ? sep : "", more);
    free(s);
    return t;
}

/* ---- what a worker's placement says ---- */

static const cprof_prof_machine *machine_of(const cprof_profile *p, size_t w)
{
    return &p->machines[p->processes[p->placement[w].process].machine];
}

/* PU pu's row [pu, core, package, node] on machine m, or NULL. */
static const int64_t *pu_row(const cprof_prof_machine *m, int64_t pu)
{
    for (size_t i = 0; i < m->npus; i++)
        if (m->pus[i][0] == pu)
            return m->pus[i];
    return NULL;
}

static bool placed(const cprof_profile *p, size_t w)
{
    return p->placement && p->placement[w].known;
}

bool cprof_worker_where(const cprof_profile *p, size_t w, cprof_where *out)
{
    if (!placed(p, w))
        return false;
    const cprof_prof_placement *x = &p->placement[w];
    int64_t best = -1, most = -1;
    for (size_t i = 0; i < x->npus; i++)
        if (x->pus[i][1] > most) {
            most = x->pus[i][1];
            best = x->pus[i][0];
        }
    const int64_t *row = pu_row(machine_of(p, w), best);
    *out = (cprof_where){best, row ? row[1] : -1, row ? row[2] : -1, row ? row[3] : -1, x->moves};
    return true;
}

/* The distinct values of column c of the rows of worker w's PUs (-1 left out). */
static size_t distinct(const cprof_profile *p, size_t w, int c, int64_t *out)
{
    const cprof_prof_placement *x = &p->placement[w];
    size_t n = 0;
    for (size_t i = 0; i < x->npus; i++) {
        const int64_t *row = pu_row(machine_of(p, w), x->pus[i][0]);
        int64_t v = c == 0 ? x->pus[i][0] : row ? row[c] : -1;
        size_t k = 0;
        while (k < n && out[k] != v)
            k++;
        if (v >= 0 && k == n) {
            /* Kept ascending. */
            while (k > 0 && out[k - 1] > v) {
                out[k] = out[k - 1];
                k--;
            }
            out[k] = v;
            n++;
        }
    }
    return n;
}

/* "worker 3", or in a job "rank 1 worker 3". */
static char *worker_name(const cprof_profile *p, size_t w)
{
    return p->nranks ? cprof_xasprintf("rank %lld worker %lld", (long long)p->workers[w].rank,
                                       (long long)p->workers[w].id)
                     : cprof_xasprintf("worker %lld", (long long)p->workers[w].id);
}

/* ---- workers sharing PUs and cores ---- */

typedef struct {
    size_t a, b;                /* workers, a < b */
    int64_t pu_ns, core_ns;     /* the time they shared a PU, and a core on two PUs */
    int64_t pu, core;           /* the PU and core of their largest shared stretch */
    int64_t pu_max, core_max;   /* and those stretches' times */
    int64_t span;               /* the run they are a share of: their processes' longer */
} pair;

typedef struct {
    pair *pairs;
    size_t n, cap;
} pairs;

/* The pair of workers a < b, whose index + 1 is *at (0: none yet).  Looked up by the
 * caller's table of its machine's pairs: a job's ranks on one host may make thousands. */
static pair *pair_of(pairs *ps, size_t *at, size_t a, size_t b)
{
    if (*at)
        return &ps->pairs[*at - 1];
    if (ps->n == ps->cap)
        ps->pairs = cprof_xrealloc(ps->pairs, (ps->cap = 2 * ps->cap + 16) * sizeof *ps->pairs);
    ps->pairs[ps->n] = (pair){a, b, 0, 0, -1, -1, 0, 0, 0};
    *at = ++ps->n;
    return &ps->pairs[ps->n - 1];
}

/* One worker's time in one bin of the grid. */
typedef struct {
    size_t w, i;                /* the worker, its index on its machine */
    int64_t pu, core, ns;
} slot;

static int cmp_slot(const void *x, const void *y)
{
    const slot *a = x, *b = y;
    return a->core != b->core ? (a->core > b->core) - (a->core < b->core)
                              : (a->pu > b->pu) - (a->pu < b->pu);
}

/* A bin of the grid keeps one PU per worker, the one of its longer time. */
static void into_grid(int64_t *pu, int64_t *ns, int64_t b_pu, int64_t b_ns)
{
    if (*ns == 0 || *pu == b_pu) {
        *pu = b_pu;
        *ns += b_ns;
    } else if (b_ns > *ns) {
        *pu = b_pu;
        *ns = b_ns;
    }
}

/* The pairs of workers on machine mi that shared a PU or a core. */
static void share_on(const cprof_profile *p, size_t mi, pairs *ps)
{
    const cprof_prof_machine *m = &p->machines[mi];
    size_t *ws = cprof_xcalloc(p->nworkers + 1, sizeof *ws), nw = 0;
    int64_t origin = INT64_MAX, end = 0;
    double width = 1;
    for (size_t w = 0; w < p->nworkers; w++) {
        if (!placed(p, w) || p->processes[p->placement[w].process].machine != mi)
            continue;
        const cprof_prof_process *x = &p->processes[p->placement[w].process];
        ws[nw++] = w;
        if (x->start_unix_ns < origin)
            origin = x->start_unix_ns;
        if (x->start_unix_ns + x->span_ns > end)
            end = x->start_unix_ns + x->span_ns;
        if (p->placement[w].bin_ns > width)
            width = p->placement[w].bin_ns;
    }
    /* Ranks that started far apart (a job's, or files doctored so) share a coarser grid,
     * of GRID_MAX bins at most. */
    if ((double)(end - origin) / width > GRID_MAX)
        width = (double)(end - origin) / GRID_MAX;
    size_t nbins = nw > 1 && end > origin ? (size_t)((double)(end - origin) / width) + 2 : 0;
    int64_t *gpu = cprof_xcalloc(nbins * nw + 1, sizeof *gpu);
    int64_t *gns = cprof_xcalloc(nbins * nw + 1, sizeof *gns);
    for (size_t i = 0; i < nw && nbins; i++) {
        const cprof_prof_placement *x = &p->placement[ws[i]];
        double start = (double)(p->processes[x->process].start_unix_ns - origin);
        for (size_t k = 0; k < x->nbins; k++) {
            /* Bins of one process line up exactly: their widths are 2^k of one unit. */
            double t0 = start + (double)x->bins[k][0] * x->bin_ns, t1 = t0 + x->bin_ns;
            for (size_t g = (size_t)(t0 / width); (double)g * width < t1 && g < nbins; g++) {
                double lo = t0 > (double)g * width ? t0 : (double)g * width;
                double hi = t1 < (double)(g + 1) * width ? t1 : (double)(g + 1) * width;
                if (hi <= lo)
                    continue;
                /* The bin's time in proportion to its part in this one. */
                int64_t ns = hi - lo == x->bin_ns ? x->bins[k][2]
                           : (int64_t)((double)x->bins[k][2] * (hi - lo) / x->bin_ns + 0.5);
                into_grid(&gpu[g * nw + i], &gns[g * nw + i], x->bins[k][1], ns);
            }
        }
    }
    slot *s = cprof_xcalloc(nw + 1, sizeof *s);
    size_t *at = cprof_xcalloc(nbins ? nw * nw : 1, sizeof *at);
    for (size_t g = 0; g < nbins; g++) {
        size_t n = 0;
        for (size_t i = 0; i < nw; i++)
            if (gns[g * nw + i] > 0) {
                const int64_t *row = pu_row(m, gpu[g * nw + i]);
                /* With no core known, a PU is its own core. */
                int64_t core = row && row[1] >= 0 ? row[1] : -1 - gpu[g * nw + i];
                s[n++] = (slot){ws[i], i, gpu[g * nw + i], core, gns[g * nw + i]};
            }
        qsort(s, n, sizeof *s, cmp_slot);
        for (size_t i = 0; i < n; i++)
            for (size_t k = i + 1; k < n && s[k].core == s[i].core; k++) {
                size_t a = s[i].w < s[k].w ? s[i].w : s[k].w, b = s[i].w ^ s[k].w ^ a;
                /* ws is in the workers' order: a's index is the smaller one */
                size_t ia = s[i].w < s[k].w ? s[i].i : s[k].i, ib = s[i].i ^ s[k].i ^ ia;
                pair *x = pair_of(ps, &at[ia * nw + ib], a, b);
                int64_t ns = s[i].ns < s[k].ns ? s[i].ns : s[k].ns;
                if (s[i].pu == s[k].pu) {
                    x->pu_ns += ns;
                    if (ns > x->pu_max) {
                        x->pu_max = ns;
                        x->pu = s[i].pu;
                    }
                } else {
                    x->core_ns += ns;
                    if (ns > x->core_max) {
                        x->core_max = ns;
                        x->core = s[i].core;
                    }
                }
                int64_t sa = p->processes[p->placement[a].process].span_ns;
                int64_t sb = p->processes[p->placement[b].process].span_ns;
                x->span = sa > sb ? sa : sb;
            }
    }
    free(s);
    free(at);
    free(gpu);
    free(gns);
    free(ws);
}

static int cmp_pair(const void *x, const void *y)
{
    const pair *a = x, *b = y;
    int64_t ta = a->pu_ns + a->core_ns, tb = b->pu_ns + b->core_ns;
    return ta != tb ? (ta < tb) - (ta > tb) : a->a != b->a ? (a->a > b->a) - (a->a < b->a)
                                                          : (a->b > b->b) - (a->b < b->b);
}

/* Every pair that shared, the most sharing first. */
static pairs sharing(const cprof_profile *p)
{
    pairs ps = {0};
    for (size_t m = 0; m < p->nmachines; m++)
        share_on(p, m, &ps);
    if (ps.n)
        qsort(ps.pairs, ps.n, sizeof *ps.pairs, cmp_pair);
    return ps;
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- flags ---- */

typedef struct {
    const char *kind;
    char *text;
    int64_t rank;               /* the process's, -1 outside a job */
    size_t workers[2], nworkers;
    int64_t pu, core, count;    /* -1: none (the kind has none) */
    double pct;                 /* NAN: none */
} flag;

typedef struct {
    flag *f;
    size_t n;
} flags;

static flag *add_flag(flags *fs, const char *kind, int64_t rank, char *text)
{
    fs->f = cprof_xrealloc(fs->f, (fs->n + 1) * sizeof *fs->f);
    flag *f = &fs->f[fs->n++];
    *f = (flag){kind, text, rank, {0, 0}, 0, -1, -1, -1, NAN};
    return f;
}

/* "rank 1 (host a): ", or "" outside a job. */
static char *process_prefix(const cprof_profile *p, const cprof_prof_process *x)
{
    return p->nranks ? cprof_xasprintf("rank %lld (%s): ", (long long)x->rank,
                                       p->machines[x->machine].host)
                     : cprof_xstrdup("");
}

static const char *env_of(const cprof_prof_process *x, const char *name)
{
    for (size_t i = 0; i < x->nenv; i++)
        if (!strcmp(x->env_names[i], name))
            return x->env_values[i];
    return NULL;
}

/* The binding of each process: unbound, or confined to one PU; KMP_AFFINITY set. */
static void binding_flags(const cprof_profile *p, flags *fs)
{
    for (size_t i = 0; i < p->nprocesses; i++) {
        const cprof_prof_process *x = &p->processes[i];
        int64_t workers = 0, moves = 0;
        for (size_t w = 0; w < p->nworkers; w++)
            if (placed(p, w) && p->placement[w].process == i) {
                workers++;
                moves += p->placement[w].moves;
            }
        char *pre = process_prefix(p, x), *mask = x->has_affinity ? set_text(&x->affinity)
                                                                  : cprof_xstrdup("unknown");
        const char *bind = env_of(x, "OMP_PROC_BIND");
        char *why = bind ? cprof_xasprintf("OMP_PROC_BIND=%s", bind)
                         : cprof_xstrdup("OMP_PROC_BIND not set");
        if (!strcmp(x->proc_bind, "false") && x->has_affinity && x->affinity.n == 1 && workers > 1)
            add_flag(fs, "confined", x->rank,
                     cprof_xasprintf("%sconfined: the affinity mask allows PU %s only, and %lld"
                                     " workers take turns on it (%s)", pre, mask,
                                     (long long)workers, why))->count = workers;
        else if (!strcmp(x->proc_bind, "false") && workers > 1)
            add_flag(fs, "unbound", x->rank,
                     cprof_xasprintf("%sunbound: %s: the OS may move the %lld workers between PUs"
                                     " %s (%lld move%s seen)", pre, why, (long long)workers, mask,
                                     (long long)moves, moves == 1 ? "" : "s"))->count = moves;
        const char *kmp = env_of(x, "KMP_AFFINITY");
        if (kmp)
            add_flag(fs, "kmp_affinity", x->rank,
                     cprof_xasprintf("%sKMP_AFFINITY=%s is set, but libgomp ignores it: set"
                                     " OMP_PROC_BIND and OMP_PLACES", pre, kmp));
        free(why);
        free(mask);
        free(pre);
    }
}

static void share_flags(const cprof_profile *p, const pairs *ps, flags *fs)
{
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < ps->n; i++)
        for (int core = 0; core < 2; core++) {
            const pair *x = &ps->pairs[i];
            int64_t ns = core ? x->core_ns : x->pu_ns;
            double share = pct(ns, x->span);
            if (share < SHARE_FLAG_PCT)
                continue;
            if (shown == MAX_SHARE_FLAGS) {
                more++;
                continue;
            }
            shown++;
            char *a = worker_name(p, x->a), *b = worker_name(p, x->b), *what;
            /* "worker 0 and worker 1" reads as "workers 0 and 1" outside a job. */
            char *who = p->nranks ? cprof_xasprintf("%s and %s", a, b)
                                  : cprof_xasprintf("workers %lld and %lld",
                                                    (long long)p->workers[x->a].id,
                                                    (long long)p->workers[x->b].id);
            const cprof_prof_machine *m = machine_of(p, x->a);
            if (core) {
                char *sib = NULL;
                for (size_t k = 0; k < m->npus; k++)
                    if (m->pus[k][1] == x->core) {
                        char *n = cprof_xasprintf("%lld", (long long)m->pus[k][0]);
                        sib = sib ? append(sib, ",", n) : cprof_xstrdup(n);
                        free(n);
                    }
                what = cprof_xasprintf("core %lld (SMT: PUs %s)", (long long)x->core, sib ? sib : "?");
                free(sib);
            } else {
                const int64_t *row = pu_row(m, x->pu);
                what = row && row[1] >= 0 ? cprof_xasprintf("PU %lld (core %lld)", (long long)x->pu,
                                                            (long long)row[1])
                                          : cprof_xasprintf("PU %lld", (long long)x->pu);
            }
            int64_t ra = p->workers[x->a].rank, rb = p->workers[x->b].rank;
            flag *f = add_flag(fs, core ? "shared_core" : "shared_pu", ra == rb ? ra : -1,
                               cprof_xasprintf("%s shared %s for %.1f%% of the run", who, what, share));
            f->workers[0] = x->a;
            f->workers[1] = x->b;
            f->nworkers = 2;
            f->pu = core ? -1 : x->pu;
            f->core = core ? x->core : -1;
            f->count = ns;
            f->pct = share;
            free(a);
            free(b);
            free(who);
            free(what);
        }
    if (more)
        add_flag(fs, "shared_more", -1,
                 cprof_xasprintf("%zu more pair%s of workers shared a PU or a core (--json lists"
                                 " them)", more, more == 1 ? "" : "s"))->count = (int64_t)more;
}

static int cmp_moves(const void *x, const void *y, void *arg)
{
    const cprof_profile *p = arg;
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    int64_t ma = p->placement[a].moves, mb = p->placement[b].moves;
    return ma != mb ? (ma < mb) - (ma > mb) : (a > b) - (a < b);
}

/* Workers that moved (the most first), and those that ran on several NUMA nodes. */
static void move_flags(const cprof_profile *p, flags *fs)
{
    size_t *ws = cprof_xcalloc(p->nworkers + 1, sizeof *ws), n = 0;
    for (size_t w = 0; w < p->nworkers; w++)
        if (placed(p, w) && p->placement[w].moves)
            ws[n++] = w;
    qsort_r(ws, n, sizeof *ws, cmp_moves, (void *)p);
    size_t most = 0;
    for (size_t w = 0; w < p->nworkers; w++)
        if (placed(p, w) && p->placement[w].npus > most)
            most = p->placement[w].npus;
    int64_t *v = cprof_xcalloc(most + 1, sizeof *v);    /* distinct()'s */
    for (size_t i = 0; i < n && i < MAX_MOVE_FLAGS; i++) {
        const cprof_prof_placement *x = &p->placement[ws[i]];
        char *who = worker_name(p, ws[i]), *pus = ranges(v, distinct(p, ws[i], 0, v));
        flag *f = add_flag(fs, "moved", p->nranks ? p->workers[ws[i]].rank : -1,
                           cprof_xasprintf("%s moved %lld time%s (PUs %s)", who,
                                           (long long)x->moves, x->moves == 1 ? "" : "s", pus));
        f->workers[0] = ws[i];
        f->nworkers = 1;
        f->count = x->moves;
        free(who);
        free(pus);
    }
    if (n > MAX_MOVE_FLAGS)
        add_flag(fs, "moved_more", -1,
                 cprof_xasprintf("%zu more workers moved (the placement table has them)",
                                 n - MAX_MOVE_FLAGS))->count = (int64_t)(n - MAX_MOVE_FLAGS);
    for (size_t w = 0; w < p->nworkers; w++) {
        size_t nodes = placed(p, w) ? distinct(p, w, 3, v) : 0;
        if (nodes < 2)
            continue;
        char *who = worker_name(p, w), *list = ranges(v, nodes);
        flag *f = add_flag(fs, "numa", p->nranks ? p->workers[w].rank : -1,
                           cprof_xasprintf("%s ran on NUMA nodes %s: part of its memory was"
                                           " remote", who, list));
        f->workers[0] = w;
        f->nworkers = 1;
        f->count = (int64_t)nodes;
        free(who);
        free(list);
    }
    free(v);
    free(ws);
}

static flags all_flags(const cprof_profile *p)
{
    flags fs = {0};
    for (size_t m = 0; m < p->nmachines; m++)
        if (p->machines[m].error)
            add_flag(&fs, "topology", -1,
                     cprof_xasprintf("%s%s%sthe machine's topology is unknown (%s): no cores,"
                                     " packages or NUMA nodes, sharing by PU only",
                                     p->nranks ? "host " : "", p->nranks ? p->machines[m].host : "",
                                     p->nranks ? ": " : "", p->machines[m].error));
    binding_flags(p, &fs);
    pairs ps = sharing(p);
    share_flags(p, &ps, &fs);
    free(ps.pairs);
    move_flags(p, &fs);
    return fs;
}

static void free_flags(flags *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        free(fs->f[i].text);
    free(fs->f);
}

/* ---- the sections ---- */

/* With the profile's placement (or with --csv, a header): else NULL. */
static cprof_table *new_table(const cprof_view *v, const char *title, const char *explain,
                              const cprof_column *cols, size_t ncols)
{
    if (!v->p->nprocesses && !v->o->csv)
        return NULL;
    return cprof_table_new(title, explain, cols, ncols);
}

static const char flags_explain[] =
    "What the placement says that a user can act on: workers unbound (OMP_PROC_BIND not\n"
    "set or false: the OS moves them, and a worker that moves loses its caches) or\n"
    "confined to one PU; two workers that shared a PU (they took turns on it) or a core\n"
    "(SMT siblings: they shared its units and caches) at the same time, for a share of\n"
    "the run (pairs under 1% are not flagged); workers that moved, and between which PUs;\n"
    "workers that ran on several NUMA nodes.  Bind with OMP_PROC_BIND=close or spread and\n"
    "OMP_PLACES=cores (or threads, to use SMT siblings on purpose); see docs/placement.md.\n";

static const cprof_column flag_cols[] = {
    {"flag", "text", true},
    {NULL, "kind", false},
    {NULL, "rank", false},
    {NULL, "workers", false},
    {NULL, "pu", false},
    {NULL, "core", false},
    {NULL, "count", false},
    {NULL, "pct_run", false},
};

cprof_table *cprof_section_placement_flags(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    cprof_table *t = new_table(v, "Placement flags", flags_explain, flag_cols, NELEM(flag_cols));
    if (!t || !p->nprocesses)
        return t;
    flags fs = all_flags(p);
    for (size_t i = 0; i < fs.n; i++) {
        const flag *f = &fs.f[i];
        cprof_table_row(t);
        char *text = cprof_xasprintf("! %s", f->text);
        cprof_cell_str2(t, text, f->text);
        free(text);
        cprof_cell_str(t, f->kind);
        cprof_cell_int(t, f->rank);
        char *ws = f->nworkers == 2
                       ? cprof_xasprintf("%lld;%lld", (long long)p->workers[f->workers[0]].id,
                                         (long long)p->workers[f->workers[1]].id)
                   : f->nworkers ? cprof_xasprintf("%lld", (long long)p->workers[f->workers[0]].id)
                                 : cprof_xstrdup("");
        cprof_cell_str(t, ws);
        free(ws);
        cprof_cell_int(t, cprof_if_known(f->pu));
        cprof_cell_int(t, cprof_if_known(f->core));
        cprof_cell_int(t, cprof_if_known(f->count));
        cprof_cell_pct(t, f->pct);
    }
    if (!fs.n)
        cprof_table_note(t, "(nothing to flag: every worker stayed on its PU, none shared one)");
    free_flags(&fs);
    return t;
}

/* The "migrations" resource (CPROF_RESOURCES=migrations), if the profile measured it. */
static ssize_t migrations(const cprof_profile *p)
{
    for (size_t r = 0; r < p->nresources; r++)
        if (!strcmp(p->resources[r].name, "migrations") && p->resources[r].available)
            return (ssize_t)r;
    return -1;
}

static const char placement_explain[] =
    "Where each worker ran (docs/placement.md).  allowed: its affinity mask as it\n"
    "started (the PUs the OS may run it on); pus: the PUs it was placed on, each with its\n"
    "share of the worker's placed time, most first; main pu: the first of them, with its\n"
    "core (hwloc's logical index), package and NUMA node (OS indexes); moves: changes of\n"
    "PU between two observations (a move back and forth between them is not seen);\n"
    "observed: how many times its PU was read (as it was made, at each region's start and\n"
    "end, after barriers, at tasks, CPU samples, and by the thread that wrote the profile);\n"
    "placed: the time from one observation to the next, except a team member's time\n"
    "between regions (it waited for work), in ms and as a share of the run.\n";
/* With CPROF_RESOURCES=migrations. */
static const char migrations_explain[] =
    "migrations: the kernel's count of the worker's migrations (the migrations resource),\n"
    "which also sees the moves between two observations, and those of its waits.\n";

static const cprof_column placement_cols[] = {
    {"rank", "rank", false},
    {"host", "host", true},
    {"worker", "worker", false},
    {"tid", "tid", false},
    {"allowed", "allowed", true},
    {"pus", "pus", true},
    {"main pu", "main_pu", false},
    {"core", "core", false},
    {"package", "package", false},
    {"node", "node", false},
    {"moves", "moves", false},
    {"migrations", "kernel_migrations", false},
    {"observed", "observations", false},
    {"placed", "placed_ns", false},
    {"%run", "pct_run", false},
};

/* "0 99.5%, 1 0.5%" (the first three) and "0:123;1:45" (ns). */
static void pus_cells(cprof_table *t, const cprof_prof_placement *x)
{
    size_t *order = cprof_xcalloc(x->npus + 1, sizeof *order);
    for (size_t i = 0; i < x->npus; i++) {
        size_t k = i;
        while (k > 0 && x->pus[order[k - 1]][1] < x->pus[i][1]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    char *text = cprof_xstrdup(""), *csv = cprof_xstrdup("");
    for (size_t i = 0; i < x->npus; i++) {
        const int64_t *e = x->pus[order[i]];
        char *a = i < 3 ? cprof_xasprintf("%lld %.1f%%", (long long)e[0], pct(e[1], x->placed_ns))
                        : NULL;
        char *b = cprof_xasprintf("%lld:%lld", (long long)e[0], (long long)e[1]);
        if (a)
            text = append(text, ", ", a);
        csv = append(csv, ";", b);
        free(a);
        free(b);
    }
    if (x->npus > 3) {
        char *more = cprof_xasprintf("+%zu more", x->npus - 3);
        text = append(text, ", ", more);
        free(more);
    }
    cprof_cell_str2(t, text, csv);
    free(text);
    free(csv);
    free(order);
}

cprof_table *cprof_section_placement(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    bool job = p->nranks > 0;
    ssize_t mig = migrations(p);
    cprof_column cols[NELEM(placement_cols)];
    size_t ncols = 0;
    for (size_t i = 0; i < NELEM(placement_cols); i++)
        if ((job || i >= 2) && (mig >= 0 || strcmp(placement_cols[i].key, "kernel_migrations")))
            cols[ncols++] = placement_cols[i];
    char *explain = cprof_xasprintf("%s%s", placement_explain, mig >= 0 ? migrations_explain : "");
    cprof_table *t = new_table(v, "Placement", explain, cols, ncols);
    free(explain);
    if (!t || !p->nprocesses)
        return t;
    for (size_t w = 0; w < p->nworkers; w++) {
        cprof_where at;
        if (!cprof_worker_where(p, w, &at))
            continue;
        const cprof_prof_placement *x = &p->placement[w];
        cprof_table_row(t);
        if (job) {
            cprof_cell_int(t, p->workers[w].rank);
            cprof_cell_str(t, machine_of(p, w)->host);
        }
        cprof_cell_int(t, p->workers[w].id);
        cprof_cell_int(t, p->workers[w].tid);
        affinity_cell(t, x->has_affinity, &x->affinity);
        pus_cells(t, x);
        cprof_cell_int(t, cprof_if_known(at.pu));
        cprof_cell_int(t, cprof_if_known(at.core));
        cprof_cell_int(t, cprof_if_known(at.package));
        cprof_cell_int(t, cprof_if_known(at.node));
        cprof_cell_int(t, x->moves);
        if (mig >= 0)
            cprof_cell_int(t, cprof_if_known(cprof_resource_total(p, w, (size_t)mig)));
        cprof_cell_int(t, x->observations);
        cprof_cell_time(t, x->placed_ns);
        cprof_cell_pct(t, pct(x->placed_ns, p->processes[x->process].span_ns));
    }
    if (p->nfiles > 1 && !job)
        cprof_table_note(t, "(%zu runs summed: the placement is the first file's)", p->nfiles);
    return t;
}

static const char binding_explain[] =
    "How the launch asked OpenMP to bind its threads: the variables as set (libgomp reads\n"
    "OMP_PROC_BIND, OMP_PLACES and GOMP_CPU_AFFINITY; KMP_AFFINITY is LLVM's and Intel's\n"
    "runtime's), the binding libgomp took from them (false: none) and its places, and the\n"
    "process's affinity mask as profiling began (with OMP_PROC_BIND set, libgomp has bound\n"
    "the initial thread to its first place by then).\n";

static const cprof_column binding_cols[] = {
    {"rank", "rank", false},
    {"host", "host", true},
    {"OMP_PROC_BIND", "omp_proc_bind", true},
    {"OMP_PLACES", "omp_places", true},
    {"GOMP_CPU_AFFINITY", "gomp_cpu_affinity", true},
    {"KMP_AFFINITY", "kmp_affinity", true},
    {"bind", "proc_bind", true},
    {"places", "places", true},
    {"affinity", "affinity", true},
};

cprof_table *cprof_section_binding(const cprof_view *v)
{
    static const char *const vars[] = {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY",
                                       "KMP_AFFINITY"};
    const cprof_profile *p = v->p;
    bool job = p->nranks > 0;
    cprof_table *t = new_table(v, "Binding", binding_explain, binding_cols + 2 * !job,
                               NELEM(binding_cols) - 2 * !job);
    for (size_t i = 0; t && i < p->nprocesses; i++) {
        const cprof_prof_process *x = &p->processes[i];
        cprof_table_row(t);
        if (job) {
            cprof_cell_int(t, x->rank);
            cprof_cell_str(t, p->machines[x->machine].host);
        }
        for (size_t k = 0; k < NELEM(vars); k++) {
            const char *e = env_of(x, vars[k]);
            cprof_cell_str2(t, e ? e : "(not set)", e ? e : "");
        }
        cprof_cell_str(t, x->proc_bind);
        char *places = cprof_xstrdup("");
        for (size_t k = 0; k < x->nplaces; k++) {
            char *r = set_text(&x->places[k]), *b = cprof_xasprintf("{%s}", r);
            places = append(places, ",", b);
            free(r);
            free(b);
        }
        cprof_cell_str2(t, *places ? places : "(none)", places);
        free(places);
        affinity_cell(t, x->has_affinity, &x->affinity);
    }
    return t;
}

static const char machine_explain[] =
    "The machine as hwloc saw it when the profile was written (cprof-topology): per kind\n"
    "of object, how many, their size (a NUMA node's memory, a cache's bytes), how many PUs\n"
    "each covers and which (the PUs of one instance joined by ',' and '-', instances\n"
    "separated by ' | '): the PUs that share a cache, a core (SMT siblings), a node.\n"
    "PUs are numbered as Linux numbers CPUs (taskset, OMP_PLACES), packages and nodes by\n"
    "their OS index, cores by hwloc's logical index.\n";

static const cprof_column machine_cols[] = {
    {"host", "host", true},
    {"object", "object", true},
    {"count", "count", false},
    {"size", "size", true},
    {"PUs each", "pus_each", true},
    {"sets", "sets", true},
};

/* One row: the n objects of a kind, their sizes (size NULL: none) and PU sets; the PUs
 * (pus) are n objects of one PU each, in one set. */
static void machine_row(cprof_table *t, bool job, const char *host, const char *name,
                        const int64_t *size, const cprof_pu_set *const *sets, size_t n,
                        bool pus)
{
    cprof_table_row(t);
    if (job)
        cprof_cell_str(t, host);
    cprof_cell_str(t, name);
    cprof_cell_int(t, pus ? (int64_t)sets[0]->n : (int64_t)n);
    int64_t lo = INT64_MAX, hi = -1;
    size_t each_lo = SIZE_MAX, each_hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (size && size[i] < lo)
            lo = size[i];
        if (size && size[i] > hi)
            hi = size[i];
        if (sets[i]->n < each_lo)
            each_lo = sets[i]->n;
        if (sets[i]->n > each_hi)
            each_hi = sets[i]->n;
    }
    char *a = size && n ? bytes(lo) : cprof_xstrdup(""), *b = size && n ? bytes(hi) : NULL;
    char *s = b && hi != lo ? cprof_xasprintf("%s-%s", a, b) : cprof_xstrdup(a);
    char *raw = size && n ? (hi != lo ? cprof_xasprintf("%lld-%lld", (long long)lo, (long long)hi)
                                      : cprof_xasprintf("%lld", (long long)lo))
                          : cprof_xstrdup("");
    cprof_cell_str2(t, s, raw);
    free(a);
    free(b);
    free(s);
    free(raw);
    char *each = pus ? cprof_xstrdup("1") : !n ? cprof_xstrdup("") : each_lo == each_hi ? cprof_xasprintf("%zu", each_lo)
                                                            : cprof_xasprintf("%zu-%zu", each_lo, each_hi);
    cprof_cell_str(t, each);
    free(each);
    char *text = cprof_xstrdup(""), *csv = cprof_xstrdup("");
    for (size_t i = 0; i < n; i++) {
        char *r = set_text(sets[i]);
        if (strlen(text) < 60)
            text = append(text, " | ", r);
        else if (i + 1 == n || strlen(text) < 64)
            text = append(text, " | ", "...");
        csv = append(csv, ";", r);
        free(r);
    }
    cprof_cell_str2(t, text, csv);
    free(text);
    free(csv);
}

static void machine_rows(cprof_table *t, bool job, const cprof_prof_machine *m)
{
    const cprof_pu_set **sets = cprof_xcalloc(m->nobjs + m->npus + 1, sizeof *sets);
    int64_t *size = cprof_xcalloc(m->nobjs + 1, sizeof *size);
    for (int kind = CPROF_TOPO_PACKAGE; kind <= CPROF_TOPO_NODE; kind++) {
        size_t n = 0;
        for (size_t i = 0; i < m->nobjs; i++)
            if (m->objs[i].kind == kind) {
                size[n] = m->objs[i].size;
                sets[n++] = &m->objs[i].pus;
            }
        machine_row(t, job, m->host, kind == CPROF_TOPO_PACKAGE ? "package" : "NUMA node",
                    kind == CPROF_TOPO_NODE ? size : NULL, sets, n, false);
    }
    /* Caches by level and type, in the order of the file (L1 up). */
    for (size_t i = 0; i < m->nobjs; i++) {
        const cprof_prof_topo_obj *o = &m->objs[i];
        bool first = o->kind == CPROF_TOPO_CACHE;
        for (size_t k = 0; first && k < i; k++)
            first = !(m->objs[k].kind == CPROF_TOPO_CACHE && m->objs[k].level == o->level &&
                      m->objs[k].type == o->type);
        if (!first)
            continue;
        size_t n = 0;
        for (size_t k = i; k < m->nobjs; k++)
            if (m->objs[k].kind == CPROF_TOPO_CACHE && m->objs[k].level == o->level &&
                m->objs[k].type == o->type) {
                size[n] = m->objs[k].size;
                sets[n++] = &m->objs[k].pus;
            }
        char *name = cprof_xasprintf("L%lld%s", (long long)o->level,
                                     o->type == CPROF_CACHE_DATA ? "d"
                                     : o->type == CPROF_CACHE_INSTRUCTION ? "i" : "");
        machine_row(t, job, m->host, name, size, sets, n, false);
        free(name);
    }
    /* Cores: their PUs, from the PU rows. */
    int64_t ncores = 0;
    for (size_t i = 0; i < m->npus; i++)
        if (m->pus[i][1] + 1 > ncores)
            ncores = m->pus[i][1] + 1;
    cprof_pu_set *cores = cprof_xcalloc((size_t)ncores + 1, sizeof *cores);
    for (int64_t c = 0; c < ncores; c++) {
        cores[c].pu = cprof_xcalloc(m->npus + 1, sizeof *cores[c].pu);
        for (size_t i = 0; i < m->npus; i++)
            if (m->pus[i][1] == c)
                cores[c].pu[cores[c].n++] = m->pus[i][0];
        sets[c] = &cores[c];
    }
    machine_row(t, job, m->host, "core", NULL, sets, (size_t)ncores, false);
    cprof_pu_set all = {cprof_xcalloc(m->npus + 1, sizeof *all.pu), m->npus};
    for (size_t i = 0; i < m->npus; i++) {
        size_t k = i;
        while (k > 0 && all.pu[k - 1] > m->pus[i][0]) {
            all.pu[k] = all.pu[k - 1];
            k--;
        }
        all.pu[k] = m->pus[i][0];
    }
    sets[0] = &all;
    machine_row(t, job, m->host, "PU", NULL, sets, 1, true);
    free(all.pu);
    for (int64_t c = 0; c < ncores; c++)
        free(cores[c].pu);
    free(cores);
    free(size);
    free(sets);
}

cprof_table *cprof_section_machine(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    bool job = p->nranks > 0;
    cprof_table *t = new_table(v, "Machine", machine_explain, machine_cols + !job,
                               NELEM(machine_cols) - !job);
    for (size_t i = 0; t && i < p->nmachines; i++) {
        const cprof_prof_machine *m = &p->machines[i];
        if (m->error) {
            cprof_table_note(t, "%s%stopology unknown: %s", job ? m->host : "", job ? ": " : "",
                             m->error);
            continue;
        }
        machine_rows(t, job, m);
        cprof_table_note(t, "%s%shwloc %s, CPU model: %s", job ? m->host : "", job ? ": " : "",
                         m->hwloc, *m->cpu_model ? m->cpu_model : "not given");
    }
    return t;
}

/* ---- --json ---- */

static json_t *set_json(const cprof_pu_set *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->n; i++)
        json_array_append_new(a, json_integer(s->pu[i]));
    return a;
}

static json_t *machine_json(const cprof_prof_machine *m)
{
    static const char *const kinds[] = {"packages", "numa_nodes", "caches"};
    static const char *const types[] = {"unified", "data", "instruction"};
    if (m->error)
        return json_pack("{s:s, s:s}", "host", m->host, "error", m->error);
    json_t *pus = json_array();
    for (size_t i = 0; i < m->npus; i++)
        json_array_append_new(pus, json_pack("{s:I, s:o, s:o, s:o}", "pu", (json_int_t)m->pus[i][0],
                                             "core", cprof_json_known(m->pus[i][1]),
                                             "package", cprof_json_known(m->pus[i][2]),
                                             "node", cprof_json_known(m->pus[i][3])));
    json_t *o = json_pack("{s:s, s:s, s:s, s:o}", "host", m->host, "hwloc", m->hwloc, "cpu_model",
                          m->cpu_model, "pus", pus);
    for (int k = 0; k < 3; k++) {
        json_t *a = json_array();
        for (size_t i = 0; i < m->nobjs; i++) {
            const cprof_prof_topo_obj *x = &m->objs[i];
            if (x->kind != k)
                continue;
            json_array_append_new(a, k == CPROF_TOPO_CACHE
                ? json_pack("{s:I, s:s, s:I, s:I, s:o}", "level", (json_int_t)x->level,
                            "type", types[x->type], "size", (json_int_t)x->size,
                            "line", (json_int_t)x->line, "pus", set_json(&x->pus))
                : k == CPROF_TOPO_NODE
                ? json_pack("{s:I, s:I, s:o}", "os", (json_int_t)x->os, "memory",
                            (json_int_t)x->size, "pus", set_json(&x->pus))
                : json_pack("{s:I, s:o}", "os", (json_int_t)x->os, "pus", set_json(&x->pus)));
        }
        json_object_set_new(o, kinds[k], a);
    }
    return o;
}

static json_t *process_json(const cprof_profile *p, const cprof_prof_process *x)
{
    json_t *env = json_object(), *places = json_array();
    for (size_t i = 0; i < x->nenv; i++)
        json_object_set_new(env, x->env_names[i], json_string(x->env_values[i]));
    for (size_t i = 0; i < x->nplaces; i++)
        json_array_append_new(places, set_json(&x->places[i]));
    return json_pack("{s:I, s:s, s:I, s:I, s:I, s:o, s:s, s:o, s:o}", "rank", (json_int_t)x->rank,
                     "host", p->machines[x->machine].host, "pid", (json_int_t)x->pid,
                     "start_unix_ns", (json_int_t)x->start_unix_ns, "span_ns",
                     (json_int_t)x->span_ns, "env", env, "proc_bind", x->proc_bind,
                     "places", places,
                     "affinity", x->has_affinity ? set_json(&x->affinity) : json_null());
}

static json_t *worker_json(const cprof_profile *p, size_t w)
{
    const cprof_prof_placement *x = &p->placement[w];
    const cprof_prof_machine *m = machine_of(p, w);
    cprof_where at;
    cprof_worker_where(p, w, &at);
    json_t *pus = json_array();
    for (size_t i = 0; i < x->npus; i++) {
        const int64_t *row = pu_row(m, x->pus[i][0]);
        json_array_append_new(pus, json_pack("{s:I, s:I, s:f, s:o, s:o, s:o}",
                                             "pu", (json_int_t)x->pus[i][0],
                                             "ns", (json_int_t)x->pus[i][1],
                                             "pct", pct(x->pus[i][1], x->placed_ns),
                                             "core", cprof_json_known(row ? row[1] : -1),
                                             "package", cprof_json_known(row ? row[2] : -1),
                                             "node", cprof_json_known(row ? row[3] : -1)));
    }
    return json_pack("{s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I,"
                     " s:I, s:f}",
                     "worker", (json_int_t)w, "rank", (json_int_t)p->workers[w].rank,
                     "id", (json_int_t)p->workers[w].id,
                     "process", (json_int_t)x->process,
                     "affinity", x->has_affinity ? set_json(&x->affinity) : json_null(),
                     "pus", pus, "main_pu", cprof_json_known(at.pu), "core", cprof_json_known(at.core),
                     "package", cprof_json_known(at.package), "node", cprof_json_known(at.node),
                     "moves", (json_int_t)x->moves, "observations", (json_int_t)x->observations,
                     "first_ns", (json_int_t)x->first_ns, "last_ns", (json_int_t)x->last_ns,
                     "placed_ns", (json_int_t)x->placed_ns,
                     "pct_run", pct(x->placed_ns, p->processes[x->process].span_ns));
}

/* Worker w's, with the kernel's count of its migrations where the profile measured
 * the resource (null for a worker without a counter). */
static json_t *worker_json_all(const cprof_profile *p, size_t w)
{
    json_t *o = worker_json(p, w);
    ssize_t mig = migrations(p);
    if (o && mig >= 0)
        json_object_set_new(o, "kernel_migrations",
                            cprof_json_known(cprof_resource_total(p, w, (size_t)mig)));
    return o;
}

json_t *cprof_placement_json(const cprof_profile *p)
{
    if (!p->nprocesses)
        return NULL;
    json_t *machines = json_array(), *processes = json_array(), *workers = json_array();
    json_t *shared = json_array(), *flag_list = json_array();
    for (size_t i = 0; i < p->nmachines; i++)
        json_array_append_new(machines, machine_json(&p->machines[i]));
    for (size_t i = 0; i < p->nprocesses; i++)
        json_array_append_new(processes, process_json(p, &p->processes[i]));
    for (size_t w = 0; w < p->nworkers; w++)
        if (placed(p, w))
            json_array_append_new(workers, worker_json_all(p, w));
    pairs ps = sharing(p);
    for (size_t i = 0; i < ps.n; i++) {
        const pair *x = &ps.pairs[i];
        json_array_append_new(shared, json_pack("{s:[I, I], s:I, s:o, s:I, s:o, s:f, s:f}",
                                                "workers", (json_int_t)x->a, (json_int_t)x->b,
                                                "pu_ns", (json_int_t)x->pu_ns,
                                                "pu", cprof_json_known(x->pu),
                                                "core_ns", (json_int_t)x->core_ns,
                                                "core", cprof_json_known(x->core),
                                                "pct_pu", pct(x->pu_ns, x->span),
                                                "pct_core", pct(x->core_ns, x->span)));
    }
    free(ps.pairs);
    flags fs = all_flags(p);
    for (size_t i = 0; i < fs.n; i++) {
        const flag *f = &fs.f[i];
        json_t *ws = json_array();
        for (size_t k = 0; k < f->nworkers; k++)
            json_array_append_new(ws, json_integer((json_int_t)f->workers[k]));
        json_array_append_new(flag_list, json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o}",
                                                   "kind", f->kind, "text", f->text,
                                                   "rank", (json_int_t)f->rank, "workers", ws,
                                                   "pu", cprof_json_known(f->pu), "core",
                                                   cprof_json_known(f->core), "count",
                                                   cprof_json_known(f->count), "pct_run",
                                                   isnan(f->pct) ? json_null() : json_real(f->pct)));
    }
    free_flags(&fs);
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "machines", machines, "processes", processes,
                     "workers", workers, "sharing", shared, "flags", flag_list);
}
