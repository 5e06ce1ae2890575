/* render.c: the rewritten text: the input copied with every node placed in it rewritten
 * (unit.h).  Edits only add text inside lines and never remove a newline (hoisted
 * argument text keeps its newlines, in a new order); lines added (declare reduction
 * copies) are followed by a line marker, so every original line keeps its number. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

static void render_node(struct unit *u, struct str *out, struct node *n);

/* After lines of its own: the text at offset `at` (a line's start) is on its line; with
 * system, in a system header, where gcc gives no warning. */
void add_line_marker(struct unit *u, struct str *out, unsigned at, int system)
{
    unsigned line;
    char *file = presumed(clang_getLocationForOffset(u->tu, u->file, at), &line);
    str_printf(out, "# %u ", line);
    str_literal(out, file);
    str_add(out, system ? " 3\n" : "\n", system ? 3 : 1);
    free(file);
}

/* Copies [from, to) of the input with the given nodes inside it rewritten (an
 * insertion at `to` belongs to what follows). */
void render_range(struct unit *u, struct str *out, unsigned from, unsigned to,
                  const int *kids, int nkids)
{
    unsigned pos = from;
    for (int i = 0; i < nkids; i++) {
        struct node *k = &u->nodes[kids[i]];
        if (k->start < from || k->end > to || k->start < pos || (k->start == to && k->end == to))
            continue;
        str_add(out, u->text + pos, k->start - pos);
        render_node(u, out, k);
        pos = k->end;
    }
    str_add(out, u->text + pos, to - pos);
}

static int has_call_inside(struct unit *u, struct node *n, unsigned from, unsigned to)
{
    for (int i = 0; i < n->nkids; i++) {
        struct node *k = &u->nodes[n->kids[i]];
        if (k->start >= from && k->end <= to)
            return 1;
    }
    return 0;
}

/* Is node n in a declare reduction or a copy of one, whose combiner and initializer may
 * name omp_out, omp_in, omp_priv, omp_orig alone? */
int in_reduction(const struct unit *u, const struct node *n)
{
    if (n->copy)
        return 1;
    for (int r = 0; r < u->nreductions; r++)
        if (u->reductions[r].line <= n->start && n->start < u->reductions[r].eol)
            return 1;
    return 0;
}

/* May node n's code name the unit's tables and the runtime's variables?  Not in a
 * declare reduction or a copy of one (its combiner and initializer may name omp_out,
 * omp_in, omp_priv, omp_orig alone), nor in sizeof, nor inside a construct that would
 * refuse them (pragmas.c's restricts_names: a default clause that makes every variable
 * a clause's, a target region, a loop construct, an untied task): there it reaches them through
 * the prelude's functions (tables.c), which gcc inlines when it optimizes, at a cost in
 * compile time; elsewhere, the code names them. */
int names_tables(const struct unit *u, const struct node *n)
{
    unsigned at = n->start;
    int first, last;
    if (in_reduction(u, n))
        return 0;
    /* Nor in a variable-length array's sizeof, which evaluates its operand: clang warns
     * of a store there (-Wunevaluated-expression), not of a call. */
    for (int i = 0; i < u->nunevaluated; i++)
        if (u->unevaluated[i][0] <= at && at < u->unevaluated[i][1])
            return 0;
    /* From the end of the pragma's line: the lines of the directives it is combined
     * with (the site of a nested for's) are its body. */
    blocks_around(u, at, &first, &last);
    for (int b = first; b < last; b++)
        if (u->blocks[b].restricted && u->blocks[b].pragma_end <= at && at < u->blocks[b].end)
            return 0;
    return 1;
}

/* The site's half of the handshake (target: NULL for a routine of the unit's, "0" for
 * an implicitly declared function), in node n's code: a store of the runtime's
 * thread-local pair, or in a unit with device code a call (tables.c).  A statement, or
 * with expr an expression. */
