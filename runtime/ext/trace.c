/* trace.c: CPROF_TRACE=1, a time-stamped trace of every activation per worker
 * (docs/tracing.md; the core paper's section 5.1).
 *
 * The traced facade (facade.c) calls cprof_trace_enter once an activation's frame is
 * open, cprof_trace_body once a parallel region's or a task's body has its frame
 * (omp.c), and cprof_trace_exit as either closes, with the same tick reads the
 * profile's times come from: the trace's durations are the profile's.  Each worker appends to a buffer of its
 * own (no lock, no shared cache line), reserved with the worker and never grown:
 * CPROF_TRACE_BUFFER bytes.  Events are encoded as they come: a kind byte, the ticks
 * since the worker's previous event and, for an entry, the routine and the site, each a
 * LEB128 varint (docs/tracing.md gives the layout and the bytes per event).
 *
 * Full buffer ("stop"): an entry recorded reserves the room of its exit, so every
 * recorded entry gets its exit and the trace stays well nested; the first entry that
 * does not fit stops the worker's trace, and every event after it is counted as dropped,
 * at the entry, two per activation (the profile's "trace" per worker, the report).
 *
 * An activation shorter than CPROF_TRACE_MIN_NS is taken back at its exit: everything
 * it contained was shorter still and was taken back before, so its entry is the last
 * event of the buffer, and the buffer is cut there.
 *
 * A signal handler that runs profiled code may interrupt the recording of an event: while
 * one is being recorded (busy), the handler's events are dropped and counted apart, so
 * the buffer is never written by both.  One that interrupts elsewhere records its
 * activations whole, between two events of the code it interrupted.
 *
 * The trace is written once, with the profile at the end of the run, to a file beside
 * it (cprof.out.trace, or CPROF_TRACE_OUT): a run of millions of events does not go
 * through JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "trace.h"
#include "../../format/trace.h"

/* Longest encodings: a kind byte and varints of 64-bit ticks, 32-bit ids. */
enum { VARINT64_MAX = 10, VARINT32_MAX = 5 };
enum { EXIT_MAX = 1 + VARINT64_MAX, ENTER_MAX = 1 + VARINT64_MAX + 2 * VARINT32_MAX };

/* What a frame's opening left, in the mark beside the frame: at null if not recorded
 * (excluded by the globs, or dropped), else where its event begins in the buffer; its number among the worker's
 * opening events, and that of the one open around it; the time of the event before
 * it, which a take-back restores.  A mark may be stale: a signal handler's entry
 * can take a frame that is being filled for one left by a longjmp and close it, with
 * the mark of the slot's previous frame.  An exit writes an event only if its mark is
 * the innermost recorded opening still open. */
struct mark {
    uint8_t *at;
    uint64_t number, outer, before;
};
/* The marks have the frames' stride, so that a frame's is one addition away (no
 * division by the frame's size at every event); the room between is never touched. */
_Static_assert(sizeof(struct mark) <= sizeof(struct cprof_frame), "a mark fits a frame's stride");

struct cprof_trace {
    uint8_t *buf, *pos;
    uint8_t *room;          /* the buffer's end less the room kept for the exits of the
                               recorded entries still open */
    uint64_t last;          /* ticks of the last event recorded */
    uint64_t events;        /* in the bytes written: counted then, not at every event */
    uint64_t dropped;
    uint64_t interrupting;  /* dropped: a signal handler's, while busy */
    uint64_t opened;        /* events that opened a frame so far: their numbers */
    uint64_t innermost;     /* the number of the innermost one still open, 0: none */
    int busy;               /* recording an event */
    int stopped;            /* an entry did not fit: nothing more is recorded */
    char *marks;            /* reserved, touched as deep as frames go: the mark of frame f
                               is at (char *)f + marks_off */
    ptrdiff_t marks_off;
    size_t buf_size, marks_size;
};

static int on;
static size_t buffer_size = 32u << 20;
static uint64_t min_ns;
static uint64_t min_ticks_cached;
static uint64_t origin;                 /* ticks at start: every worker's first delta */
static char *include, *exclude;         /* comma-separated globs, or null */
enum { GLOB_MAX = 256 };
static const char *include_text = "", *exclude_text = "";

