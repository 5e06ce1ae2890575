/* callgraph.c: section 5, the call graph in gprof's form.
 *
 * One entry per routine that ran, and one per cycle (a strongly connected component of
 * the arcs, self-arcs left out, found with Tarjan's algorithm), sorted by self +
 * children.  Unlike gprof, nothing is apportioned: every time on a parent or child line
 * is the measured time of that arc (worker time counted once, and its wall part).
 */
#include "report.h"
#include "../model/alloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char explain[] =
    "Each entry is one routine (or one cycle as a whole), on the line with its [index];\n"
    "the lines above it are its parents (callers), the lines below its children\n"
    "(callees).\n"
    "%time     self + children of the entry as a share of all routines' self time\n"
    "self      the routine's own time, worker time (as in the flat profile: with its\n"
    "          team self time)\n"
    "children  worker time.  On the entry's line: the measured time of its calls to\n"
    "          other routines (its children lines added up); on a parent or child line:\n"
    "          the measured time of that one arc, that is the elapsed time of the\n"
    "          callee's activations along it, summed over workers, each stretch of a\n"
    "          thread's time counted once (activations nested in one of the callee's\n"
    "          own on their thread left out: the arc's outer time).  gprof splits a\n"
    "          child's time over its parents in proportion to the calls; cprof measures\n"
    "          every arc, so it apportions nothing and shows the arc's time whole.  A\n"
    "          callee that ran in a parallel region counts the time of all workers, so\n"
    "          a routine that opens parallel regions can show more than its callers see\n"
    "          of it, which is only the elapsed time of the call on their thread.\n"
    "wall      wall time, elapsed on the thread that entered: on the entry's line the\n"
    "          routine's wall inclusive time (flat profile); on a parent or child line\n"
    "          the time of the arc's sequential calls (the arcs' s outer)\n"
    "called    on the entry's line: calls of the routine, +calls of itself (recursion);\n"
    "          on a parent line: calls along that arc / all calls of the entry's routine\n"
    "          (its own calls left out); on a child line: calls along the arc / all\n"
    "          calls of the child.  Calls between members of one cycle show the count\n"
    "          alone and no time.\n"
    "name      [index] says where a routine's own entry is.  A cycle (routines calling\n"
    "          each other) gets an entry <cycle N as a whole> that lists its members;\n"
    "          its self and children add up its members, without the calls inside it.\n"
    "-         not measured: the self time of a routine counted at its call sites\n"
    "          ([counted]: its time is its callers' self time), the time of an arc into\n"
    "          one, and every time of a CPROF_MODE=count run; a children figure adds up\n"
    "          the measured arcs only\n"
    "Times are in milliseconds.\n";

static const cprof_column cols[] = {
    {"index", "entry", false},
    {NULL, "line", false},
    {"%time", "pct_time", false},
    {"self", "self_worker_ns", false},
    {"children", "children_worker_ns", false},
    {"wall", "wall_ns", false},
    {"called", NULL, false},
    {NULL, "calls", false},
    {NULL, "calls_total", false},
    {NULL, "self_calls", false},
    {"name", "name", true},
    {NULL, "file", false},
    {NULL, "cycle", false},
    {NULL, "index", false},
};

struct graph {
    const cprof_view *v;
    size_t n;             /* routines */
    size_t *cycle;        /* [n]: cycle number, 0 if none */
    size_t ncycles;
    size_t *index;        /* [n + ncycles + 1]: entry index of routine i, of cycle k at n + k */
};

static int64_t arc_n(const cprof_prof_arc *a)
{
    return cprof_add(a->s.n, a->c.n);
}

/* The arc's worker time, each stretch of a thread's time counted once. */
static int64_t arc_t(const cprof_prof_arc *a)
{
    return cprof_add(cprof_outer(&a->s), cprof_outer(&a->c));
}

static bool same_cycle(const struct graph *g, size_t a, size_t b)
{
    return a != CPROF_EXTERNAL && g->cycle[a] && g->cycle[a] == g->cycle[b];
}

/* Tarjan's strongly connected components, without recursion (a long call chain must not
 * exhaust the stack).  Components of two or more routines are numbered 1, 2, ... in the
 * order of their first member. */
