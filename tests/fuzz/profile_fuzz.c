/* profile_fuzz.c: libFuzzer target for cprof-report's profile reader and JSON writer.
 *
 * Each input is one profile file (docs/profile-format.md).  It is written to a memfd
 * and read through its /proc/self/fd path, then:
 *   1. cprof_profile_load(file), plain and compensated; on success cprof_report_json(),
 *      cprof_report_html() (sources embedded) and every text section and CSV, plainly and
 *      filtered (--routine, --threshold), and --source's text, CSV and JSON
 *      of both too;
 *   2. cprof_profile_load(file, file): the merge of a file with itself (refused if the
 *      file is a rank of an MPI job: its rank twice);
 *   3. if the input holds a NUL byte (never valid JSON), the bytes before and after the
 *      first one are two files A and B, and cprof_profile_load(A, B) is run as well,
 *      compensated, to merge files that differ (other routines, other numbers of
 *      workers, other call costs).
 * Besides the sanitizers (ASan, UBSan, LeakSanitizer), the target aborts on a broken
 * contract of profile.h / report.h:
 *   - a failed load leaves *p empty and says "PATH: problem" in err;
 *   - a successful load yields a report (the JSON writer does not return NULL);
 *   - summing a file with itself fails only if it overflows or the file is a rank of
 *     a job, and otherwise doubles every count and time (of regions too, but their
 *     team sizes; of input sizes too, per routine and per context) and keeps
 *     everything else
 *     (tests/report/run.sh checks the same on the fixtures);
 *   - a rank's profile is a job of one rank, which has all the workers;
 *   - a compensated load succeeds wherever the plain one does (and may where that
 *     overflowed), changes no count, and leaves every time between 0 and its plain
 *     value (tests/report/compensate.sh checks the same on the fixtures).
 * Build and run: make fuzz (FUZZ_SECONDS=N), or tests/cli/fuzz.sh.
 */
#define _GNU_SOURCE
#include "model/profile.h"
#include "views/report.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct tmpfile {
    int fd;
    char path[64];
};

static struct tmpfile files[2];

/* An anonymous file, reachable by path: nothing is left behind, whatever happens. */
static void open_tmp(struct tmpfile *t, const char *name)
{
    t->fd = memfd_create(name, 0);
    if (t->fd < 0) {
        perror("profile_fuzz: memfd_create");
        abort();
    }
    snprintf(t->path, sizeof t->path, "/proc/self/fd/%d", t->fd);
}

static void put(struct tmpfile *t, const uint8_t *data, size_t size)
{
    if (ftruncate(t->fd, 0) != 0 ||
        (size && pwrite(t->fd, data, size, 0) != (ssize_t)size)) {
        perror("profile_fuzz: writing the input");
        abort();
    }
}

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "profile_fuzz: contract broken: %s (%s:%d)\n", #cond, \
                    __FILE__, __LINE__);                                         \
            abort();                                                             \
        }                                                                        \
    } while (0)

static int is_empty(const cprof_profile *p)
{
    static const cprof_profile zero;
    return !memcmp(p, &zero, sizeof zero);
}

/* Load paths; on failure check the error contract.  Returns the load's status. */
static int load(cprof_profile *p, char *const *paths, size_t n, bool compensate, char *err,
                size_t errlen)
{
    memset(err, 0, errlen);
    const cprof_load_opts o = {paths, n, compensate, true, NULL};
    int rc = cprof_profile_load(p, &o, err, errlen);
    CHECK(rc == 0 || rc == -1);
    if (rc) {
        CHECK(is_empty(p));
        CHECK(memchr(err, 0, errlen) != NULL);
        int blamed = 0;
        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(paths[i]);
            blamed |= !strncmp(err, paths[i], len) && !strncmp(err + len, ": ", 2) &&
                      err[len + 2] != 0;
        }
        CHECK(blamed);
    }
    return rc;
}

