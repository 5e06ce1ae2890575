/* alloc.c: allocation that cannot fail (see alloc.h). */
#define _GNU_SOURCE
#include "alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cprof_out_of_memory(void)
{
    fputs("cprof-report: out of memory\n", stderr);
    exit(1);
}

static void *check(void *p)
{
    if (!p)
        cprof_out_of_memory();
    return p;
}

void *cprof_xcalloc(size_t n, size_t size)
{
    return check(calloc(n ? n : 1, size ? size : 1));
}

void *cprof_xrealloc(void *p, size_t size)
{
    return check(realloc(p, size ? size : 1));
}

char *cprof_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(cprof_xcalloc(n, 1), s, n);
}

char *cprof_xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return check(n < 0 ? NULL : s);
}
