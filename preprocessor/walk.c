/* walk.c: the AST walk: every function definition selected becomes a routine with an
 * entry hook, every call in its body that may reach a profiled function a node and a
 * call site, every cleanup attribute a call on the routine's behalf (unit.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

struct node *new_node(struct unit *u, enum node_kind kind, unsigned start, unsigned end)
{
    GROW(u->nodes, u->nnodes, u->nodes_cap);
    struct node *n = &u->nodes[u->nnodes++];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->start = start;
    n->end = end;
    n->index = -1;
    n->leaf = -1;
    return n;
}

static int is_bitfield(CXCursor arg)
{
    CXCursor c = strip(arg);
    if (clang_getCursorKind(c) != CXCursor_MemberRefExpr)
        return 0;
    CXCursor field = clang_getCursorReferenced(c);
    return clang_getCursorKind(field) == CXCursor_FieldDecl && clang_Cursor_isBitField(field);
}

struct site *new_site(struct unit *u, CXTranslationUnit tu, unsigned offset, int *index)
{
    GROW(u->sites, u->nsites, u->sites_cap);
    struct site *s = &u->sites[u->nsites];
    *s = (struct site){ .routine = u->routine, .callee = -1, .cache = CACHE_NONE };
    s->file = presumed(clang_getLocationForOffset(tu, u->file, offset), &s->line);
    *index = u->nsites++;
    return s;
}

/* With libcalls (or mpicalls, for MPI's): the routine standing for a library function,
 * one per name in the unit, named as called and filed under <library>.  Declared in a
 * system header, or MPI's, never glibc's internals (__...).  An extern inline wrapper
 * in a system header (printf under _FORTIFY_SOURCE) counts too: the library has the
 * symbol. */
static int leaf_routine(struct unit *u, CXCursor fn, const char *name)
{
    CXSourceLocation loc = clang_getCursorLocation(fn);
    if (!(u->options->libcalls && clang_Location_isInSystemHeader(loc)) && !is_mpi_function(name))
        return -1;
    if (!strncmp(name, "__", 2))
        return -1;
    for (int i = 0; i < u->nroutines; i++)
        if (u->routines[i].line == 0 && !strcmp(u->routines[i].name, name))
            return i;
    GROW(u->routines, u->nroutines, u->routines_cap);
    u->routines[u->nroutines] = (struct routine){ .name = cprof_xstrdup(name), .file = cprof_xstrdup("<library>") };
    return u->nroutines++;
}

/* The routine standing for region NAME (taken), first begun at file:line (taken). */
static int named_region(struct unit *u, char *name, char *file, unsigned line)
{
    for (int i = 0; i < u->nroutines; i++)
        if (u->routines[i].region && !strcmp(u->routines[i].name, name)) {
            free(name);
            free(file);
            return i;
        }
    GROW(u->routines, u->nroutines, u->routines_cap);
    u->routines[u->nroutines] = (struct routine){ .name = name, .file = file, .line = line,
                                                  .internal = 1, .region = 1 };
    return u->nroutines++;
}

/* cprof_region_begin("NAME") (docs/control.md): the routine standing for region NAME,
 * one per name in the unit, filed where it first begins.  The name must be a plain
 * string literal, the region's name in every view; else the call is left to the
 * runtime, which says so, and -1. */
static int region_routine(struct unit *u, CXCursor call, unsigned start)
{
    unsigned line, a, b;
    char *file = presumed(clang_getLocationForOffset(u->tu, u->file, start), &line);
    if (clang_Cursor_getNumArguments(call) == 1)
        extent_of(clang_Cursor_getArgument(call, 0), &a, &b);
    else
        a = b = 0;
    const char *t = u->text + a;
    int plain = b >= a + 2 && t[0] == '"' && t[b - a - 1] == '"';
    for (unsigned i = 1; plain && i + 1 < b - a; i++)
        plain = t[i] != '"' && t[i] != '\\' && (unsigned char)t[i] >= 0x20;
    if (!plain) {
        fprintf(stderr, "cprof-cc: %s:%u: warning: cprof_region_begin wants a string literal "
                        "(the region's name): this region is not profiled\n", file, line);
        free(file);
        return -1;
    }
    return named_region(u, cprof_xstrndup(t + 1, b - a - 2), file, line);
}

