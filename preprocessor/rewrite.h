/* rewrite.h: instrumenting one preprocessed C translation unit. */
#ifndef CPROF_REWRITE_H
#define CPROF_REWRITE_H

#include <stddef.h>

/* What to instrument.  Pattern lists are comma-separated fnmatch globs; a file
 * pattern matches the file as gcc names it or its last component. */
struct cprof_rewrite_options {
    int openmp;                     /* -fopenmp: gcc obeys the OpenMP pragmas */
    /* gcc compiles with -O1 or more, so it inlines the unit's helpers; at -O0 (or no
     * -O) they stay calls, which gcc compiles far faster than their bodies inline. */
    int optimizing;
    /* Small routines of external linkage counted at their sites are declared inline
     * after the unit's text (docs/cprof-cc.md, "Small routines"): gcc then inlines
     * them into its callers as it would without their entry's test, which the inline
     * limit for functions not declared inline counts.  Not under -Winline, which would
     * warn of those it does not inline. */
    int inline_hint;
    /* -fpic or -fPIC: the unit may go into a shared object, which may be loaded by
     * dlopen, where thread-local storage of the initial-exec model may not fit. */
    int pic;
    /* The compiler is clang's (cprof-clang): a call cast to void is one whose value is
     * used (clang does not warn of it, -Wunused-result, where gcc does). */
    int clang;
    const char *include_functions;  /* when set, only these functions ... */
    const char *include_files;      /* ... defined in these files are profiled */
    const char *exclude_functions;
    const char *exclude_files;
    int libcalls;                   /* calls to library functions profiled as leaves */
    int mpicalls;                   /* calls to MPI's (MPI_*) profiled as leaves */
    /* Static functions whose address the unit never takes are counted at their call
     * sites, with no entry hook (so gcc still inlines them), when they match
     * count_only_functions or are small: a body of at most small_tokens tokens, no
     * loop and no pragma (0: none is small).  timed_functions are never. */
    const char *count_only_functions;
    const char *timed_functions;
    int small_tokens;
    /* docs/input-size.md: units also compiled with gcc's -fsanitize=thread, whose access
     * hooks the runtime defines; every routine timed, and rendered with an instrumented
     * twin that the sized activations run (twins.c). */
    int input_size;
    /* cprof-cc's alone: a unit it cannot profile is an error, not compiled without
     * profiling. */
    int strict;
};

/* Rewrites the gcc-preprocessed C source text[0..size) (of unit_file, as the user
 * named it; text_name is the name libclang gives the text) into out_path: every
 * selected function defined outside system headers gets an entry hook, every call
 * that may reach one gets a facade (docs/rewriting.md).  A function not selected, or
 * marked __attribute__((no_instrument_function)), is left as if cprof had not compiled
 * it.  clang_args are extra arguments for libclang (-std=...).
 * Returns 0 on success.  On a construct it cannot handle, writes nothing and returns -1
 * with "file:line: warning: reason" in why.  Warnings about parts left uninstrumented
 * go to stderr, one per construct. */
int cprof_rewrite(const char *text, size_t size, const char *text_name, const char *out_path,
                  const char *unit_file, const struct cprof_rewrite_options *options,
                  const char *const *clang_args, int nclang_args,
                  char *why, size_t why_size);

/* The runtime header text, pasted into every rewritten unit (generated at build time). */
extern const char cprof_header_text[];

#endif