/* A size of 4K to 1024G, with the suffixes K, M, G (powers of 1024). */
static int parse_size(const char *v, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (shift)
        end++;
    if (errno || end == v || *v == '-' || *end || n > (1ull << 40) >> shift || n << shift < 4096)
        return -1;
    *out = (size_t)(n << shift);
    return 0;
}

/* A copy of variable name's list of globs, in the runtime's memory (never the program's
 * malloc); null if unset, or if an item is empty or longer than a glob may be (said in
 * one line: what the list would leave out is not known). */
static char *globs(const char *name, const char *otherwise)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    for (const char *p = v;; p++) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= GLOB_MAX) {
            fprintf(stderr, "cprof: %s=%s has an empty glob or one of %d characters or more: "
                            "%s\n", name, v, GLOB_MAX, otherwise);
            return 0;
        }
        p += n;
        if (!*p)
            break;
    }
    size_t n = strlen(v) + 1;
    return memcpy(cprof_alloc(n), v, n);
}

int cprof_trace_start(void)
{
    if (!cprof_setting_word("CPROF_TRACE", (const char *const[]){ "0", "1", 0 }, 0,
                            "no trace is recorded"))
        return 0;
    if (cprof_clock == CPROF_CLOCK_NONE) {
        fputs("cprof: CPROF_TRACE needs time-stamps: no trace with CPROF_MODE=count\n", stderr);
        return 0;
    }
    const char *size = getenv("CPROF_TRACE_BUFFER");
    if (size && *size && parse_size(size, &buffer_size))
        fprintf(stderr, "cprof: CPROF_TRACE_BUFFER=%s is not a size from 4K to 1024G (bytes, "
                        "or with K, M, G): %zu bytes per worker\n", size, buffer_size);
    unsigned long long min = 0;
    cprof_setting_number("CPROF_TRACE_MIN_NS", 0, UINT64_MAX / 2, &min, "0 ns, every activation");
    min_ns = min;
    include = globs("CPROF_TRACE_INCLUDE", "every routine is traced");
    exclude = globs("CPROF_TRACE_EXCLUDE", "none is left out");
    include_text = include ? include : "";
    exclude_text = exclude ? exclude : "";
    origin = cprof_ticks();
    cprof_tracer = (struct cprof_tracer){ cprof_trace_enter, cprof_trace_exit, cprof_trace_body };
    return on = 1;
}

int cprof_tracing(void)
{
    return on;
}

