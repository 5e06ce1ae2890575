/* regions.c: which user region each call of a body is made in (docs/control.md), by
 * following the body's statements as control flows through them: a region begun by
 * cprof_region_begin("NAME") is open from there until a cprof_region_end() closes it
 * on the path taken, whichever branch, loop or jump that path goes through, so that a
 * region ended in both branches of an if is closed after it; a #pragma cprof region's
 * region is its statement, however it is left.  A call's site then has the innermost
 * region open there as its caller, and its d counts the parallel constructs inside it
 * (the region begins as a call made where its begin is).
 *
 * Where paths that disagree meet (a region ended on one branch only, a loop that ends
 * one more than it begins), the runtime follows the path taken and the site cannot:
 * cprof-cc warns, and the calls from there on are the regions' open on every path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

enum { DEPTH_MAX = 64 };

/* The regions open at a point of the body, innermost last; dead: no path reaches it. */
struct state {
    int dead, depth;
    struct open {
        int routine, d;
        unsigned begin;             /* where its begin is */
        int scoped;                 /* a #pragma cprof region's: ends with its statement */
    } open[DEPTH_MAX];
};

/* A statement that break (or continue, loops only) leaves: the states they leave
 * with, met where it ends (or where its next iteration begins). */
struct target {
    int loop;
    unsigned start;
    struct state brk, cont, cases;  /* cases: a switch's state at its cases */
    int has_default;
};

struct label {
    char *name;
    struct state st;
    int seen;                       /* its statement reached: a goto to it now is backward */
};

struct flow {
    struct unit *u;
    unsigned (*events)[2];          /* offset, call node + 1 (0: cprof_region_end) */
    int nevents;
    struct target *targets;
    int ntargets;
    struct label *labels;
    int nlabels, labels_cap;
};

static struct state dead(void)
{
    struct state s = { 0 };
    s.dead = 1;
    return s;
}

static int same(const struct state *a, const struct state *b)
{
    if (a->depth != b->depth)
        return 0;
    for (int i = 0; i < a->depth && i < DEPTH_MAX; i++)
        if (a->open[i].routine != b->open[i].routine || a->open[i].d != b->open[i].d)
            return 0;
    return 1;
}

/* Where two paths meet (at cursor at): one state if they agree, else the regions open
 * on both, with a warning. */
static void join(struct flow *f, struct state *into, const struct state *other, CXCursor at)
{
    if (other->dead || same(into, other))
        return;
    if (into->dead) {
        *into = *other;
        return;
    }
    int k = 0;
    while (k < into->depth && k < other->depth && k < DEPTH_MAX &&
           into->open[k].routine == other->open[k].routine && into->open[k].d == other->open[k].d)
        k++;
    const struct state *longer = into->depth > k ? into : other;
    if (k < DEPTH_MAX) {
        unsigned line;
        char *file = presumed(clang_getCursorLocation(at), &line);
        const struct routine *r = &f->u->routines[longer->open[k].routine];
        const char *around = k ? f->u->routines[into->open[k - 1].routine].name
                               : f->u->routines[f->u->routine].name;
        fprintf(stderr, "cprof-cc: %s:%u: warning: region '%s' is open on some paths to here "
                        "and not on others: the calls from here on are charged to '%s', "
                        "whichever path the run takes\n", file, line, r->name, around);
        free(file);
    }
    into->depth = k;
}

/* The events of [lo, hi), in the order of the text (one statement's, or the part of
 * one before its first statement). */
static void straight(struct flow *f, unsigned lo, unsigned hi, struct state *st)
{
    int a = 0, b = f->nevents;
    while (a < b) {
        int m = (a + b) / 2;
        if (f->events[m][0] < lo)
            a = m + 1;
        else
            b = m;
    }
    for (int e = a; e < f->nevents && f->events[e][0] < hi; e++) {
        if (!f->events[e][1]) {
            if (!st->dead)
                st->depth -= st->depth > 0;
            continue;
        }
        const struct node *x = &f->u->nodes[f->events[e][1] - 1];
        struct site *s = &f->u->sites[x->index];
        int d = s->d;
        if (st->depth > 0 && st->depth <= DEPTH_MAX) {
            s->routine = st->open[st->depth - 1].routine;
            s->d -= st->open[st->depth - 1].d;
        }
        if (x->region && !st->dead && st->depth++ < DEPTH_MAX)
            st->open[st->depth - 1] = (struct open){ x->leaf, d, x->start, x->region == 2 };
    }
}