static void find_cycles(struct graph *g)
{
    const cprof_profile *p = g->v->p;
    size_t n = g->n, next = 1;
    /* Adjacency lists: the callees of i are out[first[i] .. first[i + 1] - 1]. */
    size_t *first = cprof_xcalloc(n + 2, sizeof *first);
    size_t *out = cprof_xcalloc(p->narcs, sizeof *out);
    for (size_t a = 0; a < p->narcs; a++)
        if (p->arcs[a].caller != CPROF_EXTERNAL && p->arcs[a].caller != p->arcs[a].callee)
            first[p->arcs[a].caller + 2]++;
    for (size_t i = 2; i < n + 2; i++)
        first[i] += first[i - 1];
    for (size_t a = 0; a < p->narcs; a++)
        if (p->arcs[a].caller != CPROF_EXTERNAL && p->arcs[a].caller != p->arcs[a].callee)
            out[first[p->arcs[a].caller + 1]++] = p->arcs[a].callee;

    size_t *num = cprof_xcalloc(n, sizeof *num), *low = cprof_xcalloc(n, sizeof *low);
    size_t *stack = cprof_xcalloc(n, sizeof *stack), nstack = 0;
    size_t *call = cprof_xcalloc(n, sizeof *call), *edge = cprof_xcalloc(n, sizeof *edge);
    size_t *comp = cprof_xcalloc(n, sizeof *comp), *size = cprof_xcalloc(n + 1, sizeof *size);
    bool *on = cprof_xcalloc(n, sizeof *on);
    size_t ncomp = 0;
    for (size_t root = 0; root < n; root++) {
        if (num[root])
            continue;
        size_t depth = 0;
        call[depth] = root;
        edge[depth++] = first[root];
        num[root] = low[root] = next++;
        stack[nstack++] = root;
        on[root] = true;
        while (depth) {
            size_t u = call[depth - 1];
            if (edge[depth - 1] < first[u + 1]) {
                size_t w = out[edge[depth - 1]++];
                if (!num[w]) {
                    num[w] = low[w] = next++;
                    stack[nstack++] = w;
                    on[w] = true;
                    call[depth] = w;
                    edge[depth++] = first[w];
                } else if (on[w] && num[w] < low[u]) {
                    low[u] = num[w];
                }
                continue;
            }
            if (low[u] == num[u]) {
                ncomp++;
                size_t w;
                do {
                    w = stack[--nstack];
                    on[w] = false;
                    comp[w] = ncomp;
                    size[ncomp]++;
                } while (w != u);
            }
            if (--depth && low[u] < low[call[depth - 1]])
                low[call[depth - 1]] = low[u];
        }
    }
    size_t *number = cprof_xcalloc(ncomp + 1, sizeof *number);
    for (size_t i = 0; i < n; i++)
        if (size[comp[i]] > 1) {
            if (!number[comp[i]])
                number[comp[i]] = ++g->ncycles;
            g->cycle[i] = number[comp[i]];
        }
    free(number);
    free(on);
    free(size);
    free(comp);
    free(edge);
    free(call);
    free(stack);
    free(low);
    free(num);
    free(out);
    free(first);
}

/* Calls of routine i not made by itself. */
static int64_t outside_calls(const cprof_view *v, size_t i)
{
    return cprof_add(v->r[i].s_calls, v->r[i].c_calls) - v->r[i].self_calls;
}

/* Time of routine i's calls to routines outside itself and outside its cycle. */
static int64_t children(const struct graph *g, size_t i)
{
    int64_t sum = 0;
    for (size_t a = 0; a < g->v->p->narcs; a++) {
        const cprof_prof_arc *x = &g->v->p->arcs[a];
        if (x->caller == i && x->callee != i && !same_cycle(g, i, x->callee))
            sum = cprof_add(sum, arc_t(x));
    }
    return sum;
}

/* Whether any of routine i's calls were timed (none is, without calls). */
static bool children_timed(const cprof_view *v, size_t i)
{
    return v->timed && (v->r[i].s_callees_timed || v->r[i].c_callees_timed ||
                        !v->r[i].calls_others);
}