static void add_pending(struct unit *u, struct str *out, int site, const char *target,
                        const struct node *n, int expr)
{
    const char *cast = target && strcmp(target, "0") ? "(void (*)(void))" : "";
    if (u->offload || !names_tables(u, n))
        str_printf(out, target ? "__cprof_call(%d, %s%s)" : "__cprof_site(%d)", site, cast,
                   target ? target : "");
    else if (target)
        str_printf(out, "cprof_pending.site = &__cprof_s[%d]%scprof_pending.target = %s%s", site,
                   expr ? ", " : "; ", cast, target);
    else
        str_printf(out, "cprof_pending.site = &__cprof_s[%d]", site);
    const struct site *s = &u->sites[site];
    if (s->passes && s->cache == CACHE_CASE0)
        str_add(out, "; cprof_pending.kase = __cprof_c0", 33);
    else if (s->passes)
        str_printf(out, "; cprof_pending.kase = __cprof_k%d >= 0 ? __cprof_k%d "
                        ": (__cprof_k%d = cprof_site_case(&__cprof_s[%d]))",
                   s->block, s->block, s->block, site);
    if (!expr)
        str_add(out, "; ", 2);
}

/* The entry hook of routine r (a function's, a library function's or a region's), in
 * node n's code. */
static void add_enter(struct unit *u, struct str *out, int r, const struct node *n)
{
    str_printf(out, names_tables(u, n) ? "cprof_facade.enter(&__cprof_r[%d])" : "__cprof_enter(%d)", r);
}

/* The call site's half of a direct call of n->target.  A counted callee's count is
 * inline where gcc optimizes, in a counted routine too, whose copies gcc inlines each
 * compile it again (some more of gcc's time, against a call and a return per count:
 * docs/rewriting.md); a call of the prelude's helper at -O0; the prelude's inline
 * helper where the tables may not be named. */
void add_handshake(struct unit *u, struct str *out, const struct node *n)
{
    int site = n->index;
    const struct site *s = &u->sites[site];
    int callee = s->callee;
    int direct = names_tables(u, n), inline_count = direct && u->options->optimizing;
    if (callee >= 0) {
        /* Named by the site's descriptor: the callee's entry reads no target. */
        const char *to_callee = u->routines[callee].reads_case0 ? "cprof_pending.case0 = " : "";
        /* A twin counts by the runtime's call, not through the caches inline: their
         * loads of cprof's tables would be the sized activation's input. */
        if ((u->rendering_twin && u->routines[callee].counted)
            || (s->cache == CACHE_NONE && u->routines[callee].counted))
            str_printf(out, direct ? "cprof_count(&__cprof_s[%d]); " : "__cprof_count(%d); ", site);
        else if (!u->routines[callee].counted)
            add_pending(u, out, site, NULL, n, 0);
        else if (s->cache == CACHE_CASE0)
            str_printf(out, inline_count ? "cprof_count_case0(&__cprof_s[%d], &__cprof_n[%d], __cprof_c0); %s"
                            : "__cprof_case0(%d, %d, __cprof_c0); %s",
                       site, s->slot, *to_callee ? "cprof_pending.case0 = __cprof_c0; " : "");
        else
            str_printf(out, inline_count ? "%s(__cprof_k%d = cprof_count_cached(&__cprof_s[%d], &__cprof_n[%d], "
                                           "__cprof_k%d))%s; "
                                         : "%s(__cprof_k%d = __cprof_cached(%d, %d, __cprof_k%d))%s; ",
                       to_callee, s->block, site, s->slot, s->block, *to_callee ? " ? 2 : 0" : "");
        if (u->routines[callee].counted_entry)
            str_add(out, "__cprof_counted_mark(); ", 24);
    } else {
        add_pending(u, out, site, n->implicit ? "0" : n->target, n, 0);
    }
}

