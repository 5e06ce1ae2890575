/* source.c: --source (docs/source.md): the profiled sources, each line as it is now
 * and under it the figures of what is at it (lines.c's rows: a routine's definition, a
 * call site's callees, an OpenMP construct), lines without figures plain.  Each file is
 * looked for where --source-map says it is now, where the profile says it was
 * compiled, and under each --source-dir; one that is not the text the profile's hash
 * was taken of is said to have changed and shown by line number only, never with
 * figures beside the wrong lines.  --source --json gives the same rows and what was
 * found; --html --embed-sources puts the texts found unchanged in the page. */
#define _GNU_SOURCE
#include "report.h"
#include "../model/alloc.h"
#include "../../format/hash.h"

#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum status { UNCHANGED, UNCHECKED, CHANGED, MISSING, NOT_A_FILE };
static const char *const status_names[] = {"unchanged", "unchecked", "changed", "missing",
                                           "no_file"};

/* One source file of the profile, as found now. */
struct found {
    const cprof_prof_source *src;
    enum status st;
    char *where;                /* the file read; NULL if none */
    char hash[CPROF_HASH_TEXT]; /* its hash and size now */
    int64_t bytes;
    char *text;                 /* its text, split into lines (NULL if not read) */
    char **line;
    size_t nlines;
    char *tried;                /* MISSING: where it was looked for */
};

/* The end of path after prefix, if prefix is path's first steps ("" if the same). */
static const char *after_prefix(const char *path, const char *prefix, size_t n)
{
    while (n > 1 && prefix[n - 1] == '/')
        n--;
    if (strncmp(path, prefix, n) || (path[n] && path[n] != '/' && prefix[n - 1] != '/'))
        return NULL;
    return path + n;
}

/* The places file s may be now, best first: each --source-map substitution of its
 * path, its path, then under each --source-dir each end of its path (or name), longest
 * first.  NULL-terminated, malloc'd strings. */
static char **candidates(const cprof_prof_source *s, const cprof_source_opts *o)
{
    const char *base = s->path ? s->path : s->name;
    size_t steps = 1;
    for (const char *c = base; *c; c++)
        steps += *c == '/';
    char **out = cprof_xcalloc(o->nmaps + 1 + o->ndirs * steps + 1, sizeof *out);
    size_t n = 0;
    for (size_t m = 0; s->path && m < o->nmaps; m++) {
        const char *eq = strchr(o->maps[m], '=');
        const char *rest = after_prefix(s->path, o->maps[m], (size_t)(eq - o->maps[m]));
        if (rest)
            out[n++] = cprof_xasprintf("%s%s", eq + 1, rest);
    }
    out[n++] = cprof_xstrdup(base);
    for (size_t d = 0; d < o->ndirs; d++)
        for (const char *end = base; end; end = strchr(end + 1, '/')) {
            const char *tail = end + (*end == '/');
            if (*tail)
                out[n++] = cprof_xasprintf("%s/%s", o->dirs[d], tail);
        }
    return out;
}

