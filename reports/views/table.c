/* table.c: tables of typed cells, printed as aligned text or as CSV (see table.h). */
#define _GNU_SOURCE
#include "table.h"
#include "../model/alloc.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum kind { EMPTY, STR, INT, TIME, PER_CALL, PCT, REAL, DATE, RULE, DIFF_INT, DIFF_TIME };

struct cell {
    enum kind kind;
    int64_t a, b;      /* INT, TIME, DATE, DIFF_*: a; PER_CALL: a ns over b calls */
    double d;          /* PCT, REAL */
    char *text, *csv;  /* STR; csv NULL: same as text */
    char mark;         /* TIME, PER_CALL: put after the text form's figure; 0: none */
};

struct cprof_table {
    char *title, *explain;
    cprof_column *cols;  /* its own copy: a section may make its columns up */
    size_t ncols;
    bool no_header;
    struct cell *cells;  /* row-major; a RULE row is one cell */
    size_t ncells, cap;
    size_t *row_start;   /* index in cells of each row's first cell */
    size_t nrows, rows_cap;
    char **notes;
    size_t nnotes;
};

cprof_table *cprof_table_new(const char *title, const char *explain,
                             const cprof_column *cols, size_t ncols)
{
    cprof_table *t = cprof_xcalloc(1, sizeof *t);
    t->title = cprof_xstrdup(title);
    t->explain = explain ? cprof_xstrdup(explain) : NULL;
    t->cols = cprof_xcalloc(ncols + 1, sizeof *t->cols);
    for (size_t c = 0; c < ncols; c++)
        t->cols[c] = (cprof_column){cols[c].head ? cprof_xstrdup(cols[c].head) : NULL,
                                    cols[c].key ? cprof_xstrdup(cols[c].key) : NULL, cols[c].left};
    t->ncols = ncols;
    return t;
}

void cprof_table_free(cprof_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->ncells; i++) {
        free(t->cells[i].text);
        free(t->cells[i].csv);
    }
    for (size_t i = 0; i < t->nnotes; i++)
        free(t->notes[i]);
    for (size_t c = 0; c < t->ncols; c++) {
        free((char *)t->cols[c].head);
        free((char *)t->cols[c].key);
    }
    free(t->cols);
    free(t->notes);
    free(t->cells);
    free(t->row_start);
    free(t->title);
    free(t->explain);
    free(t);
}

void cprof_table_no_header(cprof_table *t)
{
    t->no_header = true;
}

static void start_row(cprof_table *t)
{
    if (t->nrows == t->rows_cap) {
        t->rows_cap = t->rows_cap ? 2 * t->rows_cap : 16;
        t->row_start = cprof_xrealloc(t->row_start, t->rows_cap * sizeof *t->row_start);
    }
    t->row_start[t->nrows++] = t->ncells;
}

static struct cell *add(cprof_table *t, enum kind kind)
{
    if (t->ncells == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->cells = cprof_xrealloc(t->cells, t->cap * sizeof *t->cells);
    }
    struct cell *c = &t->cells[t->ncells++];
    *c = (struct cell){.kind = kind};
    return c;
}

void cprof_table_row(cprof_table *t)
{
    start_row(t);
}

void cprof_table_rule(cprof_table *t)
{
    start_row(t);
    add(t, RULE);
}

void cprof_cell_empty(cprof_table *t)
{
    add(t, EMPTY);
}

void cprof_cell_str(cprof_table *t, const char *s)
{
    add(t, STR)->text = cprof_xstrdup(s);
}

void cprof_cell_str2(cprof_table *t, const char *text, const char *csv)
{
    struct cell *c = add(t, STR);
    c->text = cprof_xstrdup(text);
    c->csv = cprof_xstrdup(csv);
}

void cprof_cell_int(cprof_table *t, int64_t v)
{
    add(t, INT)->a = v;
}