/* An entry: a routine (i < n) or cycle i - n + 1 (i >= n); whether its self time,
 * and any of its children's times, were measured. */
struct entry {
    size_t i;
    int64_t self, children;
    char *label;
    bool self_timed, children_timed;
};

static int by_time(const void *x, const void *y)
{
    const struct entry *a = x, *b = y;
    int64_t ta = cprof_add(a->self, a->children), tb = cprof_add(b->self, b->children);
    if (ta != tb)
        return ta < tb ? 1 : -1;
    return strcmp(a->label, b->label);
}

/* One line of an entry. */
struct line {
    const char *kind;  /* parent, primary, child, member */
    size_t entry;      /* index of the entry the line belongs to */
    bool primary, timed;
    bool self_m, children_m, wall_m;    /* measured ("-" if not) */
    double pct;
    int64_t self, children;    /* self only on primary and member lines */
    int64_t wall;              /* < 0: none */
    int64_t calls, total;      /* total < 0: none */
    int64_t self_calls;        /* < 0: none */
    size_t who;                /* routine, CPROF_EXTERNAL, or n + cycle - 1 */
    cprof_error self_e, children_e, wall_e;  /* whether they are estimates (marks.c) */
};

static void emit(cprof_table *t, const struct graph *g, const struct line *l)
{
    const cprof_profile *p = g->v->p;
    bool ext = l->who == CPROF_EXTERNAL, cyc = !ext && l->who >= g->n;
    char idx[32], entry[32], called[64];
    snprintf(entry, sizeof entry, "%zu", l->entry);
    snprintf(idx, sizeof idx, "[%zu]", l->entry);
    cprof_table_row(t);
    cprof_cell_str2(t, l->primary ? idx : "", entry);
    cprof_cell_str(t, l->kind);
    if (l->primary)
        cprof_cell_pct(t, l->self_m || l->children_m ? l->pct : NAN);
    else
        cprof_cell_empty(t);
    if (l->primary || !strcmp(l->kind, "member"))
        cprof_cell_time_mark(t, cprof_if_measured(l->self_m, l->self), cprof_mark(g->v, l->self_e));
    else
        cprof_cell_empty(t);
    if (l->timed)
        cprof_cell_time_mark(t, cprof_if_measured(l->children_m, l->children),
                             cprof_mark(g->v, l->children_e));
    else
        cprof_cell_empty(t);
    if (l->timed && l->wall >= 0)
        cprof_cell_time_mark(t, cprof_if_measured(l->wall_m, l->wall), cprof_mark(g->v, l->wall_e));
    else
        cprof_cell_empty(t);

    int k = snprintf(called, sizeof called, "%" PRId64, l->calls);
    if (l->total >= 0)
        snprintf(called + k, sizeof called - k, "/%" PRId64, l->total);
    else if (l->self_calls > 0)
        snprintf(called + k, sizeof called - k, "+%" PRId64, l->self_calls);
    cprof_cell_str(t, called);
    cprof_cell_int(t, l->calls);
    if (l->total >= 0)
        cprof_cell_int(t, l->total);
    else
        cprof_cell_empty(t);
    if (l->self_calls >= 0)
        cprof_cell_int(t, l->self_calls);
    else
        cprof_cell_empty(t);

    const char *indent = l->primary ? "" : "    ";
    char *name;
    if (ext) {
        name = cprof_xasprintf("%s%s", indent, cprof_external_name);
        cprof_cell_str2(t, name, cprof_external_name);
        cprof_cell_empty(t);
        cprof_cell_empty(t);
        cprof_cell_empty(t);
    } else if (cyc) {
        size_t c = l->who - g->n + 1;
        char *plain = cprof_xasprintf("<cycle %zu as a whole>", c);
        name = cprof_xasprintf("%s%s [%zu]", indent, plain, g->index[l->who]);
        cprof_cell_str2(t, name, plain);
        cprof_cell_empty(t);
        cprof_cell_int(t, (int64_t)c);
        cprof_cell_int(t, (int64_t)g->index[l->who]);
        free(plain);
    } else {
        size_t c = g->cycle[l->who];
        char *member = c ? cprof_xasprintf(" <cycle %zu>", c) : cprof_xstrdup("");
        name = cprof_xasprintf("%s%s%s [%zu]", indent, g->v->r[l->who].label, member,
                               g->index[l->who]);
        cprof_cell_str2(t, name, p->routines[l->who].name);
        cprof_cell_str(t, p->routines[l->who].file);
        if (c)
            cprof_cell_int(t, (int64_t)c);
        else
            cprof_cell_empty(t);
        cprof_cell_int(t, (int64_t)g->index[l->who]);
        free(member);
    }
    free(name);
}