/* Read file f->where whole, split into lines. */
static void read_lines(struct found *f)
{
    FILE *in = fopen(f->where, "rb");
    size_t len = 0;
    FILE *m = in ? open_memstream(&f->text, &len) : NULL;
    char buf[65536];
    size_t got;
    while (m && (got = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, got, m);
    if (in)
        fclose(in);
    if (!m || fclose(m) || !f->text) {
        free(f->text);
        f->text = NULL;
        return;
    }
    size_t cap = 64;
    f->line = cprof_xcalloc(cap, sizeof *f->line);
    for (char *p = f->text; p < f->text + len;) {
        char *nl = memchr(p, '\n', (size_t)(f->text + len - p));
        if (f->nlines == cap)
            f->line = cprof_xrealloc(f->line, (cap *= 2) * sizeof *f->line);
        f->line[f->nlines++] = p;
        if (!nl)
            break;
        *nl = 0;
        p = nl + 1;
    }
}

/* Where file s is now, and whether it is what was compiled; its text if it is (or
 * cannot be told). */
static void find(struct found *f, const cprof_prof_source *s, const cprof_source_opts *o)
{
    *f = (struct found){.src = s, .st = MISSING, .bytes = -1};
    if (!s->path && s->name[0] == '<') {
        f->st = NOT_A_FILE;
        return;
    }
    char **c = candidates(s, o);
    size_t tried = 0;
    for (size_t i = 0; c[i]; i++) {
        uint64_t h;
        int64_t bytes;
        if (cprof_hash_file(c[i], &h, &bytes))
            continue;
        char text[CPROF_HASH_TEXT];
        cprof_hash_text(h, text);
        bool same = s->hash && !strcmp(text, s->hash) && bytes == s->bytes;
        /* The first one found, unless a later one is the text compiled. */
        if (!f->where || same) {
            free(f->where);
            f->where = cprof_xstrdup(c[i]);
            memcpy(f->hash, text, sizeof text);
            f->bytes = bytes;
            f->st = !s->hash ? UNCHECKED : same ? UNCHANGED : CHANGED;
        }
        if (f->st != CHANGED)
            break;
    }
    if (f->st == MISSING) {
        size_t len = 0;
        FILE *m = open_memstream(&f->tried, &len);
        for (size_t i = 0; m && c[i]; i++, tried++)
            if (tried < 4)
                fprintf(m, "%s%s", i ? ", " : "", c[i]);
            else if (!c[i + 1])
                fprintf(m, " and %zu more", tried - 3);
        if (!m || fclose(m))
            cprof_out_of_memory();
    }
    for (size_t i = 0; c[i]; i++)
        free(c[i]);
    free(c);
    if (f->st == UNCHANGED || f->st == UNCHECKED)
        read_lines(f);
    if ((f->st == UNCHANGED || f->st == UNCHECKED) && !f->text) {
        /* Gone between its hash and its reading. */
        f->st = MISSING;
        f->tried = f->where;
        f->where = NULL;
    }
}

static void found_free(struct found *f)
{
    free(f->where);
    free(f->text);
    free(f->line);
    free(f->tried);
}

/* Whether --source=FILE names s: its name or path, an end of them, or the same file. */
static bool named(const cprof_prof_source *s, const char *file)
{
    size_t n = strlen(file);
    for (int k = 0; k < 2; k++) {
        const char *x = k ? s->path : s->name;
        size_t m = x ? strlen(x) : 0;
        if (x && (!strcmp(x, file) || (m > n && x[m - n - 1] == '/' && !strcmp(x + m - n, file))))
            return true;
    }
    char real[PATH_MAX];
    return s->path && realpath(file, real) && !strcmp(real, s->path);
}

int cprof_source_check(const cprof_profile *p, const cprof_source_opts *o, char *err,
                       size_t errlen)
{
    for (size_t k = 0; k < o->nonly; k++) {
        size_t i = 0;
        while (i < p->nsources && !named(&p->sources[i], o->only[k]))
            i++;
        if (i == p->nsources) {
            snprintf(err, errlen, "no source file named '%s' in the profile", o->only[k]);
            return -1;
        }
    }
    return 0;
}

/* Per file of p, whether it is shown: named by --source=FILE, if any is given. */
static bool *chosen(const cprof_profile *p, const cprof_source_opts *o)
{
    bool *shown = cprof_xcalloc(p->nsources + 1, sizeof *shown);
    for (size_t i = 0; i < p->nsources; i++) {
        shown[i] = !o->nonly;
        for (size_t k = 0; k < o->nonly && !shown[i]; k++)
            shown[i] = named(&p->sources[i], o->only[k]);
    }
    return shown;
}

/* ---- the rows ---- */

/* Table t as cprof_table_json gives it: its rows, and its columns' indexes by CSV key,
 * and by text heading for a column without one; per routine ("name\tfile") its
 * weight. */
struct rows {
    json_t *doc, *rows, *cols, *weights;
};

static int col(const struct rows *r, const char *key)
{
    json_t *i = json_object_get(r->cols, key);
    return i ? (int)json_integer_value(i) : -1;
}

/* Row i's cell of column key: its text (csv false) or raw value; "" if empty. */
static const char *cell(const struct rows *r, size_t i, const char *key, bool csv)
{
    json_t *c = json_array_get(json_array_get(json_array_get(r->rows, i), (size_t)col(r, key)), csv);
    return json_is_string(c) ? json_string_value(c) : "";
}

static int64_t cell_int(const struct rows *r, size_t i, const char *key)
{
    return strtoll(cell(r, i, key, true), NULL, 10);
}

/* A time cell as the annotation says it: "V ms", or the table's "-" alone where it was
 * not measured (docs/report.md, "Times not measured"); without the table's mark of an
 * estimate (the annotation's "(estimated)" says it). */
static void ms(FILE *f, const char *v)
{
    int n = (int)strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '~'))
        n--;
    fprintf(f, strcmp(v, "-") ? "%.*s ms" : "%.*s", n, v);
}