void cprof_cell_time(cprof_table *t, int64_t ns)
{
    add(t, TIME)->a = ns;
}

void cprof_cell_per_call(cprof_table *t, int64_t ns, int64_t n)
{
    struct cell *c = add(t, PER_CALL);
    c->a = ns;
    c->b = n;
}

void cprof_cell_time_mark(cprof_table *t, int64_t ns, char mark)
{
    add(t, TIME)->a = ns;
    t->cells[t->ncells - 1].mark = mark;
}

void cprof_cell_per_call_mark(cprof_table *t, int64_t ns, int64_t n, char mark)
{
    cprof_cell_per_call(t, ns, n);
    t->cells[t->ncells - 1].mark = mark;
}

void cprof_cell_pct(cprof_table *t, double pct)
{
    add(t, PCT)->d = pct;
}

void cprof_cell_real(cprof_table *t, double x)
{
    add(t, REAL)->d = x;
}

void cprof_cell_date(cprof_table *t, int64_t unix_ns)
{
    add(t, DATE)->a = unix_ns;
}

void cprof_cell_diff_int(cprof_table *t, int64_t v)
{
    add(t, DIFF_INT)->a = v;
}

void cprof_cell_diff_time(cprof_table *t, int64_t ns)
{
    add(t, DIFF_TIME)->a = ns;
}

void cprof_table_note(cprof_table *t, const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        cprof_out_of_memory();
    va_end(ap);
    t->notes = cprof_xrealloc(t->notes, (t->nnotes + 1) * sizeof *t->notes);
    t->notes[t->nnotes++] = s;
}

/* x / n rounded half up (x >= 0, n > 0). */
static int64_t div_round(int64_t x, int64_t n)
{
    return x / n + (x % n >= n - x % n);
}

/* x thousandths, printed with 3 decimals.  Integer arithmetic throughout, so that the
 * text is the same on every machine. */
static char *fixed3(int64_t x)
{
    return cprof_xasprintf("%" PRId64 ".%03" PRId64, x / 1000, x % 1000);
}

/* A figure that was not measured (docs/report.md, "Times not measured"). */
static bool unmeasured(const struct cell *c)
{
    return ((c->kind == INT || c->kind == TIME || c->kind == PER_CALL || c->kind == DIFF_TIME) &&
            c->a == CPROF_UNMEASURED) ||
           ((c->kind == PCT || c->kind == REAL) && isnan(c->d));
}

static char *format_plain(const struct cell *c, bool csv)
{
    if (unmeasured(c))
        return cprof_xstrdup(csv ? "" : "-");
    switch (c->kind) {
    case STR:
        return cprof_xstrdup(csv && c->csv ? c->csv : c->text);
    case INT:
        return cprof_xasprintf("%" PRId64, c->a);
    case TIME:  /* ms = thousands of us */
        return csv ? cprof_xasprintf("%" PRId64, c->a) : fixed3(div_round(c->a, 1000));
    case PER_CALL:  /* us = thousands of ns */
        if (!c->b)
            return cprof_xstrdup("");
        return csv ? cprof_xasprintf("%" PRId64, div_round(c->a, c->b))
                   : fixed3(div_round(c->a, c->b));
    case PCT:
    case REAL:
        return cprof_xasprintf(csv ? "%.4f" : "%.2f", c->d);
    case DIFF_INT:
        return cprof_xasprintf("%+" PRId64, c->a);
    case DIFF_TIME: {  /* a > INT64_MIN (a saturated difference); 0.000 has no sign */
        if (csv)
            return cprof_xasprintf("%+" PRId64, c->a);
        int64_t ms = div_round(c->a < 0 ? -c->a : c->a, 1000);
        char *x = fixed3(ms), *s = cprof_xasprintf("%s%s", ms ? c->a < 0 ? "-" : "+" : "", x);
        free(x);
        return s;
    }
    case DATE: {
        if (csv)
            return cprof_xasprintf("%" PRId64, c->a);
        time_t s = (time_t)(c->a / 1000000000);
        struct tm tm;
        char buf[64];
        if (!gmtime_r(&s, &tm) || !strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm))
            return cprof_xasprintf("%" PRId64 " ns after 1970", c->a);
        return cprof_xstrdup(buf);
    }
    default:
        return cprof_xstrdup("");
    }
}