/* Whether name matches one of the comma-separated globs. */
static int matches(const char *list, const char *name)
{
    char glob[GLOB_MAX];
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");     /* below GLOB_MAX: globs() saw to it */
        memcpy(glob, p, n);
        glob[n] = 0;
        if (fnmatch(glob, name, 0) == 0)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

static void *reserve(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        cprof_out_of_memory();
    return p;
}

void cprof_trace_new(struct cprof_worker *w)
{
    struct cprof_trace *t = cprof_alloc(sizeof *t);
    t->buf_size = buffer_size;
    t->buf = t->pos = reserve(t->buf_size);
    t->room = t->buf + t->buf_size;
    t->marks_size = (size_t)(w->stack_end - w->stack) * sizeof(struct cprof_frame);
    t->marks = reserve(t->marks_size);
    t->marks_off = t->marks - (char *)w->stack;
    t->last = origin;
    w->trace = t;
}

void cprof_trace_free(struct cprof_worker *w)
{
    struct cprof_trace *t = w->trace;
    if (!t)
        return;
    munmap(t->buf, t->buf_size);
    munmap(t->marks, t->marks_size);
    cprof_free(t, sizeof *t);
    w->trace = 0;
}

static inline uint8_t *put(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Ticks since the last event; never negative (a worker's clock reads only grow, but
 * the exit's closing of every worker's frames reads the clock on another thread). */
static inline uint64_t delta(struct cprof_trace *t, uint64_t now)
{
    uint64_t d = now > t->last ? now - t->last : 0;
    t->last += d;
    return d;
}

/* Whether what is named name is traced: 1, or -1. */
static __attribute__((noinline)) int traced(const char *name)
{
    return (!include || matches(include, name)) && !(exclude && matches(exclude, name)) ? 1 : -1;
}

/* A construct's body is named as the export names it: "parallel FILE:LINE", "task
 * FILE:LINE", or "parallel (unnamed)". */
static __attribute__((noinline)) int body_traced(const struct cprof_construct_rec *c)
{
    char name[512];
    const struct cprof_site *s = c->key.site >= 0 ? cprof_site_by_id(c->key.site) : 0;
    const char *kind = c->kind == CPROF_REGION_TASK ? "task" : "parallel";
    if (s)
        snprintf(name, sizeof name, "%s %s:%d", kind, s->file, s->line);
    else
        snprintf(name, sizeof name, "%s (unnamed)", kind);
    return traced(name);
}

#define signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* An event that opens frame f (an activation, a construct's body) begins: busy from
 * here, unless a signal handler interrupted the recording of another (0).  Events are
 * counted dropped at the opening, two each: the closing is never recorded. */
static inline int begin(struct cprof_trace *t, struct mark *m)
{
    m->at = 0;
    if (__builtin_expect(t->busy, 0)) {
        t->interrupting += 2;
        return 0;
    }
    t->busy = 1;
    signal_fence();
    return 1;
}

static inline void end(struct cprof_trace *t)
{
    signal_fence();
    t->busy = 0;
}

/* The opening event of frame f, unless the buffer is full: kind, the ticks since the
 * last event, n ids. */
static inline void record(struct cprof_trace *t, struct mark *m, const struct cprof_frame *f,
                          unsigned kind, int n, uint32_t id0, uint32_t id1)
{
    if (__builtin_expect(t->stopped || t->pos + ENTER_MAX > t->room - EXIT_MAX, 0)) {
        t->stopped = 1;
        t->dropped += 2;
        return;
    }
    *m = (struct mark){ t->pos, ++t->opened, t->innermost,
                        t->last };
    t->innermost = m->number;
    uint8_t *p = t->pos;
    *p++ = (uint8_t)kind;
    p = put(p, delta(t, f->t0));
    if (n > 0)
        p = put(p, id0);
    if (n > 1)
        p = put(p, id1);
    t->pos = p;
    t->room -= EXIT_MAX;
}

static inline struct mark *mark_of(const struct cprof_trace *t, const struct cprof_frame *f)
{
    return (struct mark *)((char *)f + t->marks_off);
}

/* An activation's opening event: kind, delta, the routine's index, its site's. */
static inline void record_enter(struct cprof_trace *t, struct mark *m, const struct cprof_frame *f,
                                const struct cprof_routine_rec *rec, int kase, int site)
{
    int external = site < 0;
    record(t, m, f, CPROF_TRACE_ENTER | (unsigned)kase << 2 | (external ? CPROF_TRACE_NO_SITE : 0),
           external ? 1 : 2, (uint32_t)rec->ext.callee, (uint32_t)site);
}

/* The rarer openings, apart, so that the common one saves no register: a signal
 * handler's while an event is being recorded, a routine not yet matched against the
 * globs or left out by them. */
static __attribute__((noinline)) struct cprof_frame *
enter_rare(struct cprof_worker *w, const struct cprof_routine *r, struct cprof_frame *f,
           struct cprof_routine_rec *rec, int kase, int site)
{
    struct cprof_trace *t = w->trace;
    struct mark *m = mark_of(t, f);
    if (!begin(t, m))
        return f;
    if (!rec->traced)
        rec->traced = (signed char)traced(r->name);
    /* Not the top frame: a signal handler closed it while it was being opened. */
    if (rec->traced > 0 && f == w->top - 1)
        record_enter(t, m, f, rec, kase, site);
    end(t);
    return f;
}

struct cprof_frame *cprof_trace_enter(struct cprof_worker *w, const struct cprof_routine *r,
                                      struct cprof_frame *f, struct cprof_routine_rec *rec,
                                      int kase, int site)
{
    struct cprof_trace *t = w->trace;
    if (__builtin_expect(t->busy || rec->traced <= 0, 0))
        return enter_rare(w, r, f, rec, kase, site);
    t->busy = 1;
    signal_fence();
    struct mark *m = mark_of(t, f);
    if (__builtin_expect(f == w->top - 1, 1))
        record_enter(t, m, f, rec, kase, site);
    else
        m->at = 0;
    end(t);
    return f;
}

struct cprof_frame *cprof_trace_body(struct cprof_worker *w, struct cprof_frame *f,
                                     struct cprof_construct_rec *c, int kase)
{
    struct cprof_trace *t = w->trace;
    struct mark *m = mark_of(t, f);
    if (!begin(t, m))
        return f;
    if (!c->own.traced)
        c->own.traced = (signed char)body_traced(c);
    int site = c->key.site;
    if (c->own.traced > 0 && f == w->top - 1)
        record(t, m, f, CPROF_TRACE_BODY | (unsigned)kase << 2 | (site < 0 ? CPROF_TRACE_NO_SITE : 0) |
                        (c->kind == CPROF_REGION_TASK ? CPROF_TRACE_TASK : 0),
               site >= 0, (uint32_t)site, 0);
    end(t);
    return f;
}

/* CPROF_TRACE_MIN_NS: whether the activation of frame f, closing at now, was too short
 * and is taken back (its entry and what followed, all shorter): apart, with the clock's
 * rate, so that the common exit saves no register. */
static __attribute__((noinline)) int taken_back(struct cprof_trace *t, const struct mark *m,
                                                const struct cprof_frame *f, uint64_t now)
{
    uint64_t min = __atomic_load_n(&min_ticks_cached, __ATOMIC_RELAXED);
    if (!min) {
        min = (uint64_t)((double)min_ns / cprof_ns_per_tick()) + 1;
        __atomic_store_n(&min_ticks_cached, min, __ATOMIC_RELAXED);
    }
    if (now - f->t0 >= min)
        return 0;
    t->pos = m->at;
    t->last = m->before;
    return 1;
}

/* A frame's closing event; with_min: CPROF_TRACE_MIN_NS is set (apart, so that the
 * common exit calls nothing and saves no register). */
static inline __attribute__((always_inline)) void exit_as(struct cprof_worker *w,
                                                          const struct cprof_frame *f,
                                                          uint64_t now, int with_min)
{
    struct cprof_trace *t = w->trace;
    /* Busy: a signal handler's exit, whose entry was not recorded (busy stays as it is
     * while the handler runs). */
    if (__builtin_expect(t->busy, 0))
        return;
    t->busy = 1;
    signal_fence();
    /* The innermost open (a frame whose opening was not recorded has a stale mark, of
     * a closed one). */
    const struct mark *m = mark_of(t, f);
    if (m->at && m->number == t->innermost) {
        t->innermost = m->outer;
        t->room += EXIT_MAX;    /* kept since its entry */
        if (!with_min || !taken_back(t, m, f, now)) {
            uint8_t *p = t->pos;
            *p++ = CPROF_TRACE_EXIT;
            t->pos = put(p, delta(t, now));
        }
    }
    end(t);
}

static __attribute__((noinline)) void exit_min(struct cprof_worker *w, const struct cprof_frame *f,
                                               uint64_t now)
{
    exit_as(w, f, now, 1);
}

void cprof_trace_exit(struct cprof_worker *w, const struct cprof_frame *f, uint64_t now)
{
    if (__builtin_expect(min_ns != 0, 0))
        return exit_min(w, f, now);
    exit_as(w, f, now, 0);
}

/* ---- the trace file and its description in the profile ---- */

static int write_all(int fd, const void *p, size_t n)
{
    for (const char *c = p; n;) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

/* The events in n bytes of a worker's buffer (format/trace.h): a kind byte, then the
 * varints its kind has. */
static uint64_t count_events(const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n;
    uint64_t events = 0;
    while (p < end) {
        unsigned kind = *p++;
        int varints = 1 + ((kind & 3) == CPROF_TRACE_ENTER) +
                      ((kind & 3) != CPROF_TRACE_EXIT && !(kind & CPROF_TRACE_NO_SITE));
        for (; varints && p < end; varints--)
            while (p < end && *p++ & 0x80)
                ;
        events++;
    }
    return events;
}

/* The file's header, and each worker's before its events: little-endian 64-bit words
 * (docs/tracing.md). */
static int write_file(int fd, struct cprof_worker *workers, double npt)
{
    uint8_t head[CPROF_TRACE_HEAD];
    memcpy(head, CPROF_TRACE_MAGIC, 8);
    uint64_t bits;
    memcpy(&bits, &npt, sizeof bits);
    put_u64(head + 8, bits);
    int n = 0;
    for (struct cprof_worker *w = workers; w; w = w->next)
        n++;
    put_u64(head + 16, (uint64_t)n);
    if (write_all(fd, head, sizeof head))
        return -1;
    /* Oldest first, by id: the list is newest first. */
    for (int id = 0; id < n; id++) {
        struct cprof_worker *w = workers;
        while (w->id != id)
            w = w->next;
        struct cprof_trace *t = w->trace;
        /* What the worker recorded until now: an event's bytes are all there once pos
         * is past them (a thread still running may add more, not written). */
        size_t bytes = t ? (size_t)(__atomic_load_n(&t->pos, __ATOMIC_RELAXED) - t->buf) : 0;
        if (t)
            t->events = count_events(t->buf, bytes);
        uint8_t wh[CPROF_TRACE_WORKER_HEAD];
        put_u64(wh, (uint64_t)w->id);
        put_u64(wh + 8, origin);
        put_u64(wh + 16, t ? t->events : 0);
        put_u64(wh + 24, t ? t->dropped + t->interrupting : 0);
        put_u64(wh + 32, bytes);
        if (write_all(fd, wh, sizeof wh) || (t && write_all(fd, t->buf, bytes)))
            return -1;
    }
    return 0;
}

/* Written as the profile is (a temporary file renamed).  *bytes: the file's size. */
int cprof_trace_write(const char *path, double npt, uint64_t *bytes)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int rc = fd < 0 ? -1 : write_file(fd, cprof_workers(), npt);
    if (fd >= 0) {
        off_t end = lseek(fd, 0, SEEK_CUR);
        *bytes = end > 0 ? (uint64_t)end : 0;
        if (close(fd) != 0)
            rc = -1;
    }
    if (rc == 0 && rename(tmp, path) == 0)
        return 0;
    fprintf(stderr, "cprof: cannot write trace %s: %s\n", path, strerror(errno));
    unlink(tmp);
    return -1;
}

/* The profile's "trace" section: the file (its name alone beside the profile, else the
 * path it was written to) and how it was recorded. */
void cprof_trace_describe(struct cprof_json *j, const char *path, int beside, uint64_t bytes)
{
    uint64_t events = 0, dropped = 0;
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next)
        if (w->trace) {
            events += w->trace->events;
            dropped += w->trace->dropped + w->trace->interrupting;
        }
    const char *base = strrchr(path, '/');
    cprof_json_key(j, CPROF_SECTION_TRACE);
    cprof_json_begin(j, '{');
    cprof_json_field_string(j, "file", beside && base ? base + 1 : path);
    cprof_json_field_uint(j, "bytes", bytes);
    cprof_json_field_uint(j, "events", events);
    cprof_json_field_uint(j, "dropped", dropped);
    cprof_json_field_uint(j, "buffer", buffer_size);
    cprof_json_field_string(j, "when_full", "stop");
    cprof_json_field_uint(j, "min_ns", min_ns);
    cprof_json_field_string(j, "include", include_text);
    cprof_json_field_string(j, "exclude", exclude_text);
    cprof_json_end(j, '}');
}

/* A worker's "trace": [events recorded, events dropped]. */
void cprof_trace_worker(struct cprof_json *j, const struct cprof_worker *w)
{
    cprof_json_key(j, CPROF_SECTION_TRACE);
    cprof_json_begin(j, '[');
    cprof_json_uint(j, w->trace ? w->trace->events : 0);
    cprof_json_uint(j, w->trace ? w->trace->dropped + w->trace->interrupting : 0);
    cprof_json_end(j, ']');
}
