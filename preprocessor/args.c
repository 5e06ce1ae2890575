/* args.c: argument vectors and the strings made for them (args.h). */
#define _GNU_SOURCE
#include "args.h"
#include "alloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void cprof_push(struct cprof_argv *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->v = cprof_xrealloc(a->v, (size_t)a->cap * sizeof *a->v);
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

/* Strings made here live until exit, like the arguments they join. */
static struct cprof_argv made;

void cprof_free_made(void)
{
    for (int i = 0; i < made.n; i++)
        free((char *)made.v[i]);
    free(made.v);
}

void cprof_push_owned(void *vector, char *s)
{
    cprof_push(&made, s);
    cprof_push(vector, s);
}

char *cprof_fmt(const char *format, ...)
{
    va_list ap;
    char *s;
    va_start(ap, format);
    if (vasprintf(&s, format, ap) < 0)
        cprof_out_of_memory();
    va_end(ap);
    cprof_push(&made, s);
    return s;
}

static void expand_file(struct cprof_argv *out, const char *arg, int depth);

static void add_arg(struct cprof_argv *out, const char *arg, int depth)
{
    if (arg[0] == '@' && arg[1] && depth < 16)
        expand_file(out, arg, depth + 1);
    else
        cprof_push(out, arg);
}

void cprof_push_arg(struct cprof_argv *out, const char *arg)
{
    add_arg(out, arg, 0);
}

static void expand_file(struct cprof_argv *out, const char *arg, int depth)
{
    FILE *f = fopen(arg + 1, "r");
    if (!f) {
        cprof_push(out, arg);
        return;
    }
    char *word = NULL;
    size_t len = 0, cap = 0;
    int c, quote = 0, in_word = 0;
    for (;;) {
        c = fgetc(f);
        int space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
        if (c == EOF || (space && !quote)) {
            if (in_word) {
                word[len] = 0;
                add_arg(out, cprof_fmt("%s", word), depth);
                len = 0;
                in_word = 0;
            }
            if (c == EOF)
                break;
            continue;
        }
        if (c == '\\') {
            /* Escapes apply inside quotes too, and come first. */
            if ((c = fgetc(f)) == EOF)
                break;
        } else if (quote && c == quote) {
            quote = 0;
            continue;
        } else if (!quote && (c == '\'' || c == '"')) {
            quote = c;
            in_word = 1;
            continue;
        }
        if (len + 2 > cap) {
            cap = cap ? 2 * cap : 64;
            word = cprof_xrealloc(word, cap);
        }
        word[len++] = (char)c;
        in_word = 1;
    }
    free(word);
    fclose(f);
}
