/* alloc.c: allocation that cannot fail (alloc.h). */
#define _GNU_SOURCE
#include "alloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cprof_out_of_memory(void)
{
    fputs("cprof-cc: out of memory\n", stderr);
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
    return check(strdup(s));
}

char *cprof_xstrndup(const char *s, size_t n)
{
    return check(strndup(s, n));
}
