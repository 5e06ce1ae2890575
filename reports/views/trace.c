/* trace.c: --trace and --timeline, a run's trace (docs/tracing.md) read from the file its
 * profile refers to (format/trace.h).
 *
 * The trace may hold tens of millions of events: it is never read whole.  Each worker's
 * events are decoded as they are read (a cursor of a fixed buffer per worker), once to
 * check the whole file, so that nothing is printed from a bad one, and once more to
 * print.  What is kept in memory is the profile's tables, a cursor per worker and the
 * entries open on the worker being read.
 */
#define _GNU_SOURCE
#include "../model/file.h"
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../format/trace.h"
#include "../model/alloc.h"

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static const char *const case_name[4] = {"S-S", "S-C", "C-S", "C-C"};

/* One worker's events, decoded as they are read. */
struct cursor {
    int fd;
    uint64_t off, end;          /* its events' bytes in the file */
    uint8_t buf[1 << 16];
    size_t len, at;
    uint64_t t;                 /* ticks of the last event */
};

/* routine: an ENTER's; site: an ENTER's call site, a BODY's construct, unless no_site. */
struct event {
    int kind, kase, no_site, task;
    uint64_t t;
    uint64_t routine, site;
};

/* A worker of the trace file. */
struct tworker {
    uint64_t id, base, events, dropped, bytes, off;
    uint64_t last;              /* ticks of its last event (the check) */
};