static void run(struct flow *f, CXCursor c, unsigned lo, unsigned hi, struct state *st);

struct kids {
    CXCursor *c;
    int n, cap;
};

static enum CXChildVisitResult add_kid(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct kids *k = data;
    GROW(k->c, k->n, k->cap);
    k->c[k->n++] = c;
    return CXChildVisit_Continue;
}

static unsigned start_of(CXCursor c)
{
    unsigned s, e;
    extent_of(c, &s, &e);
    return s;
}

/* Where statement c ends, its semicolon included. */
static unsigned end_of(const struct unit *u, CXCursor c)
{
    unsigned s, e;
    extent_of(c, &s, &e);
    return statement_end(u, e);
}

/* The states a jump leaves with: the #pragma cprof regions begun inside the statement
 * it leaves are ended by their cleanup. */
static struct state leaving(const struct state *st, unsigned from)
{
    struct state s = *st;
    while (s.depth > 0 && s.depth <= DEPTH_MAX && s.open[s.depth - 1].scoped &&
           s.open[s.depth - 1].begin >= from)
        s.depth--;
    return s;
}

static struct label *label(struct flow *f, CXCursor c)
{
    char *name = cx_take(clang_getCursorSpelling(c));
    for (int i = 0; i < f->nlabels; i++)
        if (!strcmp(f->labels[i].name, name)) {
            free(name);
            return &f->labels[i];
        }
    GROW(f->labels, f->nlabels, f->labels_cap);
    f->labels[f->nlabels] = (struct label){ name, dead(), 0 };
    return &f->labels[f->nlabels++];
}

/* A loop's body from s0 on, then its next iteration: the state at its end, with its
 * continues (target t), must be s0 again. */
static void iterate(struct flow *f, CXCursor loop, CXCursor body, unsigned lo, unsigned hi,
                    struct state *st, int t)
{
    struct state s0 = *st;
    run(f, body, lo, hi, st);
    join(f, st, &f->targets[t].cont, loop);
    join(f, st, &s0, loop);
}

