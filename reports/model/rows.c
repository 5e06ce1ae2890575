/* rows.c: the workers' rows of a profile read straight from its text (raw.h).
 *
 * A profile is mostly rows, arrays of integers: some sixty thousand numbers in a rank of
 * a 200-routine program.  Parsed by jansson, each number is a node of its own,
 * allocated, converted and freed, which made parsing most of what summing an MPI job's
 * ranks cost (docs/performance.md, "The ranks of a job").  So before jansson parses a
 * file, this pass finds its tables of rows (the values of "routines", "calls" and "paths"
 * in each object of the top-level "workers" array), reads each one that is an array of
 * arrays of integers from 0 to 2^63 - 1 into a flat buffer, and gives jansson the text
 * with that table written as [].  Anything else it leaves in the text: a table holding
 * a negative number, a real or a string, a key spelled with an escape, a document it
 * cannot follow.  read.c then reads those through jansson as before, so the pass
 * changes how fast a valid file is read, never what is accepted or what a refusal says.
 */
#include "raw.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

const char *const cprof_row_tables[NTABLES] = {"routines", "calls", "paths", "regions"};

struct scan {
    const char *s, *end;
    char *out;              /* the text for jansson */
    size_t nout, cap;
    const char *copied;     /* the input is in out up to here */
    struct row_tables *rt;
};

static void ws(struct scan *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
        c->s++;
}

static bool eat(struct scan *c, char ch)
{
    ws(c);
    if (c->s < c->end && *c->s == ch) {
        c->s++;
        return true;
    }
    return false;
}

/* A string; *key and *n its raw bytes (escapes as written).  False if it is none. */
static bool string(struct scan *c, const char **key, size_t *n)
{
    if (!eat(c, '"'))
        return false;
    *key = c->s;
    while (c->s < c->end && *c->s != '"') {
        if (*c->s == '\\' && c->end - c->s < 2)
            return false;
        c->s += *c->s == '\\' ? 2 : 1;
    }
    if (c->s >= c->end)
        return false;
    *n = (size_t)(c->s++ - *key);
    return true;
}

/* Any value, skipped: brackets counted, strings stepped over; it ends before the ',',
 * ']' or '}' that follows it.  False if the text ends first. */
