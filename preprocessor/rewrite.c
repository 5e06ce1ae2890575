/* rewrite.c: instrumenting one gcc-preprocessed translation unit with libclang.
 *
 * Why preprocessed text: no macro is left, so a call spelled inside a #define or a
 * macro argument is plain text like any other, and gcc's line markers keep diagnostics
 * and debug information pointing at the user's lines.  libclang parses the text without
 * -fopenmp, so the bodies of OpenMP constructs are ordinary statements and the pragmas
 * are lines this file reads itself.
 *
 * Edits only add text inside lines and never remove a newline (hoisted argument text
 * keeps its newlines, in a new order); lines added (the prelude, declare reduction
 * copies) are followed by a line marker, so every original line keeps its number.
 *
 *   function body   {           ->  { struct cprof_frame *__cprof_fr
 *                                       __attribute__((cleanup(__cprof_leave))) = cprof_facade.enter(&__cprof_r[3]);
 *   call            f(a, g(b))  ->  __extension__({ __auto_type __cprof_a7_1 = (<g(b) rewritten>);
 *                                       __cprof_call(7, (void (*)(void))f); f(a, __cprof_a7_1); })
 *
 * Arguments that contain instrumented calls are evaluated first, so the pending site
 * set by __cprof_call cannot be overwritten before the call.  Through a function
 * pointer, the pointer is evaluated once into a temporary and is the target.
 */
#define _GNU_SOURCE
#include <clang-c/Index.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "rewrite.h"

/* ---- growing strings ---- */

struct str {
    char *p;
    size_t len, cap;
};

static void str_add(struct str *s, const char *p, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1)
            cap *= 2;
        s->p = cprof_xrealloc(s->p, cap);
        s->cap = cap;
    }
    memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = 0;
}

static void str_printf(struct str *s, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof buf) {
        char *big = cprof_xcalloc(1, (size_t)n + 1);
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        str_add(s, big, (size_t)n);
        free(big);
        return;
    }
    str_add(s, buf, (size_t)n);
}

/* A C string literal for s. */
static void str_literal(struct str *out, const char *s)
{
    str_add(out, "\"", 1);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            str_add(out, "\\", 1);
        str_add(out, s, 1);
    }
    str_add(out, "\"", 1);
}

/* ---- what the analysis finds ---- */

enum node_kind { N_HOOK, N_CALL, N_SETJMP, N_LONGJMP, N_REDUCTION, N_RENAME, N_CLAUSE };

struct node {
    enum node_kind kind;
    unsigned start, end;            /* byte range in the input; a hook is empty */
    unsigned desig_start, desig_end;
    int nargs;
    unsigned *arg_start, *arg_end;
    unsigned char *arg_bitfield;
    char *target;                   /* direct call: the function's name; NULL: a pointer */
    int implicit;                   /* direct call of an implicitly declared function */
    int leaf;                       /* a library function profiled as a leaf: its routine */
    int cleanup;                    /* N_CALL: the function named by a cleanup attribute */
    int initializer;                /* N_CALL: a declare reduction's initializer(f(...)) */
    int index;                      /* N_CALL: site; N_HOOK: routine; N_REDUCTION: its copy;
                                       N_CLAUSE: block */
    int copy;                       /* a call in that copy of a declare reduction, else 0 */
    int *kids, nkids;               /* nodes directly inside this one, by position */
    int placed;                     /* rendered where it is (not a second visit of the
                                       same call, nor inside one) */
};

struct routine {
    char *name, *file;
    unsigned line;                  /* 0: a library function (libcalls) */
    int internal;                   /* static */
    int address_taken;              /* static, and the unit may take its address */
    int small;                      /* a short body without loops or pragmas */
    int called_uninstrumented;      /* a function cprof does not instrument calls it */
    int special_entry;              /* called from elsewhere: a constructor, a destructor */
    int declared_inline;
    int noinline;
    int counted;                    /* counted at its call sites: no entry hook */
    int inlinable;                  /* timed, though gcc may inline it (CPROF_ROUTINE_INLINABLE) */
    int reads_case0;                /* copies cprof_pending.case0 at entry: has sites that
                                       count with it */
};

struct site {
    int routine;
    int callee;                     /* a direct call of a routine defined here, or -1 */
    char *file;
    unsigned line;
    int d;
    /* A counted callee's call, counted inline (cprof_count_cached) with the case known
     * from: CACHE_CASE0, the routine's case0; CACHE_BLOCK, the cache private to each
     * thread of the enclosing parallel construct `block`; else by cprof_count. */
    enum { CACHE_NONE, CACHE_CASE0, CACHE_BLOCK } cache;
    int block;
    int slot;                       /* its thread-local pointer to the counts, __cprof_n[slot] */
};

/* The structured block of an OpenMP construct (of any directive: a standalone one gets
 * the statement after it, which only makes the caching below more careful). */
struct block {
    unsigned pragma_end, start, end;
    int parallel;                   /* opens a parallel region (counts in d) */
    /* A parallel construct that may hold a cache of the case (firstprivate, no simd or
     * tasks in the combined construct); another one that a cache may be used through
     * (worksharing, synchronization: no data environment of its own to list it in). */
    int cacheable;
    int clause;                     /* gets firstprivate(__cprof_k<index>) */
};

struct reduction {                  /* a "declare reduction" line */
    unsigned line, eol;
    unsigned id_start, id_end;      /* its reduction-identifier */
};

struct span {
    unsigned start, end;
};

struct unit {
    const struct cprof_rewrite_options *options;
    const char *text;
    size_t size;
    CXTranslationUnit tu;
    unsigned first_definition;      /* where the first instrumented function starts */
    CXFile file;                    /* the preprocessed text */
    struct node *nodes;
    int nnodes, nodes_cap;
    struct routine *routines;
    int nroutines, routines_cap;
    struct site *sites;
    int nsites, sites_cap;
    struct block *blocks;
    int nblocks;
    int offload;                    /* has OpenMP target regions or declare target */
    int nslots;                     /* sites counted inline */
    struct reduction *reductions;
    int nreductions, ncopies;
    struct span *bodies;            /* of every function definition, in order */
    int nbodies, bodies_cap;
    char **functions;               /* names of the functions calls may profile, sorted */
    int nfunctions, functions_cap;
    int *defined;                   /* routines defined here, by name */
    int ndefined;
    int **tops, *ntops;             /* per copy (0: the text), its outermost nodes */
    /* while visiting one function body */
    int routine;
    unsigned body_start, body_end;
    int block_first, block_next, block_last;
};

#define GROW(array, n, cap) do { \
        if ((n) == (cap)) { \
            (cap) = (cap) ? 2 * (cap) : 64; \
            (array) = cprof_xrealloc((array), (size_t)(cap) * sizeof *(array)); \
        } \
    } while (0)

static char *cx_take(CXString s)
{
    const char *text = clang_getCString(s);
    char *p = cprof_xstrdup(text ? text : "");
    clang_disposeString(s);
    return p;
}

static unsigned offset_of(CXSourceLocation loc)
{
    unsigned off;
    clang_getFileLocation(loc, NULL, NULL, NULL, &off);
    return off;
}

static void extent_of(CXCursor c, unsigned *start, unsigned *end)
{
    CXSourceRange r = clang_getCursorExtent(c);
    *start = offset_of(clang_getRangeStart(r));
    *end = offset_of(clang_getRangeEnd(r));
}

/* Where a location is in the user's terms: gcc's line markers. */
static char *presumed(CXSourceLocation loc, unsigned *line)
{
    CXString name;
    clang_getPresumedLocation(loc, &name, line, NULL);
    return cx_take(name);
}