/* The text report under o and every section as CSV. */
static void render_all(const cprof_profile *p, const cprof_opts *o)
{
    cprof_view v;
    if (cprof_view_init(&v, p, o))
        return;     /* out of memory */
    /* spread is the last section. */
    for (int csv = -1; csv <= cprof_report_section("spread"); csv++) {
        char *text = cprof_report_text(&v, csv);
        CHECK(text != NULL);
        free(text);
    }
    /* --sizes: its tables in both forms, per routine and per calling context. */
    for (int csv = -1; csv <= 3; csv++) {
        cprof_table *t[4] = {cprof_section_sizes(&v, NULL, csv >= 0, false),
                             cprof_section_size_growth(&v, NULL),
                             cprof_section_sizes(&v, NULL, true, true),
                             cprof_section_size_path_growth(&v, NULL)};
        char *text = cprof_tables_text(t, 4, csv, o->brief);
        CHECK(text != NULL);
        free(text);
    }
    /* --source: the annotated files, --csv lines and line-workers, --json. */
    for (int csv = -1; csv <= 2; csv++) {
        char *text = cprof_report_source(&v, &(cprof_source_opts){0}, csv < 2 ? csv : -1, csv == 2);
        CHECK(text != NULL);
        free(text);
    }
    cprof_view_free(&v);
}

static void report(const cprof_profile *p)
{
    char *text = cprof_report_json(p);
    CHECK(text != NULL);
    size_t n = strlen(text);
    CHECK(n > 0 && text[n - 1] == '\n');
    free(text);
    text = cprof_report_html(p, &(cprof_source_opts){0});
    CHECK(text != NULL);
    free(text);
    /* The text sections too: plainly, and filtered as --routine and --threshold do. */
    cprof_opts plain = { 0 };
    render_all(p, &plain);
    cprof_opts filtered = { .brief = true, .sort = CPROF_SORT_NAME, .threshold = 1.0,
                            .has_threshold = true, .resources = true,
                            .routine = p->nroutines ? p->routines[0].name : "none" };
    render_all(p, &filtered);
}

static int twice(const cprof_tally *once, const cprof_tally *two)
{
    return two->n == 2 * once->n && two->t == 2 * once->t && two->nested == 2 * once->nested;
}

