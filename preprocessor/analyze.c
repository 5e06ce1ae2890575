/* analyze.c: decisions over the whole unit once walked: the routines by name, how each
 * counted call learns its case, the nodes in source order and their trees, which calls
 * render places, and which sites name their callee (unit.h). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "unit.h"

static int by_routine_name(const void *a, const void *b, void *data)
{
    const struct unit *u = data;
    return strcmp(u->routines[*(const int *)a].name, u->routines[*(const int *)b].name);
}

void index_routines(struct unit *u)
{
    u->defined = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *u->defined);
    for (int i = 0; i < u->nroutines; i++)
        if (u->routines[i].line && !u->routines[i].region)
            u->defined[u->ndefined++] = i;
    qsort_r(u->defined, (size_t)u->ndefined, sizeof *u->defined, by_routine_name, u);
}

/* The routine defined in this unit named p[0..n), or -1. */
int defined_routine(const struct unit *u, const char *p, size_t n)
{
    int lo = 0, hi = u->ndefined;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        const char *name = u->routines[u->defined[mid]].name;
        int c = strncmp(name, p, n);
        if (c == 0 && name[n])
            c = 1;
        if (c == 0)
            return u->defined[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The blocks that may hold offset at, [*first, *last): those of the function body
 * around it whose pragma comes before it (bodies and blocks are in the text's order).
 * Searching only these keeps a unit of thousands of functions linear. */
void blocks_around(const struct unit *u, unsigned at, int *first, int *last)
{
    int lo = 0, hi = u->nbodies;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (u->bodies[mid].start <= at)
            lo = mid;
        else
            hi = mid;
    }
    *first = *last = 0;
    if (!u->nbodies || u->bodies[lo].start > at || at >= u->bodies[lo].end)
        return;
    int a = 0, b = u->nblocks;
    while (a < b) {
        int mid = (a + b) / 2;
        if (u->blocks[mid].pragma_start < u->bodies[lo].start)
            a = mid + 1;
        else
            b = mid;
    }
    *first = *last = a;
    while (*last < u->nblocks && u->blocks[*last].pragma_start < at)
        (*last)++;
}

/* How each call of a counted routine learns its case without calling the runtime, and
 * each call of a timed one passes it to the callee's entry (where the site may name
 * the runtime's variables, outside -fcprof-input-size's twins and #pragma cprof
 * regions).  A site outside every parallel construct of its routine (d = 0) has the
 * case of the routine's entry: the routine copies case0 at entry.  A site inside one takes the
 * case cached in a variable private to each thread of the innermost parallel
 * construct (firstprivate of a static -1: computed by its first call, constant for
 * that thread's part of that region).  Neither may be seen through a task, a simd
 * loop, a target or teams region (another data environment, another thread, or
 * another state), nor in a unit with target regions (no thread-local storage in device
 * code), nor from a cleanup wrapper or a declare reduction (its combiner and
 * initializer name no variable but theirs) or its copy: those sites call cprof_count. */
void choose_caches(struct unit *u)
{
    if (u->offload)
        return;
    for (int i = 0; i < u->nnodes; i++) {
        const struct node *n = &u->nodes[i];
        if (n->kind != N_CALL || !n->target || n->cleanup || in_reduction(u, n) || n->leaf >= 0)
            continue;
        int callee = defined_routine(u, n->target, strlen(n->target));
        int counted = callee >= 0 && u->routines[callee].counted;
        if (!counted && (u->options->input_size || n->region || !names_tables(u, n)))
            continue;
        struct site *s = &u->sites[n->index];
        /* A region's call: the local case0 and caches are its function's, not its. */
        if (u->routines[s->routine].region)
            continue;
        int inner = -1, first, last;    /* the innermost parallel block around the site */
        blocks_around(u, n->start, &first, &last);
        for (int b = first; b < last; b++) {
            const struct block *k = &u->blocks[b];
            if (k->parallel && k->start <= n->start && n->start < k->end
                && (inner < 0 || k->start >= u->blocks[inner].start))
                inner = b;
        }
        if (s->d > 0 && (inner < 0 || !u->blocks[inner].cacheable))
            continue;
        int seen_through = 1;
        for (int b = first; b < last; b++) {
            const struct block *k = &u->blocks[b];
            if (k->start <= n->start && n->start < k->end && !k->cacheable
                && (inner < 0 || k->start >= u->blocks[inner].start))
                seen_through = 0;
        }
        if (!seen_through)
            continue;
        if (counted)
            s->slot = u->nslots++;
        else
            s->passes = 1;
        if (s->d == 0) {
            s->cache = CACHE_CASE0;
            u->routines[s->routine].reads_case0 = 1;
        } else {
            s->cache = CACHE_BLOCK;
            s->block = inner;
            u->blocks[inner].clause = 1;
        }
    }
    for (int b = 0; b < u->nblocks; b++)
        if (u->blocks[b].clause)
            new_node(u, N_CLAUSE, u->blocks[b].pragma_end, u->blocks[b].pragma_end)->index = b;
}

/* An insertion (a hook, a brace, a construct's line: no text of its own) before a node
 * that starts where it is: at a body's `{f();` the hook goes before the call, not into
 * its facade. */
static int by_position(const void *a, const void *b)
{
    const struct node *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if ((x->end == x->start) != (y->end == y->start))
        return x->end == x->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;        /* the enclosing node first */
    return x->kind - y->kind;                   /* a hook before what follows it */
}

/* Nodes sorted by position, and sites numbered in source order. */
void number_sites(struct unit *u)
{
    if (u->nnodes)
        qsort(u->nodes, (size_t)u->nnodes, sizeof *u->nodes, by_position);
    struct site *sorted = cprof_xcalloc((size_t)u->nsites + 1, sizeof *sorted);
    int next = 0;
    for (int i = 0; i < u->nnodes; i++)
        if (u->nodes[i].kind == N_CALL || u->nodes[i].kind == N_CONSTRUCT) {
            sorted[next] = u->sites[u->nodes[i].index];
            u->nodes[i].index = next++;
        }
    if (u->nsites)
        memcpy(u->sites, sorted, (size_t)u->nsites * sizeof *sorted);
    free(sorted);
}

/* Nodes are sorted; give those of one copy (0: the text itself) their directly
 * contained nodes, and return the top ones. */
static int *build_tree(struct unit *u, int copy, int *ntop)
{
    int *stack = cprof_xcalloc((size_t)u->nnodes + 1, sizeof *stack);
    int *top = cprof_xcalloc((size_t)u->nnodes + 1, sizeof *top);
    int depth = 0;
    *ntop = 0;
    for (int i = 0; i < u->nnodes; i++) {
        struct node *n = &u->nodes[i];
        if (n->copy != copy)
            continue;
        while (depth > 0) {
            struct node *p = &u->nodes[stack[depth - 1]];
            /* Inside p; an insertion at p's end is after it (`leaf(1);leaf(2);`, the
             * brace closing the first statement). */
            if (n->start >= p->start && n->end <= p->end && p->end > p->start
                && !(n->start == n->end && n->start == p->end))
                break;
            depth--;
        }
        if (depth == 0) {
            top[(*ntop)++] = i;
        } else {
            struct node *p = &u->nodes[stack[depth - 1]];
            p->kids = cprof_xrealloc(p->kids, ((size_t)p->nkids + 1) * sizeof *p->kids);
            p->kids[p->nkids++] = i;
        }
        stack[depth++] = i;
    }
    free(stack);
    return top;
}

/* The trees of the text and of every copy of a declare reduction. */
void build_trees(struct unit *u)
{
    u->tops = cprof_xcalloc((size_t)u->ncopies + 1, sizeof *u->tops);
    u->ntops = cprof_xcalloc((size_t)u->ncopies + 1, sizeof *u->ntops);
    for (int copy = 0; copy <= u->ncopies; copy++)
        u->tops[copy] = build_tree(u, copy, &u->ntops[copy]);
}

static void place_node(struct unit *u, struct node *n);

/* The nodes of kids that render_range puts in [from, to): in order, each inside it and
 * after the last one placed. */
static void place_range(struct unit *u, unsigned from, unsigned to, const int *kids, int nkids)
{
    unsigned pos = from;
    for (int i = 0; i < nkids; i++) {
        struct node *k = &u->nodes[kids[i]];
        if (k->start < from || k->end > to || k->start < pos || (k->start == to && k->end == to))
            continue;
        k->placed = 1;
        place_node(u, k);
        pos = k->end;
    }
}

/* The ranges render_node copies with the nodes inside them. */
static void place_node(struct unit *u, struct node *n)
{
    if (n->cleanup || n->kind == N_RENAME || n->kind == N_CLAUSE || n->kind == N_HOOK
        || n->kind == N_CLOSE || n->kind == N_CONSTRUCT || n->kind == N_TWIN || n->kind == N_TWIN_END
        || n->kind == N_LEAF_COPY
        || n->kind == N_COMMENT)
        return;
    if (n->kind == N_REDUCTION) {
        place_range(u, n->desig_start, n->desig_end, u->tops[n->index], u->ntops[n->index]);
    } else if (n->kind != N_CALL) {
        place_range(u, n->start, n->arg_start[0], n->kids, n->nkids);
        place_range(u, n->arg_start[0], n->arg_end[0], n->kids, n->nkids);
        place_range(u, n->arg_end[0], n->end, n->kids, n->nkids);
    } else {
        place_range(u, n->desig_start, n->desig_end, n->kids, n->nkids);
        unsigned pos = n->desig_end;
        for (int i = 0; i < n->nargs; i++) {
            place_range(u, pos, n->arg_start[i], n->kids, n->nkids);
            place_range(u, n->arg_start[i], n->arg_end[i], n->kids, n->nkids);
            pos = n->arg_end[i];
        }
        place_range(u, pos, n->end, n->kids, n->nkids);
    }
}

/* The site of a direct call (not a library function's) of a routine defined here
 * names the routine's descriptor: its handshake sets no target, and the unit's table
 * says what it calls.  Only calls rendered, and every cleanup wrapper's. */
void find_callees(struct unit *u, unsigned from)
{
    place_range(u, from, (unsigned)u->size, u->tops[0], u->ntops[0]);
    for (int i = 0; i < u->nnodes; i++) {
        const struct node *n = &u->nodes[i];
        if (n->kind == N_CALL && n->target && n->leaf < 0 && (n->placed || n->cleanup))
            u->sites[n->index].callee = defined_routine(u, n->target, strlen(n->target));
        else if (n->kind == N_CALL && n->region)
            u->sites[n->index].callee = n->leaf;
    }
}

/* A leaf's calls are short if any are: those the runtime samples cost their site a few
 * instructions (cprof_leaf_untimed) and call the routine's copy with no hook, which gcc
 * may inline there.  Only where the site passes its case (so never under
 * -fcprof-input-size, whose twins call the runtime, nor in a unit with target regions)
 * and follows the routine's definition (the copy's, before it); a routine that makes a
 * call cprof sees, is a region, or cannot be copied (find_twin) is left out. */
void choose_leaf_sites(struct unit *u)
{
    /* Which routines make a call cprof sees (else CPROF_ROUTINE_LEAF): every site
     * is made by the walk. */
    for (int i = 0; i < u->nsites; i++)
        if (u->sites[i].routine >= 0)
            u->routines[u->sites[i].routine].has_sites = 1;
    int nnodes = u->nnodes;     /* new_node may move u->nodes */
    for (int k = 0; k < nnodes; k++) {
        const struct node *n = &u->nodes[k];
        if (n->kind != N_CALL || !n->target || n->cleanup || n->leaf >= 0 || n->region)
            continue;
        struct site *s = &u->sites[n->index];
        int callee = defined_routine(u, n->target, strlen(n->target));
        if (!s->passes || callee < 0)
            continue;
        struct routine *r = &u->routines[callee];
        if (r->counted || r->has_sites || r->region || !r->line || r->twin || !r->copyable
            || !strcmp(r->name, "main") || n->start < r->def_end)
            continue;
        s->leaf = ++u->nleaves;
        unsigned at = r->def_start;
        if (!r->leaf_copy)
            new_node(u, N_LEAF_COPY, at, at)->index = callee;
        r->leaf_copy = 1;
    }
}
