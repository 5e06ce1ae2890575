/* pathview.c: the calling contexts as a report: --paths (Hall and Goldberg's downward
 * call path profile, every context of every worker with its S/C split of calls),
 * --folded (folded stacks for flame graphs) and --hatchet (Hatchet's literal tree).
 * docs/report.md, "Call paths".
 *
 * Every time is worker time: a context's self time (the time the workers' calls were
 * made in it, as the runtime measured it) and its inclusive time (its subtree's self
 * times), so each stretch of a worker's time counts once, in one context, and a child
 * never exceeds its parent.
 */
#define _GNU_SOURCE
#include "report.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/alloc.h"

/* A context's children, heaviest first, as lists of indexes. */
struct tree {
    size_t *first, *next;   /* [npaths]: first child, next sibling; SIZE_MAX: none */
    size_t *roots;
    size_t nroots;
};

static const cprof_profile *sort_p;

static int cmp_heavier(const void *x, const void *y)
{
    const cprof_prof_path *a = &sort_p->paths[*(const size_t *)x];
    const cprof_prof_path *b = &sort_p->paths[*(const size_t *)y];
    int64_t ta = a->inclusive, tb = b->inclusive;
    return ta != tb ? (ta < tb) - (ta > tb) : (*(const size_t *)x > *(const size_t *)y) -
                                              (*(const size_t *)x < *(const size_t *)y);
}

static void tree_make(struct tree *t, const cprof_profile *p)
{
    size_t n = p->npaths;
    t->first = cprof_xcalloc(n + 1, sizeof *t->first);
    t->next = cprof_xcalloc(n + 1, sizeof *t->next);
    t->roots = cprof_xcalloc(n + 1, sizeof *t->roots);
    size_t *order = cprof_xcalloc(n + 1, sizeof *order);
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        t->first[i] = t->next[i] = SIZE_MAX;
    }
    sort_p = p;
    qsort(order, n, sizeof *order, cmp_heavier);
    /* Lightest first, each put at the head of its parent's list: heaviest ends first. */
    t->nroots = 0;
    for (size_t k = n; k-- > 0;) {
        size_t i = order[k], parent = p->paths[i].parent;
        if (parent == CPROF_NO_PATH)
            continue;
        t->next[i] = t->first[parent];
        t->first[parent] = i;
    }
    for (size_t k = 0; k < n; k++)
        if (p->paths[order[k]].parent == CPROF_NO_PATH)
            t->roots[t->nroots++] = order[k];
    free(order);
}

static void tree_free(struct tree *t)
{
    free(t->first);
    free(t->next);
    free(t->roots);
}

/* What a context is called on a path: its routine. */
static const char *step_name(const cprof_view *v, size_t i)
{
    const cprof_prof_path *x = &v->p->paths[i];
    return CPROF_IS_ROUTINE(x->routine) ? v->r[x->routine].label : cprof_path_special_name(x->routine);
}

/* The first step of a path from root i: its routine, and for a root that a call site
 * made (on a thread of a team, where the routine that opened the region is not open)
 * "(region of CALLER)", sep, routine. */
static char *root_name(const cprof_view *v, size_t i, const char *sep)
{
    const cprof_profile *p = v->p;
    const cprof_prof_path *x = &p->paths[i];
    if (!x->site_file || !CPROF_IS_ROUTINE(x->routine))
        return cprof_xstrdup(step_name(v, i));
    const char *caller = "?";
    for (size_t a = 0; a < p->narcs; a++)
        if (p->arcs[a].callee == x->routine && p->arcs[a].caller != CPROF_EXTERNAL)
            for (size_t s = 0; s < p->arcs[a].nsites; s++)
                if (p->arcs[a].sites[s].line == x->site_line &&
                    !strcmp(p->arcs[a].sites[s].file, x->site_file))
                    caller = v->r[p->arcs[a].caller].label;
    return cprof_xasprintf("(region of %s)%s%s", caller, sep, step_name(v, i));
}

/* Path of context i: prefix > step, or its root name. */
static char *path_name(const cprof_view *v, size_t i, const char *prefix, const char *sep)
{
    return prefix ? cprof_xasprintf("%s%s%s", prefix, sep, step_name(v, i)) : root_name(v, i, sep);
}

void cprof_cell_path_site(cprof_table *t, const cprof_view *v, size_t i)
{
    const cprof_prof_path *x = &v->p->paths[i];
    if (!x->site_file) {
        cprof_cell_str(t, "");
        return;
    }
    char *site = cprof_xasprintf("%s:%lld", x->site_file, (long long)x->site_line);
    cprof_cell_str(t, site);
    free(site);
}

