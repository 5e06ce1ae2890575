/* addresses.c: which routines may be called through a pointer (unit.h).
 *
 * A direct call of a routine defined in this unit names the routine's descriptor
 * (site->callee), so neither the call nor the routine's table entry needs its address
 * unless something may call it through a pointer.  Taking the address of a static
 * function that gcc inlines costs an out-of-line copy it would not otherwise compile:
 * about a tenth of the compile time of a typical unit.  And a routine whose address the
 * unit never takes has only direct calls from the unit (select.c counts a small one at
 * them, even of external linkage).  The test is conservative:
 * every mention of the name outside system headers, less the mentions known not to
 * take its address (its declarations, direct calls, calls in OpenMP clauses); any
 * mention left over may take it. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

/* Mentions of the routines' names in the text outside system headers (gcc's line
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
                if (r < 0)
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

void find_addresses_taken(struct unit *u)
{
    int *mentions = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *mentions);
    struct known_mentions k = { .u = u, .known = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *k.known),
                                .uninstrumented = cprof_xcalloc((size_t)u->nroutines + 1, sizeof *k.known),
                                .callee_at = UINT_MAX };
    count_mentions(u, mentions);
    clang_visitChildren(clang_getTranslationUnitCursor(u->tu), count_known_top, &k);
    for (int i = 0; i < u->nroutines; i++) {
        u->routines[i].address_taken = mentions[i] > k.known[i];
        u->routines[i].called_uninstrumented = k.uninstrumented[i] > 0;
    }
    free(mentions);
    free(k.known);
    free(k.uninstrumented);
}