static bool skip(struct scan *c)
{
    int depth = 0;
    ws(c);
    while (c->s < c->end) {
        char ch = *c->s;
        if (ch == '"') {
            const char *k;
            size_t n;
            if (!string(c, &k, &n))
                return false;
            if (depth == 0)
                return true;
            continue;
        }
        if (ch == '[' || ch == '{')
            depth++;
        else if ((ch == ']' || ch == '}') && depth == 0)
            return true;
        else if (ch == ']' || ch == '}') {
            c->s++;
            if (--depth == 0)
                return true;
            continue;
        } else if (depth == 0 && (ch == ',' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'))
            return true;
        c->s++;
    }
    return false;
}

static void emit(struct scan *c, const char *from, size_t n)
{
    if (c->nout + n > c->cap) {
        c->cap = 2 * (c->nout + n);
        c->out = cprof_xrealloc(c->out, c->cap);
    }
    memcpy(c->out + c->nout, from, n);
    c->nout += n;
}

/* An integer from 0 to 2^63 - 1, written plainly (no sign, fraction or exponent). */
static bool integer(struct scan *c, int64_t *x)
{
    ws(c);
    const char *p = c->s;
    int64_t v = 0;
    if (p >= c->end || *p < '0' || *p > '9' || (*p == '0' && p + 1 < c->end && p[1] >= '0' && p[1] <= '9'))
        return false;
    for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
        int d = *p - '0';
        if (v > (INT64_MAX - d) / 10)
            return false;
        v = 10 * v + d;
    }
    if (p < c->end && (*p == '.' || *p == 'e' || *p == 'E'))
        return false;
    c->s = p;
    *x = v;
    return true;
}

/* The table at c->s into t, if it is an array of arrays of such integers. */
static bool table(struct scan *c, struct raw_table *t)
{
    size_t nv = 0, cap = 0, rows_cap = 16;
    t->start = cprof_xcalloc(rows_cap + 1, sizeof *t->start);
    if (!eat(c, '['))
        return false;
    if (eat(c, ']'))
        return true;
    do {
        if (!eat(c, '['))
            return false;
        if (!eat(c, ']')) {
            do {
                int64_t x;
                if (!integer(c, &x))
                    return false;
                if (nv == cap) {
                    cap = cap ? 2 * cap : 1024;
                    t->v = cprof_xrealloc(t->v, cap * sizeof *t->v);
                }
                t->v[nv++] = x;
            } while (eat(c, ','));
            if (!eat(c, ']'))
                return false;
        }
        if (t->nrows + 1 == rows_cap) {
            rows_cap *= 2;
            t->start = cprof_xrealloc(t->start, (rows_cap + 1) * sizeof *t->start);
        }
        t->start[++t->nrows] = nv;
    } while (eat(c, ','));
    return eat(c, ']');
}

static void table_free(struct raw_table *t)
{
    free(t->v);
    free(t->start);
    memset(t, 0, sizeof *t);
}

static int table_of(const char *key, size_t n)
{
    for (int k = 0; k < NTABLES; k++)
        if (strlen(cprof_row_tables[k]) == n && !memcmp(key, cprof_row_tables[k], n))
            return k;
    return -1;
}

/* Worker object w: its tables read where they can be. */
static bool worker(struct scan *c, size_t w)
{
    if (!eat(c, '{'))
        return skip(c);
    if (eat(c, '}'))
        return true;
    do {
        const char *key;
        size_t n;
        if (!string(c, &key, &n) || !eat(c, ':'))
            return false;
        int k = table_of(key, n);
        ws(c);
        const char *value = c->s;
        struct raw_table t = {0};
        if (k >= 0 && table(c, &t)) {
            table_free(&c->rt->t[w][k]);
            c->rt->t[w][k] = t;
            c->rt->has[w][k] = true;
            emit(c, c->copied, (size_t)(value - c->copied));
            emit(c, "[]", 2);
            c->copied = c->s;
            continue;
        }
        table_free(&t);
        c->s = value;
        if (!skip(c))
            return false;
    } while (eat(c, ','));
    return eat(c, '}');
}

/* The top-level "workers" array. */
static bool workers(struct scan *c)
{
    if (!eat(c, '['))
        return skip(c);
    if (eat(c, ']'))
        return true;
    size_t cap = 0;
    do {
        if (c->rt->nworkers == cap) {
            cap = cap ? 2 * cap : 16;
            c->rt->t = cprof_xrealloc(c->rt->t, cap * sizeof *c->rt->t);
            c->rt->has = cprof_xrealloc(c->rt->has, cap * sizeof *c->rt->has);
        }
        size_t w = c->rt->nworkers++;
        memset(c->rt->t[w], 0, sizeof c->rt->t[w]);
        memset(c->rt->has[w], 0, sizeof c->rt->has[w]);
        if (!worker(c, w))
            return false;
    } while (eat(c, ','));
    return eat(c, ']');
}

static bool document(struct scan *c)
{
    bool seen = false;
    if (!eat(c, '{'))
        return false;
    if (eat(c, '}'))
        return true;
    do {
        const char *key;
        size_t n;
        if (!string(c, &key, &n) || !eat(c, ':'))
            return false;
        bool ok = n == 7 && !memcmp(key, "workers", 7) && !seen ? (seen = true, workers(c))
                                                                 : skip(c);
        if (!ok)
            return false;
    } while (eat(c, ','));
    return eat(c, '}');
}

void cprof_rows_take(const char *text, size_t len, struct row_tables *rt)
{
    memset(rt, 0, sizeof *rt);
    struct scan c = {text, text + len, NULL, 0, 0, text, rt};
    if (!document(&c)) {
        /* Not a document this pass can follow: jansson reads it all, or says where it
         * is broken. */
        free(c.out);
        cprof_rows_free(rt);
        return;
    }
    emit(&c, c.copied, (size_t)(c.end - c.copied));
    rt->text = c.out;
    rt->len = c.nout;
}

void cprof_rows_free(struct row_tables *rt)
{
    for (size_t w = 0; w < rt->nworkers; w++)
        for (int k = 0; k < NTABLES; k++)
            table_free(&rt->t[w][k]);
    free(rt->t);
    free(rt->has);
    free(rt->text);
    memset(rt, 0, sizeof *rt);
}
