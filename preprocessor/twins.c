/* twins.c: -fcprof-input-size's two copies of a routine (docs/input-size.md, "Two
 * copies of each routine").  The unit is compiled under gcc's thread sanitizer, whose
 * hook at every load and store costs 5 to 50 times the plain code.  So each routine
 * that can be copied is rendered twice: the definition the program names, marked
 * no_sanitize_thread, which runs at gcc's speed, and an instrumented static twin.  The
 * routine's entry hook stays in the first; right after it, the first runs the twin
 * when the runtime says the activation is sized (cprof_sizes_twin, set by the hook):
 *
 *   static int f(int n);                                     (a prototype, unless declared)
 *   static int __cprof_tw_f(int n) { <body, no hook> }        (from the definition's line)
 *   __attribute__((no_sanitize_thread)) static int f(int n) { <hook>
 *       if (__builtin_expect(cprof_sizes_twin, 0)) return __cprof_tw_f(n); <body> }
 *
 * (a void routine: if (...) __cprof_tw_f(n); else { <body> }).  A routine counted at
 * its call sites has no hook: its callers' twins call its twin, their originals the
 * original (gcc inlines no function into one of another sanitizer setting); add_twins
 * says when it must make the test itself.
 *
 * A routine is copied only when the copy means exactly what the original does: named
 * parameters and no variadic ones (to pass them on), no static variable inside (the
 * copy would have its own), no attribute that a static copy refuses or that names the
 * symbol, not noreturn, no call rendered in its declarator.  The others keep one
 * instrumented copy, as every function of such a unit had before. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "unit.h"

static enum CXChildVisitResult find_static_local(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    enum CXCursorKind k = clang_getCursorKind(c);
    if ((k == CXCursor_VarDecl && (clang_Cursor_getStorageClass(c) == CX_SC_Static
                                   || clang_getCursorTLSKind(c) != CXTLS_None))
        || (k == CXCursor_FunctionDecl && clang_isCursorDefinition(c))) {
        *(int *)data = 1;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

/* Nothing but () between fn's name and its body. */
static int empty_list(const struct unit *u, CXCursor fn, CXCursor body)
{
    unsigned at = offset_of(clang_getCursorLocation(fn)), end, unused;
    extent_of(body, &end, &unused);
    char *name = cx_take(clang_getCursorSpelling(fn));
    at += (unsigned)strlen(name);
    free(name);
    const char *want = "()";
    for (; at < end; at++)
        if (*want && u->text[at] == *want)
            want++;
        else if (!strchr(" \t\n", u->text[at]))
            return 0;
    return !*want;
}

void find_twin(struct unit *u, CXCursor fn, CXCursor body, struct routine *r)
{
    /* Under -fcprof-input-size, a twin; else a copy with no hook that a leaf's sites
     * may call on their untimed calls (choose_leaf_sites). */
    if (u->offload || r->special_entry)
        return;
    CXType type = clang_getCursorType(fn);
    enum CX_StorageClass storage = clang_Cursor_getStorageClass(fn);
    int nargs = clang_Cursor_getNumArguments(fn);
    /* f() defines a function of no parameters; an old-style list is not passed on. */
    int proto = type.kind == CXType_FunctionProto || (type.kind == CXType_FunctionNoProto && !nargs
                                                       && empty_list(u, fn, body));
    if (!proto || (type.kind == CXType_FunctionProto && clang_isFunctionTypeVariadic(type))
        || nargs < 0 || (storage != CX_SC_Static && storage != CX_SC_None))
        return;
    if (has_attribute(u, fn, (const char *const[]){ "weak", "visibility", "target_clones",
                                                     "naked", 0 }))
        return;
    /* noreturn: the original would seem to return after its twin, and gcc warns. */
    if (is_noreturn(u, fn))
        return;
    int bad = 0;
    clang_visitChildren(body, find_static_local, &bad);
    if (bad)
        return;
    struct str args = { 0 };
    for (int i = 0; i < nargs; i++) {
        char *name = cx_take(clang_getCursorSpelling(clang_Cursor_getArgument(fn, (unsigned)i)));
        if (!*name) {
            free(name);
            free(args.p);
            return;
        }
        str_printf(&args, "%s%s", i ? ", " : "", name);
        free(name);
    }
    str_add(&args, "", 0);
    /* An old-style definition declares its parameters after the list: a ';' follows
     * the last of them (libclang may give it a prototype). */
    unsigned pend = 0, unused, bstart;
    if (nargs > 0)
        extent_of(clang_Cursor_getArgument(fn, (unsigned)nargs - 1), &unused, &pend);
    extent_of(body, &bstart, &unused);
    if (nargs > 0 && memchr(u->text + pend, ';', bstart - pend)) {
        free(args.p);
        return;
    }
    unsigned fend, bend;
    extent_of(fn, &r->def_start, &fend);
    extent_of(body, &r->body_start, &bend);
    r->name_start = offset_of(clang_getCursorLocation(fn));
    r->name_end = r->name_start + (unsigned)strlen(r->name);
    r->def_end = bend;
    if (r->name_end > r->body_start || strncmp(u->text + r->name_start, r->name, strlen(r->name))) {
        free(args.p);
        return;
    }
    r->twin_args = args.p;
    r->twin_void = clang_getResultType(type).kind == CXType_Void;
    r->twin_static = storage == CX_SC_None;
    r->twin_declared = !clang_equalCursors(clang_getCanonicalCursor(fn), fn);
    if (u->options->input_size)
        r->twin = 1;
    else
        r->copyable = 1;
}