/* Its share of the run, where its time was measured. */
static void share(FILE *f, const char *pct)
{
    if (strcmp(pct, "-"))
        fprintf(f, "; %s%% of the run", pct);
}

/* What row i says, on one line: the routine's entries and times, the call's callee and
 * calls by case and time, the construct's execution and busy and wait times. */
static void annotation(FILE *f, const struct rows *r, size_t i)
{
    const char *kind = cell(r, i, "kind", true);
#define T(key) cell(r, i, key, false)
    bool timed = !strcmp(T("timed"), "yes"), est = !strcmp(T("estimated"), "yes");
    const char *mark = est ? " (estimated)" : "";
    if (!strcmp(kind, "routine")) {
        fprintf(f, "routine %s: entries %s s + %s c", T("name"), T("s_calls"), T("c_calls"));
        if (timed) {
            fputs("; incl ", f);
            ms(f, T("time_ns"));
            fputs(", self ", f);
            ms(f, T("self_ns"));
            fputs(", wall ", f);
            ms(f, T("wall_ns"));
            fputs(mark, f);
            share(f, T("pct_time"));
        } else {
            fputs("; not timed", f);
        }
    } else if (!strcmp(kind, "call")) {
        fprintf(f, "calls %s: S-S %s, S-C %s, C-S %s, C-C %s", T("name"), T("ss_calls"),
                T("sc_calls"), T("cs_calls"), T("cc_calls"));
        if (timed) {
            fputs("; time ", f);
            ms(f, T("time_ns"));
            fputs(mark, f);
            share(f, T("pct_time"));
        } else {
            fputs("; not timed", f);
        }
    } else {
        fprintf(f, "%s: executions %s", T("name"), T("calls"));
        if (*T("team"))
            fprintf(f, ", team %s", T("team"));
        fputs("; busy ", f);
        ms(f, T("time_ns"));
        fputs(", barrier wait ", f);
        ms(f, T("barrier_wait_ns"));
        fputs(", end wait ", f);
        ms(f, T("end_wait_ns"));
        if (*T("imbalance")) {
            fprintf(f, ", imbalance %s, lost ", T("imbalance"));
            ms(f, T("lost_ns"));
        }
        fputs(mark, f);
        share(f, T("pct_time"));
    }
#undef T
    fputc('\n', f);
}

/* Row i's share of the run by its time (a routine's inclusive, a call's, a
 * construct's busy), which --threshold compares. */
static double weight(const struct rows *r, size_t i, int64_t total)
{
    return total ? 100.0 * (double)cell_int(r, i, "time_ns") / (double)total : 0.0;
}

/* Whether --threshold hides row i: it is in a quiet routine's body (its routine,
 * routine_file: the routine itself, a call's caller, a construct's routine). */
static bool quiet(const struct rows *r, size_t i, const cprof_view *v)
{
    if (!v->o->has_threshold)
        return false;
    char *k = cprof_xasprintf("%s\t%s", cell(r, i, "routine", true), cell(r, i, "routine_file", true));
    json_t *w = json_object_get(r->weights, k);
    free(k);
    return w && json_real_value(w) < v->o->threshold;
}