char *cprof_path_label(const cprof_view *v, size_t i, const char *sep)
{
    size_t parent = v->p->paths[i].parent;
    if (parent == CPROF_NO_PATH)
        return root_name(v, i, sep);
    char *prefix = cprof_path_label(v, parent, sep);
    char *name = path_name(v, i, prefix, sep);
    free(prefix);
    return name;
}

static const char paths_explain[] =
    "Every calling context of every worker (docs/semantics.md, \"Calling contexts\"):\n"
    "a path from an entry from outside (main, a callback) down to the routine reached,\n"
    "heaviest first under each parent; every thread of a team has the path of the\n"
    "routine that opened the region, then <parallel> (its construct's site), and a\n"
    "task its creator's, then <task>.  (region of NAME) starts the paths of a team's\n"
    "other threads in a profile whose program was linked without cprof-cc.  Calls\n"
    "of the same routine from two places are two contexts, so a routine's cost is told\n"
    "apart by where it was called from, as no arc can.  Times are worker time, in ms:\n"
    "self is the time the workers' calls were made in the context (its activations,\n"
    "less what they called; a region's or task's body counts for the routine that\n"
    "runs it, as its self time does), incl its own and its subtree's: each stretch of a\n"
    "worker's time in one context, a child never more than its parent.  %time is incl\n"
    "over elapsed x workers.  s calls: sequential entries (S-S); c calls: concurrent\n"
    "ones (S-C, C-S, C-C).  workers: how many ran the context.  A recursive call's\n"
    "context is shown once, its time in the context of the routine further up (=>\n"
    "NAME), which also has what its activations call.  A counted routine has calls and\n"
    "no time of its own (-: not measured), and what it calls is under its caller's\n"
    "context.  Runs with CPROF_MODE=count have no contexts; <other> holds the calls\n"
    "past CPROF_PATHS_MAX.\n";

struct paths_out {
    const cprof_view *v;
    const struct tree *t;
    const cprof_rescols *rc;    /* --resources */
    cprof_table *table;
    int64_t whole;
    size_t hidden;
    const char *sep;        /* between the steps of a path */
};

static void path_rows(struct paths_out *o, size_t i, const char *prefix)
{
    const cprof_profile *p = o->v->p;
    const cprof_prof_path *x = &p->paths[i];
    bool timed = cprof_view_path_timed(o->v, i);
    double pct = o->whole > 0 ? 100.0 * (double)x->inclusive / (double)o->whole : 0;
    if (o->v->o->has_threshold && pct < o->v->o->threshold) {
        o->hidden++;
        return;
    }
    char *name = path_name(o->v, i, prefix, o->sep);
    int64_t sn = x->cases[0].n, cn = 0, workers = 0;
    for (int k = 1; k < 4; k++)
        cn = cprof_add(cn, x->cases[k].n);
    for (size_t w = 0; w < p->nworkers; w++)
        workers += x->worker[w].n > 0;
    char *shown = x->folds_into != i
                      ? cprof_xasprintf("%s  => %s", name, step_name(o->v, x->folds_into))
                      : NULL;
    cprof_table_row(o->table);
    cprof_cell_pct(o->table, timed ? pct : NAN);
    cprof_cell_time_mark(o->table, cprof_if_measured(timed, x->self), cprof_mark(o->v, x->self_err));
    cprof_cell_time_mark(o->table, cprof_if_measured(timed, x->inclusive),
                         cprof_mark(o->v, x->time_err));
    cprof_cell_int(o->table, sn);
    cprof_cell_int(o->table, cn);
    cprof_cell_int(o->table, workers);
    if (p->nestimates) {
        cprof_cell_error(o->table, x->self_err, x->self);
        cprof_cell_error(o->table, x->time_err, x->inclusive);
    }
    cprof_rescols_cells(o->rc, o->table, i);
    /* The tree itself, for a program that reads the rows (the HTML page's tree). */
    cprof_cell_int(o->table, (int64_t)i);
    if (x->parent == CPROF_NO_PATH)
        cprof_cell_empty(o->table);
    else
        cprof_cell_int(o->table, (int64_t)x->parent);
    cprof_cell_path_site(o->table, o->v, i);
    cprof_cell_str(o->table, shown ? shown : name);
    free(shown);
    for (size_t c = o->t->first[i]; c != SIZE_MAX; c = o->t->next[c])
        path_rows(o, c, name);
    free(name);
}