/* Copies p[0..n) with __func__ and its GNU names, outside literals, replaced by the
 * original's name: the twin reports the name the user wrote. */
static void add_renaming_func(struct str *out, const char *p, size_t n, const char *name)
{
    static const char *const words[] = { "__func__", "__FUNCTION__", "__PRETTY_FUNCTION__" };
    size_t i = 0, from = 0;
    while (i < n) {
        char c = p[i];
        if (c == '"' || c == '\'') {
            for (i++; i < n && p[i] != c; i++)
                i += p[i] == '\\';
            i++;
            continue;
        }
        if (!is_word_char(c)) {
            i++;
            continue;
        }
        size_t w = i;
        while (i < n && is_word_char(p[i]))
            i++;
        if (w > 0 && is_word_char(p[w - 1]))
            continue;
        for (size_t k = 0; k < sizeof words / sizeof *words; k++)
            if (i - w == strlen(words[k]) && !memcmp(p + w, words[k], i - w)) {
                str_add(out, p + from, w - from);
                str_literal(out, name);
                from = i;
            }
    }
    str_add(out, p + from, n - from);
}

/* Once the analysis is over: a node in or at its declarator would be copied into a
 * prototype (a call in a parameter's array size) or hold the twin's node inside it (a
 * declare reduction's copy before it).  A counted routine (no hook) is called by its
 * callers' twins as its twin when that is defined before them (renamed in render_call);
 * only if some call is made before its definition, or from a routine with no twin, does
 * it test cprof_sizes_twin itself, which keeps gcc from inlining it into plain code. */
static int by_start(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

void add_twins(struct unit *u)
{
    int nnodes = u->nnodes;
    /* The nodes by start, and the largest end of each prefix: a routine keeps its twin
     * if no node starting up to its body ends at or after its definition's start. */
    struct span *by = cprof_xcalloc((size_t)nnodes + 1, sizeof *by);
    for (int k = 0; k < nnodes; k++)
        by[k] = (struct span){ u->nodes[k].start, u->nodes[k].end };
    if (nnodes)
        qsort(by, (size_t)nnodes, sizeof *by, by_start);
    for (int k = 1; k < nnodes; k++)
        if (by[k].end < by[k - 1].end)
            by[k].end = by[k - 1].end;
    for (int i = 0; i < u->nroutines; i++) {
        struct routine *r = &u->routines[i];
        int lo = 0, hi = nnodes;        /* the nodes starting up to the body: [0, lo) */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (by[mid].start <= r->body_start)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > 0 && by[lo - 1].end >= r->def_start)
            r->twin = r->copyable = 0;
        r->twin_dispatch = !r->counted;
    }
    free(by);
    for (int k = 0; k < nnodes; k++) {
        const struct node *n = &u->nodes[k];
        int callee = n->kind == N_CALL && n->target ? defined_routine(u, n->target, strlen(n->target)) : -1;
        if (callee < 0 || !u->routines[callee].twin || !u->routines[callee].counted)
            continue;
        const struct routine *caller = &u->routines[u->sites[n->index].routine];
        if (!caller->twin || n->start < u->routines[callee].def_start)
            u->routines[callee].twin_dispatch = 1;
    }
    for (int i = 0; i < u->nroutines; i++) {
        const struct routine *r = &u->routines[i];
        if (!r->twin)
            continue;
        new_node(u, N_TWIN, r->def_start, r->def_start)->index = i;
        if (r->twin_dispatch)
            new_node(u, N_TWIN_END, r->def_end - 1, r->def_end - 1)->index = i;
    }
}