/* The cell's form, with its mark in the text form (a figure not measured has none). */
static char *format(const struct cell *c, bool csv)
{
    char *s = format_plain(c, csv);
    if (csv || !c->mark || unmeasured(c) || !*s)
        return s;
    char *m = cprof_xasprintf("%s%c", s, c->mark);
    free(s);
    return m;
}

static size_t row_cells(const cprof_table *t, size_t r)
{
    return (r + 1 < t->nrows ? t->row_start[r + 1] : t->ncells) - t->row_start[r];
}

/* Print one line of the text form: cells s[0..ncols-1] (NULL: not shown), padded to
 * the widths w, with trailing blanks dropped. */
static void text_line(FILE *f, const cprof_table *t, char **s, const size_t *w)
{
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len);
    bool first = true;
    for (size_t c = 0; m && c < t->ncols; c++) {
        if (!t->cols[c].head)
            continue;
        fprintf(m, "%s%*s", first ? "" : "  ", t->cols[c].left ? -(int)w[c] : (int)w[c],
                s[c] ? s[c] : "");
        first = false;
    }
    if (!m || fclose(m))
        cprof_out_of_memory();
    while (len && line[len - 1] == ' ')
        line[--len] = 0;
    fprintf(f, "%s\n", line);
    free(line);
}

void cprof_table_print_text(FILE *f, const cprof_table *t, bool brief)
{
    size_t *w = cprof_xcalloc(t->ncols, sizeof *w);
    char **s = cprof_xcalloc(t->ncells, sizeof *s);
    for (size_t c = 0; c < t->ncols; c++)
        if (t->cols[c].head && !t->no_header)
            w[c] = strlen(t->cols[c].head);
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t k = 0; k < row_cells(t, r); k++) {
            size_t i = t->row_start[r] + k;
            if (t->cells[i].kind == RULE || !t->cols[k].head)
                continue;
            s[i] = format(&t->cells[i], false);
            if (strlen(s[i]) > w[k])
                w[k] = strlen(s[i]);
        }
    size_t width = 0;
    for (size_t c = 0; c < t->ncols; c++)
        if (t->cols[c].head)
            width += (width ? 2 : 0) + w[c];

    fprintf(f, "%s\n", t->title);
    for (size_t i = strlen(t->title); i; i--)
        fputc('=', f);
    fputs("\n\n", f);
    if (!t->nrows)
        fputs("(none)\n", f);
    else if (!t->no_header) {
        const char **head = cprof_xcalloc(t->ncols, sizeof *head);
        for (size_t c = 0; c < t->ncols; c++)
            head[c] = t->cols[c].head;
        text_line(f, t, (char **)head, w);
        free(head);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        size_t i = t->row_start[r];
        if (t->cells[i].kind == RULE) {
            for (size_t k = 0; k < width; k++)
                fputc('-', f);
            fputc('\n', f);
        } else {
            text_line(f, t, s + i, w);
        }
    }
    for (size_t i = 0; i < t->nnotes; i++)
        fprintf(f, "%s%s\n", i ? "" : "\n", t->notes[i]);
    if (t->explain && !brief)
        fprintf(f, "\n%s", t->explain);
    for (size_t i = 0; i < t->ncells; i++)
        free(s[i]);
    free(s);
    free(w);
}