static void structured(struct flow *f, CXCursor c, unsigned lo, unsigned hi, struct state *st)
{
    struct kids k = { 0 };
    clang_visitChildren(c, add_kid, &k);
    enum CXCursorKind kind = clang_getCursorKind(c);
    struct unit *u = f->u;
    switch (kind) {
    case CXCursor_CompoundStmt:
        for (int i = 0; i < k.n; i++) {
            unsigned end = i + 1 < k.n ? end_of(u, k.c[i]) : hi;
            run(f, k.c[i], lo, end, st);
            lo = end;
        }
        break;
    case CXCursor_IfStmt: {
        if (k.n < 2) {
            straight(f, lo, hi, st);
            break;
        }
        int then = k.n - (k.n >= 3 ? 2 : 1);
        unsigned cond_end = start_of(k.c[then]), then_end = end_of(u, k.c[then]);
        for (int i = 0; i < then; i++)
            run(f, k.c[i], lo, i + 1 < then ? end_of(u, k.c[i]) : cond_end, st);
        struct state other = *st;
        run(f, k.c[then], cond_end, k.n >= 3 ? then_end : hi, st);
        if (k.n >= 3)
            run(f, k.c[then + 1], then_end, hi, &other);
        join(f, st, &other, c);
        break;
    }
    case CXCursor_WhileStmt:
    case CXCursor_ForStmt:
    case CXCursor_DoStmt:
    case CXCursor_SwitchStmt: {
        if (k.n < 1) {
            straight(f, lo, hi, st);
            break;
        }
        /* The body is the last child but in a do loop, whose condition follows it. */
        int body = kind == CXCursor_DoStmt ? 0 : k.n - 1;
        unsigned bstart = start_of(k.c[body]), bend = kind == CXCursor_DoStmt ? end_of(u, k.c[0]) : hi;
        if (kind != CXCursor_DoStmt)
            straight(f, lo, bstart, st);
        /* Targets nest as the statements do: this one is the last while it runs (the
         * array may move meanwhile: by index). */
        f->targets = cprof_xrealloc(f->targets, (size_t)(f->ntargets + 1) * sizeof *f->targets);
        int t = f->ntargets++;
        f->targets[t] = (struct target){ kind != CXCursor_SwitchStmt, start_of(c), dead(), dead(),
                                         *st, 0 };
        if (kind == CXCursor_SwitchStmt) {
            run(f, k.c[body], bstart, bend, st);
            if (!f->targets[t].has_default)
                join(f, st, &f->targets[t].cases, c);
        } else {
            iterate(f, c, k.c[body], kind == CXCursor_DoStmt ? lo : bstart, bend, st, t);
        }
        if (kind == CXCursor_DoStmt)
            straight(f, bend, hi, st);
        struct state brk = f->targets[t].brk;
        f->ntargets--;
        join(f, st, &brk, c);
        break;
    }
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
        for (int i = f->ntargets - 1; i >= 0; i--)
            if (!f->targets[i].loop) {
                join(f, st, &f->targets[i].cases, c);
                f->targets[i].has_default |= kind == CXCursor_DefaultStmt;
                break;
            }
        if (k.n)
            run(f, k.c[k.n - 1], k.n > 1 ? end_of(u, k.c[k.n - 2]) : lo, hi, st);
        break;
    case CXCursor_LabelStmt: {
        struct label *l = label(f, c);
        join(f, st, &l->st, c);
        l->st = *st;
        l->seen = 1;
        if (k.n)
            run(f, k.c[0], lo, hi, st);
        break;
    }
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt:
        for (int i = f->ntargets - 1; i >= 0; i--)
            if (f->targets[i].loop || kind == CXCursor_BreakStmt) {
                struct target *t = &f->targets[i];
                struct state left = leaving(st, t->start);
                join(f, kind == CXCursor_BreakStmt ? &t->brk : &t->cont, &left, c);
                break;
            }
        *st = dead();
        break;
    case CXCursor_GotoStmt:
        for (int i = 0; i < k.n; i++)
            if (clang_getCursorKind(k.c[i]) == CXCursor_LabelRef) {
                struct label *l = label(f, k.c[i]);
                if (l->seen) {
                    struct state back = *st;
                    join(f, &back, &l->st, c);
                } else {
                    join(f, &l->st, st, c);
                }
            }
        *st = dead();
        break;
    case CXCursor_ReturnStmt:
    case CXCursor_IndirectGotoStmt:
        straight(f, lo, hi, st);
        *st = dead();
        break;
    default:
        straight(f, lo, hi, st);
    }
    free(k.c);
}

/* Statement c, in [lo, hi) of the text (what precedes it there first: a #pragma cprof
 * region's line, whose region its statement is). */
static void run(struct flow *f, CXCursor c, unsigned lo, unsigned hi, struct state *st)
{
    unsigned start = start_of(c);
    straight(f, lo, start, st);
    int pragmas = 0;
    for (int b = f->u->block_first; b < f->u->block_next; b++)
        pragmas += f->u->blocks[b].region && f->u->blocks[b].start == start;
    structured(f, c, start, hi, st);
    if (!st->dead)
        st->depth = st->depth > pragmas ? st->depth - pragmas : 0;
}

static int by_offset(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

void assign_regions(struct unit *u, CXCursor body, int first_node, int first_site, unsigned bstart, unsigned bend)
{
    struct flow f = { .u = u };
    int ncalls = 0, regions = 0;
    for (int i = first_node; i < u->nnodes; i++)
        ncalls += u->nodes[i].kind == N_CALL && u->nodes[i].index >= first_site;
    f.events = cprof_xcalloc((size_t)(ncalls + u->nregion_ends) + 1, sizeof *f.events);
    for (int i = first_node; i < u->nnodes; i++)
        if (u->nodes[i].kind == N_CALL && u->nodes[i].index >= first_site) {
            f.events[f.nevents][0] = u->nodes[i].start;
            f.events[f.nevents++][1] = (unsigned)i + 1;
            regions += u->nodes[i].region != 0;
        }
    for (int i = 0; i < u->nregion_ends; i++)
        if (u->region_ends[i] >= bstart && u->region_ends[i] < bend) {
            f.events[f.nevents][0] = u->region_ends[i];
            f.events[f.nevents++][1] = 0;
        }
    qsort(f.events, (size_t)f.nevents, sizeof *f.events, by_offset);
    if (regions) {
        struct state st = { 0 };
        run(&f, body, bstart, bend, &st);
    }
    for (int i = 0; i < f.nlabels; i++)
        free(f.labels[i].name);
    free(f.labels);
    free(f.targets);
    free(f.events);
}