static const char down_explain[] =
    "The calling contexts from the routine down (Hall and Goldberg's downward call path\n"
    "profile): the trees under every context of the routine that is not inside another\n"
    "one of it, merged, so each line is what the routine spent through that path,\n"
    "whoever called it.  Columns as in the call paths above.\n";

static const char up_explain[] =
    "The paths that lead to the routine (Hall and Goldberg's upward call path profile):\n"
    "the routine, then each caller in turn up to an entry from outside, every line with\n"
    "the routine's own calls and time through that path; site is where the line's\n"
    "routine called the one before it.  A context of the routine inside another one of\n"
    "it counts in the outer one.  Columns as in the call paths above.\n";

cprof_table *cprof_section_paths(const cprof_view *v, cprof_paths_mode mode, const char *name)
{
    static const cprof_column cols[] = {
        {"%time", "pct_time", false}, {"self", "self_worker_ns", false},
        {"incl", "inclusive_worker_ns", false}, {"s calls", "s_calls", false},
        {"c calls", "c_calls", false}, {"workers", "workers", false},
        {NULL, "id", false}, {NULL, "parent", false},
        {"site", "site", true}, {"path", "path", true},
    };
    char *title = mode == CPROF_PATHS_ALL ? cprof_xstrdup("Call paths")
                  : cprof_xasprintf("Call paths %s %s", mode == CPROF_PATHS_DOWN ? "from" : "up from",
                                    name);
    /* With estimated times, their errors (CSV only) after workers; --resources: their
     * columns after those, before the last four (id ... path). */
    static const cprof_column err_cols[] = {
        {NULL, "self_error_ns", false}, {NULL, "inclusive_error_ns", false},
    };
    enum { NCOLS = sizeof cols / sizeof *cols, NERR = sizeof err_cols / sizeof *err_cols };
    size_t ncols = NCOLS + (v->p->nestimates ? NERR : 0);
    cprof_column all[NCOLS + NERR];
    memcpy(all, cols, (NCOLS - 4) * sizeof *all);
    memcpy(all + NCOLS - 4, err_cols, sizeof err_cols);
    memcpy(all + ncols - 4, cols + NCOLS - 4, 4 * sizeof *all);
    cprof_rescols *rc = cprof_rescols_new(v, mode == CPROF_PATHS_UP ? CPROF_RESCOLS_PATHS_UP
                                                                    : CPROF_RESCOLS_PATHS);
    cprof_table *t = cprof_rescols_table(rc, title, mode == CPROF_PATHS_ALL ? paths_explain
                                                    : mode == CPROF_PATHS_DOWN ? down_explain
                                                    : up_explain,
                                         all, ncols, ncols - 4);
    free(title);
    struct tree tr;
    tree_make(&tr, v->p);
    struct paths_out o = {v, &tr, rc, t, 0, 0, mode == CPROF_PATHS_UP ? " < " : " > "};
    o.whole = v->p->elapsed_ns * (int64_t)(v->p->nworkers ? v->p->nworkers : 1);
    for (size_t r = 0; r < tr.nroots; r++)
        path_rows(&o, tr.roots[r], NULL);
    if (cprof_paths_untimed(v))
        cprof_table_note(t, "(%s)", cprof_paths_untimed(v));
    if (o.hidden)
        cprof_table_note(t, "(%zu contexts below %.2f%% hidden, with what is under them)",
                         o.hidden, v->o->threshold);
    cprof_note_estimates(t, v, false);
    tree_free(&tr);
    cprof_rescols_free(rc);
    return t;
}

/* ---- --folded: "a;b;c self_ns" per context, for flamegraph.pl, inferno, speedscope ---- */

const char *cprof_paths_untimed(const cprof_view *v)
{
    return !v->p->npaths ? "no calling contexts (CPROF_MODE=count, CPROF_PATHS=0 or an older cprof)"
         : !v->timed ? "the calling contexts have no times (a CPROF_MODE=count run)"
         : !v->p->path_self ? "the calling contexts have no times (their self times are not in"
                              " this profile, written by an older cprof)"
         : NULL;
}

bool cprof_paths_counted(const cprof_view *v)
{
    for (size_t i = 0; i < v->p->npaths; i++)
        if (CPROF_IS_ROUTINE(v->p->paths[i].routine) && v->p->routines[v->p->paths[i].routine].counted)
            return true;
    return false;
}

/* A context's line has its self time; one with none (a counted routine's, whose time
 * is its caller's, a recursive call's, in the context it folds into) has no line.  An
 * estimated self time has its last frame marked: "a;b;c~ self_ns". */