/* p2 is p1's file summed with itself. */
static void check_doubled(const cprof_profile *p1, const cprof_profile *p2)
{
    CHECK(p2->nfiles == 2 && p1->nfiles == 1);
    CHECK(p2->elapsed_ns == 2 * p1->elapsed_ns);
    CHECK(p2->nworkers == p1->nworkers);
    CHECK(p2->nroutines == p1->nroutines);
    CHECK(p2->narcs == p1->narcs);
    CHECK(!strcmp(p2->program, p1->program) && !strcmp(p2->clock, p1->clock));
    CHECK(p2->pid == p1->pid && p2->start_unix_ns == p1->start_unix_ns);
    CHECK(p2->call_cost_ns == p1->call_cost_ns);
    CHECK(p2->pus == p1->pus && p2->cores == p1->cores && p2->packages == p1->packages);
    for (size_t w = 0; w < p1->nworkers; w++)
        CHECK(!memcmp(&p1->workers[w], &p2->workers[w], sizeof p1->workers[w]));
    for (size_t i = 0; i < p1->nroutines; i++) {
        const cprof_prof_routine *a = &p1->routines[i], *b = &p2->routines[i];
        CHECK(!strcmp(a->name, b->name) && !strcmp(a->file, b->file));
        CHECK(a->line == b->line && a->max_depth == b->max_depth);
        CHECK(twice(&a->s_caller, &b->s_caller) && twice(&a->s_callee, &b->s_callee));
        CHECK(b->s_self_t == 2 * a->s_self_t && b->s_direct == 2 * a->s_direct);
        for (size_t w = 0; w < p1->nworkers; w++) {
            const cprof_prof_routine_worker *x = &a->worker[w], *y = &b->worker[w];
            CHECK(twice(&x->c_caller, &y->c_caller) && twice(&x->c_callee, &y->c_callee) &&
                  twice(&x->cs_callee, &y->cs_callee) && twice(&x->cc_callee, &y->cc_callee) &&
                  twice(&x->s_caller, &y->s_caller));
            CHECK(y->c_self_t == 2 * x->c_self_t && y->c_direct == 2 * x->c_direct &&
                  y->s_self_t == 2 * x->s_self_t);
        }
    }
    /* Input sizes, per routine and per context: calls and sums doubled, the rest kept
     * (the contexts are made in the same order). */
    CHECK(p2->nsizes == p1->nsizes && p2->npath_sizes == p1->npath_sizes);
    for (size_t i = 0; i < p1->nsizes + p1->npath_sizes; i++) {
        bool all = i < p1->nsizes;
        const cprof_prof_size *a = all ? &p1->sizes[i] : &p1->path_sizes[i - p1->nsizes];
        const cprof_prof_size *b = all ? &p2->sizes[i] : &p2->path_sizes[i - p1->nsizes];
        CHECK(a->routine == b->routine && a->path == b->path && a->n == b->n);
        CHECK(b->calls == 2 * a->calls);
        for (int c = 0; c < 2; c++)
            CHECK(b->sum[c] == 2 * a->sum[c] && b->max[c] == a->max[c] && b->min[c] == a->min[c]);
    }
    /* Regions: counts and times doubled, team sizes kept. */
    CHECK(p2->nregions == p1->nregions);
    for (size_t i = 0; i < p1->nregions; i++) {
        const cprof_prof_region *a = &p1->regions[i], *b = &p2->regions[i];
        CHECK(a->kind == b->kind && a->line == b->line && a->routine == b->routine);
        CHECK(a->file ? b->file && !strcmp(a->file, b->file) : !b->file);
        for (size_t w = 0; w < p1->nworkers; w++) {
            const cprof_prof_region_worker *x = &a->worker[w], *y = &b->worker[w];
            CHECK(y->executions == 2 * x->executions && y->busy_t == 2 * x->busy_t &&
                  y->barrier_wait == 2 * x->barrier_wait && y->end_wait == 2 * x->end_wait &&
                  y->opened == 2 * x->opened && y->max_busy == 2 * x->max_busy &&
                  y->mean_busy == 2 * x->mean_busy);
            CHECK(y->team_min == x->team_min && y->team_max == x->team_max);
        }
    }
    for (size_t i = 0; i < p1->narcs; i++) {
        const cprof_prof_arc *a = &p1->arcs[i], *b = &p2->arcs[i];
        CHECK(a->caller == b->caller && a->callee == b->callee && a->nsites == b->nsites);
        CHECK(twice(&a->s, &b->s) && twice(&a->c, &b->c));
        for (size_t k = 0; k < a->nsites; k++) {
            CHECK(!strcmp(a->sites[k].file, b->sites[k].file));
            CHECK(a->sites[k].line == b->sites[k].line);
            CHECK(twice(&a->sites[k].s, &b->sites[k].s) && twice(&a->sites[k].c, &b->sites[k].c));
        }
    }
}

/* c is p's file compensated: the same counts, and times between 0 and p's. */
static int within(const cprof_tally *plain, const cprof_tally *comp)
{
    return comp->n == plain->n && comp->nested == plain->nested && comp->t >= 0 &&
           comp->t <= plain->t;
}

static int self_within(int64_t plain, int64_t comp)
{
    return comp >= 0 && comp <= plain;
}