/* ---- OpenMP pragmas, read from the text ---- */

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does the directive starting at p (after "omp") open a parallel region?  Combined
 * constructs list their construct names first; the first other word is a clause. */
static int directive_is_parallel(const char *p, const char *end)
{
    static const char *const names[] = { "target", "teams", "distribute", "parallel", "for",
                                         "simd", "sections", "loop", "master", "masked",
                                         "taskloop", "workshare", NULL };
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *w = p;
        while (p < end && is_word_char(*p))
            p++;
        if (p == w)
            return 0;
        int known = 0;
        for (int i = 0; names[i]; i++)
            if ((size_t)(p - w) == strlen(names[i]) && !memcmp(w, names[i], (size_t)(p - w)))
                known = i + 1;
        if (!known)
            return 0;
        if (!strcmp(names[known - 1], "parallel"))
            return 1;
    }
    return 0;
}

/* Can a cache of the case live in (parallel) or be used through (other) the construct
 * of the directive at p?  Its construct names must all be these: a simd loop, a task or
 * a target region has a data environment the cache is not listed in, or runs on. */
static int directive_is_cacheable(const char *p, const char *end)
{
    static const char *const names[] = { "parallel", "for", "sections", "section", "single",
                                         "master", "masked", "critical", "ordered", "atomic",
                                         "taskgroup", "barrier", "taskwait", "taskyield",
                                         "flush", "scope", NULL };
    static const char *const others[] = { "target", "teams", "distribute", "simd", "loop",
                                          "taskloop", "task", "workshare", "declare", "cancel",
                                          "cancellation", NULL };
    int words = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *w = p;
        while (p < end && is_word_char(*p))
            p++;
        if (p == w)
            break;
        for (int i = 0; others[i]; i++)
            if ((size_t)(p - w) == strlen(others[i]) && !memcmp(w, others[i], (size_t)(p - w)))
                return 0;
        int known = 0;
        for (int i = 0; names[i]; i++)
            known |= (size_t)(p - w) == strlen(names[i]) && !memcmp(w, names[i], (size_t)(p - w));
        if (!known)
            break;                  /* a clause */
        words++;
    }
    return words > 0;
}

/* If [line, eol) is a "#pragma omp" line, where its directive starts; else NULL. */
static const char *omp_directive(const char *line, const char *eol)
{
    const char *p = line;
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    if (p == eol || *p != '#')
        return NULL;
    p++;
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    if (eol - p <= 6 || memcmp(p, "pragma", 6) || is_word_char(p[6]))
        return NULL;
    p += 6;
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    if (eol - p <= 3 || memcmp(p, "omp", 3) || is_word_char(p[3]))
        return NULL;
    return p + 3;
}

/* The words of a directive: p advanced past blanks and one word, which is returned as
 * [*w, p).  Empty at a non-word character. */
static const char *next_word(const char *p, const char *end, const char **w)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    *w = p;
    while (p < end && is_word_char(*p))
        p++;
    return p;
}

static int word_is(const char *w, const char *p, const char *word)
{
    return (size_t)(p - w) == strlen(word) && !memcmp(w, word, (size_t)(p - w));
}

/* "declare reduction(ID : ...)": where ID is, in *id; else 0. */
static int declares_reduction(const char *p, const char *end, const char **id, const char **id_end)
{
    const char *w;
    p = next_word(p, end, &w);
    if (!word_is(w, p, "declare"))
        return 0;
    p = next_word(p, end, &w);
    if (!word_is(w, p, "reduction"))
        return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p != '(')
        return 0;
    *id_end = next_word(p + 1, end, id);
    return *id_end > *id;
}

/* Does the directive at p (after "omp") make device code: "target ..." (but target
 * data, enter data, exit data and update, which run no code), or "declare target"? */
static int directive_is_target(const char *p, const char *end)
{
    const char *w[3], *e[3];
    for (int i = 0; i < 3; i++)
        p = e[i] = next_word(p, end, &w[i]);
    if (word_is(w[0], e[0], "target"))
        return !word_is(w[1], e[1], "data") && !word_is(w[1], e[1], "enter")
               && !word_is(w[1], e[1], "exit") && !word_is(w[1], e[1], "update");
    return (word_is(w[0], e[0], "declare") && word_is(w[1], e[1], "target"))
           || (word_is(w[0], e[0], "begin") && word_is(w[1], e[1], "declare") && word_is(w[2], e[2], "target"));
}

static void find_parallel_pragmas(struct unit *u)
{
    int cap = 0, reductions_cap = 0;
    const char *t = u->text, *end = t + u->size;
    for (const char *line = t; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        const char *directive = omp_directive(line, eol);
        if (directive && directive_is_target(directive, eol))
            u->offload = 1;
        const char *id, *id_end;
        if (directive && declares_reduction(directive, eol, &id, &id_end)) {
            GROW(u->reductions, u->nreductions, reductions_cap);
            u->reductions[u->nreductions++] = (struct reduction){
                (unsigned)(line - t), (unsigned)(eol - t), (unsigned)(id - t), (unsigned)(id_end - t) };
        }
        if (directive) {
            GROW(u->blocks, u->nblocks, cap);
            u->blocks[u->nblocks++] = (struct block){
                .pragma_end = (unsigned)(eol - t),
                .parallel = directive_is_parallel(directive, eol),
                .cacheable = directive_is_cacheable(directive, eol) };
        }
        line = eol + 1;
    }
}

/* ---- the AST walk ---- */

static struct node *new_node(struct unit *u, enum node_kind kind, unsigned start, unsigned end)
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

static CXCursor strip(CXCursor c);

static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    *(CXCursor *)data = c;
    return CXChildVisit_Break;
}

/* Down through implicit conversions and parentheses. */
static CXCursor strip(CXCursor c)
{
    while (clang_getCursorKind(c) == CXCursor_UnexposedExpr || clang_getCursorKind(c) == CXCursor_ParenExpr) {
        CXCursor child = clang_getNullCursor();
        clang_visitChildren(c, first_child, &child);
        if (clang_Cursor_isNull(child))
            break;
        c = child;
    }
    return c;
}

/* The name a call's designator calls directly (f, (f), (*f), (&f)), as the expression
 * that mentions it; a null cursor for a call through a pointer.  Only the designator
 * tells: libclang's referenced cursor of a call of pick(1)(3) is pick. */
static CXCursor callee_reference(CXCursor designator)
{
    CXCursor c = strip(designator);
    while (clang_getCursorKind(c) == CXCursor_UnaryOperator) {
        CXCursor child = clang_getNullCursor();
        clang_visitChildren(c, first_child, &child);
        if (clang_Cursor_isNull(child))
            break;
        c = strip(child);
    }
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr
        && clang_getCursorKind(clang_getCursorReferenced(c)) == CXCursor_FunctionDecl)
        return c;
    return clang_getNullCursor();
}

/* The function a call's designator calls directly, or a null cursor. */
static CXCursor direct_callee(CXCursor designator)
{
    CXCursor ref = callee_reference(designator);
    return clang_Cursor_isNull(ref) ? ref : clang_getCursorReferenced(ref);
}

