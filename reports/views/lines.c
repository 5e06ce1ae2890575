/* lines.c: the profile by source line (docs/source.md): one row per routine at the
 * line of its definition, per OpenMP construct at its pragma's line, and per callee of
 * each call site, with the figures the other sections give them (the flat profile's,
 * --regions', the call arcs' sites' split by case); and the same per worker.  These two
 * tables are --csv lines and line-workers, --source's annotations and the page's source
 * view, so that all of them show one set of figures. */
#include "report.h"
#include "../model/alloc.h"
#include "../../format/schema.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NELEM(a) (sizeof (a) / sizeof *(a))

enum kind { ROUTINE, CONSTRUCT, CALL };

/* What one row is about: routine i; construct i (p->regions); or site s of arc i. */
struct item {
    const char *file;
    int64_t line;
    enum kind kind;
    size_t i;
    const cprof_prof_site *s;
};

static const cprof_profile *sorting;

static const char *item_name(const cprof_profile *p, const struct item *x)
{
    return x->kind == ROUTINE ? p->routines[x->i].name
         : x->kind == CALL ? p->routines[p->arcs[x->i].callee].name
                           : cprof_region_kinds[p->regions[x->i].kind];
}

/* By file and line, then routine, constructs, calls, then by name and the name's file. */
static int cmp_item(const void *x, const void *y)
{
    const struct item *a = x, *b = y;
    int d = strcmp(a->file, b->file);
    if (!d)
        d = (a->line > b->line) - (a->line < b->line);
    if (!d)
        d = (int)a->kind - (int)b->kind;
    if (!d)
        d = strcmp(item_name(sorting, a), item_name(sorting, b));
    if (!d && a->kind == CALL)
        d = strcmp(sorting->routines[sorting->arcs[a->i].callee].file,
                   sorting->routines[sorting->arcs[b->i].callee].file);
    if (!d && a->kind == CALL)
        d = strcmp(sorting->routines[sorting->arcs[a->i].caller].name,
                   sorting->routines[sorting->arcs[b->i].caller].name);
    return d ? d : (a->i > b->i) - (a->i < b->i);
}