static void check_compensated(const cprof_profile *p, const cprof_profile *c)
{
    CHECK(!p->compensated && c->compensated);
    CHECK(c->compensated_ns >= 0 && c->overhead_ns == p->overhead_ns);
    CHECK(c->nroutines == p->nroutines && c->narcs == p->narcs && c->nworkers == p->nworkers);
    for (size_t i = 0; i < p->nroutines; i++) {
        const cprof_prof_routine *a = &p->routines[i], *b = &c->routines[i];
        CHECK(within(&a->s_caller, &b->s_caller) && within(&a->s_callee, &b->s_callee));
        CHECK(self_within(a->s_self_t, b->s_self_t) && b->s_direct == a->s_direct);
        for (size_t w = 0; w < p->nworkers; w++) {
            const cprof_prof_routine_worker *x = &a->worker[w], *y = &b->worker[w];
            CHECK(within(&x->c_caller, &y->c_caller) && within(&x->c_callee, &y->c_callee) &&
                  within(&x->cs_callee, &y->cs_callee) && within(&x->cc_callee, &y->cc_callee));
            CHECK(self_within(x->c_self_t, y->c_self_t) && y->c_direct == x->c_direct);
        }
    }
    /* Regions: the busy time has the calls made in it taken out, nothing else changes. */
    CHECK(c->nregions == p->nregions);
    for (size_t i = 0; i < p->nregions; i++)
        for (size_t w = 0; w < p->nworkers; w++) {
            const cprof_prof_region_worker *x = &p->regions[i].worker[w];
            const cprof_prof_region_worker *y = &c->regions[i].worker[w];
            CHECK(self_within(x->busy_t, y->busy_t) && y->executions == x->executions &&
                  y->barrier_wait == x->barrier_wait && y->end_wait == x->end_wait &&
                  y->max_busy == x->max_busy);
        }
    for (size_t i = 0; i < p->narcs; i++) {
        const cprof_prof_arc *a = &p->arcs[i], *b = &c->arcs[i];
        CHECK(a->caller == b->caller && a->callee == b->callee && a->nsites == b->nsites);
        CHECK(within(&a->s, &b->s) && within(&a->c, &b->c));
        for (size_t k = 0; k < a->nsites; k++) {
            const cprof_prof_site *x = &a->sites[k], *y = &b->sites[k];
            CHECK(within(&x->s, &y->s) && within(&x->c, &y->c));
        }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    open_tmp(&files[0], "cprof-fuzz-a");
    open_tmp(&files[1], "cprof-fuzz-b");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    cprof_profile one, comp, two;
    char *paths[2] = {files[0].path, files[0].path};

    /* 1. the file alone, plain and compensated */
    put(&files[0], data, size);
    int rc1 = load(&one, paths, 1, false, err, sizeof err);
    bool overflowed = rc1 && strstr(err, "overflow");
    if (!rc1) {
        CHECK(one.nranks <= 1);
        CHECK(!one.nranks || (one.ranks[0].first_worker == 0 &&
                              one.ranks[0].nworkers == one.nworkers && one.job));
        report(&one);
    }
    /* Compensation only lowers times: it fails where the plain load fails, except that
     * times whose sum overflowed may fit once lowered. */
    int rcc = load(&comp, paths, 1, true, err, sizeof err);
    if (!rc1) {
        CHECK(!rcc);
        check_compensated(&one, &comp);
    } else {
        CHECK(rcc || overflowed);
    }
    if (!rcc) {
        report(&comp);
        cprof_profile_free(&comp);
    }

    /* 2. the file twice */
    int rc2 = load(&two, paths, 2, false, err, sizeof err);
    if (rc1)
        CHECK(rc2);  /* a bad file stays bad */
    else if (one.nranks)
        CHECK(rc2 && strstr(err, " again (") != NULL);  /* a rank is in a job once */
    else if (rc2)
        CHECK(strstr(err, "overflow") != NULL);  /* only summing can fail */
    else {
        check_doubled(&one, &two);
        report(&two);
    }
    if (!rc1)
        cprof_profile_free(&one);
    if (!rc2)
        cprof_profile_free(&two);

    /* 3. two different files, if the input is a pair */
    const uint8_t *nul = memchr(data, 0, size);
    if (nul) {
        size_t na = (size_t)(nul - data);
        put(&files[0], data, na);
        put(&files[1], nul + 1, size - na - 1);
        paths[1] = files[1].path;
        if (!load(&two, paths, 2, true, err, sizeof err)) {
            CHECK(two.nfiles == 2);
            report(&two);
            cprof_profile_free(&two);
        }
    }
    return 0;
}