/* Is the call's value discarded, as an expression statement's (in a block, after a
 * label, an if's or a loop's body: then a ';' follows it) or cast to void (for gcc
 * alone, which warns of a cast call; clang does not)?  Its facade then ends with a
 * statement of its own, so that the call's value stays unused for the compiler
 * (-Wunused-result). */
static int value_discarded(struct unit *u, CXCursor call, CXCursor parent, unsigned end)
{
    switch (clang_getCursorKind(parent)) {
    case CXCursor_CompoundStmt:
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
    case CXCursor_LabelStmt:
        return 1;
    case CXCursor_IfStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
        while (end < u->size && strchr(" \t\n", u->text[end]))
            end++;
        return end < u->size && u->text[end] == ';';
    case CXCursor_CStyleCastExpr:
        return clang_getCursorType(parent).kind == CXType_Void && !u->options->clang;
    default:
        (void)call;
        return 0;
    }
}

/* A call that no node of a routine of this unit stands for (the C library, an
 * unprofiled function, setjmp, the runtime): its routine's activations may take long,
 * unless it is a compiler builtin, which makes no call or a short one.  The calls that
 * become nodes are judged by choose_counted. */
static void calls_out(struct unit *u, const char *name)
{
    if (!name || !is_builtin(name))
        u->routines[u->routine].calls_out = 1;
}