/* Does name match one of the comma-separated globs in list? */
static int matches(const char *list, const char *name)
{
    const char *base = strrchr(name, '/');
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char pattern[512];
        if (n > 0 && n < sizeof pattern) {
            memcpy(pattern, p, n);
            pattern[n] = 0;
            if (!fnmatch(pattern, name, 0) || (base && !fnmatch(pattern, base + 1, 0)))
                return 1;
        }
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* gcc's in-source opt-out, on this declaration or the first one. */
static int opted_out(CXTranslationUnit tu, CXCursor fn)
{
    CXCursor decls[2] = { fn, clang_getCanonicalCursor(fn) };
    for (int d = 0; d < 2; d++) {
        CXToken *tokens;
        unsigned n;
        clang_tokenize(tu, clang_getCursorExtent(decls[d]), &tokens, &n);
        int found = 0;
        for (unsigned i = 0; i < n && !found; i++) {
            if (clang_getTokenKind(tokens[i]) == CXToken_Punctuation) {
                CXString t = clang_getTokenSpelling(tu, tokens[i]);
                int brace = !strcmp(clang_getCString(t), "{");
                clang_disposeString(t);
                if (brace)
                    break;      /* the body: past the declarator and its attributes */
            }
            CXString t = clang_getTokenSpelling(tu, tokens[i]);
            const char *w = clang_getCString(t);
            found = !strcmp(w, "no_instrument_function") || !strcmp(w, "__no_instrument_function__");
            clang_disposeString(t);
        }
        clang_disposeTokens(tu, tokens, n);
        if (found)
            return 1;
    }
    return 0;
}

/* Is the function defined by fn one the user asked to profile? */
static int selected(const struct unit *u, CXCursor fn)
{
    const struct cprof_rewrite_options *o = u->options;
    char *name = cx_take(clang_getCursorSpelling(fn));
    unsigned line;
    char *file = presumed(clang_getCursorLocation(fn), &line);
    int ok = (!o->include_functions || matches(o->include_functions, name))
             && (!o->include_files || matches(o->include_files, file))
             && !matches(o->exclude_functions, name) && !matches(o->exclude_files, file)
             && !opted_out(u->tu, fn);
    free(name);
    free(file);
    return ok;
}

/* An inline definition with external linkage may not refer to the unit's static
 * tables (C11 6.7.4p3), so it is not profiled; nor is its address taken at call sites:
 * a program may have no external definition and rely on inlining. */
static int is_external_inline(CXCursor fn)
{
    return clang_Cursor_isFunctionInlined(fn) && clang_getCursorLinkage(fn) == CXLinkage_External;
}

/* A function cprof may profile: declared or defined outside system headers, and
 * selected if this unit defines it. */
static int may_be_routine(const struct unit *u, CXCursor fn, const char *name)
{
    if (!strncmp(name, "__builtin_", 10) || !strncmp(name, "__atomic_", 9) || !strncmp(name, "__sync_", 7))
        return 0;
    CXCursor def = clang_getCursorDefinition(fn);
    if (!clang_Cursor_isNull(def)) {
        if (is_external_inline(def)
            || (!clang_Location_isInSystemHeader(clang_getCursorLocation(def)) && !selected(u, def)))
            return 0;
        fn = def;
    }
    CXSourceLocation loc = clang_getCursorLocation(fn);
    CXFile file;
    clang_getFileLocation(loc, &file, NULL, NULL, NULL);
    return file && !clang_Location_isInSystemHeader(loc);
}

static int is_bitfield(CXCursor arg)
{
    CXCursor c = strip(arg);
    if (clang_getCursorKind(c) != CXCursor_MemberRefExpr)
        return 0;
    CXCursor field = clang_getCursorReferenced(c);
    return clang_getCursorKind(field) == CXCursor_FieldDecl && clang_Cursor_isBitField(field);
}

static struct site *new_site(struct unit *u, CXTranslationUnit tu, unsigned offset, int *index)
{
    GROW(u->sites, u->nsites, u->sites_cap);
    struct site *s = &u->sites[u->nsites];
    s->routine = u->routine;
    s->callee = -1;
    s->file = presumed(clang_getLocationForOffset(tu, u->file, offset), &s->line);
    s->d = 0;
    s->cache = CACHE_NONE;
    *index = u->nsites++;
    return s;
}

/* With libcalls: the routine standing for a library function, one per name in the
 * unit, named as called and filed under <library>.  Declared in a system header,
 * never glibc's internals (__...).  An extern inline wrapper in a system header
 * (printf under _FORTIFY_SOURCE) counts too: the library has the symbol. */
static int leaf_routine(struct unit *u, CXCursor fn, const char *name)
{
    CXSourceLocation loc = clang_getCursorLocation(fn);
    if (!clang_Location_isInSystemHeader(loc) || !strncmp(name, "__", 2))
        return -1;
    for (int i = 0; i < u->nroutines; i++)
        if (u->routines[i].line == 0 && !strcmp(u->routines[i].name, name))
            return i;
    GROW(u->routines, u->nroutines, u->routines_cap);
    u->routines[u->nroutines] = (struct routine){ .name = cprof_xstrdup(name), .file = cprof_xstrdup("<library>") };
    return u->nroutines++;
}

static void add_call(struct unit *u, CXCursor call)
{
    CXCursor designator = clang_getNullCursor();
    clang_visitChildren(call, first_child, &designator);
    if (clang_Cursor_isNull(designator))
        return;
    unsigned start, end, dstart, dend;
    extent_of(call, &start, &end);
    extent_of(designator, &dstart, &dend);
    if (end <= start || dstart < start || dend > end)
        return;

    CXCursor fn = direct_callee(designator);
    char *name = clang_Cursor_isNull(fn) ? NULL : cx_take(clang_getCursorSpelling(fn));
    enum node_kind kind = N_CALL;
    int leaf = -1;
    if (name) {
        static const char *const setjmps[] = { "setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", NULL };
        static const char *const longjmps[] = { "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", NULL };
        for (int i = 0; setjmps[i]; i++)
            if (!strcmp(name, setjmps[i]))
                kind = N_SETJMP;
        for (int i = 0; longjmps[i]; i++)
            if (!strcmp(name, longjmps[i]))
                kind = N_LONGJMP;
        if (kind == N_CALL && !may_be_routine(u, fn, name)) {
            leaf = u->options->libcalls ? leaf_routine(u, fn, name) : -1;
            if (leaf < 0) {
                free(name);
                return;
            }
        }
    }
    int nargs = clang_Cursor_getNumArguments(call);
    if (nargs < 0 || (kind != N_CALL && nargs < 1)) {
        free(name);
        return;
    }
    struct node *n = new_node(u, kind, start, end);
    n->desig_start = dstart;
    n->desig_end = dend;
    n->target = name;
    n->leaf = leaf;
    /* A function first declared by a call inside a body (an implicit declaration) may
     * not be named before that call: it would be undeclared there. */
    if (name) {
        unsigned decl = offset_of(clang_getCursorLocation(clang_getCanonicalCursor(fn)));
        n->implicit = decl >= u->body_start && decl < u->body_end;
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

static int is_function(struct unit *u, const char *p, size_t n)
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

/* Calls in OpenMP clause expressions (num_threads(nt()), if(...), schedule(...)) are
 * not in libclang's tree: found in the pragma text, as a function's name followed by
 * "(" inside a clause's parentheses.  They run on the encountering thread, before
 * the construct. */
static void add_clause_calls(struct unit *u, CXTranslationUnit tu, unsigned from, unsigned to)
{
    const char *t = u->text;
    for (unsigned line = from; line < to;) {
        const char *eol = memchr(t + line, '\n', to - line);
        unsigned end = eol ? (unsigned)(eol - t) : to;
        const char *p = omp_directive(t + line, t + end);
        if (p) {
            int depth = 0;
            for (const char *q = p; q < t + end; q++) {
                if (*q == '(')
                    depth++;
                else if (*q == ')')
                    depth--;
                if (depth < 1 || !is_word_char(*q) || (q > p && is_word_char(q[-1])))
                    continue;
                const char *w = q;
                while (q < t + end && is_word_char(*q))
                    q++;
                const char *open = q;
                while (open < t + end && (*open == ' ' || *open == '\t'))
                    open++;
                if (open == t + end || *open != '(' || !is_function(u, w, (size_t)(q - w))) {
                    q--;
                    continue;
                }
                /* The call: name, then balanced parentheses split at top-level commas. */
                int level = 0, nargs = 0;
                const char *close = open;
                for (; close < t + end; close++) {
                    level += (*close == '(') - (*close == ')');
                    if (level == 1 && *close == ',')
                        nargs++;
                    if (level == 0)
                        break;
                }
                if (close == t + end)
                    break;
                const char *a = open + 1;
                while (a < close && (*a == ' ' || *a == '\t'))
                    a++;
                if (a < close)
                    nargs++;
                struct node *n = new_node(u, N_CALL, (unsigned)(w - t), (unsigned)(close + 1 - t));
                const char *before = w, *word;
                while (before > p && (before[-1] == ' ' || before[-1] == '\t'))
                    before--;
                if (before > p && before[-1] == '(') {
                    for (word = --before; word > p && (word[-1] == ' ' || word[-1] == '\t'); word--)
                        ;
                    while (word > p && is_word_char(word[-1]))
                        word--;
                    n->initializer = !strncmp(word, "initializer", 11) && !is_word_char(word[11]);
                }
                n->desig_start = (unsigned)(w - t);
                n->desig_end = (unsigned)(q - t);
                n->target = cprof_xstrndup(w, (size_t)(q - w));
                n->nargs = nargs;
                n->arg_start = cprof_xcalloc((size_t)nargs + 1, sizeof *n->arg_start);
                n->arg_end = cprof_xcalloc((size_t)nargs + 1, sizeof *n->arg_end);
                n->arg_bitfield = cprof_xcalloc((size_t)nargs + 1, 1);
                int k = 0;
                const char *arg = open + 1;
                level = 0;
                for (const char *c = open + 1; nargs && c <= close; c++) {
                    if (c == close || (level == 0 && *c == ',')) {
                        n->arg_start[k] = (unsigned)(arg - t);
                        n->arg_end[k++] = (unsigned)(c - t);
                        arg = c + 1;
                    }
                    level += (*c == '(') - (*c == ')');
                }
                new_site(u, tu, (unsigned)(w - t), &n->index);
                q = open - 1;   /* on to the "(": calls in the arguments are found too */
            }
        }
        line = end + 1;
    }
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
    if (n >= 4 && (!strcmp(w[0], "cleanup") || !strcmp(w[0], "__cleanup__")) && !strcmp(w[1], "(")
        && !strcmp(w[3], ")") && is_function(u, w[2], strlen(w[2]))) {
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
    /* The first cursor at or after a pragma line is its structured block (pre-order:
     * the outermost statement starting there). */
    while (u->block_next < u->block_last && u->blocks[u->block_next].pragma_end <= start) {
        u->blocks[u->block_next].start = start;
        u->blocks[u->block_next].end = end;
        u->block_next++;
    }
    if (kind == CXCursor_CallExpr)
        add_call(u, c);
    else if (kind == CXCursor_UnexposedAttr)
        add_cleanup(u, c);
    return CXChildVisit_Recurse;
}

/* ---- user-defined reductions ----
 *
 * A "declare reduction" combiner or initializer is called by the construct whose
 * reduction clause names it, inside that construct (in each thread of a parallel one),
 * on behalf of the routine that holds the construct.  One declaration may serve several
 * constructs and routines, so each construct using one with instrumented calls gets
 * copies of its declarations under a new name, whose calls are that construct's sites,
 * and its clause names the copy.  A copy goes on lines of its own where it sees what
 * the original sees: after a block-scope declaration, before the routine's definition
 * for a file-scope one; a line marker then restores the numbering. */

/* Is offset inside a function body other than [from, to)? */
static int in_other_body(const struct unit *u, unsigned offset, unsigned from)
{
    for (int i = 0; i < u->nbodies; i++)
        if (u->bodies[i].start != from && u->bodies[i].start <= offset && offset < u->bodies[i].end)
            return 1;
    return 0;
}

/* The construct at line names the reduction [id, id_end) in a clause; d: the routine's
 * parallel constructs around the code the construct runs. */
static void add_reduction_use(struct unit *u, unsigned line, unsigned id, unsigned id_end,
                              unsigned definition_line, int d)
{
    const char *t = u->text;
    size_t n = id_end - id;
    int copy = u->ncopies + 1, calls = 0;
    for (int pass = 0; pass < 2 && (pass == 0 || calls); pass++)
        for (int i = 0; i < u->nreductions; i++) {
            const struct reduction *r = &u->reductions[i];
            int local = r->line >= u->body_start;
            if (r->line >= line || r->id_end - r->id_start != n || memcmp(t + r->id_start, t + id, n)
                || (!local && in_other_body(u, r->line, u->body_start)))
                continue;
            if (pass == 0) {
                int before = u->nnodes;
                add_clause_calls(u, u->tu, r->line, r->eol);
                for (int k = before; k < u->nnodes; k++) {
                    struct site *s = &u->sites[u->nodes[k].index];
                    u->nodes[k].copy = copy;
                    s->d = d;
                    free(s->file);
                    s->file = presumed(clang_getLocationForOffset(u->tu, u->file, line), &s->line);
                }
                calls += u->nnodes - before;
            } else {
                unsigned at = local ? r->eol + 1 : definition_line;
                struct node *c = new_node(u, N_REDUCTION, at, at);
                c->index = copy;
                c->desig_start = r->id_end;
                c->desig_end = r->eol;
            }
        }
    if (!calls)
        return;     /* nothing of it is instrumented: the clause stays as it is */
    u->ncopies = copy;
    new_node(u, N_RENAME, id, id_end)->index = copy;
}

static void add_reductions(struct unit *u, unsigned definition_line, int first_block)
{
    static const char *const clauses[] = { "reduction", "in_reduction", "task_reduction", NULL };
    const char *t = u->text;
    for (unsigned line = u->body_start; line < u->body_end;) {
        const char *eol = memchr(t + line, '\n', u->body_end - line);
        const char *end = eol ? eol : t + u->body_end;
        const char *p = omp_directive(t + line, end), *id, *id_end;
        if (p && !declares_reduction(p, end, &id, &id_end)) {
            int d = directive_is_parallel(p, end);
            for (int b = first_block; b < u->block_next; b++)
                d += u->blocks[b].parallel && u->blocks[b].start <= line && line < u->blocks[b].end;
            for (const char *q = p, *w; q < end;) {
                q = next_word(q, end, &w);
                if (q == w) {
                    q++;
                    continue;
                }
                int clause = 0;
                for (int i = 0; clauses[i]; i++)
                    clause |= word_is(w, q, clauses[i]);
                while (q < end && (*q == ' ' || *q == '\t'))
                    q++;
                if (!clause || q == end || *q != '(')
                    continue;
                /* reduction([modifier,] identifier : list); an operator is not a name */
                const char *colon = memchr(q, ':', (size_t)(end - q));
                if (!colon)
                    break;
                const char *comma = memchr(q, ',', (size_t)(colon - q));
                id_end = next_word(comma ? comma + 1 : q + 1, colon, &id);
                const char *after = id_end;
                while (after < colon && (*after == ' ' || *after == '\t'))
                    after++;
                if (after == colon && id_end > id)
                    add_reduction_use(u, line, (unsigned)(id - t), (unsigned)(id_end - t), definition_line, d);
                q = colon;
            }
        }
        line = (unsigned)(end - t) + 1;
    }
}

static enum CXChildVisitResult find_body(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_CompoundStmt)
        *(CXCursor *)data = c;
    return CXChildVisit_Continue;
}

/* Small enough that gcc would inline it and that a timed facade would cost more than
 * its body: few tokens, and no loop or pragma (a loop means work per call).  A member
 * access (a.r, p->next) counts as one token, the operand gcc sees: complex arithmetic on
 * a struct of two doubles spells three tokens per operand. */
static int is_small(const struct unit *u, CXCursor body)
{
    CXToken *tokens;
    unsigned n;
    clang_tokenize(u->tu, clang_getCursorExtent(body), &tokens, &n);
    unsigned size = 0;
    int small = 1;
    for (unsigned i = 0; small && i < n; i++) {
        CXTokenKind kind = clang_getTokenKind(tokens[i]);
        char *word = cx_take(clang_getTokenSpelling(u->tu, tokens[i]));
        if (kind == CXToken_Punctuation && (!strcmp(word, ".") || !strcmp(word, "->")))
            i++;                /* the member's name: part of the one operand */
        else
            size++;
        if (kind == CXToken_Keyword || kind == CXToken_Identifier)
            small = strcmp(word, "for") && strcmp(word, "while") && strcmp(word, "do") &&
                    strcmp(word, "goto") && strcmp(word, "pragma") && strcmp(word, "_Pragma");
        free(word);
    }
    clang_disposeTokens(u->tu, tokens, n);
    return small && size <= (unsigned)u->options->small_tokens;
}

struct attribute_search {
    const struct unit *u;
    const char *const *words;       /* null-terminated */
    int found;
};

static enum CXChildVisitResult find_attribute(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (!clang_isAttribute(clang_getCursorKind(c)))
        return CXChildVisit_Continue;
    struct attribute_search *a = data;
    CXToken *tokens;
    unsigned n;
    clang_tokenize(a->u->tu, clang_getCursorExtent(c), &tokens, &n);
    for (unsigned i = 0; i < n && !a->found; i++) {
        char *word = cx_take(clang_getTokenSpelling(a->u->tu, tokens[i]));
        const char *w = word;
        while (*w == '_')           /* __constructor__ too */
            w++;
        for (const char *const *p = a->words; *p; p++) {
            size_t len = strlen(*p);
            if (!strncmp(w, *p, len) && (w[len] == 0 || w[len] == '_'))
                a->found = 1;
        }
        free(word);
    }
    clang_disposeTokens(a->u->tu, tokens, n);
    return CXChildVisit_Continue;
}

/* Has fn one of these attributes (on any of its declarations)? */
static int has_attribute(const struct unit *u, CXCursor fn, const char *const *words)
{
    struct attribute_search a = { u, words, 0 };
    clang_visitChildren(fn, find_attribute, &a);
    return a.found;
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
        .small = is_small(u, body),
        /* Something other than the program's calls enters it. */
        .special_entry = has_attribute(u, fn, (const char *const[]){ "constructor", "destructor",
            "used", "ifunc", "alias", "section", "externally_visible", 0 }),
    };
    new_node(u, N_HOOK, bstart + 1, bstart + 1)->index = u->routine;

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
    int first_site = u->nsites;
    clang_visitChildren(body, visit_body, u);
    add_clause_calls(u, u->tu, bstart, bend);
    /* d: parallel blocks of this body around the call. */
    for (int i = 0; i < u->nnodes; i++) {
        struct node *n = &u->nodes[i];
        if (n->kind != N_CALL || n->index < first_site)
            continue;
        for (int b = first; b < u->block_next; b++)
            if (u->blocks[b].parallel && u->blocks[b].start <= n->start && n->start < u->blocks[b].end)
                u->sites[n->index].d++;
    }
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

/* ---- which static routines may be called through a pointer ----
 *
 * A direct call of a routine defined in this unit names the routine's descriptor
 * (site->callee), so neither the call nor the routine's table entry needs its address
 * unless something may call it through a pointer.  Taking the address of a static
 * function that gcc inlines costs an out-of-line copy it would not otherwise compile:
 * about a tenth of the compile time of a typical unit.  The test is conservative:
 * every mention of the name outside system headers, less the mentions known not to
 * take its address (its declarations, direct calls, calls in OpenMP clauses); any
 * mention left over may take it. */

static int by_routine_name(const void *a, const void *b, void *data)
{
    const struct unit *u = data;
    return strcmp(u->routines[*(const int *)a].name, u->routines[*(const int *)b].name);
}

static void index_routines(struct unit *u)
{
    u->defined = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *u->defined);
    for (int i = 0; i < u->nroutines; i++)
        if (u->routines[i].line)
            u->defined[u->ndefined++] = i;
    qsort_r(u->defined, (size_t)u->ndefined, sizeof *u->defined, by_routine_name, u);
}

/* The routine defined in this unit named p[0..n), or -1. */
static int defined_routine(const struct unit *u, const char *p, size_t n)
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

/* Mentions of static routines' names in the text outside system headers (gcc's line
 * markers say where those are), but for calls in OpenMP clauses: libclang does not
 * see those, and they are calls. */
static void count_mentions(const struct unit *u, int *mentions)
{
    const char *t = u->text, *end = t + u->size;
    int system = 0;
    for (const char *line = t; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        if (eol - line > 2 && line[0] == '#' && line[1] == ' ' && line[2] >= '0' && line[2] <= '9') {
            /* # LINE "FILE" FLAGS: flag 3, a system header */
            const char *q = eol;
            while (q > line && q[-1] != '"')
                q--;
            system = 0;
            for (; q + 1 < eol; q++)
                if (q[0] == ' ' && q[1] == '3' && (q + 2 == eol || q[2] == ' '))
                    system = 1;
        } else if (!system) {
            int clause_line = omp_directive(line, eol) != NULL;
            int asm_line = 0;
            for (const char *q = line; q + 3 <= eol && !asm_line; q++)
                asm_line = !memcmp(q, "asm", 3) && (q == line || !is_word_char(q[-1]) || q[-1] == '_');
            char quote = 0;         /* in a string or character literal... */
            const char *literal = NULL;     /* ...whose text starts here */
            for (const char *q = line; q < eol;) {
                if (!quote && (*q == '"' || *q == '\'')) {
                    quote = *q++;
                    literal = q;
                    continue;
                }
                if (quote && *q == '\\') {
                    q += 2;         /* an escape */
                    continue;
                }
                if (quote && *q == quote) {
                    quote = 0;
                    q++;
                    continue;
                }
                if (!is_word_char(*q)) {
                    q++;
                    continue;
                }
                const char *w = q;
                while (q < eol && is_word_char(*q))
                    q++;
                int r = *w >= '0' && *w <= '9' ? -1 : defined_routine(u, w, (size_t)(q - w));
                if (r < 0 || !u->routines[r].internal)
                    continue;
                /* In a literal, only asm text or a literal that is just the name (an
                 * alias attribute) can refer to the function; a message cannot. */
                if (quote && !asm_line && !(w == literal && q < eol && *q == quote))
                    continue;
                const char *a = q;
                while (a < eol && (*a == ' ' || *a == '\t'))
                    a++;
                if (!(clause_line && a < eol && *a == '('))
                    mentions[r]++;
            }
        }
        line = eol + 1;
    }
}

struct known_mentions {
    const struct unit *u;
    int *known;
    int *uninstrumented;            /* direct calls from functions cprof does not instrument */
    int outside;                    /* the function being visited is one of those */
    unsigned callee_at;             /* where the last call's direct callee is named */
};

/* Declarations and direct calls: mentions that do not take an address.  Pre-order:
 * a call comes just before the name its designator calls. */
static enum CXChildVisitResult count_known(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct known_mentions *k = data;
    enum CXCursorKind kind = clang_getCursorKind(c);
    if (kind == CXCursor_CallExpr) {
        CXCursor designator = clang_getNullCursor();
        clang_visitChildren(c, first_child, &designator);
        CXCursor ref = clang_Cursor_isNull(designator) ? designator : callee_reference(designator);
        k->callee_at = clang_Cursor_isNull(ref) ? UINT_MAX : offset_of(clang_getCursorLocation(ref));
    } else if (kind == CXCursor_FunctionDecl
               || (kind == CXCursor_DeclRefExpr && offset_of(clang_getCursorLocation(c)) == k->callee_at)) {
        CXCursor fn = kind == CXCursor_FunctionDecl ? c : clang_getCursorReferenced(c);
        char *name = cx_take(clang_getCursorSpelling(fn));
        int r = defined_routine(k->u, name, strlen(name));
        if (r >= 0) {
            k->known[r]++;
            k->uninstrumented[r] += k->outside && kind == CXCursor_DeclRefExpr;
        }
        free(name);
    }
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult count_known_top(CXCursor c, CXCursor parent, CXClientData data)
{
    if (!clang_Location_isInSystemHeader(clang_getCursorLocation(c))) {
        struct known_mentions *k = data;
        char *name = cx_take(clang_getCursorSpelling(c));
        k->outside = clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c)
                     && defined_routine(k->u, name, strlen(name)) < 0;
        free(name);
        count_known(c, parent, data);
        clang_visitChildren(c, count_known, data);
    }
    return CXChildVisit_Continue;
}

static void find_addresses_taken(struct unit *u)
{
    int *mentions = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *mentions);
    struct known_mentions k = { .u = u, .known = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *k.known),
                                .uninstrumented = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *k.known),
                                .callee_at = UINT_MAX };
    count_mentions(u, mentions);
    clang_visitChildren(clang_getTranslationUnitCursor(u->tu), count_known_top, &k);
    for (int i = 0; i < u->nroutines; i++) {
        u->routines[i].address_taken = u->routines[i].internal && mentions[i] > k.known[i];
        u->routines[i].called_uninstrumented = k.uninstrumented[i] > 0;
    }
    free(mentions);
    free(k.known);
    free(k.uninstrumented);
}