/* Whether arc a's time is an estimate, and its error. */
static cprof_error arc_error(const cprof_view *v, const cprof_prof_arc *a)
{
    return v->arc_err ? v->arc_err[a - v->p->arcs] : (cprof_error){false, 0};
}

/* The error of the time of routine i's calls outside itself and its cycle (children). */
static cprof_error children_error(const struct graph *g, size_t i)
{
    cprof_error e = {false, 0};
    for (size_t a = 0; a < g->v->p->narcs; a++) {
        const cprof_prof_arc *x = &g->v->p->arcs[a];
        if (x->caller == i && x->callee != i && !same_cycle(g, i, x->callee))
            e = cprof_error_add(e, arc_error(g->v, x));
    }
    return e;
}

/* The lines for arc a seen from routine `self` (a parent line if self is the callee). */
static void arc_line(cprof_table *t, const struct graph *g, size_t entry,
                     const cprof_prof_arc *a, bool parent, int64_t total)
{
    bool inside = same_cycle(g, a->caller, a->callee);
    bool m = cprof_view_arc_timed(g->v, a);
    struct line l = {parent ? "parent" : "child", entry, false, !inside, false, m, m, 0, 0,
                     arc_t(a), cprof_outer(&a->s), arc_n(a), inside ? -1 : total, -1,
                     parent ? a->caller : a->callee, {false, 0}, arc_error(g->v, a),
                     a->s.n ? arc_error(g->v, a) : (cprof_error){false, 0}};
    emit(t, g, &l);
}

static bool involved(const struct graph *g, size_t i)
{
    const cprof_profile *p = g->v->p;
    if (g->v->r[i].match)
        return true;
    for (size_t a = 0; a < p->narcs; a++)
        if ((p->arcs[a].caller == i || p->arcs[a].callee == i) &&
            cprof_view_arc_match(g->v, &p->arcs[a]))
            return true;
    return false;
}

static void routine_entry(cprof_table *t, const struct graph *g, const struct entry *e,
                          double pct)
{
    const cprof_profile *p = g->v->p;
    size_t i = e->i, idx = g->index[i];
    for (size_t a = 0; a < p->narcs; a++)
        if (p->arcs[a].callee == i && p->arcs[a].caller != i)
            arc_line(t, g, idx, &p->arcs[a], true, outside_calls(g->v, i));
    struct line l = {"primary", idx, true, true, e->self_timed, e->children_timed,
                     g->v->r[i].wall_timed, pct, e->self, e->children, g->v->r[i].wall,
                     outside_calls(g->v, i), -1, g->v->r[i].self_calls, i,
                     g->v->r[i].self_err, children_error(g, i), g->v->r[i].wall_err};
    emit(t, g, &l);
    for (size_t a = 0; a < p->narcs; a++)
        if (p->arcs[a].caller == i && p->arcs[a].callee != i)
            arc_line(t, g, idx, &p->arcs[a], false, outside_calls(g->v, p->arcs[a].callee));
}