static void add_call(struct unit *u, CXCursor call, CXCursor parent)
{
    CXCursor designator = clang_getNullCursor();
    clang_visitChildren(call, first_child, &designator);
    if (clang_Cursor_isNull(designator)) {
        calls_out(u, NULL);
        return;
    }
    unsigned start, end, dstart, dend;
    extent_of(call, &start, &end);
    extent_of(designator, &dstart, &dend);
    CXCursor fn = direct_callee(designator);
    char *name = clang_Cursor_isNull(fn) ? NULL : cx_take(clang_getCursorSpelling(fn));
    enum node_kind kind = N_CALL;
    int leaf = -1, region = 0;
    if (end <= start || dstart < start || dend > end || (name && !strcmp(name, "cprof_region_end"))) {
        calls_out(u, name);
        if (name && !strcmp(name, "cprof_region_end")) {
            GROW(u->region_ends, u->nregion_ends, u->region_ends_cap);
            u->region_ends[u->nregion_ends++] = start;
        }
        free(name);
        return;
    }
    if (name && !strcmp(name, "cprof_region_begin")) {
        leaf = region_routine(u, call, start);
        if (leaf < 0) {
            calls_out(u, name);
            free(name);
            return;
        }
        region = 1;
    } else if (name) {
        static const char *const setjmps[] = { "setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", NULL };
        static const char *const longjmps[] = { "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", NULL };
        for (int i = 0; setjmps[i]; i++)
            if (!strcmp(name, setjmps[i]))
                kind = N_SETJMP;
        for (int i = 0; longjmps[i]; i++)
            if (!strcmp(name, longjmps[i]))
                kind = N_LONGJMP;
        if (kind != N_CALL)
            calls_out(u, name);
        if (kind == N_CALL && !may_be_routine(u, fn, name)) {
            leaf = u->options->libcalls || u->options->mpicalls ? leaf_routine(u, fn, name) : -1;
            if (leaf < 0) {
                /* A function that does not return (an assert's failure) ends the
                 * activation: it does not make it long. */
                if (!is_noreturn(u, fn))
                    calls_out(u, name);
                free(name);
                return;
            }
        }
    }
    int nargs = clang_Cursor_getNumArguments(call);
    if (nargs < 0 || (kind != N_CALL && nargs < 1)) {
        calls_out(u, name);
        free(name);
        return;
    }
    struct node *n = new_node(u, kind, start, end);
    n->desig_start = dstart;
    n->desig_end = dend;
    n->target = name;
    n->leaf = leaf;
    n->region = region;
    n->discarded = value_discarded(u, call, parent, end);
    /* A function first declared by a call inside a body (an implicit declaration) may
     * not be named before that call: it would be undeclared there. */
    if (name) {
        unsigned decl = offset_of(clang_getCursorLocation(clang_getCanonicalCursor(fn)));
        n->implicit = decl >= u->body_start && decl < u->body_end;
        n->scoped = n->implicit && clang_getCursorType(fn).kind == CXType_FunctionNoProto;
    }
    n->nargs = nargs;
    n->arg_start = cprof_xcalloc((size_t)nargs + 1, sizeof *n->arg_start);
    n->arg_end = cprof_xcalloc((size_t)nargs + 1, sizeof *n->arg_end);
    n->arg_bitfield = cprof_xcalloc((size_t)nargs + 1, 1);
    for (int i = 0; i < nargs; i++) {
        CXCursor arg = clang_Cursor_getArgument(call, (unsigned)i);
        extent_of(arg, &n->arg_start[i], &n->arg_end[i]);
        n->arg_bitfield[i] = (unsigned char)is_bitfield(arg);
    }
    if (kind == N_CALL)
        new_site(u, u->tu, start, &n->index);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int is_function(struct unit *u, const char *p, size_t n)
{
    char name[256];
    if (n >= sizeof name)
        return 0;
    memcpy(name, p, n);
    name[n] = 0;
    char *key = name;
    return u->nfunctions
           && bsearch(&key, u->functions, (size_t)u->nfunctions, sizeof *u->functions, by_name);
}

/* __attribute__((cleanup(f))): the compiler calls f(&variable) where the variable's
 * scope ends, on behalf of this routine.  The name becomes a wrapper that sets the
 * site first (add_cleanup_wrappers).  Two declarators may share one attribute. */
static void add_cleanup(struct unit *u, CXCursor attr)
{
    CXToken *tokens;
    unsigned n;
    clang_tokenize(u->tu, clang_getCursorExtent(attr), &tokens, &n);
    char *w[4] = { 0 };
    for (unsigned i = 0; i < n && i < 4; i++)
        w[i] = cx_take(clang_getTokenSpelling(u->tu, tokens[i]));
    int cleanup = n >= 4 && (!strcmp(w[0], "cleanup") || !strcmp(w[0], "__cleanup__"))
                  && !strcmp(w[1], "(") && !strcmp(w[3], ")");
    if (cleanup && !is_function(u, w[2], strlen(w[2])))
        calls_out(u, w[2]);
    else if (cleanup) {
        unsigned at = offset_of(clang_getTokenLocation(u->tu, tokens[2]));
        int seen = 0;
        for (int i = u->nnodes - 1; i >= 0 && u->nodes[i].start >= u->body_start; i--)
            seen |= u->nodes[i].cleanup && u->nodes[i].start == at;
        if (!seen) {
            struct node *node = new_node(u, N_CALL, at, at + (unsigned)strlen(w[2]));
            node->cleanup = 1;
            node->target = cprof_xstrdup(w[2]);
            new_site(u, u->tu, at, &node->index);
        }
    }
    for (int i = 0; i < 4; i++)
        free(w[i]);
    clang_disposeTokens(u->tu, tokens, n);
}

static int is_constant(CXCursor c)
{
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (r)
        clang_EvalResult_dispose(r);
    return r != NULL;
}

static enum CXChildVisitResult visit_body(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct unit *u = data;
    enum CXCursorKind kind = clang_getCursorKind(c);
    /* sizeof and _Alignof do not evaluate, but for sizeof of a variable-length array
     * type (C11 6.5.3.4p2), the one case where they are not constants; a nested
     * function is not this routine. */
    if ((kind == CXCursor_UnaryExpr && is_constant(c)) || kind == CXCursor_StaticAssert
        || kind == CXCursor_FunctionDecl)
        return CXChildVisit_Continue;
    unsigned start, end;
    extent_of(c, &start, &end);
    if (kind == CXCursor_UnaryExpr) {
        GROW(u->unevaluated, u->nunevaluated, u->unevaluated_cap);
        u->unevaluated[u->nunevaluated][0] = start;
        u->unevaluated[u->nunevaluated++][1] = end;
    }
    /* The first cursor at or after a pragma line is its structured block (pre-order:
     * the outermost statement starting there). */
    while (u->block_next < u->block_last && u->blocks[u->block_next].pragma_end <= start) {
        u->blocks[u->block_next].start = start;
        u->blocks[u->block_next].end = end;
        u->block_next++;
    }
    if (kind == CXCursor_CallExpr)
        add_call(u, c, parent);
    else if (kind == CXCursor_UnexposedAttr)
        add_cleanup(u, c);
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult find_body(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_CompoundStmt)
        *(CXCursor *)data = c;
    return CXChildVisit_Continue;
}

unsigned statement_end(const struct unit *u, unsigned end)
{
    unsigned p = end;
    while (p < u->size && (u->text[p] == ' ' || u->text[p] == '\t' || u->text[p] == '\n'))
        p++;
    return p < u->size && u->text[p] == ';' ? p + 1 : end;
}

/* Each parallel, task, worksharing (but nowait) or barrier construct of this body
 * (docs/semantics.md, "Parallel regions and tasks"): a site of its own, which the line
 * before its pragma leaves for the runtime (cprof_pending.construct), in a brace the
 * statement's end closes (a barrier is no statement's).  Not in a unit with target
 * regions, whose device code may not touch thread-local storage. */
static void add_constructs(struct unit *u, int first, unsigned bend)
{
    for (int b = first; b < u->block_next && !u->offload; b++) {
        struct block *k = &u->blocks[b];
        if (!k->construct || k->region || k->start >= bend)
            continue;
        struct node *n = new_node(u, N_CONSTRUCT, k->pragma_start, k->pragma_start);
        new_site(u, u->tu, k->pragma_start, &n->index)->construct = k->construct;
        if (k->construct == CONSTRUCT_BARRIER)
            continue;
        n->braced = 1;
        unsigned end = statement_end(u, k->end);
        new_node(u, N_CLOSE, end, end);
    }
}

/* Each "#pragma cprof region("NAME")" of this body: its line becomes the region's
 * begin, a call site (with a cleanup variable that ends it however the statement is
 * left), and the end of the statement after it closes the brace the line opens. */
static void add_region_pragmas(struct unit *u, int first, unsigned bend)
{
    for (int b = first; b < u->block_next; b++) {
        struct block *k = &u->blocks[b];
        if (!k->region || k->start >= bend)
            continue;
        unsigned line;
        char *file = presumed(clang_getLocationForOffset(u->tu, u->file, k->pragma_start), &line);
        struct node *n = new_node(u, N_CALL, k->pragma_start, k->pragma_end);
        n->desig_start = n->desig_end = k->pragma_start;
        n->leaf = named_region(u, cprof_xstrdup(k->region), file, line);
        n->region = 2;
        new_site(u, u->tu, k->pragma_start, &n->index);
        unsigned end = statement_end(u, k->end);
        new_node(u, N_CLOSE, end, end);
    }
}

static void add_function(struct unit *u, CXCursor fn)
{
    CXCursor body = clang_getNullCursor();
    clang_visitChildren(fn, find_body, &body);
    if (clang_Cursor_isNull(body))
        return;
    GROW(u->bodies, u->nbodies, u->bodies_cap);
    extent_of(body, &u->bodies[u->nbodies].start, &u->bodies[u->nbodies].end);
    u->nbodies++;
    char *name = cx_take(clang_getCursorSpelling(fn));
    unsigned line;
    char *file = presumed(clang_getCursorLocation(fn), &line);
    if (!selected(u, fn)) {
        free(name);
        free(file);
        return;
    }
    if (is_external_inline(fn)) {
        fprintf(stderr, "cprof-cc: %s:%u: warning: inline function '%s' with external linkage "
                "is not profiled\n", file, line, name);
        free(name);
        free(file);
        return;
    }
    unsigned bstart, bend, fstart, fend;
    extent_of(body, &bstart, &bend);
    extent_of(fn, &fstart, &fend);
    if (u->nroutines == 0 || fstart < u->first_definition)
        u->first_definition = fstart;

    GROW(u->routines, u->nroutines, u->routines_cap);
    u->routine = u->nroutines;
    u->routines[u->nroutines++] = (struct routine){
        .name = name, .file = file, .line = line,
        .internal = clang_getCursorLinkage(fn) == CXLinkage_Internal,
        .declared_inline = clang_Cursor_isFunctionInlined(fn),
        .noinline = has_attribute(u, fn, (const char *const[]){ "noinline", 0 }),
        .weak = has_attribute(u, fn, (const char *const[]){ "weak", 0 }),
        .noreturn = is_noreturn(u, fn),
        .small = is_small(u, fn, body),
        /* Something other than the program's calls enters it. */
        .special_entry = has_attribute(u, fn, (const char *const[]){ "constructor", "destructor",
            "used", "ifunc", "alias", "section", "externally_visible", 0 }),
    };
    new_node(u, N_HOOK, bstart + 1, bstart + 1)->index = u->routine;
    find_twin(u, fn, body, &u->routines[u->routine]);

    int first = 0;
    while (first < u->nblocks && u->blocks[first].pragma_end < bstart)
        first++;
    int last = first;
    while (last < u->nblocks && u->blocks[last].pragma_end < bend)
        last++;
    u->block_first = u->block_next = first;
    u->block_last = last;
    u->body_start = bstart;
    u->body_end = bend;
    int first_site = u->nsites, first_node = u->nnodes;
    clang_visitChildren(body, visit_body, u);
    add_clause_calls(u, u->tu, bstart, bend);
    add_region_pragmas(u, first, bend);
    add_constructs(u, first, bend);
    /* d: parallel blocks of this body around the call (or construct).  Only this
     * body's nodes: the unit's would make the walk quadratic. */
    for (int i = first_node; i < u->nnodes; i++) {
        struct node *n = &u->nodes[i];
        if ((n->kind != N_CALL && n->kind != N_CONSTRUCT) || n->index < first_site)
            continue;
        for (int b = first; b < u->block_next; b++)
            if (u->blocks[b].parallel && u->blocks[b].start <= n->start && n->start < u->blocks[b].end)
                u->sites[n->index].d++;
    }
    assign_regions(u, body, first_node, first_site, bstart, bend);
    unsigned definition_line = fstart;
    while (definition_line > 0 && u->text[definition_line - 1] != '\n')
        definition_line--;
    add_reductions(u, definition_line, first);
}

static enum CXChildVisitResult collect_functions(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct unit *u = data;
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl) {
        char *name = cx_take(clang_getCursorSpelling(c));
        if (may_be_routine(u, c, name)) {
            GROW(u->functions, u->nfunctions, u->functions_cap);
            u->functions[u->nfunctions++] = name;
        } else {
            free(name);
        }
    }
    return CXChildVisit_Continue;
}

static enum CXChildVisitResult visit_top(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c)
        && !clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
        add_function(data, c);
    return CXChildVisit_Continue;
}

void walk(struct unit *u)
{
    CXCursor top = clang_getTranslationUnitCursor(u->tu);
    clang_visitChildren(top, collect_functions, u);
    if (u->nfunctions)      /* qsort of a null array is undefined, even of none */
        qsort(u->functions, (size_t)u->nfunctions, sizeof *u->functions, by_name);
    clang_visitChildren(top, visit_top, u);
}