/* A routine can be counted at its call sites only if they are all its entries: a
 * static function of this unit whose address is never taken, called by instrumented
 * code only, that nothing else calls (a constructor, a destructor). */
static void choose_counted(struct unit *u)
{
    const struct cprof_rewrite_options *o = u->options;
    /* A small routine that calls itself is no inlining candidate, and its recursion
     * is what a user profiles it for (fib). */
    int *recursive = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *recursive);
    int *sites = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *sites);
    for (int i = 0; i < u->nnodes; i++) {
        const struct node *n = &u->nodes[i];
        if (n->kind == N_CALL && n->target) {
            int callee = defined_routine(u, n->target, strlen(n->target));
            if (callee >= 0 && callee == u->sites[n->index].routine)
                recursive[callee] = 1;
            if (callee >= 0)
                sites[callee]++;
        }
    }
    for (int i = 0; i < u->nroutines; i++) {
        struct routine *r = &u->routines[i];
        /* noinline: the user wants it kept apart, and timed. */
        int only_ours = r->line && r->internal && !r->address_taken && !r->called_uninstrumented
                        && !r->special_entry;
        r->counted = only_ours && !matches(o->timed_functions, r->name)
                     && ((r->small && !r->noinline && !recursive[i])
                         || matches(o->count_only_functions, r->name));
        /* What gcc inlines at -O2 whatever its size, a static function called once, and
         * what the program asks it to inline; only where -fcprof-count-only could count
         * it instead. */
        r->inlinable = only_ours && !r->counted && !r->noinline && !recursive[i]
                       && (r->declared_inline || sites[i] == 1);
    }
    free(recursive);
    free(sites);
}

