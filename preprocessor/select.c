/* select.c: which functions are profiled, and how: the user's patterns and opt-out,
 * system headers, small bodies and attributes, and which routines are counted at their
 * call sites rather than timed (unit.h). */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

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
int selected(const struct unit *u, CXCursor fn)
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
int is_external_inline(CXCursor fn)
{
    return clang_Cursor_isFunctionInlined(fn) && clang_getCursorLinkage(fn) == CXLinkage_External;
}

/* A function cprof may profile: declared or defined outside system headers, and
 * selected if this unit defines it. */
int is_mpi_function(const char *name)
{
    return !strncmp(name, "MPI_", 4) || !strncmp(name, "PMPI_", 5);
}

int is_builtin(const char *name)
{
    return !strncmp(name, "__builtin_", 10) || !strncmp(name, "__atomic_", 9)
           || !strncmp(name, "__sync_", 7);
}

int may_be_routine(const struct unit *u, CXCursor fn, const char *name)
{
    if (is_builtin(name))
        return 0;
    CXCursor def = clang_getCursorDefinition(fn);
    if (!clang_Cursor_isNull(def)) {
        if (is_external_inline(def)
            || (!clang_Location_isInSystemHeader(clang_getCursorLocation(def)) && !selected(u, def)))
            return 0;
        fn = def;
    } else if (is_mpi_function(name)) {
        return 0;           /* the MPI library's, not a routine of the program */
    }
    CXSourceLocation loc = clang_getCursorLocation(fn);
    CXFile file;
    clang_getFileLocation(loc, &file, NULL, NULL, NULL);
    return file && !clang_Location_isInSystemHeader(loc);
}

/* The parts of a body that are no work per call, for is_small: the calls of functions
 * that do not return (an assert's __assert_fail, abort, exit), and sizeof and alignof
 * expressions (an assert's check that its condition is a scalar). */
struct cold_calls {
    const struct unit *u;
    unsigned (*extents)[2];
    unsigned n, cap;
};

static enum CXChildVisitResult find_cold_call(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct cold_calls *cold = data;
    enum CXCursorKind kind = clang_getCursorKind(c);
    CXCursor fn = kind == CXCursor_CallExpr ? clang_getCursorReferenced(c) : clang_getNullCursor();
    if (kind != CXCursor_UnaryExpr &&
        (clang_Cursor_isNull(fn) || clang_getCursorKind(fn) != CXCursor_FunctionDecl ||
         !is_noreturn(cold->u, fn)))
        return CXChildVisit_Recurse;
    GROW(cold->extents, cold->n, cold->cap);
    extent_of(c, &cold->extents[cold->n][0], &cold->extents[cold->n][1]);
    cold->n++;
    return CXChildVisit_Continue;
}

/* Small enough that gcc would inline it and that a timed facade would cost more than
 * its body: few tokens (of its code, not of gcc's line markers), and no loop or pragma
 * (a loop means work per call).  A member
 * access (a.r, p->next) counts as one token, the operand gcc sees: complex arithmetic on
 * a struct of two doubles spells three tokens per operand.  A call of a function that
 * does not return (an assert's failure) is no work per call: gcc inlines such a
 * routine with the call on its cold path; nor is a sizeof.  Each counts as one token. */