/* The index in p->sources of file (every file a routine or site names is there). */
static size_t source_of(const cprof_profile *p, const char *file)
{
    size_t lo = 0, hi = p->nsources;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(p->sources[mid].name, file);
        if (!d)
            return mid;
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

/* Whether x is shown: in a file shown (shown NULL: all) and about routines shown (in
 * NULL: all): a routine, a construct's routine, a call's caller and callee. */
static bool kept(const cprof_profile *p, const struct item *x, const bool *shown, const bool *in)
{
    size_t k = source_of(p, x->file);
    if (shown && (k == SIZE_MAX || !shown[k]))
        return false;
    if (!in)
        return true;
    if (x->kind == ROUTINE)
        return in[x->i];
    if (x->kind == CALL)
        return in[p->arcs[x->i].caller] && in[p->arcs[x->i].callee];
    return p->regions[x->i].routine < p->nroutines && in[p->regions[x->i].routine];
}

/* Every routine defined at a line (not a library function's, libcalls), named
 * construct and call site kept, in order; *n of them (malloc'd). */
static struct item *items(const cprof_profile *p, const bool *shown, const bool *in, size_t *n)
{
    size_t cap = p->nroutines + p->nregions;
    for (size_t i = 0; i < p->narcs; i++)
        cap += p->arcs[i].nsites;
    struct item *x = cprof_xcalloc(cap + 1, sizeof *x);
    *n = 0;
    for (size_t i = 0; i < p->nroutines; i++)
        if (p->routines[i].line > 0)
            x[(*n)++] = (struct item){p->routines[i].file, p->routines[i].line, ROUTINE, i, NULL};
    for (size_t i = 0; i < p->nregions; i++)
        if (p->regions[i].file)
            x[(*n)++] = (struct item){p->regions[i].file, p->regions[i].line, CONSTRUCT, i, NULL};
    for (size_t i = 0; i < p->narcs; i++)
        for (size_t k = 0; k < p->arcs[i].nsites; k++)
            x[(*n)++] = (struct item){p->arcs[i].sites[k].file, p->arcs[i].sites[k].line, CALL, i,
                                      &p->arcs[i].sites[k]};
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (kept(p, &x[i], shown, in))
            x[m++] = x[i];
    *n = m;
    sorting = p;
    qsort(x, *n, sizeof *x, cmp_item);
    return x;
}

/* The path where file was compiled, "" if the profile does not say. */
static const char *path_of(const cprof_profile *p, const char *file)
{
    size_t k = source_of(p, file);
    return k != SIZE_MAX && p->sources[k].path ? p->sources[k].path : "";
}

static double share(int64_t part, int64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Where and what the row is about (with the file's path or not), and the routine whose
 * body it is in. */
static void key_cells(cprof_table *t, const cprof_view *v, const struct item *x, bool path)
{
    const cprof_profile *p = v->p;
    static const char *const kinds[] = {"routine", "construct", "call"};
    const cprof_prof_routine *r = x->kind == ROUTINE ? &p->routines[x->i]
                                : x->kind == CALL ? &p->routines[p->arcs[x->i].callee] : NULL;
    size_t in = x->kind == ROUTINE ? x->i : x->kind == CALL ? p->arcs[x->i].caller
                                                            : p->regions[x->i].routine;
    cprof_cell_str(t, x->file);
    if (path)
        cprof_cell_str(t, path_of(p, x->file));
    cprof_cell_int(t, x->line);
    cprof_cell_str(t, kinds[x->kind]);
    if (r)
        cprof_cell_str2(t, v->r[r - p->routines].label, r->name);
    else
        cprof_cell_str(t, item_name(p, x));
    cprof_cell_str(t, r ? r->file : "");
    bool named = in < p->nroutines;
    cprof_cell_str2(t, named ? v->r[in].label : "", named ? p->routines[in].name : "");
    cprof_cell_str(t, named ? p->routines[in].file : "");
}

static const char lines_explain[] =
    "One row per routine (at the line of its definition), per OpenMP construct (at its\n"
    "pragma's line) and per callee of each call site (docs/source.md):\n"
    "kind       routine, construct or call\n"
    "name       the routine; the construct (parallel, task, for, sections, single,\n"
    "           barrier); the callee (each callee of a call through a pointer)\n"
    "calls      a routine's entries; a call's calls; a construct's executions (as\n"
    "           --regions counts them)\n"
    "s calls, c calls  a routine's sequential and concurrent entries; a call's S-S\n"
    "           calls and its S-C + C-S + C-C ones\n"
    "S-S ... C-C  a call's calls by case (the caller entered sequentially or\n"
    "           concurrently, the call made outside or inside a parallel region of\n"
    "           its own), and their callee time (ms, each recursion once)\n"
    "time       a routine's worker incl; a call's callee time, its cases summed; a\n"
    "           construct's busy time (ms)\n"
    "self, wall a routine's worker self and wall incl (the flat profile's)\n"
    "%time      the time as a share of all worker self time (a routine's: its self,\n"
    "           the flat profile's %time)\n"
    "timed      no: the time is not measured (a routine counted at its call sites, or\n"
    "           CPROF_MODE=count)\n"
    "estimated  yes: the time has the profiler's cost taken out (--compensate), an\n"
    "           estimate\n"
    "team, barrier, end wait, imbal, lost  a construct's, as --regions gives them\n";

static const cprof_column line_cols[] = {
    {"file", "file", true},
    {NULL, "path", false},
    {"line", "line", false},
    {"kind", "kind", true},
    {"name", "name", true},
    {NULL, "name_file", false},
    {"in", "routine", true},
    {NULL, "routine_file", false},
    {"calls", "calls", false},
    {"s calls", "s_calls", false},
    {"c calls", "c_calls", false},
    {"S-S", "ss_calls", false},
    {"S-C", "sc_calls", false},
    {"C-S", "cs_calls", false},
    {"C-C", "cc_calls", false},
    {"time", "time_ns", false},
    {"S-S time", "ss_ns", false},
    {"S-C time", "sc_ns", false},
    {"C-S time", "cs_ns", false},
    {"C-C time", "cc_ns", false},
    {"self", "self_ns", false},
    {"wall", "wall_ns", false},
    {"%time", "pct_time", false},
    {"timed", "timed", false},
    {"estimated", "estimated", false},
    {"team", NULL, false},
    {NULL, "team_min", false},
    {NULL, "team_max", false},
    {"barrier", "barrier_wait_ns", false},
    {"end wait", "end_wait_ns", false},
    {"imbal", "imbalance", false},
    {"lost", "lost_ns", false},
};

/* Whether the item's times were measured: a clock was read, and it is no routine
 * counted at its call sites nor a call of one. */
static bool item_timed(const cprof_profile *p, const struct item *x)
{
    const cprof_prof_routine *r = x->kind == ROUTINE ? &p->routines[x->i]
                                  : x->kind == CALL ? &p->routines[p->arcs[x->i].callee]
                                                    : NULL;
    return strcmp(p->clock, "none") != 0 && !(r && r->counted);
}

/* Whether the item's times hold estimates from sampled timing (marks.c). */
static cprof_error item_error(const cprof_view *v, const struct item *x)
{
    if (x->kind == ROUTINE)
        return cprof_error_add(v->r[x->i].self_err, v->r[x->i].incl_err);
    if (x->kind == CALL && v->arc_err)
        return v->arc_err[x->i];
    return (cprof_error){false, 0};
}

static void empties(cprof_table *t, int n)
{
    while (n-- > 0)
        cprof_cell_empty(t);
}

/* m: its times were measured (else each is said not to be: docs/report.md). */
static void routine_cells(cprof_table *t, const cprof_view *v, size_t i, bool m)
{
    const cprof_rview *r = &v->r[i];
    cprof_cell_int(t, cprof_add(r->s_calls, r->c_calls));
    cprof_cell_int(t, r->s_calls);
    cprof_cell_int(t, r->c_calls);
    empties(t, 4);
    cprof_cell_time_mark(t, cprof_if_measured(m, r->inclusive), cprof_mark(v, r->incl_err));
    empties(t, 4);
    cprof_cell_time_mark(t, cprof_if_measured(m, r->self), cprof_mark(v, r->self_err));
    cprof_cell_time_mark(t, cprof_if_measured(m && r->wall_timed, r->wall), cprof_mark(v, r->wall_err));
    cprof_cell_pct(t, m ? share(r->self, v->total_self) : NAN);
}

static void call_cells(cprof_table *t, const cprof_view *v, const cprof_prof_site *s, bool m,
                       char mark)
{
    int64_t calls = 0, time = 0;
    for (int k = 0; k < 4; k++) {
        calls = cprof_add(calls, s->cases[k].n);
        time = cprof_add(time, cprof_outer(&s->cases[k]));
    }
    cprof_cell_int(t, calls);
    cprof_cell_int(t, s->s.n);
    cprof_cell_int(t, s->c.n);
    for (int k = 0; k < 4; k++)
        cprof_cell_int(t, s->cases[k].n);
    /* A case without calls has its 0 as --json's: nothing was left unmeasured. */
    cprof_cell_time_mark(t, cprof_if_measured(m || !calls, time), mark);
    for (int k = 0; k < 4; k++)
        cprof_cell_time_mark(t, cprof_if_measured(m || !s->cases[k].n, cprof_outer(&s->cases[k])),
                             mark);
    empties(t, 2);
    cprof_cell_pct(t, m ? share(time, v->total_self) : NAN);
}

static void construct_cells(cprof_table *t, const cprof_view *v, size_t i, bool m)
{
    const cprof_gview *g = &v->g[i];
    cprof_cell_int(t, g->executions);
    empties(t, 6);
    cprof_cell_time(t, cprof_if_measured(m, g->sum.busy_t));
    empties(t, 6);
    cprof_cell_pct(t, m ? share(g->sum.busy_t, v->total_self) : NAN);
}

cprof_table *cprof_section_lines(const cprof_view *v, const bool *shown, const bool *in)
{
    const cprof_profile *p = v->p;
    cprof_table *t = cprof_table_new("Source lines", lines_explain, line_cols, NELEM(line_cols));
    size_t n;
    struct item *x = items(p, shown, in, &n);
    for (size_t k = 0; k < n; k++) {
        bool measured = item_timed(p, &x[k]);
        cprof_table_row(t);
        key_cells(t, v, &x[k], true);
        if (x[k].kind == ROUTINE)
            routine_cells(t, v, x[k].i, measured);
        else if (x[k].kind == CALL)
            call_cells(t, v, x[k].s, measured, cprof_mark(v, item_error(v, &x[k])));
        else
            construct_cells(t, v, x[k].i, measured);
        cprof_cell_str(t, measured ? "yes" : "no");
        bool est = p->compensated || item_error(v, &x[k]).estimated;
        cprof_cell_str(t, measured && est ? "yes" : "no");
        if (x[k].kind != CONSTRUCT) {
            empties(t, 7);
            continue;
        }
        const cprof_gview *g = &v->g[x[k].i];
        cprof_cells_team(t, v, x[k].i);
        cprof_cell_time(t, cprof_if_measured(measured, g->sum.barrier_wait));
        cprof_cell_time(t, cprof_if_measured(measured, g->sum.end_wait));
        if (p->regions[x[k].i].kind == CPROF_REGION_TASK) {
            empties(t, 2);
        } else {
            cprof_cell_real(t, measured ? g->imbalance : NAN);
            cprof_cell_time(t, cprof_if_measured(measured, g->lost));
        }
    }
    free(x);
    cprof_note_estimates(t, v, false);
    if (p->nestimates)
        cprof_table_note(t, "estimated is yes too where the time holds such estimates.");
    return t;
}

static const char workers_explain[] =
    "Each row of the source lines on each worker that has it: a routine's entries\n"
    "there (sequential and concurrent) and its worker incl there (the time it was\n"
    "open on that thread, and its team time there); a\n"
    "call's calls there and their callee time; a construct's executions of its body\n"
    "there and their busy time (ms).\n";

/* The rank column is a job's only. */
#define WORKER_COLS(...) { \
    {"file", "file", true}, {"line", "line", false}, {"kind", "kind", true}, \
    {"name", "name", true}, {NULL, "name_file", false}, {"in", "routine", true}, \
    {NULL, "routine_file", false}, __VA_ARGS__ {"worker", "worker", false}, \
    {"calls", "calls", false}, {"time", "time_ns", false} }
static const cprof_column worker_cols[] = WORKER_COLS();
static const cprof_column worker_job_cols[] = WORKER_COLS({"rank", "rank", false},);

cprof_table *cprof_section_line_workers(const cprof_view *v, const bool *shown, const bool *in)
{
    const cprof_profile *p = v->p;
    bool job = p->nranks > 0;
    cprof_table *t = job ? cprof_table_new("Source lines per worker", workers_explain,
                                           worker_job_cols, NELEM(worker_job_cols))
                         : cprof_table_new("Source lines per worker", workers_explain, worker_cols,
                                           NELEM(worker_cols));
    size_t n;
    struct item *x = items(p, shown, in, &n);
    for (size_t k = 0; k < n; k++)
        for (size_t w = 0; w < p->nworkers; w++) {
            int64_t calls, time;
            if (x[k].kind == ROUTINE) {
                cprof_figures f = cprof_view_figures(v, x[k].i, w, w + 1);
                calls = cprof_add(f.s_calls, f.c_calls);
                time = f.inclusive;
            } else if (x[k].kind == CALL) {
                calls = x[k].s->worker[w].n;
                time = cprof_outer(&x[k].s->worker[w]);
            } else {
                calls = p->regions[x[k].i].worker[w].executions;
                time = p->regions[x[k].i].worker[w].busy_t;
            }
            if (!calls && !time)
                continue;
            cprof_table_row(t);
            key_cells(t, v, &x[k], false);
            if (job)
                cprof_cell_int(t, p->workers[w].rank);
            cprof_cell_int(t, p->workers[w].id);
            cprof_cell_int(t, calls);
            cprof_cell_time_mark(t, cprof_if_measured(item_timed(p, &x[k]), time),
                                 cprof_mark(v, item_error(v, &x[k])));
        }
    free(x);
    cprof_note_estimates(t, v, false);
    return t;
}