/* clang scopes the implicit declaration of a function with no prototype to the
 * innermost block and warns again at each use outside it (gcc remembers it): inside a
 * facade's statement expression, the call would hide its declaration from the rest of
 * the body.  So before the outermost facade, an unevaluated call of each such function
 * called inside it declares it where the program's call does, on its line. */
static void add_declarations(const struct unit *u, struct str *out, const struct node *n)
{
    if (n->scoped)
        str_printf(out, "(void)sizeof(%s()), ", n->target);
    for (int i = 0; i < n->nkids; i++) {
        const struct node *k = &u->nodes[n->kids[i]];
        if (k->kind == N_CALL || k->kind == N_SETJMP || k->kind == N_LONGJMP)
            add_declarations(u, out, k);
    }
}

static void render_node(struct unit *u, struct str *out, struct node *n)
{
    if (n->cleanup) {
        str_printf(out, "__cprof_cleanup%d", n->index);
        return;
    }
    if (n->kind == N_RENAME) {
        str_printf(out, "__cprof_reduction%d", n->index);
        return;
    }
    if (n->kind == N_REDUCTION) {
        str_printf(out, "#pragma omp declare reduction(__cprof_reduction%d", n->index);
        render_range(u, out, n->desig_start, n->desig_end, u->tops[n->index], u->ntops[n->index]);
        str_add(out, "\n", 1);
        add_line_marker(u, out, n->start, 0);
        return;
    }
    if (n->kind == N_CLOSE || (n->kind == N_TWIN_END && !u->rendering_twin)) {
        str_add(out, " }", 2);
        return;
    }
    if (n->kind == N_TWIN_END)
        return;
    if (n->kind == N_COMMENT) {
        str_add(out, n->text, strlen(n->text));
        return;
    }
    if (n->kind == N_TWIN) {
        render_twin(u, out, n);
        return;
    }
    if (n->kind == N_LEAF_COPY) {
        render_leaf_copy(u, out, n);
        return;
    }
    if (n->kind == N_CONSTRUCT) {
        /* On a line of its own before the pragma's, which the marker puts back. */
        str_printf(out, names_tables(u, n) ? "%scprof_pending.construct = &__cprof_s[%d];\n"
                                                  : "%s__cprof_construct(%d);\n",
                   n->braced ? "{ " : "", n->index);
        add_line_marker(u, out, n->start, 0);
        return;
    }
    if (n->kind == N_CLAUSE) {
        str_printf(out, " firstprivate(__cprof_k%d)", n->index);
        return;
    }
    if (n->kind == N_HOOK) {
        if (u->rendering_twin)      /* the original's hook runs it */
            return;
        /* Declarations, all of it: C90 (and -Wdeclaration-after-statement) wants the
         * body's own declarations before any statement. */
        if (u->routines[n->index].counted_entry)
            str_printf(out, " int __cprof_ce __attribute__((unused)) = __cprof_counted_enter(%d);",
                       n->index);
        if (!u->routines[n->index].counted) {
            str_add(out, " struct cprof_frame *__cprof_fr __attribute__((cleanup(__cprof_leave), unused)) = ", 82);
            add_enter(u, out, n->index, n);
            str_add(out, ";", 1);
        }
        if (u->routines[n->index].reads_case0)
            str_printf(out, " int __cprof_c0 = cprof_pending.case0;");
        if (u->routines[n->index].twin)     /* a counted routine's too */
            add_dispatch(u, out, n->index);
        return;
    }
    if (n->kind != N_CALL) {
        /* The runtime's void * back to the buffer's own type, as C++ would want it
         * (-Wc++-compat); the copy inside __typeof__ is not evaluated and adds no line. */
        render_range(u, out, n->start, n->arg_start[0], n->kids, n->nkids);
        str_add(out, "(__typeof__(&*(", 15);
        for (unsigned i = n->arg_start[0]; i < n->arg_end[0]; i++)
            str_add(out, u->text[i] == '\n' ? " " : u->text + i, 1);
        str_add(out, ")))", 3);
        str_add(out, n->kind == N_SETJMP ? "cprof_setjmp_mark(" : "cprof_longjmp_unwind(", n->kind == N_SETJMP ? 18 : 21);
        render_range(u, out, n->arg_start[0], n->arg_end[0], n->kids, n->nkids);
        str_add(out, ")", 1);
        render_range(u, out, n->arg_end[0], n->end, n->kids, n->nkids);
        return;
    }
    int site = n->index;
    if (n->region) {
        /* The region's entry, from the routine around it (whose stack position the hook
         * sees, as a call's): cprof_region_end() closes it, or the routine's exit; a
         * pragma's, the end of its statement however it is left. */
        if (n->region == 2)
            str_printf(out, "{ int __cprof_g%d __attribute__((cleanup(cprof_region_cleanup), unused)) = (",
                       site);
        str_add(out, "(", 1);
        add_pending(u, out, site, "0", n, 1);
        str_add(out, ", cprof_region_opened(", 22);
        add_enter(u, out, n->leaf, n);
        str_add(out, "))", 2);
        if (n->region == 2)
            str_add(out, ", 0);", 5);
        return;
    }
    /* OpenMP allows only a plain call as initializer(f(&omp_priv)); the equivalent
     * initialization omp_priv = ... takes a statement expression. */
    struct str declarations = { 0 };
    if (!u->in_facade && !n->initializer)
        add_declarations(u, &declarations, n);
    int declared = declarations.len > 0;
    if (declared) {
        str_add(out, "(", 1);
        str_add(out, declarations.p, declarations.len);
    }
    free(declarations.p);
    u->in_facade++;
    if (n->initializer)
        str_add(out, "omp_priv = ", 11);
    str_add(out, "__extension__({ ", 16);
    /* A leaf's site calls the routine or its copy (choose_leaf_sites): the arguments
     * evaluated once, before either, in the hoisted variables. */
    int leaf_site = n->target && n->leaf < 0 && !n->region && u->sites[site].leaf && !u->rendering_twin;
    for (int i = 0; i < n->nargs; i++) {
        if (!leaf_site && !has_call_inside(u, n, n->arg_start[i], n->arg_end[i]))
            continue;
        if (n->arg_bitfield[i]) {
            /* __auto_type refuses bit-fields; unary + gives the promoted type.  The
             * copy inside __typeof__ is not evaluated and must not add lines. */
            struct str copy = { 0 };
            render_range(u, &copy, n->arg_start[i], n->arg_end[i], n->kids, n->nkids);
            for (size_t j = 0; j < copy.len; j++)
                if (copy.p[j] == '\n')
                    copy.p[j] = ' ';
            str_printf(out, "__typeof__(+(%s))", copy.p);
            free(copy.p);
        } else {
            str_add(out, "__auto_type", 11);
        }
        str_printf(out, " __cprof_a%d_%d = (", site, i);
        render_range(u, out, n->arg_start[i], n->arg_end[i], n->kids, n->nkids);
        str_add(out, "); ", 3);
    }
    if (n->leaf >= 0) {
        /* No hook in a library function: the call site opens and closes its activation. */
        str_printf(out, "struct cprof_frame *__cprof_l%d __attribute__((cleanup(__cprof_leave), unused)) = (",
                   site);
        add_pending(u, out, site, n->target, n, 1);
        str_add(out, ", ", 2);
        add_enter(u, out, n->leaf, n);
        str_add(out, "); ", 3);
        /* MPI_Abort ends the job from outside: this rank's profile is written first,
         * its own call in it (docs/mpi.md).  The other ranks are killed before their
         * exit path runs. */
        if (!strcmp(n->target, "MPI_Abort"))
            str_add(out, "cprof_write_final(); ", 21);
        render_range(u, out, n->desig_start, n->desig_end, n->kids, n->nkids);
    } else if (!n->target) {
        str_printf(out, "__auto_type __cprof_f%d = (", site);
        render_range(u, out, n->desig_start, n->desig_end, n->kids, n->nkids);
        str_add(out, "); ", 3);
        char f[32];
        snprintf(f, sizeof f, "__cprof_f%d", site);
        add_pending(u, out, site, f, n, 0);
        str_add(out, f, strlen(f));
    } else if (leaf_site) {
        /* Untimed at the site: the routine's copy, which has no hook, on the call's line;
         * else the handshake and the routine.  The key's case as it is: a construct's
         * cache may be -1 yet. */
        const struct site *s = &u->sites[site];
        char k[32];
        if (s->cache == CACHE_CASE0)
            snprintf(k, sizeof k, "__cprof_c0");
        else
            snprintf(k, sizeof k, "__cprof_k%d", s->block);
        /* A call whose value is discarded stays a statement in each branch: gcc warns of
         * the routine's discarded warn_unused_result value in the second, and the copy's
         * value is used (a declaration of its type; a void one is none). */
        struct str copy = { 0 };
        str_printf(&copy, "__cprof_u_%s(", n->target);
        for (int i = 0; i < n->nargs; i++)
            str_printf(&copy, "%s__cprof_a%d_%d", i ? ", " : "", site, i);
        str_add(&copy, ")", 1);
        if (n->discarded && u->routines[s->callee].twin_void)
            str_printf(out, "if (cprof_leaf_untimed(&__cprof_l[%d], %s)) { %s; } else { ", s->leaf - 1, k,
                       copy.p);
        else if (n->discarded)
            str_printf(out, "if (cprof_leaf_untimed(&__cprof_l[%d], %s)) { __typeof__(%s) __cprof_v = %s; "
                            "(void)__cprof_v; } else { ", s->leaf - 1, k, copy.p, copy.p);
        else
            str_printf(out, "cprof_leaf_untimed(&__cprof_l[%d], %s) ? %s : (", s->leaf - 1, k, copy.p);
        str_printf(out, "cprof_pending.site = &__cprof_s[%d]%s", site, n->discarded ? "; " : ", ");
        if (s->cache == CACHE_CASE0)
            str_add(out, "cprof_pending.kase = __cprof_c0", 31);
        else
            str_printf(out, "cprof_pending.kase = %s >= 0 ? %s : (%s = cprof_site_case(&__cprof_s[%d]))",
                       k, k, k, site);
        str_add(out, n->discarded ? "; " : ", ", 2);
        free(copy.p);
        render_range(u, out, n->desig_start, n->desig_end, n->kids, n->nkids);
    } else if (calls_twin(u, n)) {
        add_handshake(u, out, n);
        str_printf(out, "__cprof_tw_%s", n->target);
    } else {
        add_handshake(u, out, n);
        render_range(u, out, n->desig_start, n->desig_end, n->kids, n->nkids);
    }
    unsigned pos = n->desig_end;
    for (int i = 0; i < n->nargs; i++) {
        render_range(u, out, pos, n->arg_start[i], n->kids, n->nkids);
        if (leaf_site || has_call_inside(u, n, n->arg_start[i], n->arg_end[i]))
            str_printf(out, "__cprof_a%d_%d", site, i);
        else
            render_range(u, out, n->arg_start[i], n->arg_end[i], n->kids, n->nkids);
        pos = n->arg_end[i];
    }
    render_range(u, out, pos, n->end, n->kids, n->nkids);
    if (leaf_site)
        str_add(out, n->discarded ? "; }" : ")", n->discarded ? 3 : 1);
    /* A call whose value the program discards stays one gcc sees discarded: not the
     * statement expression's value (-Wunused-result). */
    str_add(out, "; ", 2);
    if (n->initializer)
        str_add(out, "omp_priv; ", 10);
    else if (n->discarded)
        str_add(out, "(void)0; ", 9);
    str_add(out, "})", 2);
    u->in_facade--;
    if (declared)
        str_add(out, ")", 1);
}
