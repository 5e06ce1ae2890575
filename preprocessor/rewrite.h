/* rewrite.h: instrumenting one preprocessed C translation unit. */
#ifndef CPROF_REWRITE_H
#define CPROF_REWRITE_H

#include <stddef.h>

/* Rewrites the gcc-preprocessed C source in_path (of unit_file, as the user named it)
 * into out_path: every function defined
 * outside system headers gets an entry hook, every call that may reach one gets a facade
 * (docs/rewriting.md).  openmp: compiled with -fopenmp (otherwise gcc ignores the
 * OpenMP pragmas, and so does the rewriter).  clang_args are extra arguments for libclang (-std=...).
 * Returns 0 on success.  On a construct it cannot handle, writes nothing and returns -1
 * with "file:line: warning: reason" in why.  Warnings about parts left uninstrumented go to
 * stderr, one per construct. */
int cprof_rewrite(const char *in_path, const char *out_path, const char *unit_file, int openmp,
                  const char *const *clang_args, int nclang_args,
                  char *why, size_t why_size);

/* The runtime header text, pasted into every rewritten unit (generated at build time). */
extern const char cprof_header_text[];

#endif