static void file_header(FILE *f, const struct found *x)
{
    const cprof_prof_source *s = x->src;
    fprintf(f, "==> %s <==\n", s->name);
    if (s->path && s->hash)
        fprintf(f, "compiled as %s (%s, %lld bytes)\n", s->path, s->hash, (long long)s->bytes);
    else if (s->path)
        fprintf(f, "compiled as %s (not read then: no hash recorded)\n", s->path);
    switch (x->st) {
    case UNCHANGED:
        fprintf(f, "found as %s: unchanged\n", x->where);
        break;
    case UNCHECKED:
        fprintf(f, "found as %s: %s: it may have changed since\n", x->where,
                s->path ? "no hash to check (it could not be read when it was compiled)"
                        : "the profile has no hash of it (a profile of an older cprof)");
        break;
    case CHANGED:
        fprintf(f, "found as %s: CHANGED since it was compiled (%s, %lld bytes now): its text is"
                " not shown, only its figures by line\n", x->where, x->hash, (long long)x->bytes);
        break;
    case MISSING:
        fprintf(f, "not found (looked for %s): only its figures by line; --source-dir DIR or"
                " --source-map OLD=NEW say where it is now\n", x->tried);
        break;
    case NOT_A_FILE:
        fputs("not a file: only its figures by line\n", f);
        break;
    }
    if (s->conflict)
        fprintf(f, "note: %s\n", s->conflict);
}

/* One file: its lines, each row's annotation under its line; a quiet routine's lines
 * left out in one line saying so. */
static void file_text(FILE *f, const struct found *x, const struct rows *r, size_t from,
                      size_t to, const cprof_view *v)
{
    const char *pad = "        ^ ";
    size_t i = from;
    int64_t last = x->text ? (int64_t)x->nlines : 0;
    for (int64_t line = 1; line <= last; line++) {
        /* A quiet routine: from its line to the line before the next routine's. */
        if (i < to && cell_int(r, i, "line") == line && !strcmp(cell(r, i, "kind", true), "routine") &&
            quiet(r, i, v)) {
            size_t k = i + 1;
            while (k < to && strcmp(cell(r, k, "kind", true), "routine"))
                k++;
            int64_t end = k < to ? cell_int(r, k, "line") - 1 : last;
            fprintf(f, "%7lld  [routine %s, lines %lld-%lld: %.2f%% of the run, below %g%%]\n",
                    (long long)line, cell(r, i, "name", false), (long long)line, (long long)end,
                    weight(r, i, v->total_self), v->o->threshold);
            i = k;
            line = end;
            continue;
        }
        fprintf(f, "%7lld  %s\n", (long long)line, x->line[line - 1]);
        for (; i < to && cell_int(r, i, "line") == line; i++) {
            fputs(pad, f);
            annotation(f, r, i);
        }
    }
    if (i < to && x->text)
        fprintf(f, "line %lld is past the file's end (%zu lines): it changed since it was"
                " compiled; the figures by line from there:\n",
                (long long)cell_int(r, i, "line"), x->nlines);
    for (; i < to; i++) {
        if (quiet(r, i, v))
            continue;
        fprintf(f, "%7lld  ^ ", (long long)cell_int(r, i, "line"));
        annotation(f, r, i);
    }
}