/* How each call of a counted routine learns its case without calling the runtime.  A
 * site outside every parallel construct of its routine (d = 0) has the case of the
 * routine's entry: the routine copies case0 at entry.  A site inside one takes the
 * case cached in a variable private to each thread of the innermost parallel
 * construct (firstprivate of a static -1: computed by its first call, constant for
 * that thread's part of that region).  Neither may be seen through a task, a simd
 * loop, a target or teams region (another data environment, another thread, or
 * another state), nor in a unit with target regions (no thread-local storage in device
 * code), nor from a cleanup wrapper or a reduction's copy: those sites call
 * cprof_count. */
static void choose_caches(struct unit *u)
{
    if (u->offload)
        return;
    for (int i = 0; i < u->nnodes; i++) {
        const struct node *n = &u->nodes[i];
        if (n->kind != N_CALL || !n->target || n->cleanup || n->copy || n->leaf >= 0)
            continue;
        int callee = defined_routine(u, n->target, strlen(n->target));
        if (callee < 0 || !u->routines[callee].counted)
            continue;
        struct site *s = &u->sites[n->index];
        int inner = -1;             /* the innermost parallel block around the site */
        for (int b = 0; b < u->nblocks; b++) {
            const struct block *k = &u->blocks[b];
            if (k->parallel && k->start <= n->start && n->start < k->end
                && (inner < 0 || k->start >= u->blocks[inner].start))
                inner = b;
        }
        if (s->d > 0 && (inner < 0 || !u->blocks[inner].cacheable))
            continue;
        int seen_through = 1;
        for (int b = 0; b < u->nblocks; b++) {
            const struct block *k = &u->blocks[b];
            if (k->start <= n->start && n->start < k->end && !k->cacheable
                && (inner < 0 || k->start >= u->blocks[inner].start))
                seen_through = 0;
        }
        if (!seen_through)
            continue;
        s->slot = u->nslots++;
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

/* ---- rendering ---- */

static int by_position(const void *a, const void *b)
{
    const struct node *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;        /* the enclosing node first */
    return x->kind - y->kind;                   /* a hook before what follows it */
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
            if (n->start >= p->start && n->end <= p->end && p->end > p->start)
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
static void build_trees(struct unit *u)
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
        if (k->start < from || k->end > to || k->start < pos)
            continue;
        k->placed = 1;
        place_node(u, k);
        pos = k->end;
    }
}

/* The ranges render_node copies with the nodes inside them. */
static void place_node(struct unit *u, struct node *n)
{
    if (n->cleanup || n->kind == N_RENAME || n->kind == N_CLAUSE || n->kind == N_HOOK)
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
static void find_callees(struct unit *u, unsigned from)
{
    place_range(u, from, (unsigned)u->size, u->tops[0], u->ntops[0]);
    for (int i = 0; i < u->nnodes; i++) {
        const struct node *n = &u->nodes[i];
        if (n->kind == N_CALL && n->target && n->leaf < 0 && (n->placed || n->cleanup))
            u->sites[n->index].callee = defined_routine(u, n->target, strlen(n->target));
    }
}

static void render_node(struct unit *u, struct str *out, struct node *n);

/* After lines of its own: the text at offset `at` (a line's start) is on its line. */
static void add_line_marker(struct unit *u, struct str *out, unsigned at)
{
    unsigned line;
    char *file = presumed(clang_getLocationForOffset(u->tu, u->file, at), &line);
    str_printf(out, "# %u ", line);
    str_literal(out, file);
    str_add(out, "\n", 1);
    free(file);
}

/* Copies [from, to) of the input with the given nodes inside it rewritten. */
static void render_range(struct unit *u, struct str *out, unsigned from, unsigned to,
                         const int *kids, int nkids)
{
    unsigned pos = from;
    for (int i = 0; i < nkids; i++) {
        struct node *k = &u->nodes[kids[i]];
        if (k->start < from || k->end > to || k->start < pos)
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

/* The call site's half of a direct call of n->target. */
static void add_handshake(struct unit *u, struct str *out, const struct node *n)
{
    int site = n->index;
    const struct site *s = &u->sites[site];
    int callee = s->callee;
    if (callee >= 0) {
        /* Named by the site's descriptor: the callee's entry reads no target. */
        const char *to_callee = u->routines[callee].reads_case0 ? "cprof_pending.case0 = " : "";
        if (s->cache == CACHE_CASE0)
            str_printf(out, "cprof_count_case0(&__cprof_s[%d], &__cprof_n[%d], __cprof_c0); %s",
                       site, s->slot, *to_callee ? "cprof_pending.case0 = __cprof_c0; " : "");
        else if (s->cache == CACHE_BLOCK)
            str_printf(out, "%s(__cprof_k%d = cprof_count_cached(&__cprof_s[%d], &__cprof_n[%d], "
                            "__cprof_k%d))%s; ", to_callee, s->block, site, s->slot, s->block,
                       *to_callee ? " ? 2 : 0" : "");
        else
            str_printf(out, u->routines[callee].counted ? "__cprof_count(%d); " : "__cprof_site(%d); ",
                       site);
    } else if (n->implicit)
        str_printf(out, "__cprof_call(%d, 0); ", site);
    else
        str_printf(out, "__cprof_call(%d, (void (*)(void))%s); ", site, n->target);
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
        add_line_marker(u, out, n->start);
        return;
    }
    if (n->kind == N_CLAUSE) {
        str_printf(out, " firstprivate(__cprof_k%d)", n->index);
        return;
    }
    if (n->kind == N_HOOK) {
        if (!u->routines[n->index].counted)
            str_printf(out, " struct cprof_frame *__cprof_fr __attribute__((cleanup(__cprof_leave), unused))"
                            " = cprof_facade.enter(&__cprof_r[%d]);", n->index);
        if (u->routines[n->index].reads_case0)
            str_printf(out, " int __cprof_c0 = cprof_pending.case0;");
        return;
    }
    if (n->kind != N_CALL) {
        render_range(u, out, n->start, n->arg_start[0], n->kids, n->nkids);
        str_add(out, n->kind == N_SETJMP ? "cprof_setjmp_mark(" : "cprof_longjmp_unwind(", n->kind == N_SETJMP ? 18 : 21);
        render_range(u, out, n->arg_start[0], n->arg_end[0], n->kids, n->nkids);
        str_add(out, ")", 1);
        render_range(u, out, n->arg_end[0], n->end, n->kids, n->nkids);
        return;
    }
    int site = n->index;
    /* OpenMP allows only a plain call as initializer(f(&omp_priv)); the equivalent
     * initialization omp_priv = ... takes a statement expression. */
    if (n->initializer)
        str_add(out, "omp_priv = ", 11);
    str_add(out, "__extension__({ ", 16);
    for (int i = 0; i < n->nargs; i++) {
        if (!has_call_inside(u, n, n->arg_start[i], n->arg_end[i]))
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
        str_printf(out, "struct cprof_frame *__cprof_l%d __attribute__((cleanup(__cprof_leave), unused))"
                        " = (__cprof_call(%d, (void (*)(void))%s), cprof_facade.enter(&__cprof_r[%d])); ",
                   site, site, n->target, n->leaf);
        render_range(u, out, n->desig_start, n->desig_end, n->kids, n->nkids);
    } else if (!n->target) {
        str_printf(out, "__auto_type __cprof_f%d = (", site);
        render_range(u, out, n->desig_start, n->desig_end, n->kids, n->nkids);
        str_printf(out, "); __cprof_call(%d, (void (*)(void))__cprof_f%d); __cprof_f%d", site, site, site);
    } else {
        add_handshake(u, out, n);
        render_range(u, out, n->desig_start, n->desig_end, n->kids, n->nkids);
    }
    unsigned pos = n->desig_end;
    for (int i = 0; i < n->nargs; i++) {
        render_range(u, out, pos, n->arg_start[i], n->kids, n->nkids);
        if (has_call_inside(u, n, n->arg_start[i], n->arg_end[i]))
            str_printf(out, "__cprof_a%d_%d", site, i);
        else
            render_range(u, out, n->arg_start[i], n->arg_end[i], n->kids, n->nkids);
        pos = n->arg_end[i];
    }
    render_range(u, out, pos, n->end, n->kids, n->nkids);
    str_add(out, n->initializer ? "; omp_priv; })" : "; })", n->initializer ? 14 : 4);
}

/* The runtime header without its preprocessor lines: the output is compiled as
 * already-preprocessed text. */
static void add_header(struct str *out)
{
    for (const char *p = cprof_header_text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) + 1 : strlen(p);
        if (*p != '#')
            str_add(out, p, n);
        p += n;
    }
}

static void add_prelude(struct unit *u, struct str *out)
{
    str_add(out, "# 1 \"<cprof>\" 3\n", 16);
    /* A unit that includes <cprof.h> (to call cprof_write) has the declarations. */
    if (!memmem(u->text, u->size, "cprof_register_unit_v4", 22))
        add_header(out);
    str_printf(out, "static struct cprof_routine __cprof_r[%d];\n", u->nroutines ? u->nroutines : 1);
    str_printf(out, "static struct cprof_site __cprof_s[%d];\n", u->nsites ? u->nsites : 1);
    /* gcc makes every function a target region reaches a device function, where
     * thread-local storage is an error: in a unit with target regions the handshake is
     * a call of the runtime. */
    str_printf(out, "static __inline__ __attribute__((always_inline, unused)) void "
                    "__cprof_call(int i, void (*t)(void)) { %s }\n",
               u->offload ? "cprof_pending_set(&__cprof_s[i], t);"
                          : "cprof_pending.site = &__cprof_s[i]; cprof_pending.target = t;");
    str_printf(out, "static __inline__ __attribute__((always_inline, unused)) void "
                    "__cprof_site(int i) { %s }\n",
               u->offload ? "cprof_pending_set(&__cprof_s[i], 0);" : "cprof_pending.site = &__cprof_s[i];");
    str_printf(out, "static __inline__ __attribute__((always_inline, unused)) void "
                    "__cprof_count(int i) { cprof_count(&__cprof_s[i]); }\n");
    if (u->nslots)
        str_printf(out, "static __thread unsigned long long *__cprof_n[%d];\n", u->nslots);
    for (int b = 0; b < u->nblocks; b++)
        if (u->blocks[b].clause)
            str_printf(out, "static int __cprof_k%d = -1;\n", b);
    str_printf(out, "static __inline__ __attribute__((always_inline, unused)) void "
                    "__cprof_leave(struct cprof_frame **f) { if (*f) cprof_facade.leave(*f); }\n");
}

/* Declared with the prelude, defined after the last line, where every file-scope
 * declaration of the function is visible (and before the tables, which name the
 * callees the handshakes find): the cleanup function takes a pointer to the variable,
 * which a void * carries. */
static void add_cleanup_wrappers(struct unit *u, struct str *out, int define)
{
    if (define)
        str_add(out, "\n# 1 \"<cprof>\" 3\n", 17);
    for (int i = 0; i < u->nnodes; i++) {
        struct node *n = &u->nodes[i];
        if (!n->cleanup)
            continue;
        str_printf(out, "static void __cprof_cleanup%d(void *p)", n->index);
        if (define) {
            str_add(out, " { ", 3);
            add_handshake(u, out, n);
            str_printf(out, "%s(p); }\n", n->target);
        } else {
            str_add(out, ";\n", 2);
        }
    }
}

static void add_tables(struct unit *u, struct str *out, const char *unit_file)
{
    str_add(out, "\n# 1 \"<cprof>\" 3\n", 17);
    str_printf(out, "static struct cprof_routine __cprof_r[%d] = {", u->nroutines ? u->nroutines : 1);
    for (int i = 0; i < u->nroutines; i++) {
        struct routine *r = &u->routines[i];
        /* Designated initializers: a field moved in cprof.h is harmless or an error. */
        str_add(out, "\n  { .name = ", 13);
        str_literal(out, r->name);
        str_add(out, ", .file = ", 10);
        str_literal(out, r->file);
        str_printf(out, ", .line = %u, .id = -1", r->line);
        if (!(r->line && r->internal && !r->address_taken))
            str_printf(out, ", .self = (void (*)(void))%s", r->name);
        if (r->counted || r->inlinable)
            str_printf(out, ", .flags = %s", r->counted ? "CPROF_ROUTINE_COUNTED"
                                                        : "CPROF_ROUTINE_INLINABLE");
        str_add(out, " },", 3);
    }
    str_printf(out, "\n};\nstatic struct cprof_site __cprof_s[%d] = {", u->nsites ? u->nsites : 1);
    for (int i = 0; i < u->nsites; i++) {
        struct site *s = &u->sites[i];
        str_printf(out, "\n  { .caller = &__cprof_r[%d], ", s->routine);
        if (s->callee >= 0)
            str_printf(out, ".callee = &__cprof_r[%d], ", s->callee);
        str_add(out, ".file = ", 8);
        str_literal(out, s->file);
        str_printf(out, ", .line = %u, .d = %d, .id = -1 },", s->line, s->d);
    }
    /* The destructor runs after the object's other destructors (units.c: the profile
     * is written when the last unit unregisters at exit). */
    str_add(out, "\n};\nstatic struct cprof_unit __cprof_unit = { .file = ", 54);
    str_literal(out, unit_file);
    str_printf(out, ", .nroutines = %d, .nsites = %d, .routines = __cprof_r, .sites = __cprof_s };\n"
                    "static void __attribute__((constructor)) __cprof_unit_init(void)\n"
                    "{ cprof_register_unit_v4(&__cprof_unit); }\n"
                    "static void __attribute__((destructor(101))) __cprof_unit_fini(void)\n"
                    "{ cprof_unregister_unit_v4(&__cprof_unit); }\n",
               u->nroutines, u->nsites);
}

/* An error outside system headers means libclang did not understand the user's code:
 * rewriting it could change its meaning. */
static int check_diagnostics(CXTranslationUnit tu, char *why, size_t why_size)
{
    unsigned n = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        int bad = clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error;
        CXSourceLocation loc = clang_getDiagnosticLocation(d);
        if (bad && !clang_Location_isInSystemHeader(loc)) {
            unsigned line;
            char *file = presumed(loc, &line);
            char *msg = cx_take(clang_getDiagnosticSpelling(d));
            snprintf(why, why_size, "%s:%u: warning: libclang: %s", file, line, msg);
            free(file);
            free(msg);
            clang_disposeDiagnostic(d);
            return -1;
        }
        clang_disposeDiagnostic(d);
    }
    return 0;
}

int cprof_rewrite(const char *text, size_t size, const char *text_name, const char *out_path,
                  const char *unit_file, const struct cprof_rewrite_options *options,
                  const char *const *clang_args, int nclang_args,
                  char *why, size_t why_size)
{
    /* gcc's system headers use two things clang 14 does not know. */
    const char *fixed[] = { "-x", "c", "-D__malloc__(...)=__malloc__", "-D_Float128=__float128",
                            "-ferror-limit=0", "-Wno-everything" };
    int nfixed = (int)(sizeof fixed / sizeof *fixed);
    const char **args = cprof_xcalloc((size_t)nfixed + (size_t)nclang_args, sizeof *args);
    memcpy(args, fixed, sizeof fixed);
    for (int i = 0; i < nclang_args; i++)
        args[nfixed + i] = clang_args[i];

    CXIndex index = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    struct CXUnsavedFile unsaved = { text_name, text, (unsigned long)size };
    enum CXErrorCode rc = clang_parseTranslationUnit2(index, text_name, args, nfixed + nclang_args,
                                                      &unsaved, 1, CXTranslationUnit_KeepGoing, &tu);
    free(args);
    int result = -1;
    struct unit u = { 0 };
    if (rc != CXError_Success || !tu) {
        snprintf(why, why_size, "%s: warning: libclang could not parse it (error %d)", unit_file, (int)rc);
        goto done;
    }
    if (check_diagnostics(tu, why, why_size) != 0)
        goto done;

    u.text = text;
    u.size = size;
    if (options->openmp)
        find_parallel_pragmas(&u);
    u.tu = tu;
    u.options = options;
    u.file = clang_getFile(tu, text_name);
    clang_visitChildren(clang_getTranslationUnitCursor(tu), collect_functions, &u);
    if (u.nfunctions)       /* qsort of a null array is undefined, even of none */
        qsort(u.functions, (size_t)u.nfunctions, sizeof *u.functions, by_name);
    clang_visitChildren(clang_getTranslationUnitCursor(tu), visit_top, &u);
    index_routines(&u);
    find_addresses_taken(&u);
    choose_counted(&u);
    choose_caches(&u);
    if (u.nnodes)
        qsort(u.nodes, (size_t)u.nnodes, sizeof *u.nodes, by_position);
    /* Sites are numbered in source order. */
    {
        struct site *sorted = cprof_xcalloc((size_t)u.nsites + 1, sizeof *sorted);
        int next = 0;
        for (int i = 0; i < u.nnodes; i++)
            if (u.nodes[i].kind == N_CALL) {
                sorted[next] = u.sites[u.nodes[i].index];
                u.nodes[i].index = next++;
            }
        if (u.nsites)
            memcpy(u.sites, sorted, (size_t)u.nsites * sizeof *sorted);
        free(sorted);
    }
    build_trees(&u);
    /* The prelude goes on its own lines before the line of the first definition,
     * after any #include <cprof.h>; a line marker then restores that line. */
    unsigned at = u.first_definition;
    while (at > 0 && text[at - 1] != '\n')
        at--;
    find_callees(&u, at);

    struct str out = { 0 };
    if (u.nroutines == 0) {
        str_add(&out, text, size);
    } else {
        str_add(&out, text, at);
        add_prelude(&u, &out);
        add_cleanup_wrappers(&u, &out, 0);
        add_line_marker(&u, &out, at);
        render_range(&u, &out, at, (unsigned)size, u.tops[0], u.ntops[0]);
        add_cleanup_wrappers(&u, &out, 1);
        add_tables(&u, &out, unit_file);
    }

    FILE *f = fopen(out_path, "wb");
    if (!f || fwrite(out.p, 1, out.len, f) != out.len || fclose(f) != 0) {
        snprintf(why, why_size, "%s: warning: cannot write %s", unit_file, out_path);
    } else {
        result = 0;
    }
    free(out.p);
done:
    for (int i = 0; i < u.nnodes; i++) {
        free(u.nodes[i].arg_start);
        free(u.nodes[i].arg_end);
        free(u.nodes[i].arg_bitfield);
        free(u.nodes[i].target);
        free(u.nodes[i].kids);
    }
    free(u.nodes);
    for (int i = 0; u.tops && i <= u.ncopies; i++)
        free(u.tops[i]);
    free(u.tops);
    free(u.ntops);
    for (int i = 0; i < u.nroutines; i++) {
        free(u.routines[i].name);
        free(u.routines[i].file);
    }
    free(u.routines);
    free(u.defined);
    for (int i = 0; i < u.nsites; i++)
        free(u.sites[i].file);
    free(u.sites);
    free(u.blocks);
    free(u.reductions);
    free(u.bodies);
    for (int i = 0; i < u.nfunctions; i++)
        free(u.functions[i]);
    free(u.functions);
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(index);
    return result;
}
