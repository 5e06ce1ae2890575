/* arcs.c: section 4, every call arc caller -> callee with its sequential and concurrent
 * calls, and its call sites when there are several. */
#include "report.h"
#include "../model/alloc.h"

#include <inttypes.h>
#include <stdlib.h>

static const char explain[] =
    "s calls          calls that entered the callee sequentially (S-S)\n"
    "s wall           the elapsed time of those activations of the callee, on the\n"
    "                 thread that entered it\n"
    "c calls          calls that entered it concurrently (S-C, C-S and C-C)\n"
    "c worker         the elapsed time of those activations, summed over the workers\n"
    "*                the time before it sums activations nested in one of the same\n"
    "                 routine on their thread (recursion, the paper's definition)\n"
    "s outer, c outer the same time with each stretch of a thread's time counted once:\n"
    "                 the callee's activations nested in one of its own on their thread\n"
    "                 left out; the outer times of the arcs into a routine add up to its\n"
    "                 worker inclusive time (flat profile)\n"
    "arc              caller -> callee; <external> is code cprof did not compile (main's\n"
    "                 caller, qsort, a thread library...)\n"
    "site             where the call is written; an arc with several call sites is\n"
    "                 followed by one line per site\n"
    "-                not measured: the arc into a routine counted at its call sites\n"
    "                 ([counted]: its time is its caller's self time), every time of a\n"
    "                 CPROF_MODE=count run\n"
    "Times are in milliseconds, measured on each call: the calls on the arcs into a\n"
    "routine add up to its entries.\n";

static const cprof_column cols[] = {
    {NULL, "row", false},
    {"s calls", "s_calls", false},
    {"s wall", "s_wall_ns", false},
    {"", NULL, true},
    {"s outer", "s_outer_wall_ns", false},
    {"c calls", "c_calls", false},
    {"c worker", "c_worker_ns", false},
    {"", NULL, true},
    {"c outer", "c_outer_worker_ns", false},
    {"arc", NULL, true},
    {NULL, "caller", false},
    {NULL, "caller_file", false},
    {NULL, "callee", false},
    {NULL, "callee_file", false},
    {"site", NULL, true},
    {NULL, "site_file", false},
    {NULL, "site_line", false},
    {NULL, "time_error_ns", false},   /* with estimated times only */
};

/* Its calls, and their times if measured (none are without calls). */
/* mark: the arc's (cprof_mark), on its site lines too (an arc's estimates are not
 * told apart by site). */
static void part(cprof_table *t, bool measured, const cprof_tally *x, char mark)
{
    measured |= !x->n;
    mark = mark && !x->n ? ' ' : mark;
    cprof_cell_int(t, x->n);
    cprof_cell_time_mark(t, cprof_if_measured(measured, x->t), mark);
    cprof_cell_str(t, x->rec_t ? "*" : "");
    cprof_cell_time_mark(t, cprof_if_measured(measured, cprof_outer(x)), mark);
}

static void numbers(cprof_table *t, const char *row, bool measured, cprof_tally s, cprof_tally c,
                    char mark)
{
    cprof_table_row(t);
    cprof_cell_str(t, row);
    part(t, measured, &s, mark);
    part(t, measured, &c, mark);
}

static void site(cprof_table *t, const cprof_prof_site *s)
{
    char *text = cprof_xasprintf("%s:%" PRId64, s->file, s->line);
    cprof_cell_str(t, text);
    cprof_cell_str(t, s->file);
    cprof_cell_int(t, s->line);
    free(text);
}

cprof_table *cprof_section_arcs(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    bool est = p->nestimates > 0;
    cprof_table *t = cprof_table_new("Call arcs", explain, cols,
                                     sizeof cols / sizeof *cols - !est);
    for (size_t i = 0; i < p->narcs; i++) {
        const cprof_prof_arc *a = &p->arcs[i];
        if (!cprof_view_arc_match(v, a))
            continue;
        bool ext = a->caller == CPROF_EXTERNAL;
        const char *caller = ext ? cprof_external_name : v->r[a->caller].label;
        const cprof_prof_routine *callee = &p->routines[a->callee];
        char *arc = cprof_xasprintf("%s -> %s", caller, v->r[a->callee].label);
        for (size_t k = 0; k <= (a->nsites > 1 ? a->nsites : 0); k++) {
            cprof_error e = est ? v->arc_err[i] : (cprof_error){false, 0};
            numbers(t, k ? "site" : "arc", cprof_view_arc_timed(v, a), k ? a->sites[k - 1].s : a->s,
                    k ? a->sites[k - 1].c : a->c, cprof_mark(v, e));
            cprof_cell_str(t, k ? "" : arc);
            cprof_cell_str(t, ext ? cprof_external_name : p->routines[a->caller].name);
            cprof_cell_str(t, ext ? "" : p->routines[a->caller].file);
            cprof_cell_str(t, callee->name);
            cprof_cell_str(t, callee->file);
            if (k)
                site(t, &a->sites[k - 1]);
            else if (a->nsites == 1)
                site(t, &a->sites[0]);
            else {
                char *n = a->nsites ? cprof_xasprintf("%zu sites:", a->nsites)
                                    : cprof_xstrdup("");
                cprof_cell_str(t, n);
                cprof_cell_empty(t);
                cprof_cell_empty(t);
                free(n);
            }
            if (est && k)
                cprof_cell_empty(t);
            else if (est)
                cprof_cell_error(t, e, cprof_add(a->s.t, a->c.t));
        }
        free(arc);
    }
    cprof_note_estimates(t, v, false);
    return t;
}