static const char explain[] =
    "Each source file the profile names (by the name the report gives it: gcc's, or\n"
    "the end of its path that tells two files of one name apart), as it is now, each\n"
    "line numbered; under a line, marked ^, the figures of what is at it:\n"
    "routine  its definition: its entries, sequential (s) and concurrent (c), its\n"
    "         worker inclusive and self time and its wall inclusive time, and its self\n"
    "         time's share of all worker self time (the flat profile's %time)\n"
    "calls    a call site, one line per callee reached from it (a call through a\n"
    "         pointer may reach several): its calls by case (S-S, S-C, C-S, C-C:\n"
    "         the caller entered sequentially or concurrently, the call made outside\n"
    "         or inside a parallel region of its own), the callees' time (ms, each\n"
    "         recursion once) and its share of all worker self time\n"
    "parallel, task, for, sections, single, barrier  an OpenMP construct: its\n"
    "         executions, team sizes, busy time, the waits at barriers in it and at its\n"
    "         end, imbalance and time lost (as --regions gives them)\n"
    "A time marked (estimated) has the profiler's cost taken out (--compensate); 'not\n"
    "timed': a routine counted at its call sites, or a CPROF_MODE=count profile.  A\n"
    "file is looked for where --source-map puts it, where it was compiled, then under\n"
    "each --source-dir; one whose hash is not the one recorded when it was compiled has\n"
    "changed, and only its figures are shown, by line number.  --csv lines and\n"
    "line-workers, and --json with --source, give these figures for tools.\n";

static void rows_of(struct rows *r, cprof_table *t, int64_t total)
{
    r->doc = cprof_table_json(t);
    cprof_table_free(t);
    r->rows = json_object_get(r->doc, "rows");
    r->cols = json_object();
    r->weights = json_object();
    if (!r->rows || !r->cols || !r->weights)
        cprof_out_of_memory();
    size_t i;
    json_t *c;
    for (int form = 1; form >= 0; form--)
        json_array_foreach(json_object_get(r->doc, "columns"), i, c) {
            const char *k = json_string_value(json_object_get(c, form ? "head" : "key"));
            if (k)
                json_object_set_new(r->cols, k, json_integer((json_int_t)i));
        }
    for (i = 0; i < json_array_size(r->rows); i++)
        if (!strcmp(cell(r, i, "kind", true), "routine")) {
            char *k = cprof_xasprintf("%s\t%s", cell(r, i, "name", true), cell(r, i, "name_file", true));
            json_object_set_new(r->weights, k, json_real(weight(r, i, total)));
            free(k);
        }
}

/* The rows of each file: [first[k], first[k + 1]) are p->sources[k]'s. */
static size_t *file_rows(const cprof_profile *p, const struct rows *r)
{
    size_t *first = cprof_xcalloc(p->nsources + 1, sizeof *first), i = 0;
    size_t n = json_array_size(r->rows);
    for (size_t k = 0; k < p->nsources; k++) {
        first[k] = i;
        while (i < n && !strcmp(cell(r, i, "file", true), p->sources[k].name))
            i++;
    }
    first[p->nsources] = i;
    return first;
}

static char *text_view(const cprof_view *v, const cprof_source_opts *o, const bool *shown_file)
{
    const cprof_profile *p = v->p;
    struct rows r;
    rows_of(&r, cprof_section_lines(v, shown_file, NULL), v->total_self);
    size_t *first = file_rows(p, &r), shown = 0, hidden = 0;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    fputs("Annotated source\n================\n", f);
    for (size_t k = 0; k < p->nsources; k++) {
        if (first[k] == first[k + 1])
            continue;
        double most = 0;
        for (size_t i = first[k]; i < first[k + 1]; i++)
            if (weight(&r, i, v->total_self) > most)
                most = weight(&r, i, v->total_self);
        if (v->o->has_threshold && most < v->o->threshold) {
            hidden++;
            continue;
        }
        struct found x;
        find(&x, &p->sources[k], o);
        fputc('\n', f);
        file_header(f, &x);
        file_text(f, &x, &r, first[k], first[k + 1], v);
        found_free(&x);
        shown++;
    }
    if (!shown)
        fputs("\n(no source file with figures)\n", f);
    if (v->o->has_threshold)
        fprintf(f, "\n%zu files below %g%% hidden\n", hidden, v->o->threshold);
    if (!v->o->brief)
        fprintf(f, "\n%s", explain);
    /* Sampled timing: (estimated) says it too, in brief as well (docs/report.md). */
    if (v->p->nestimates)
        fputs("\nA time marked (estimated) may also hold times estimated from a sample of the\n"
              "calls (sampled timing: docs/semantics.md, \"Sampled timing\").\n", f);
    free(first);
    json_decref(r.doc);
    json_decref(r.cols);
    json_decref(r.weights);
    if (fclose(f)) {
        free(out);
        return NULL;
    }
    return out;
}

