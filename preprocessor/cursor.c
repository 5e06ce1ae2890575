/* cursor.c: what the rewriter asks libclang about a cursor: its text, its extent
 * in the preprocessed text, its place in the user's terms, and the function a call's
 * designator names (unit.h). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "unit.h"

char *cx_take(CXString s)
{
    const char *text = clang_getCString(s);
    char *p = cprof_xstrdup(text ? text : "");
    clang_disposeString(s);
    return p;
}

unsigned offset_of(CXSourceLocation loc)
{
    unsigned off;
    clang_getFileLocation(loc, NULL, NULL, NULL, &off);
    return off;
}

void extent_of(CXCursor c, unsigned *start, unsigned *end)
{
    CXSourceRange r = clang_getCursorExtent(c);
    *start = offset_of(clang_getRangeStart(r));
    *end = offset_of(clang_getRangeEnd(r));
}

/* Where a location is in the user's terms: the line markers, as gcc writes them: clang
 * names a header found beside the file it is in, in the current directory, ./NAME
 * (gcc NAME), and a static routine is known by its file. */
char *presumed(CXSourceLocation loc, unsigned *line)
{
    CXString name;
    clang_getPresumedLocation(loc, &name, line, NULL);
    char *file = cx_take(name);
    size_t skip = 0;
    while (file[skip] == '.' && file[skip + 1] == '/' && file[skip + 2])
        skip += 2;
    if (skip)
        memmove(file, file + skip, strlen(file + skip) + 1);
    return file;
}

enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    *(CXCursor *)data = c;
    return CXChildVisit_Break;
}

/* Down through implicit conversions and parentheses. */
CXCursor strip(CXCursor c)
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
CXCursor callee_reference(CXCursor designator)
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
CXCursor direct_callee(CXCursor designator)
{
    CXCursor ref = callee_reference(designator);
    return clang_Cursor_isNull(ref) ? ref : clang_getCursorReferenced(ref);
}