int is_small(const struct unit *u, CXCursor fn, CXCursor body)
{
    struct cold_calls cold = { u, NULL, 0, 0 };
    clang_visitChildren(body, find_cold_call, &cold);
    CXToken *tokens;
    unsigned n;
    clang_tokenize(u->tu, clang_getCursorExtent(body), &tokens, &n);
    unsigned size = 0, marker_end = 0;
    int small = 1;
    for (unsigned i = 0; small && i < n; i++) {
        unsigned at;
        clang_getSpellingLocation(clang_getTokenLocation(u->tu, tokens[i]), NULL, NULL, NULL, &at);
        /* gcc's line markers in the body (where a system header's macro, an assert, was
         * expanded with the user's argument) are no code: "# LINE" first on its line,
         * to the line's end (a pragma is not one).  libclang gives their tokens. */
        if (at < marker_end)
            continue;
        if (at + 2 < u->size && (at == 0 || u->text[at - 1] == '\n') && u->text[at] == '#'
            && u->text[at + 1] == ' ' && u->text[at + 2] >= '0' && u->text[at + 2] <= '9') {
            const char *eol = memchr(u->text + at, '\n', u->size - at);
            marker_end = eol ? (unsigned)(eol - u->text) : (unsigned)u->size;
            continue;
        }
        /* such a part counts as one token, where it begins */
        unsigned k = 0;
        while (k < cold.n && !(at >= cold.extents[k][0] && at < cold.extents[k][1]))
            k++;
        if (k < cold.n && at > cold.extents[k][0])
            continue;
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
    free(cold.extents);
    /* A function declared inline gets twice the budget, as gcc's inliner gives such a
     * function more room (at -O2, max-inline-insns-single against -auto). */
    unsigned budget = (unsigned)u->options->small_tokens * (clang_Cursor_isFunctionInlined(fn) ? 2 : 1);
    return small && size <= budget;
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
int has_attribute(const struct unit *u, CXCursor fn, const char *const *words)
{
    struct attribute_search a = { u, words, 0 };
    clang_visitChildren(fn, find_attribute, &a);
    return a.found;
}

/* Is function fn declared not to return?  libclang has the attribute in the type (from
 * any declaration: glibc's __attribute__((__noreturn__))), and C11's _Noreturn as an
 * attribute of a declaration. */
static int declared_noreturn(const struct unit *u, CXCursor fn)
{
    char *spelling = cx_take(clang_getTypeSpelling(clang_getCursorType(fn)));
    const char *const c11[] = { "Noreturn", 0 };
    int noreturn = strstr(spelling, "noreturn") || has_attribute(u, fn, c11)
                   || has_attribute(u, clang_getCanonicalCursor(fn), c11);
    free(spelling);
    return noreturn;
}

static enum CXChildVisitResult find_return(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) != CXCursor_ReturnStmt)
        return CXChildVisit_Recurse;
    *(int *)data = 1;
    return CXChildVisit_Break;
}

static enum CXChildVisitResult last_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    *(CXCursor *)data = c;
    return CXChildVisit_Continue;
}

/* Does function fn not return: declared so, or defined in this unit with no return
 * statement and a body whose last statement calls a function declared so (an
 * interpreter's error routine that prints and exits), as gcc finds such a function
 * noreturn and inlines its callers with the call on their cold path. */
int is_noreturn(const struct unit *u, CXCursor fn)
{
    if (declared_noreturn(u, fn))
        return 1;
    CXCursor def = clang_getCursorDefinition(fn), body = clang_getNullCursor();
    if (clang_Cursor_isNull(def) || clang_getCursorKind(def) != CXCursor_FunctionDecl)
        return 0;
    clang_visitChildren(def, last_child, &body);
    if (clang_getCursorKind(body) != CXCursor_CompoundStmt)
        return 0;
    int returns = 0;
    clang_visitChildren(body, find_return, &returns);
    CXCursor last = clang_getNullCursor();
    clang_visitChildren(body, last_child, &last);
    while (clang_getCursorKind(last) == CXCursor_UnexposedExpr
           || clang_getCursorKind(last) == CXCursor_ParenExpr) {
        CXCursor inner = clang_getNullCursor();
        clang_visitChildren(last, first_child, &inner);
        last = inner;
    }
    if (returns || clang_getCursorKind(last) != CXCursor_CallExpr)
        return 0;
    CXCursor callee = clang_getCursorReferenced(last);
    return clang_getCursorKind(callee) == CXCursor_FunctionDecl && declared_noreturn(u, callee);
}

/* A routine can be counted at its call sites only if they are all its unit's entries:
 * a function of this unit whose address the unit never takes, called by instrumented
 * code only, that nothing else calls (a constructor, a destructor).  One of external
 * linkage (not main, not weak: another unit's definition might be the one its unit's
 * calls reach; not inline: its unit's calls might reach the external definition) also
 * counts, at its entry, the calls other units make (counted_entry); not in a unit with
 * target regions (its marker is thread-local), nor under -fcprof-input-size (its
 * twins).  A small one is
 * counted only if its activations cannot take long (docs/cprof-cc.md, "Small
 * routines"): no loop (is_small), and no call but of routines counted for that same
 * reason (compiler builtins aside): through a pointer, to another unit or the library
 * (calls_out), to a timed routine, it is timed.  Built up from the routines that call
 * nothing, so a cycle of calls is never counted.  What the user names with
 * -fcprof-count-only is counted whatever it does. */
