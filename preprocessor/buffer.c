/* buffer.c: growing strings, the rewritten text is built in (unit.h). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

void str_add(struct str *s, const char *p, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1)
            cap *= 2;
        s->p = cprof_xrealloc(s->p, cap);
        s->cap = cap;
    }
    memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = 0;
}

void str_printf(struct str *s, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof buf) {
        char *big = cprof_xcalloc(1, (size_t)n + 1);
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        str_add(s, big, (size_t)n);
        free(big);
        return;
    }
    str_add(s, buf, (size_t)n);
}

/* A C string literal for s. */
void str_literal(struct str *out, const char *s)
{
    str_add(out, "\"", 1);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            str_add(out, "\\", 1);
        str_add(out, s, 1);
    }
    str_add(out, "\"", 1);
}