/* In a twin, a direct call of a counted routine whose twin is defined before it. */
int calls_twin(const struct unit *u, const struct node *n)
{
    int callee = u->rendering_twin && n->target ? u->sites[n->index].callee : -1;
    return callee >= 0 && u->routines[callee].counted && u->routines[callee].twin
           && !u->routines[callee].twin_dispatch;
}

/* Copies p[0..n) with each of gcc's line markers in it flagged as a system header's
 * (flag 3), so that what follows each is one too. */
static void add_as_system(struct str *out, const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
        str_add(out, p, len);
        const char *flags = len > 2 && p[0] == '#' && p[1] == ' ' && p[2] >= '0' && p[2] <= '9'
                            ? memrchr(p, '"', len) : NULL;
        if (flags) {
            size_t k = len - (size_t)(flags - p);
            if (!memmem(flags, k, " 3", 2))
                str_add(out, " 3", 2);
        }
        if (!eol)
            break;
        str_add(out, "\n", 1);
        p = eol + 1;
    }
}

/* Routine r's definition again, named PREFIX<name>, static, its body rendered as a
 * twin's (no hook), __func__ the original's name, before the definition: a system
 * header's lines (gcc's own line markers among them flagged so too), whose warnings
 * gcc gave for the original; the marker after it gives the definition its line back.
 * PROTOTYPE: first a prototype for the copy's recursive calls, unless one was given (a
 * second one would be news to -Wredundant-decls). */
static void add_copy(struct unit *u, struct str *out, const struct routine *r, const char *prefix,
                     int prototype)
{
    struct str copy = { 0 }, body = { 0 };
    str_add(out, "\n", 1);
    add_line_marker(u, out, r->def_start, 1);
    if (prototype && !r->twin_declared) {
        str_add(&copy, u->text + r->def_start, r->body_start - r->def_start);
        str_add(&copy, ";\n", 2);
        add_line_marker(u, &copy, r->def_start, 1);
    }
    if (r->twin_static)
        str_add(&copy, "static ", 7);
    str_add(&copy, u->text + r->def_start, r->name_start - r->def_start);
    str_printf(&copy, "%s%s", prefix, r->name);
    str_add(&copy, u->text + r->name_end, r->body_start - r->name_end);
    u->rendering_twin = 1;
    render_range(u, &body, r->body_start, r->def_end, u->tops[0], u->ntops[0]);
    u->rendering_twin = 0;
    /* Only main falls off its end into a return of 0. */
    size_t close = body.len;
    if (!strcmp(r->name, "main") && !r->twin_void && close > 0 && body.p[close - 1] == '}')
        close--;
    add_renaming_func(&copy, body.p, close, r->name);
    if (close < body.len)
        str_add(&copy, " return 0; }", 12);
    add_as_system(out, copy.p, copy.len);
    free(body.p);
    free(copy.p);
    str_add(out, "\n", 1);
    add_line_marker(u, out, r->def_start, 0);
}

/* The prototype and the twin of routine n->index, before its definition, which gcc's
 * thread sanitizer then leaves alone. */
void render_twin(struct unit *u, struct str *out, const struct node *n)
{
    add_copy(u, out, &u->routines[n->index], "__cprof_tw_", 1);
    str_add(out, "__attribute__((no_sanitize_thread)) ", 36);
}

/* A leaf's copy with no hook (routine n->index's leaf_copy), before its definition: its
 * untimed calls run it, the same code as the timed ones run after the hook, and gcc may
 * inline it at those sites as it would the routine in a plain build.  Called only by
 * sites after the definition, and never recursive (a leaf): no prototype. */
void render_leaf_copy(struct unit *u, struct str *out, const struct node *n)
{
    add_copy(u, out, &u->routines[n->index], "__cprof_u_", 0);
}

/* The routine runs its body in an else, a block of its own: its declarations then
 * still come first in a block (C90, -Wdeclaration-after-statement), and a void one
 * needs no return after the twin (an error in a noreturn one, a die() declared so
 * elsewhere). */
void add_dispatch(struct unit *u, struct str *out, int routine)
{
    const struct routine *r = &u->routines[routine];
    if (!r->twin_dispatch)
        return;
    if (r->twin_void)
        str_printf(out, " if (__builtin_expect(cprof_sizes_twin, 0)) __cprof_tw_%s(%s); else {",
                   r->name, r->twin_args);
    else
        str_printf(out, " if (__builtin_expect(cprof_sizes_twin, 0)) return __cprof_tw_%s(%s); else {",
                   r->name, r->twin_args);
}