/* One RFC 4180 field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s, bool first)
{
    if (!first)
        fputc(',', f);
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void cprof_table_print_csv(FILE *f, const cprof_table *t)
{
    bool first = true;
    for (size_t c = 0; c < t->ncols; c++)
        if (t->cols[c].key) {
            csv_field(f, t->cols[c].key, first);
            first = false;
        }
    fputs("\r\n", f);
    for (size_t r = 0; r < t->nrows; r++) {
        size_t i = t->row_start[r];
        if (t->cells[i].kind == RULE)
            continue;
        first = true;
        for (size_t k = 0; k < row_cells(t, r); k++) {
            if (!t->cols[k].key)
                continue;
            char *s = format(&t->cells[i + k], true);
            csv_field(f, s, first);
            free(s);
            first = false;
        }
        fputs("\r\n", f);
    }
}

/* Append v to array a, both stolen (jansson releases v if a is NULL): a, or NULL if
 * either is NULL or memory runs out, so that one check at the end covers a document. */
static json_t *append(json_t *a, json_t *v)
{
    if (json_array_append_new(a, v)) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* One form of a cell: its text, or null where its column lacks that form. */
static json_t *form(const struct cell *c, bool shown, bool csv)
{
    if (!shown)
        return json_null();
    char *s = format(c, csv);
    json_t *j = json_string(s);
    free(s);
    return j;
}

json_t *cprof_table_json(const cprof_table *t)
{
    json_t *cols = json_array(), *rows = json_array(), *notes = json_array();
    for (size_t c = 0; c < t->ncols; c++)
        cols = append(cols, json_pack("{s:s?, s:s?, s:b}", "head", t->cols[c].head,
                                      "key", t->cols[c].key, "left", t->cols[c].left));
    for (size_t r = 0; r < t->nrows; r++) {
        size_t i = t->row_start[r];
        json_t *row = t->cells[i].kind == RULE ? json_null() : json_array();
        for (size_t k = 0; t->cells[i].kind != RULE && k < row_cells(t, r); k++) {
            const struct cell *c = &t->cells[i + k];
            row = append(row, append(append(json_array(), form(c, t->cols[k].head, false)),
                                     form(c, t->cols[k].key, true)));
        }
        rows = append(rows, row);
    }
    for (size_t i = 0; i < t->nnotes; i++)
        notes = append(notes, json_string(t->notes[i]));
    return json_pack("{s:s, s:s?, s:o, s:o, s:o}", "title", t->title, "explain", t->explain,
                     "columns", cols, "rows", rows, "notes", notes);
}

json_t *cprof_table_objects(const cprof_table *t)
{
    json_t *rows = json_array();
    for (size_t r = 0; r < t->nrows; r++) {
        size_t i = t->row_start[r];
        if (t->cells[i].kind == RULE)
            continue;
        json_t *row = json_object();
        for (size_t k = 0; k < row_cells(t, r); k++) {
            const struct cell *c = &t->cells[i + k];
            if (!t->cols[k].key)
                continue;
            char *s = format(c, true);
            json_t *v = c->kind == EMPTY || (c->kind == PER_CALL && !c->b) || unmeasured(c)
                            ? json_null()
                      : c->kind == STR ? json_string(s)
                      : c->kind == PCT || c->kind == REAL ? json_real(strtod(s, NULL))
                                                          : json_integer(strtoll(s, NULL, 10));
            free(s);
            if (json_object_set_new(row, t->cols[k].key, v)) {
                json_decref(row);
                row = NULL;
                break;
            }
        }
        rows = append(rows, row);
    }
    return rows;
}

char *cprof_json_text(struct json_t *doc, int indent)
{
    char *text = doc ? json_dumps(doc, JSON_INDENT(indent)) : NULL;
    json_decref(doc);
    if (!text)
        return NULL;
    /* json_dumps ends without a newline; a text file should have one. */
    size_t n = strlen(text);
    char *out = realloc(text, n + 2);
    if (!out) {
        free(text);
        return NULL;
    }
    memcpy(out + n, "\n", 2);
    return out;
}
