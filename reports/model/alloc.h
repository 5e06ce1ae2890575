/* alloc.h: allocation for cprof-report.  Everything it allocates is sized by input that
 * was already read whole, so running out of memory is the machine's problem, not the
 * input's: these say so on stderr and exit with status 1 (stdout is still empty then,
 * since reports are made in memory before anything is printed). */
#ifndef CPROF_REPORT_ALLOC_H
#define CPROF_REPORT_ALLOC_H

#include <stddef.h>

/* The one message, and exit status 1. */
__attribute__((noreturn)) void cprof_out_of_memory(void);
void *cprof_xcalloc(size_t n, size_t size);  /* never NULL, also for n == 0 */
void *cprof_xrealloc(void *p, size_t size);
char *cprof_xstrdup(const char *s);
/* printf into a new string. */
char *cprof_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
