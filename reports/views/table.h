/* table.h: the one table type that every section of the text report is built as.
 *
 * A section fills a table with typed cells (counts, times in ns, percentages...) once;
 * the table is then printed either as aligned text in human units (times in ms, per-call
 * times in us) or as RFC 4180 CSV with raw numbers (times in integer ns), so the two
 * outputs cannot disagree.  A column may exist in only one of the two forms.
 */
#ifndef CPROF_REPORT_TABLE_H
#define CPROF_REPORT_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    const char *head;  /* header in the text form; NULL: not in the text form */
    const char *key;   /* header in the CSV form; NULL: not in the CSV form */
    bool left;         /* left-aligned in the text form (numbers are right-aligned) */
} cprof_column;

typedef struct cprof_table cprof_table;

/* title is underlined in the text form; explain (may be NULL) is printed after the
 * table unless the report is brief.  The table keeps copies of all three. */
cprof_table *cprof_table_new(const char *title, const char *explain,
                             const cprof_column *cols, size_t ncols);
void cprof_table_free(cprof_table *t);
void cprof_table_no_header(cprof_table *t);  /* text form without the header line */

/* Rows: cprof_table_row() starts one, then one cell per column, in column order. */
void cprof_table_row(cprof_table *t);
void cprof_table_rule(cprof_table *t);  /* a line of dashes in the text form only */
void cprof_cell_empty(cprof_table *t);
void cprof_cell_str(cprof_table *t, const char *s);
void cprof_cell_str2(cprof_table *t, const char *text, const char *csv);  /* differ by form */
/* A time that was not measured (a counted routine's, a count-only run's, the wall time
 * of a routine entered only concurrently), given where a time (or a resource's count)
 * is: text "-", CSV an empty field, never a 0 (docs/report.md).  A share not measured
 * is NAN. */
#define CPROF_UNMEASURED INT64_MIN
/* t where it was measured, else CPROF_UNMEASURED. */
static inline int64_t cprof_if_measured(bool measured, int64_t t)
{
    return measured ? t : CPROF_UNMEASURED;
}
/* A place the profile gives as -1 where it is not known (a PU, a core, a NUMA node, the
 * machine's counts): v, or CPROF_UNMEASURED. */
static inline int64_t cprof_if_known(int64_t v)
{
    return cprof_if_measured(v >= 0, v);
}
void cprof_cell_int(cprof_table *t, int64_t v);
void cprof_cell_time(cprof_table *t, int64_t ns);        /* text: ms, 3 decimals */
void cprof_cell_per_call(cprof_table *t, int64_t ns, int64_t n);  /* text: us, 3 decimals */
/* The same with a character after the text form's figure (docs/report.md, "Estimated
 * times": '~' an estimate, ' ' a measured time in a column that has estimates). */
void cprof_cell_time_mark(cprof_table *t, int64_t ns, char mark);
void cprof_cell_per_call_mark(cprof_table *t, int64_t ns, int64_t n, char mark);
void cprof_cell_pct(cprof_table *t, double pct);         /* text: 2 decimals */
void cprof_cell_real(cprof_table *t, double x);          /* text: 2 decimals */
void cprof_cell_date(cprof_table *t, int64_t unix_ns);   /* text: UTC; CSV: ns */
void cprof_cell_diff_int(cprof_table *t, int64_t v);     /* signed: +3, -2, +0 */
void cprof_cell_diff_time(cprof_table *t, int64_t ns);   /* signed; text: ms */

/* A line printed under the table in the text form (e.g. what a threshold hid). */
void cprof_table_note(cprof_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void cprof_table_print_text(FILE *f, const cprof_table *t, bool brief);
void cprof_table_print_csv(FILE *f, const cprof_table *t);
/* Both forms at once, for a page that shows the text and sorts by the raw numbers:
 * {"title", "explain", "columns": [{"head", "key", "left"}], "rows", "notes"}, each row
 * an array of cells [text, csv] (null where the column has no such form), a rule row
 * null.  A jansson value, or NULL if out of memory. */
struct json_t *cprof_table_json(const cprof_table *t);
/* For tools: the rows (rules left out) as objects keyed by the CSV headers, each value
 * the CSV's, typed: a string, an integer (counts, ns), a real (percentages, ratios), or
 * null for an empty cell.  A jansson value, or NULL if out of memory. */
struct json_t *cprof_table_objects(const cprof_table *t);
/* doc (a jansson value, released; NULL allowed) as newline-terminated text: --json's
 * documents and the --html page's. */
char *cprof_json_text(struct json_t *doc, int indent);

#endif