static void cycle_entry(cprof_table *t, const struct graph *g, const struct entry *e,
                        double pct)
{
    const cprof_profile *p = g->v->p;
    size_t c = e->i - g->n + 1, idx = g->index[e->i];
    int64_t in = 0, within = 0;
    for (size_t a = 0; a < p->narcs; a++) {
        const cprof_prof_arc *x = &p->arcs[a];
        if (g->cycle[x->callee] != c)
            continue;
        if (x->caller != CPROF_EXTERNAL && g->cycle[x->caller] == c)
            within = cprof_add(within, arc_n(x));
        else
            in = cprof_add(in, arc_n(x));
    }
    for (size_t a = 0; a < p->narcs; a++) {
        const cprof_prof_arc *x = &p->arcs[a];
        if (g->cycle[x->callee] == c && !same_cycle(g, x->caller, x->callee))
            arc_line(t, g, idx, x, true, in);
    }
    struct line l = {"primary", idx, true, true, e->self_timed, e->children_timed, true, pct,
                     e->self, e->children, -1, in, -1, within, e->i, {false, 0}, {false, 0},
                     {false, 0}};
    for (size_t i = 0; i < g->n; i++)
        if (g->cycle[i] == c) {
            l.self_e = cprof_error_add(l.self_e, g->v->r[i].self_err);
            l.children_e = cprof_error_add(l.children_e, children_error(g, i));
        }
    emit(t, g, &l);
    for (size_t i = 0; i < g->n; i++)
        if (g->cycle[i] == c) {
            struct line m = {"member", idx, false, true, g->v->r[i].timed,
                             children_timed(g->v, i), g->v->r[i].wall_timed, 0,
                             g->v->r[i].self, children(g, i), g->v->r[i].wall,
                             outside_calls(g->v, i), -1, g->v->r[i].self_calls, i,
                             g->v->r[i].self_err, children_error(g, i), g->v->r[i].wall_err};
            emit(t, g, &m);
        }
}

cprof_table *cprof_section_callgraph(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    cprof_table *t = cprof_table_new("Call graph", explain, cols,
                                     sizeof cols / sizeof *cols);
    struct graph g = {v, p->nroutines, cprof_xcalloc(p->nroutines, sizeof(size_t)), 0, NULL};
    find_cycles(&g);
    g.index = cprof_xcalloc(g.n + g.ncycles + 1, sizeof *g.index);
    struct entry *e = cprof_xcalloc(g.n + g.ncycles, sizeof *e);
    size_t ne = 0;
    for (size_t i = 0; i < g.n; i++)
        if (v->r[i].ran)
            e[ne++] = (struct entry){i, v->r[i].self, children(&g, i),
                                     cprof_xstrdup(v->r[i].label), v->r[i].timed,
                                     children_timed(v, i)};
    for (size_t c = 1; c <= g.ncycles; c++) {
        struct entry x = {g.n + c - 1, 0, 0, cprof_xasprintf("<cycle %zu as a whole>", c),
                          v->timed, v->timed};
        for (size_t i = 0; i < g.n; i++)
            if (g.cycle[i] == c) {
                x.self = cprof_add(x.self, v->r[i].self);
                x.children = cprof_add(x.children, children(&g, i));
                x.self_timed &= v->r[i].timed;
            }
        e[ne++] = x;
    }
    qsort(e, ne, sizeof *e, by_time);
    for (size_t k = 0; k < ne; k++)
        g.index[e[k].i] = k + 1;

    size_t hidden = 0;
    bool any = false;
    for (size_t k = 0; k < ne; k++) {
        bool cycle = e[k].i >= g.n;
        double pct = v->total_self ? 100.0 * (double)cprof_add(e[k].self, e[k].children) /
                                         (double)v->total_self : 0.0;
        bool show = !cycle && involved(&g, e[k].i);
        for (size_t i = 0; cycle && i < g.n && !show; i++)
            show = g.cycle[i] == e[k].i - g.n + 1 && involved(&g, i);
        if (!show)
            continue;
        if (v->o->has_threshold && pct < v->o->threshold) {
            hidden++;
            continue;
        }
        if (any)
            cprof_table_rule(t);
        any = true;
        (cycle ? cycle_entry : routine_entry)(t, &g, &e[k], pct);
    }
    if (v->o->has_threshold)
        cprof_table_note(t, "%zu entries below %g%% hidden", hidden, v->o->threshold);
    cprof_note_estimates(t, v, false);
    for (size_t k = 0; k < ne; k++)
        free(e[k].label);
    free(e);
    free(g.index);
    free(g.cycle);
    return t;
}
