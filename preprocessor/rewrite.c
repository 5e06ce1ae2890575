/* rewrite.c: instrumenting one gcc-preprocessed translation unit with libclang: the
 * entry point (rewrite.h), which parses the text and runs the passes of the other
 * files in turn (unit.h says what each offers).
 *
 * Why preprocessed text: no macro is left, so a call spelled inside a #define or a
 * macro argument is plain text like any other, and gcc's line markers keep diagnostics
 * and debug information pointing at the user's lines.  libclang parses the text without
 * -fopenmp, so the bodies of OpenMP constructs are ordinary statements and the pragmas
 * are lines the rewriter reads itself (pragmas.c).
 *
 * Edits only add text inside lines (render.c); lines added (tables.c, and declare
 * reduction copies) are followed by a line marker, so every original line keeps its
 * number.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

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
    walk(&u);
    index_routines(&u);
    find_addresses_taken(&u);
    choose_counted(&u);
    choose_caches(&u);
    add_twins(&u);
    choose_leaf_sites(&u);
    restore_comments(&u);
    number_sites(&u);
    build_trees(&u);
    /* The prelude goes on its own lines before the line of the first definition,
     * after any #include <cprof.h>; a line marker then restores that line. */
    unsigned at = u.first_definition;
    while (at > 0 && text[at - 1] != '\n')
        at--;
    find_callees(&u, at);

    struct str out = { 0 };
    if (u.nroutines == 0) {
        render_range(&u, &out, 0, (unsigned)size, u.tops[0], u.ntops[0]);
    } else {
        render_range(&u, &out, 0, at, u.tops[0], u.ntops[0]);
        add_prelude(&u, &out);
        add_cleanup_wrappers(&u, &out, 0);
        add_line_marker(&u, &out, at, 0);
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
        free(u.nodes[i].text);
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
        free(u.routines[i].twin_args);
    }
    free(u.routines);
    free(u.defined);
    for (int i = 0; i < u.nsites; i++)
        free(u.sites[i].file);
    free(u.sites);
    for (int i = 0; i < u.nblocks; i++)
        free(u.blocks[i].region);
    free(u.blocks);
    free(u.region_ends);
    free(u.unevaluated);
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