void choose_counted(struct unit *u)
{
    const struct cprof_rewrite_options *o = u->options;
    size_t nr = (size_t)u->nroutines + 1;
    /* A small routine that calls itself is no inlining candidate, and its recursion
     * is what a user profiles it for (fib). */
    int *recursive = cprof_xcalloc(nr, sizeof *recursive);
    int *sites = cprof_xcalloc(nr, sizeof *sites);
    int *quick = cprof_xcalloc(nr, sizeof *quick);
    /* The calls each routine makes of routines of this unit (callees by caller, first
     * per caller), and whether it makes any other. */
    int *first = cprof_xcalloc(nr + 1, sizeof *first);
    int *callee = cprof_xcalloc((size_t)u->nnodes + 1, sizeof *callee);
    int *out = cprof_xcalloc(nr, sizeof *out);
    for (int pass = 0; pass < 2; pass++) {
        int *at = pass ? cprof_xcalloc(nr, sizeof *at) : NULL;
        for (int i = 0; i < u->nnodes; i++) {
            const struct node *n = &u->nodes[i];
            if (n->kind != N_CALL || n->index < 0)
                continue;
            int caller = u->sites[n->index].routine;
            int c = n->target && n->leaf < 0 ? defined_routine(u, n->target, strlen(n->target)) : -1;
            /* A routine that does not return ends the activation (vm_error): no callee
             * whose time could make it long. */
            if (c >= 0 && u->routines[c].noreturn)
                continue;
            if (pass == 0 && c < 0) {
                out[caller] = 1;
            } else if (pass == 0) {
                recursive[caller] |= c == caller;
                sites[c]++;
                first[caller + 1]++;
            } else if (c >= 0) {
                callee[first[caller] + at[caller]++] = c;
            }
        }
        for (int i = 0; pass == 0 && i < u->nroutines; i++)
            first[i + 1] += first[i];
        free(at);
    }
    int *ours = cprof_xcalloc(nr, sizeof *ours);
    for (int i = 0; i < u->nroutines; i++) {
        const struct routine *r = &u->routines[i];
        /* noinline: the user wants it kept apart, and timed. */
        int external = !r->internal && !r->declared_inline && !r->weak && strcmp(r->name, "main")
                       && !u->offload && !o->input_size;
        ours[i] = r->line && (r->internal || external) && !r->address_taken
                  && !r->called_uninstrumented && !r->special_entry && !r->region;
        quick[i] = -(!ours[i] || matches(o->timed_functions, r->name) || !r->small || r->noinline
                     || recursive[i] || out[i] || r->calls_out);
    }
    /* quick: 1 counted as quick, -1 never, 0 not known yet. */
    for (int more = 1; more;) {
        more = 0;
        for (int i = 0; i < u->nroutines; i++) {
            int all = !quick[i];
            for (int k = first[i]; all && k < first[i + 1]; k++)
                all = quick[callee[k]] == 1;
            if (all)
                quick[i] = more = 1;
        }
    }
    for (int i = 0; i < u->nroutines; i++) {
        struct routine *r = &u->routines[i];
        r->counted = quick[i] == 1 || (ours[i] && !matches(o->timed_functions, r->name)
                                      && matches(o->count_only_functions, r->name));
        /* What gcc inlines at -O2 whatever its size, a static function called once, and
         * what the program asks it to inline; only where -fcprof-count-only could count
         * it instead. */
        r->inlinable = ours[i] && r->internal && !r->counted && !r->noinline && !recursive[i]
                       && (r->declared_inline || sites[i] == 1);
        r->counted_entry = r->counted && !r->internal;
    }
    free(ours);
    free(recursive);
    free(sites);
    free(quick);
    free(first);
    free(callee);
    free(out);
}