static void folded(FILE *f, const cprof_view *v, const struct tree *t, size_t i,
                   const char *prefix)
{
    const cprof_prof_path *x = &v->p->paths[i];
    char *stack = path_name(v, i, prefix, ";");
    if (x->self > 0 && cprof_view_path_timed(v, i))
        fprintf(f, "%s%s %lld\n", stack, x->self_err.estimated ? "~" : "", (long long)x->self);
    for (size_t c = t->first[i]; c != SIZE_MAX; c = t->next[c])
        folded(f, v, t, c, stack);
    free(stack);
}

char *cprof_report_folded(const cprof_view *v)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    struct tree t;
    tree_make(&t, v->p);
    for (size_t r = 0; r < t.nroots; r++)
        folded(f, v, &t, t.roots[r], NULL);
    tree_free(&t);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- --hatchet: GraphFrame.from_literal's list of trees ---- */

/* A node's frame: the routine's name, its file and line, whether it is counted at its
 * call sites; a region's or task's body its construct's file and line (none if cprof-cc
 * did not compile it).  A root that a call site made on a thread of a team (no region
 * hooks) names the routine that opened the region. */
static json_t *hatchet_frame(const cprof_view *v, size_t i)
{
    const cprof_profile *p = v->p;
    const cprof_prof_path *x = &p->paths[i];
    if (!CPROF_IS_ROUTINE(x->routine)) {
        bool body = x->routine != CPROF_OTHER_ROUTINE;
        json_t *f = json_pack("{s:s, s:s}", "name", cprof_path_special_name(x->routine), "type",
                              x->routine == CPROF_TASK_ROUTINE ? "task" : body ? "region" : "other");
        if (f && body && x->site_file &&
            json_object_update_new(f, json_pack("{s:s, s:I}", "file", x->site_file,
                                                "line", (json_int_t)x->site_line))) {
            json_decref(f);
            return NULL;
        }
        return f;
    }
    const cprof_prof_routine *r = &p->routines[x->routine];
    json_t *f = json_pack("{s:s, s:s, s:s, s:I, s:b}", "name", r->name, "type", "function",
                          "file", r->file, "line", (json_int_t)r->line, "counted", r->counted);
    if (f && x->parent == CPROF_NO_PATH && x->site_file) {
        char *root = root_name(v, i, " > ");
        json_object_set_new(f, "root", json_string(root));
        free(root);
    }
    return f;
}

/* Its metrics: self and inclusive worker time (null where not measured), calls. */
static json_t *hatchet_node(const cprof_view *v, const struct tree *t, size_t i)
{
    const cprof_prof_path *x = &v->p->paths[i];
    bool timed = cprof_view_path_timed(v, i);
    json_t *children = json_array();
    int64_t calls = 0;
    for (int k = 0; k < 4; k++)
        calls = cprof_add(calls, x->cases[k].n);
    for (size_t c = t->first[i]; c != SIZE_MAX; c = t->next[c]) {
        json_t *child = hatchet_node(v, t, c);
        if (!child || json_array_append_new(children, child)) {
            json_decref(children);
            return NULL;
        }
    }
    json_t *node = json_pack("{s:o, s:{s:o, s:o, s:I, s:I, s:I}, s:o}", "frame", hatchet_frame(v, i),
                     "metrics", "time", timed ? json_integer(x->self) : json_null(),
                     "time (inc)", timed ? json_integer(x->inclusive) : json_null(),
                     "calls", (json_int_t)calls, "s_calls", (json_int_t)x->cases[0].n,
                     "c_calls", (json_int_t)(calls - x->cases[0].n), "children", children);
    /* Estimated times: their errors (ns, null: unknown) beside them. */
    if (node && (x->self_err.estimated || x->time_err.estimated)) {
        double e[2] = {cprof_error_ns(x->self_err), cprof_error_ns(x->time_err)};
        json_t *m = json_object_get(node, "metrics");
        if (json_object_set_new(m, "time error", isnan(e[0]) ? json_null() : json_real(e[0])) ||
            json_object_set_new(m, "time (inc) error", isnan(e[1]) ? json_null() : json_real(e[1]))) {
            json_decref(node);
            return NULL;
        }
    }
    return node;
}

char *cprof_report_hatchet(const cprof_view *v)
{
    struct tree t;
    tree_make(&t, v->p);
    json_t *roots = json_array();
    for (size_t r = 0; r < t.nroots && roots; r++) {
        json_t *n = hatchet_node(v, &t, t.roots[r]);
        if (!n || json_array_append_new(roots, n)) {
            json_decref(roots);
            roots = NULL;
        }
    }
    tree_free(&t);
    return cprof_json_text(roots, 1);
}