/* ---- for tools and the page ---- */

/* s as a JSON string: a byte that is not UTF-8 becomes U+FFFD. */
static json_t *utf8(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s), o = 0;
    char *clean = cprof_xcalloc(3 * n + 1, 1);
    for (size_t i = 0; i < n;) {
        const unsigned char *c = (const unsigned char *)s + i;
        size_t len = c[0] < 0x80 ? 1 : (c[0] & 0xe0) == 0xc0 ? 2 : (c[0] & 0xf0) == 0xe0 ? 3
                   : (c[0] & 0xf8) == 0xf0 ? 4 : 0;
        json_t *one = len && i + len <= n ? json_stringn((const char *)c, len) : NULL;
        if (one) {
            json_decref(one);
            memcpy(clean + o, c, len);
            o += len;
            i += len;
        } else {
            memcpy(clean + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    j = json_string(clean);
    free(clean);
    return j;
}

/* What was found of file x, and with text its lines. */
static json_t *file_json(const struct found *x, bool text)
{
    const cprof_prof_source *s = x->src;
    json_t *o = json_pack("{s:o, s:o?, s:o?, s:I, s:o?, s:s, s:o?, s:o?, s:I}", "file", utf8(s->name),
                          "path", s->path ? utf8(s->path) : json_null(),
                          "hash", s->hash ? json_string(s->hash) : json_null(),
                          "bytes", (json_int_t)s->bytes,
                          "conflict", s->conflict ? utf8(s->conflict) : json_null(),
                          "status", status_names[x->st],
                          "found", x->where ? utf8(x->where) : json_null(),
                          "found_hash", x->where ? json_string(x->hash) : json_null(),
                          "found_bytes", (json_int_t)x->bytes);
    if (o && text && x->text) {
        json_t *lines = json_array();
        for (size_t i = 0; i < x->nlines; i++)
            if (json_array_append_new(lines, utf8(x->line[i])))
                break;
        if (json_array_size(lines) != x->nlines || json_object_set_new(o, "text", lines)) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

json_t *cprof_source_files(const cprof_view *v, const cprof_source_opts *o, bool text)
{
    json_t *files = json_array();
    bool *shown = chosen(v->p, o);
    for (size_t k = 0; k < v->p->nsources && files; k++) {
        if (!shown[k])
            continue;
        struct found x;
        find(&x, &v->p->sources[k], o);
        if (json_array_append_new(files, file_json(&x, text))) {
            json_decref(files);
            files = NULL;
        }
        found_free(&x);
    }
    free(shown);
    return files;
}

/* Table t's rows for tools (t freed). */
static json_t *objects(cprof_table *t)
{
    json_t *rows = cprof_table_objects(t);
    cprof_table_free(t);
    return rows;
}

char *cprof_report_source(const cprof_view *v, const cprof_source_opts *o, int csv, bool json)
{
    bool *shown = chosen(v->p, o);
    char *out;
    if (!json && csv < 0) {
        out = text_view(v, o, shown);
    } else if (!json) {
        cprof_table *t = csv ? cprof_section_line_workers(v, shown, NULL) : cprof_section_lines(v, shown, NULL);
        out = cprof_tables_text(&t, 1, 0, false);
    } else {
        const cprof_profile *p = v->p;
        out = cprof_json_text(json_pack("{s:s, s:i, s:s, s:b, s:o, s:o, s:o}", "format",
                                        "cprof-source", "version", 1, "program", p->program,
                                        "compensated", p->compensated,
                                        "files", cprof_source_files(v, o, false),
                                        "lines", objects(cprof_section_lines(v, shown, NULL)),
                                        "line_workers",
                                        objects(cprof_section_line_workers(v, shown, NULL))), 2);
    }
    free(shown);
    return out;
}
