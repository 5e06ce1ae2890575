/* alloc.h: allocation for cprof-cc and cprof-rewrite.  Running out of memory is the
 * machine's problem, not the input's: each of these says "cprof-cc: out of memory" on
 * stderr and exits with status 1 (from cprof-rewrite, the line the compile's warning
 * quotes when it compiles the unit unprofiled). */
#ifndef CPROF_ALLOC_H
#define CPROF_ALLOC_H

#include <stddef.h>

/* The message and exit status 1: for allocations made elsewhere (vasprintf). */
__attribute__((noreturn)) void cprof_out_of_memory(void);

void *cprof_xcalloc(size_t n, size_t size);  /* never NULL, also for n == 0 */
void *cprof_xrealloc(void *p, size_t size);
char *cprof_xstrdup(const char *s);
char *cprof_xstrndup(const char *s, size_t n);

#endif