struct trace {
    const char *path;           /* the profile's, for errors */
    struct raw_file rf;
    char *file;                 /* the trace file */
    int fd;
    double npt;
    uint64_t origin, end;       /* ticks: the run's start, the last event */
    struct tworker *w;
    size_t nw;
    char *err;
    size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct trace *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(t->err, t->errlen, "%s: ", t->path);
    if (n >= 0 && (size_t)n < t->errlen)
        vsnprintf(t->err + n, t->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int get_byte(struct cursor *c, uint8_t *b)
{
    if (c->at == c->len) {
        if (c->off == c->end)
            return 0;
        size_t want = c->end - c->off < sizeof c->buf ? (size_t)(c->end - c->off) : sizeof c->buf;
        ssize_t got = pread(c->fd, c->buf, want, (off_t)c->off);
        if (got <= 0)
            return -1;
        c->off += (uint64_t)got;
        c->len = (size_t)got;
        c->at = 0;
    }
    *b = c->buf[c->at++];
    return 1;
}

static int get_varint(struct cursor *c, uint64_t *v)
{
    uint8_t b;
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (get_byte(c, &b) != 1)
            return -1;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return -1;
}

/* 1 an event, 0 the worker's end, -1 a broken encoding. */
static int next_event(struct cursor *c, struct event *e)
{
    uint8_t kind;
    int rc = get_byte(c, &kind);
    if (rc != 1)
        return rc;
    uint64_t d;
    e->kind = kind & 3;
    e->kase = kind >> 2 & 3;
    e->no_site = !!(kind & CPROF_TRACE_NO_SITE);
    e->task = !!(kind & CPROF_TRACE_TASK);
    /* The bits each kind has. */
    unsigned bits = e->kind == CPROF_TRACE_EXIT ? 0x3 : e->kind == CPROF_TRACE_ENTER ? 0x1f
                  : e->kind == CPROF_TRACE_BODY ? 0x3f : 0;
    if ((kind & ~bits) || get_varint(c, &d) || d > UINT64_MAX - c->t)
        return -1;
    c->t += d;
    e->t = c->t;
    e->routine = e->site = 0;
    if (e->kind == CPROF_TRACE_EXIT)
        return kind == CPROF_TRACE_EXIT ? 1 : -1;
    if (e->kind == CPROF_TRACE_ENTER && get_varint(c, &e->routine))
        return -1;
    return e->no_site || !get_varint(c, &e->site) ? 1 : -1;
}

static void cursor_open(struct cursor *c, const struct trace *t, size_t w)
{
    c->fd = t->fd;
    c->off = t->w[w].off;
    c->end = t->w[w].off + t->w[w].bytes;
    c->len = c->at = 0;
    c->t = t->w[w].base;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The trace file the profile names: a name alone is beside it, a path is as the run
 * was given it (CPROF_TRACE_OUT). */
static int find_file(struct trace *t)
{
    json_t *sec = json_object_get(t->rf.root, CPROF_SECTION_TRACE);
    json_t *file = json_object_get(sec, "file");
    if (!sec)
        return fail(t, "no trace: the run was not traced (CPROF_TRACE=1 records one)");
    if (!json_is_string(file) || !*json_string_value(file))
        return fail(t, "invalid profile: \"trace\" has no \"file\" name");
    const char *name = json_string_value(file), *slash = strrchr(t->path, '/');
    int dir = slash && !strchr(name, '/') ? (int)(slash - t->path + 1) : 0;
    t->file = cprof_xasprintf("%.*s%s", dir, t->path, name);
    return 0;
}

/* The header and each worker's, checked against the file's size and the profile. */
static int read_heads(struct trace *t)
{
    uint8_t head[CPROF_TRACE_HEAD];
    off_t size = lseek(t->fd, 0, SEEK_END);
    if (size < CPROF_TRACE_HEAD || pread(t->fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
        memcmp(head, CPROF_TRACE_MAGIC, 8))
        return fail(t, "%s is not a cprof trace file", t->file);
    uint64_t bits = get_u64(head + 8);
    memcpy(&t->npt, &bits, sizeof t->npt);
    t->nw = get_u64(head + 16);
    if (!(t->npt > 0 && t->npt < 1e6) || t->nw != t->rf.nworkers)
        return fail(t, "%s is not the trace of this profile (%zu workers, the profile has %zu)",
                    t->file, t->nw, t->rf.nworkers);
    t->w = cprof_xcalloc(t->nw, sizeof *t->w);
    uint64_t off = CPROF_TRACE_HEAD;
    for (size_t i = 0; i < t->nw; i++) {
        uint8_t wh[CPROF_TRACE_WORKER_HEAD];
        struct tworker *w = &t->w[i];
        if ((uint64_t)size - off < sizeof wh ||
            pread(t->fd, wh, sizeof wh, (off_t)off) != (ssize_t)sizeof wh)
            return fail(t, "%s is truncated (worker %zu)", t->file, i);
        w->id = get_u64(wh);
        w->base = get_u64(wh + 8);
        w->events = get_u64(wh + 16);
        w->dropped = get_u64(wh + 24);
        w->bytes = get_u64(wh + 32);
        w->off = off + sizeof wh;
        if (w->id != i || w->bytes > (uint64_t)size - w->off)
            return fail(t, "%s is truncated or broken (worker %zu)", t->file, i);
        off = w->off + w->bytes;
        if (i == 0 || w->base < t->origin)
            t->origin = w->base;
    }
    if (off != (uint64_t)size)
        return fail(t, "%s has %llu bytes more than its workers' events", t->file,
                    (unsigned long long)((uint64_t)size - off));
    /* Whole, but another process's under the name (a forked child's, an older run's). */
    json_t *bytes = json_object_get(json_object_get(t->rf.root, CPROF_SECTION_TRACE), "bytes");
    if (json_is_integer(bytes) && json_integer_value(bytes) != (json_int_t)size)
        return fail(t, "%s is not the trace of this profile (%lld bytes, the profile's has %lld)",
                    t->file, (long long)size, (long long)json_integer_value(bytes));
    return 0;
}

/* The entries open on one worker, innermost last. */
struct open {
    struct event *e;
    size_t n, cap;
};

static void push(struct open *o, const struct event *e)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->e = cprof_xrealloc(o->e, o->cap * sizeof *o->e);
    }
    o->e[o->n++] = *e;
}

/* Whether event e names a routine and a site of the profile, and, at `open` entries
 * (and bodies) open, closes one if it is an exit. */
static bool fits(const struct trace *t, const struct event *e, size_t open)
{
    if (e->kind == CPROF_TRACE_EXIT)
        return open > 0;
    return e->routine < t->rf.nroutines && (e->no_site || e->site < t->rf.nsites);
}

/* Every worker's events decoded once: each entry of a routine and a site of the
 * profile, and closed by an exit, as many events as its header says. */
static int check(struct trace *t)
{
    struct cursor *c = cprof_xcalloc(1, sizeof *c);
    size_t depth = 0;
    int rc = 0;
    for (size_t w = 0; w < t->nw && !rc; w++) {
        cursor_open(c, t, w);
        struct event e;
        uint64_t n = 0;
        int got;
        depth = 0;
        while ((got = next_event(c, &e)) == 1) {
            n++;
            if (!fits(t, &e, depth)) {
                got = -1;
                break;
            }
            depth += e.kind == CPROF_TRACE_EXIT ? -1 : 1;
        }
        if (got < 0 || n != t->w[w].events || depth)
            rc = fail(t, "%s: worker %zu's events are broken (event %llu)", t->file, w,
                      (unsigned long long)n);
        t->w[w].last = c->t;
        if (c->t > t->end)
            t->end = c->t;
    }
    free(c);
    return rc;
}

static int trace_open(struct trace *t, const char *path, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->err = err;
    t->errlen = errlen;
    t->fd = -1;
    if (cprof_file_read(path, &t->rf, err, errlen) || find_file(t))
        return -1;
    t->fd = open(t->file, O_RDONLY | O_CLOEXEC);
    if (t->fd < 0)
        return fail(t, "cannot open its trace %s: %s", t->file, strerror(errno));
    return read_heads(t) || check(t) ? -1 : 0;
}

static void trace_close(struct trace *t)
{
    if (t->fd >= 0)
        close(t->fd);
    free(t->file);
    free(t->w);
    cprof_raw_free(&t->rf);
}

/* ns since the run's start. */
static uint64_t ns_of(const struct trace *t, uint64_t ticks)
{
    return (uint64_t)((double)(ticks - t->origin) * t->npt + 0.5);
}

/* "worker 1 (OpenMP thread 1, core 3)" */
static void worker_label(const struct trace *t, size_t w, char *out, size_t size)
{
    const struct raw_worker *rw = &t->rf.workers[w];
    int n = snprintf(out, size, "worker %zu (OpenMP thread %lld", w, (long long)rw->omp_thread);
    if (rw->core >= 0)
        snprintf(out + n, size - (size_t)n, ", core %lld)", (long long)rw->core);
    else
        snprintf(out + n, size - (size_t)n, ")");
}

/* ---- --trace: the Chrome Trace Event Format ---- */

static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

/* The digits of v at p, returns their end. */
static char *digits(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* A time in µs with its ns, "12.345", at p. */
static char *us(char *p, uint64_t ns)
{
    p = digits(p, ns / 1000);
    *p++ = '.';
    unsigned f = (unsigned)(ns % 1000);
    *p++ = (char)('0' + f / 100);
    *p++ = (char)('0' + f / 10 % 10);
    *p++ = (char)('0' + f % 10);
    return p;
}

static char *text(char *p, const char *s)
{
    size_t n = strlen(s);
    return (char *)memcpy(p, s, n) + n;
}

static void put_us(FILE *out, uint64_t ns)
{
    char buf[32];
    fwrite(buf, 1, (size_t)(us(buf, ns) - buf), out);
}

/* The string each routine's and site's events repeat, escaped once. */
static char **names_of(const struct trace *t, int sites)
{
    size_t n = sites ? t->rf.nsites : t->rf.nroutines;
    char **s = cprof_xcalloc(n ? n : 1, sizeof *s);
    for (size_t i = 0; i < n; i++) {
        char *text = sites ? cprof_xasprintf("%s:%lld", t->rf.sites[i].file,
                                             (long long)t->rf.sites[i].line)
                           : cprof_xstrdup(t->rf.routines[i].name);
        char *buf;
        size_t len;
        FILE *m = open_memstream(&buf, &len);
        if (!m)
            cprof_out_of_memory();
        put_string(m, text);
        fclose(m);
        free(text);
        s[i] = buf;
    }
    return s;
}

static void free_names(char **s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

/* Worker w's activations as complete events, each written at its exit, formatted by
 * hand (tens of millions of them: printf took most of the time).  Its track is its OS
 * thread id (a viewer may take thread 0 for the process), sorted by worker.  An event
 * carries no args: speedscope appends them to its frame's name, which would split a
 * routine by call site; the case and the site are its categories. */
static void chrome_worker(const struct trace *t, size_t w, struct cursor *c, struct open *o,
                          char **routine, char **site, int64_t pid, FILE *out)
{
    long long tid = (long long)t->rf.workers[w].tid;
    char ids[64];
    snprintf(ids, sizeof ids, ",\"pid\":%lld,\"tid\":%lld,\"ts\":", (long long)pid, tid);
    char label[128];
    worker_label(t, w, label, sizeof label);
    fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
            (long long)pid, tid);
    put_string(out, label);
    fprintf(out, "}}");
    fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%lld,\"tid\":%lld,"
                 "\"args\":{\"sort_index\":%zu}}", (long long)pid, tid, w);
    cursor_open(c, t, w);
    o->n = 0;
    struct event e;
    /* fits(): the file checked may have changed since. */
    while (next_event(c, &e) == 1 && fits(t, &e, o->n)) {
        if (e.kind != CPROF_TRACE_EXIT) {
            push(o, &e);
            continue;
        }
        const struct event *in = &o->e[--o->n];
        uint64_t t0 = ns_of(t, in->t), t1 = ns_of(t, e.t);
        int body = in->kind == CPROF_TRACE_BODY;
        /* An activation: its routine; its categories its case and its call site.  A
         * body: "parallel" or "task" and its construct's place; its categories its kind
         * and its case. */
        const char *name = body ? "" : routine[in->routine];
        const char *where = in->no_site ? (body ? "\"(unnamed)\"" : "\"<external>\"")
                                        : site[in->site];
        char small[256], *line = small;
        size_t need = strlen(name) + strlen(where) + sizeof ids + 160;
        if (need > sizeof small)
            line = cprof_xcalloc(1, need);
        char *p = text(line, ",\n{\"ph\":\"X\",\"name\":");
        if (body) {
            p = text(p, in->task ? "\"task " : "\"parallel ");
            p = text(p, where + 1);     /* past its opening quote */
            p = text(p, in->task ? ",\"cat\":\"task," : ",\"cat\":\"parallel region,");
            p = text(p, case_name[in->kase]);
            p = text(p, "\"");
        } else {
            p = text(p, name);
            p = text(p, ",\"cat\":\"");
            p = text(p, case_name[in->kase]);
            p = text(p, ",");
            p = text(p, where + 1);     /* its site, past its opening quote */
        }
        p = text(p, ids);
        p = us(p, t0);
        p = text(p, ",\"dur\":");
        p = us(p, t1 - t0);
        p = text(p, "}");
        fwrite(line, 1, (size_t)(p - line), out);
        if (line != small)
            free(line);
    }
}

/* Where a worker goes from idle to busy in profiled code (+1) or back (-1). */
struct edges {
    struct cursor c;
    uint64_t depth;
    int done;
    uint64_t t;
    int step;
};

static void next_edge(struct edges *g)
{
    struct event e;
    while (next_event(&g->c, &e) == 1) {
        if (e.kind != CPROF_TRACE_EXIT ? g->depth++ == 0 : --g->depth == 0) {
            g->t = e.t;
            g->step = e.kind != CPROF_TRACE_EXIT ? 1 : -1;
            return;
        }
    }
    g->done = 1;
}

/* The counter track: workers busy in profiled code, at each time it changes (the
 * workers' edges merged in time order). */
static void chrome_busy(const struct trace *t, int64_t pid, FILE *out)
{
    struct edges *g = cprof_xcalloc(t->nw ? t->nw : 1, sizeof *g);
    for (size_t w = 0; w < t->nw; w++) {
        cursor_open(&g[w].c, t, w);
        next_edge(&g[w]);
    }
    long busy = 0, shown = -1;
    for (;;) {
        size_t min = t->nw;
        for (size_t w = 0; w < t->nw; w++)
            if (!g[w].done && (min == t->nw || g[w].t < g[min].t))
                min = w;
        if (min == t->nw)
            break;
        uint64_t now = ns_of(t, g[min].t);
        /* Every change at this ns, then one value. */
        for (size_t w = 0; w < t->nw; w++)
            while (!g[w].done && ns_of(t, g[w].t) == now) {
                busy += g[w].step;
                next_edge(&g[w]);
            }
        if (busy == shown)
            continue;
        shown = busy;
        fprintf(out, ",\n{\"ph\":\"C\",\"name\":\"workers busy\",\"pid\":%lld,\"tid\":%lld,\"ts\":",
                (long long)pid, (long long)pid);
        put_us(out, now);
        fprintf(out, ",\"args\":{\"busy\":%ld}}", busy);
    }
    free(g);
}

int cprof_report_trace(const char *path, FILE *out, char *err, size_t errlen)
{
    struct trace t;
    if (trace_open(&t, path, err, errlen)) {
        trace_close(&t);
        return -1;
    }
    int64_t pid = t.rf.pid;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"program\":", out);
    put_string(out, t.rf.program);
    fprintf(out, ",\"clock\":");
    put_string(out, t.rf.clock);
    fputs(",\"dropped\":[", out);
    for (size_t w = 0; w < t.nw; w++)
        fprintf(out, "%s%llu", w ? "," : "", (unsigned long long)t.w[w].dropped);
    /* The routines counted at their call sites have no activation, so no event: said,
     * with their time, which is their callers'. */
    fputs("],\"counted\":[", out);
    for (size_t i = 0, n = 0; i < t.rf.nroutines; i++)
        if (json_is_true(t.rf.routines[i].counted)) {
            fputs(n++ ? "," : "", out);
            put_string(out, t.rf.routines[i].name);
        }
    fprintf(out, "]},\n\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,"
                 "\"tid\":%lld,\"args\":{\"name\":", (long long)pid, (long long)pid);
    char *name = cprof_xasprintf("%s (pid %lld)", t.rf.program, (long long)pid);
    put_string(out, name);
    free(name);
    fputs("}}", out);
    char **routine = names_of(&t, 0), **site = names_of(&t, 1);
    struct cursor *c = cprof_xcalloc(1, sizeof *c);
    struct open o = {0};
    for (size_t w = 0; w < t.nw; w++)
        chrome_worker(&t, w, c, &o, routine, site, pid, out);
    chrome_busy(&t, pid, out);
    fputs("\n]}\n", out);
    free(o.e);
    free(c);
    free_names(routine, t.rf.nroutines);
    free_names(site, t.rf.nsites);
    trace_close(&t);
    return 0;
}

/* ---- --timeline: a row of characters per worker ---- */

/* Legend symbols, for the routines of most self time first; past them '+'. */
static const char symbols[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
enum { NSYM = sizeof symbols - 1, OTHER = NSYM, IDLE = NSYM + 1, NSLOTS = NSYM + 2 };

/* Spreads the stretch [a, b) of symbol s over the columns it covers. */
static void spread(uint64_t (*col)[NSLOTS], int width, uint64_t span, uint64_t a, uint64_t b,
                   int s)
{
    while (a < b) {
        int i = (int)((double)a / (double)span * width);
        if (i >= width)
            i = width - 1;
        uint64_t edge = (uint64_t)((double)span * (i + 1) / width);
        uint64_t stop = i == width - 1 || edge > b ? b : edge <= a ? a + 1 : edge;
        col[i][s] += stop - a;
        a = stop;
    }
}

/* What the timeline shows: each routine, then the code of parallel regions' bodies and
 * of tasks' own (outside the routines they call). */
static size_t item_of(const struct trace *t, const struct event *e)
{
    return e->kind == CPROF_TRACE_ENTER ? e->routine : t->rf.nroutines + (size_t)e->task;
}

static const char *item_name(const struct trace *t, size_t i)
{
    return i < t->rf.nroutines ? t->rf.routines[i].name
           : i == t->rf.nroutines ? "(a parallel region's own code)" : "(a task's own code)";
}

/* Self time (ticks) per item over all workers, and each worker's columns: what runs
 * on top of its stack, or idle.  self may be null (the columns only). */
static void walk(const struct trace *t, size_t w, struct cursor *c, struct open *o,
                 uint64_t *self, const int *sym, uint64_t (*col)[NSLOTS], int width)
{
    cursor_open(c, t, w);
    o->n = 0;
    uint64_t prev = t->origin, span = t->end - t->origin ? t->end - t->origin : 1;
    struct event e;
    while (next_event(c, &e) == 1 && fits(t, &e, o->n)) {
        if (o->n && self)
            self[item_of(t, &o->e[o->n - 1])] += e.t - prev;
        if (col)
            spread(col, width, span, prev - t->origin, e.t - t->origin,
                   o->n ? sym[item_of(t, &o->e[o->n - 1])] : IDLE);
        prev = e.t;
        if (e.kind != CPROF_TRACE_EXIT)
            push(o, &e);
        else
            o->n--;
    }
    if (col)
        spread(col, width, span, prev - t->origin, span, IDLE);
}

static uint64_t *by_self;

static int more_self(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return by_self[x] != by_self[y] ? (by_self[x] < by_self[y]) - (by_self[x] > by_self[y])
                                    : CMP(x, y);
}

static void put_ns(FILE *out, uint64_t ns)
{
    if (ns >= 1000000000)
        fprintf(out, "%.2f s", (double)ns / 1e9);
    else if (ns >= 1000000)
        fprintf(out, "%.2f ms", (double)ns / 1e6);
    else
        fprintf(out, "%.2f us", (double)ns / 1e3);
}

int cprof_report_timeline(const char *path, int width, FILE *out, char *err, size_t errlen)
{
    struct trace t;
    if (trace_open(&t, path, err, errlen)) {
        trace_close(&t);
        return -1;
    }
    size_t nr = t.rf.nroutines + 2;
    uint64_t *self = cprof_xcalloc(nr ? nr : 1, sizeof *self);
    size_t *order = cprof_xcalloc(nr ? nr : 1, sizeof *order);
    int *sym = cprof_xcalloc(nr ? nr : 1, sizeof *sym);
    struct cursor *c = cprof_xcalloc(1, sizeof *c);
    struct open o = {0};
    for (size_t w = 0; w < t.nw; w++)
        walk(&t, w, c, &o, self, NULL, NULL, width);
    for (size_t i = 0; i < nr; i++)
        order[i] = i;
    by_self = self;
    qsort(order, nr, sizeof *order, more_self);
    size_t shown = 0;
    for (size_t i = 0; i < nr; i++)
        sym[order[i]] = self[order[i]] && i < NSYM ? (int)(shown++) : OTHER;

    uint64_t span_ns = ns_of(&t, t.end);
    fprintf(out, "Timeline of %s (pid %lld): %zu workers, ", t.rf.program, (long long)t.rf.pid,
            t.nw);
    put_ns(out, span_ns);
    fprintf(out, " traced, %d columns of ", width);
    put_ns(out, span_ns / (uint64_t)width);
    fputs(" each\n", out);
    char label[128];
    int lw = 0;
    for (size_t w = 0; w < t.nw; w++) {
        worker_label(&t, w, label, sizeof label);
        if ((int)strlen(label) > lw)
            lw = (int)strlen(label);
    }
    uint64_t (*col)[NSLOTS] = cprof_xcalloc((size_t)width, sizeof *col);
    double *busy = cprof_xcalloc((size_t)width, sizeof *busy);
    for (size_t w = 0; w < t.nw; w++) {
        memset(col, 0, (size_t)width * sizeof *col);
        walk(&t, w, c, &o, NULL, sym, col, width);
        worker_label(&t, w, label, sizeof label);
        fprintf(out, "%-*s |", lw, label);
        for (int i = 0; i < width; i++) {
            int best = IDLE;
            uint64_t all = 0;
            for (int s = 0; s < NSLOTS; s++) {
                all += col[i][s];
                if (col[i][s] > col[i][best])
                    best = s;
            }
            busy[i] += all ? (double)(all - col[i][IDLE]) / (double)all : 0;
            fputc(best == IDLE ? '.' : best == OTHER ? '+' : symbols[best], out);
        }
        fputc('|', out);
        if (t.w[w].dropped)
            fprintf(out, " %llu events dropped (buffer full)", (unsigned long long)t.w[w].dropped);
        fputc('\n', out);
    }
    fprintf(out, "%-*s |", lw, "workers busy");
    for (int i = 0; i < width; i++) {
        long b = (long)(busy[i] + 0.5);
        fputc(b > 9 ? '+' : (char)('0' + b), out);
    }
    fputs("|\n\nLegend (routines by self time in the trace; each column shows what ran most"
          " of it):\n", out);
    for (size_t i = 0; i < nr && i < NSYM && self[order[i]]; i++) {
        fprintf(out, "  %c  %s  ", symbols[sym[order[i]]], item_name(&t, order[i]));
        put_ns(out, ns_of(&t, t.origin + self[order[i]]));
        fputc('\n', out);
    }
    if (nr > NSYM && self[order[NSYM]])
        fputs("  +  the other routines\n", out);
    fputs("  .  no profiled routine running (idle, or outside profiled code)\n"
          "  workers busy: how many workers ran profiled code, on average over the column\n", out);
    free(busy);
    free(col);
    free(o.e);
    free(c);
    free(sym);
    free(order);
    free(self);
    trace_close(&t);
    return 0;
}
