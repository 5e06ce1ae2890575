/* profile.c: writing the profile file (docs/profile-format.md).
 *
 * The file is written as it is made (json.c: no document in memory), to a temporary
 * file beside the target, and renamed: a profile is complete or absent.  A target
 * that is not a regular file (/dev/null, a FIFO) is written directly.  A forked child
 * that did not exec shares the parent's counters up to the fork; it writes a profile
 * only when CPROF_OUT holds %p, so it never overwrites the parent's (it says so).  No
 * file another process wrote during this run (a child, a program this one ran, a run
 * beside it) is replaced: this process's goes to NAME.PID, in one line.
 *
 * The profile of the run is written once, as late as the program runs code cprof
 * compiled: at exit when the last unit unregisters, or by an at_quick_exit handler;
 * cprof_write() writes the profile so far on demand.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "profile.h"
#include "control.h"
#include "overhead.h"
#include "placement.h"
#include "resources.h"
#include "sizes.h"
#include "topology.h"
#include "trace.h"
#include "../../format/schema.h"
#include "../../format/version.h"

_Static_assert(CPROF_NCASES == CPROF_COLUMN_CASES, "the four cases, as the calls rows hold them");

static pid_t start_pid;
static void find_targets(void);
static struct cprof_costs facade_cost_ns;
static int exiting, written;
/* The run's last write, the only one that writes the trace (CPROF_TRACE): the trace is
 * complete then, every activation closed. */
static int final;

/* The profile of the whole run, once, with the activations still open closed now. */
void cprof_write_final(void)
{
    if (__atomic_exchange_n(&written, 1, __ATOMIC_SEQ_CST))
        return;
    cprof_close_open_frames();
    __atomic_store_n(&final, 1, __ATOMIC_SEQ_CST);
    cprof_write();
}

/* exit() has begun: the atexit handlers registered after this one have run, the
 * destructors have not.  Each unit's destructor comes after the other destructors of
 * its object, and objects are finalized after those that depend on them, so the last
 * unit to unregister is the end of the profiled program (units.c).  With no unit
 * loaded any more, nothing profiled can run: the profile is written now. */
static void at_exit(void)
{
    __atomic_store_n(&exiting, 1, __ATOMIC_SEQ_CST);
    if (!cprof_units_loaded())
        cprof_write_final();
}

void cprof_last_unit_gone(void)
{
    if (__atomic_load_n(&exiting, __ATOMIC_SEQ_CST))
        cprof_write_final();
}

void cprof_profile_start(void)
{
    facade_cost_ns = cprof_facade_cost_ns();
    cprof_facade_timing(facade_cost_ns.timed);
    start_pid = getpid();
    find_targets();
    /* Worker 0 is the initial thread whenever it is the one that starts the runtime,
     * even if another thread runs profiled code first. */
    if (gettid() == start_pid && !cprof_workers())
        cprof_worker_create(1);
    atexit(at_exit);
    /* quick_exit() runs no destructor; handlers run in reverse order of registration,
     * so the program's own, registered later, run before this one. */
    at_quick_exit(cprof_write_final);
}

/* The process's place in a job (docs/mpi.md): its host, and its MPI rank, the job's size
 * and the job's id as the launchers set them in the environment (Open MPI, MPICH's
 * Hydra and PMI, PMIx, Slurm); rank and size -1 and the id "" outside a job.  Read when
 * the profile is written, once for both its name and its header: the runtime makes no
 * MPI call. */
struct place {
    char host[256], job[256];
    long rank, size;
};

/* The first of the variables names that is set to a number >= 0, or -1. */
static long env_number(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        char *end;
        long n = v && *v ? strtol(v, &end, 10) : -1;
        if (v && *v && !*end && n >= 0)
            return n;
    }
    return -1;
}

/* The job's id, the same in every rank and different in every launch: PMIx's namespace
 * (Open MPI 4 and 5, srun --mpi=pmix, MPICH built with PMIx), Open MPI's job id (older
 * Open MPI), else Slurm's job and step (srun with PMI-2; a step is one launch).  MPICH's
 * Hydra without Slurm exports none: "", and cprof-report goes by the ranks' times. */
static void job_id(char *out, size_t size)
{
    static const char *const ids[] = { "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", 0 };
    out[0] = 0;
    for (const char *const *v = ids; *v; v++)
        if (getenv(*v) && *getenv(*v)) {
            snprintf(out, size, "%s", getenv(*v));
            return;
        }
    const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
    if (job && *job)
        snprintf(out, size, "%s.%s", job, step && *step ? step : "batch");
}

static void read_place(struct place *pl)
{
    static const char *const rank[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                        "SLURM_PROCID", 0 };
    static const char *const size[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", 0 };
    if (gethostname(pl->host, sizeof pl->host - 1) != 0)
        pl->host[0] = 0;
    pl->host[sizeof pl->host - 1] = 0;
    pl->rank = env_number(rank);
    pl->size = env_number(size);
    if (pl->rank >= 0)
        job_id(pl->job, sizeof pl->job);
    else
        pl->job[0] = 0;
}

/* A file name from the pattern variable var holds (CPROF_OUT, CPROF_TRACE_OUT): %p
 * becomes the pid, %r the MPI rank (-1 outside a job), %h the host name, %% a percent
 * sign; any other % is kept as it is, said once (*said).  Returns whether the name holds
 * the pid, -1 if it is too long. */
static int expand(const char *var, const char *pattern, char *out, size_t size,
                  const struct place *pl, int *said)
{
    int has_pid = 0;
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        char buf[32];
        const char *piece = buf;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(buf, sizeof buf, "%ld", (long)getpid());
            has_pid = 1;
            p++;
        } else if (p[0] == '%' && p[1] == 'r') {
            snprintf(buf, sizeof buf, "%ld", pl->rank);
            p++;
        } else if (p[0] == '%' && p[1] == 'h') {
            piece = pl->host;
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            strcpy(buf, "%");
            p++;
        } else {
            if (p[0] == '%' && !*said) {
                *said = 1;
                fprintf(stderr, "cprof: %s=%s: %%%c is not understood (%%p, %%r, %%h, %%%%): "
                                "kept as it is\n", var, pattern, p[1] ? p[1] : ' ');
            }
            buf[0] = *p;
            buf[1] = 0;
        }
        size_t len = strlen(piece);
        if (n + len >= size)
            return -1;
        memcpy(out + n, piece, len + 1);
        n += len;
    }
    return has_pid;
}

/* CPROF_OUT, or cprof.out (cprof.RANK.out in a job, so that ranks sharing a directory
 * never overwrite each other). */
static int output_path(char *out, size_t size, const struct place *pl)
{
    static int said;
    const char *pattern = getenv("CPROF_OUT");
    if (!pattern || !*pattern)
        pattern = pl->rank >= 0 ? "cprof.%r.out" : "cprof.out";
    return expand("CPROF_OUT", pattern, out, size, pl, &said);
}

/* The profile's and the trace's files (which: 0, 1) as the run found them at its start,
 * and as this process last wrote them: a file under the name that is neither was
 * written during the run by another process.  A forked child keeps its parent's view. */
enum { PROFILE, TRACE };
static struct target {
    char path[PATH_MAX];
    int existed;                    /* at the start */
    dev_t dev, wrote_dev;
    ino_t ino, wrote_ino;
    pid_t wrote_pid;                /* 0: never written */
} targets[2];

static void found(struct target *t, const char *path)
{
    struct stat st;
    snprintf(t->path, sizeof t->path, "%s", path);
    t->existed = stat(path, &st) == 0;
    if (t->existed)
        t->dev = st.st_dev, t->ino = st.st_ino;
}

static void remember(int which, const char *path)
{
    struct stat st;
    struct target *t = &targets[which];
    if (stat(path, &st) == 0)
        t->wrote_pid = getpid(), t->wrote_dev = st.st_dev, t->wrote_ino = st.st_ino;
}

/* path (room for size), unless the regular file there was written during this run by
 * another process (a forked child, a program this one ran, a run beside it): then
 * path.PID, said in one line.  The file the run found is the last run's, replaced as
 * it always is; a name the start did not give (%p in a child) is this process's. */
static void claim(int which, char *path, size_t size, const char *what)
{
    struct stat st;
    const struct target *t = &targets[which];
    if (strcmp(path, t->path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        (t->existed && st.st_dev == t->dev && st.st_ino == t->ino) ||
        (t->wrote_pid == getpid() && st.st_dev == t->wrote_dev && st.st_ino == t->wrote_ino))
        return;
    size_t n = strlen(path);
    snprintf(path + n, size - n, ".%ld", (long)getpid());
    fprintf(stderr, "cprof: %.*s was written by another process during this run (a child, a "
                    "program it ran, a run beside it): this %s goes to %s\n",
            (int)n, path, what, path);
}

/* The trace's name: CPROF_TRACE_OUT, expanded as CPROF_OUT is (*beside 0), else the
 * profile's with .trace; -1 if too long. */
static int trace_path(const char *profile, const struct place *pl, char *out, size_t size,
                      int *beside)
{
    static int said;
    const char *pattern = getenv("CPROF_TRACE_OUT");
    *beside = !pattern || !*pattern;
    if (*beside)
        return snprintf(out, size, "%s.trace", profile) < (int)size ? 0 : -1;
    return expand("CPROF_TRACE_OUT", pattern, out, size, pl, &said) < 0 ? -1 : 0;
}

/* At the start: the files the profile and the trace will go to, as they are now. */
static void find_targets(void)
{
    char path[PATH_MAX], trace[PATH_MAX];
    struct place pl;
    int beside;
    read_place(&pl);
    if (output_path(path, sizeof path, &pl) < 0)
        return;
    found(&targets[PROFILE], path);
    if (cprof_tracing() && trace_path(path, &pl, trace, sizeof trace, &beside) == 0)
        found(&targets[TRACE], trace);
}

static uint64_t ns(uint64_t ticks, double ns_per_tick)
{
    return (uint64_t)((double)ticks * ns_per_tick + 0.5);
}

/* The n columns described by cols (format/schema.h): times in ticks become ns. */
static void write_values(struct cprof_json *j, const uint64_t *v, const struct cprof_column *cols,
                         int n, double npt)
{
    for (int c = 0; c < n; c++)
        cprof_json_uint(j, cols[c].kind == CPROF_COL_TIME || cols[c].kind == CPROF_COL_SELF_TIME
                           ? ns(v[c], npt) : v[c]);
}

static void write_row(struct cprof_json *j, const uint64_t *v, const struct cprof_column *cols,
                      int n, double npt)
{
    cprof_json_begin(j, '[');
    write_values(j, v, cols, n, npt);
    cprof_json_end(j, ']');
}

/* What a worker's figures add up to for one routine, per side (sequential,
 * concurrent entries): its entries, the time of its outermost activations (paper
 * 4.4.1) and the calls nested in them, its self time and direct calls, and the
 * concurrent activations outermost on their thread only (struct cprof_side); and the
 * activations it timed. */
struct routine_sums {
    uint64_t entries[2];
    struct cprof_side side[2];
    uint64_t timed;
};

/* Adds the figures of a record (its own and its contexts', less what a reset or stop
 * took out) to its routine's sums.  A callee entered from a site is concurrent unless
 * the case is S-S. */
static void add_figures(struct routine_sums *sum, const struct cprof_call_rec *c)
{
    for (int k = 0; k < CPROF_NCASES; k++) {
        int side = k != CPROF_SS;
        struct cprof_side *s = &sum->side[side];
        sum->entries[side] += c->count[k] + c->untimed[k];
        s->time += c->time[k] - c->rec_time[k] - c->thread_time[k];
        s->nested += c->nested[k] - c->rec_nested[k] - c->thread_nested[k];
        s->thread_time += c->thread_time[k];
        s->thread_nested += c->thread_nested[k];
        s->self_time += c->self[k];
        s->direct += c->direct[k];
        sum->timed += c->count[k];
    }
}

/* ---- sampled timing (docs/semantics.md, "Sampled timing") ---- */

/* The figures of a sampled row as the profile gives them: the time of each sampled
 * case the estimate, the timed activations' time as it is and, for each untimed call,
 * the sample's mean (the short timed ones') less what an untimed call saves
 * (cprof_timing.correction_ns, in ticks here), never below 0.  The other figures are
 * the timed ones': a short activation is outermost and makes no call (facade.c).  No
 * sample (a reset since): the timed time as it is. */
static double correction_ticks, site_correction_ticks;
/* Which sites count their untimed calls (site->leaf), by site id, while the profile is
 * written: their calls' correction is site_correction_ticks (the first call in each
 * context takes the facade's untimed path, which costs untimed_ns: not told apart). */
static unsigned char *leaf_sites;
static int nleaf_sites;

/* A reset takes the sample's sums out of no figure (docs/semantics.md): they are
 * bounded by the timed activations' since. */
static void sample_of(const struct cprof_figures *f, int k, uint64_t *n, uint64_t *sum)
{
    *n = f->sample_n[k] < f->count[k] ? f->sample_n[k] : f->count[k];
    *sum = f->sample_sum[k] < f->time[k] ? f->sample_sum[k] : f->time[k];
}

static void estimate(struct cprof_figures *f, int site)
{
    double correction = site >= 0 && site < nleaf_sites && leaf_sites[site] ? site_correction_ticks
                                                                             : correction_ticks;
    for (int k = 0; k < CPROF_NCASES; k++) {
        uint64_t n, sum;
        sample_of(f, k, &n, &sum);
        if (!f->untimed[k] || !n)
            continue;
        double per_call = (double)sum / (double)n - correction;
        if (per_call > 0)
            f->time[k] += (uint64_t)(per_call * (double)f->untimed[k] + 0.5);
    }
}

static int has_untimed(const struct cprof_figures *f)
{
    return (f->untimed[0] | f->untimed[1] | f->untimed[2] | f->untimed[3]) != 0;
}

/* A context's figures now (less what a reset took out), estimates in place of the
 * time of its sampled cases, less what its parent's measured time could not hold
 * (lower: per context and case, struct tree; null: none yet). */
static const struct cprof_node *node_est(const struct cprof_node *n, struct cprof_node *scratch,
                                         const uint64_t (*lower)[CPROF_NCASES], int nlower)
{
    const struct cprof_node *now = cprof_node_now(n, scratch);
    if (!has_untimed(&now->fig))
        return now;
    if (now != scratch)
        *scratch = *now;
    estimate(&scratch->fig, n->key ? n->key->site : -1);
    if (lower && n->id < nlower)
        for (int k = 0; k < CPROF_NCASES; k++)
            scratch->time[k] -= lower[n->id][k];
    return scratch;
}

/* What a record counted outside its contexts (past the node limit, or with none). */
static void record_own(const struct cprof_call_rec *c, const struct cprof_call_rec *now,
                       struct cprof_figures *own)
{
    *own = now->fig;
    uint64_t *o = (uint64_t *)own->count;
    for (struct cprof_node *n = cprof_published(((struct cprof_call_rec *)c)->nodes); n;
         n = n->same_key) {
        struct cprof_node scratch;
        const uint64_t *v = (const uint64_t *)cprof_node_now(n, &scratch)->count;
        for (int i = 0; i <= CPROF_FIG_UNTIMED * CPROF_NCASES + CPROF_NCASES - 1; i++)
            o[i] -= v[i];
    }
    memcpy(own->sample_n, c->sample_n, sizeof own->sample_n);
    memcpy(own->sample_sum, c->sample_sum, sizeof own->sample_sum);
    memcpy(own->sq, c->sq, sizeof own->sq);
}

/* A record's figures now, its own and its contexts', each part's sampled cases
 * estimated apart: a calls row is the sum of its paths rows, as without sampling. */
static const struct cprof_call_rec *call_est(const struct cprof_call_rec *c,
                                             struct cprof_call_rec *scratch,
                                             const uint64_t (*lower)[CPROF_NCASES], int nlower)
{
    const struct cprof_call_rec *now = cprof_call_now(c, scratch);
    if (!cprof_timing.sampled)
        return now;
    struct cprof_figures own, part;
    record_own(c, now, &own);
    uint64_t sum[CPROF_NFIGS * CPROF_NCASES] = { 0 };
    part = own;
    estimate(&part, c->site);
    for (int i = 0; i < CPROF_NFIGS * CPROF_NCASES; i++)
        sum[i] += ((uint64_t *)part.count)[i];
    for (struct cprof_node *n = cprof_published(((struct cprof_call_rec *)c)->nodes); n;
         n = n->same_key) {
        struct cprof_node ns;
        const uint64_t *v = (const uint64_t *)node_est(n, &ns, lower, nlower)->count;
        for (int i = 0; i < CPROF_NFIGS * CPROF_NCASES; i++)
            sum[i] += v[i];
    }
    if (now != scratch)
        *scratch = *now;
    memcpy(scratch->count, sum, sizeof sum);
    return scratch;
}

/* The sampled rows of figures f (raw: not estimated) of callee, site and paths row
 * path - 1 (0: a record's own). */
static void write_sampled_of(struct cprof_json *j, const struct cprof_figures *f, int callee,
                             int site, int path, double npt)
{
    for (int k = 0; k < CPROF_NCASES; k++) {
        uint64_t n, sum;
        sample_of(f, k, &n, &sum);
        if (!f->untimed[k])
            continue;
        uint64_t v[CPROF_SAMPLED_NCOLUMNS] = {
            [CPROF_S_CALLEE] = (uint64_t)callee, [CPROF_S_SITE] = (uint64_t)site,
            [CPROF_S_PATH] = (uint64_t)path, [CPROF_S_CASE] = (uint64_t)k,
            [CPROF_S_CALLS] = f->count[k] + f->untimed[k], [CPROF_S_TIMED] = n,
            [CPROF_S_TIMED_TIME] = sum, [CPROF_S_EXACT] = f->count[k] - n,
            [CPROF_S_EXACT_TIME] = f->time[k] - sum,
        };
        cprof_json_begin(j, '[');
        write_values(j, v, cprof_sampled_columns, CPROF_S_TIMED_SQ, npt);
        cprof_json_real(j, f->sq[k] * npt * npt);
        write_values(j, v + CPROF_S_EXACT, cprof_sampled_columns + CPROF_S_EXACT,
                     CPROF_SAMPLED_NCOLUMNS - CPROF_S_EXACT, npt);
        cprof_json_end(j, ']');
    }
}

/* The worker's records, oldest first (the order they were made in), and how many. */
static struct cprof_call_rec **records_of(struct cprof_worker *w, size_t *n, size_t *size)
{
    *n = 0;
    struct cprof_call_rec *head = cprof_published(w->records);
    for (struct cprof_call_rec *c = head; c; c = c->made_next)
        ++*n;
    *size = (*n ? *n : 1) * sizeof(struct cprof_call_rec *);
    struct cprof_call_rec **all = cprof_alloc(*size);
    size_t i = *n;
    for (struct cprof_call_rec *c = head; c; c = c->made_next)
        all[--i] = c;
    return all;
}

/* A resource whose samples the contexts hold: the paths rows have its columns. */
/* Input sizes (sizes.c) are linked and kept this run. */
static int sizes_kept(void)
{
    return cprof_sizes_kept && cprof_sizes_kept();
}

static int charged(const struct cprof_resource *r)
{
    return r->sampled && r->available;
}

/* The routines' flags (CPROF_ROUTINE_*), by id, as the tables had them. */
struct routine_flags {
    const int *flags;
    int n;
};

/* A worker's calling contexts by id, and each one's self time and direct calls
 * (docs/semantics.md, "Calling contexts"): the time of the activations whose calls
 * hang from it (its own and the recursive ones folded into it) less that of its call
 * children, plus what the tree does not show (cprof_node.adj); on the way, the same
 * for the routines' sides. */
struct tree {
    int n;
    struct cprof_node **by_id;
    uint64_t (*self)[2];
    uint64_t (*lower)[CPROF_NCASES];    /* sampled timing: taken from a context's estimate */
    int *first, *next;              /* a context's first child, and its next sibling */
    size_t by_id_size, self_size, lower_size, links_size;
};

/* Whether the activations of routine id are timed (not counted at their sites): their
 * calls are direct calls of their caller. */
static int timed_routine(const struct routine_flags *rf, int id)
{
    return !(id < rf->n && (rf->flags[id] & CPROF_ROUTINE_COUNTED));
}

static void tree_side(struct routine_sums *sums, int cap, int routine, int side, uint64_t self,
                      uint64_t direct)
{
    if (routine >= 0 && routine < cap) {
        sums[routine].side[side].self_time += self;
        sums[routine].side[side].direct += direct;
    }
}

/* A self time, which only estimates can take below 0 (sampled timing: where lowering
 * them could not make up the difference): 0. */
static uint64_t not_below_0(uint64_t self)
{
    return cprof_timing.sampled && (int64_t)self < 0 ? 0 : self;
}

/* The time of context id's children, estimates in place of their sampled cases'. */
static uint64_t children_est(struct tree *t, int id)
{
    uint64_t sum = 0;
    for (int c = t->first[id]; c; c = t->next[c]) {
        struct cprof_node a;
        const struct cprof_node *est = node_est(t->by_id[c], &a, t->lower, t->n);
        for (int k = 0; k < CPROF_NCASES; k++)
            sum += est->time[k];
    }
    return sum;
}

/* Sampled timing (docs/semantics.md): an estimate of an untimed call is its sample's
 * mean, which may exceed what the call took around its caller's measured time.  A
 * context whose children's times exceed its own (a routine's: its self time below 0; a
 * construct's body on this worker: its measured time) has its children's estimates
 * lowered, each by its share of their excess over their timed time, by the difference
 * (never below their timed time): measured times are never changed, and a routine's
 * self time is never below 0.  Parents before children (ids grow downwards), so that a
 * lowered child's own children are seen after. */
static void tree_lower(struct tree *t, struct routine_sums *sums, int cap)
{
    if (!cprof_timing.sampled)
        return;
    for (int id = 1; id < t->n; id++) {
        const struct cprof_node *parent = t->by_id[id];
        int caller = parent->key ? parent->key->callee : -1, body = parent->key && caller < 0;
        uint64_t d, excess = 0, given = 0;
        if (body) {
            if ((int64_t)t->self[id][0] < 0)
                t->self[id][0] = 0;     /* not below 0, estimates or not */
            struct cprof_node b;
            const struct cprof_node *raw = cprof_node_now(parent, &b);
            uint64_t measured = raw->time[0] + raw->time[1] + raw->time[2] + raw->time[3];
            uint64_t kids = children_est(t, id);
            if (kids <= measured)
                continue;
            d = kids - measured;
        } else {
            if ((int64_t)t->self[id][0] >= 0)
                continue;
            d = -t->self[id][0];
        }
        /* each sampled child's excess: its estimate less its timed time, per case */
        for (int c = t->first[id]; c; c = t->next[c]) {
            struct cprof_node a, b;
            const struct cprof_node *est = node_est(t->by_id[c], &a, t->lower, t->n);
            const struct cprof_node *raw = cprof_node_now(t->by_id[c], &b);
            for (int k = 0; k < CPROF_NCASES; k++)
                excess += est->time[k] - raw->time[k];
        }
        if (!excess || (caller < 0 && !body)) {
            if (!body)
                t->self[id][0] = 0;     /* no estimate to lower: not below 0 all the same */
            continue;
        }
        uint64_t take = d < excess ? d : excess;
        for (int c = t->first[id]; c; c = t->next[c]) {
            struct cprof_node a, b;
            const struct cprof_node *est = node_est(t->by_id[c], &a, t->lower, t->n);
            const struct cprof_node *raw = cprof_node_now(t->by_id[c], &b);
            int routine = t->by_id[c]->key->callee, canon = t->by_id[c]->canon->id;
            for (int k = 0; k < CPROF_NCASES; k++) {
                uint64_t e = est->time[k] - raw->time[k];
                uint64_t r = (uint64_t)((double)take * (double)e / (double)excess + 0.5);
                if (r > e)
                    r = e;
                if (r > take - given)
                    r = take - given;
                given += r;
                t->lower[c][k] += r;
                t->self[canon][0] -= r;
                tree_side(sums, cap, routine, k != CPROF_SS, -r, 0);
                /* A body's own time is its opener's, which its children's times were
                 * never taken from (omp.c): only a routine's self time gives. */
                if (!body) {
                    t->self[id][0] += r;
                    tree_side(sums, cap, caller, k >= CPROF_CS, r, 0);
                }
            }
        }
        if (!body && (int64_t)t->self[id][0] < 0)
            t->self[id][0] = 0;
    }
}

/* The tree as the writer reads it: contexts made meanwhile (ids past the head's) are
 * left out, as their counts would be. */
static void tree_make(struct tree *t, struct cprof_worker *w, struct routine_sums *sums, int cap,
                      const struct routine_flags *rf)
{
    struct cprof_node *head = cprof_published(w->nodes);
    t->n = head ? head->id + 1 : 0;
    t->by_id_size = (size_t)(t->n ? t->n : 1) * sizeof *t->by_id;
    t->self_size = (size_t)(t->n ? t->n : 1) * sizeof *t->self;
    t->lower_size = (size_t)(t->n ? t->n : 1) * sizeof *t->lower;
    t->links_size = (size_t)(t->n ? t->n : 1) * sizeof(int);
    t->by_id = cprof_alloc(t->by_id_size);
    t->self = cprof_alloc(t->self_size);
    t->lower = cprof_alloc(t->lower_size);
    t->first = cprof_alloc(t->links_size);
    t->next = cprof_alloc(t->links_size);
    for (struct cprof_node *n = head; n; n = n->made_next)
        t->by_id[n->id] = n;
    for (int id = 1; id < t->n; id++) {
        struct cprof_node scratch;
        const struct cprof_node *n = node_est(t->by_id[id], &scratch, 0, 0);
        const struct cprof_node *parent = t->by_id[id]->parent, *canon = t->by_id[id]->canon;
        t->self[id][0] += n->adj[CPROF_ADJ_SELF_S] + n->adj[CPROF_ADJ_SELF_C] + n->adj[CPROF_ADJ_SELF];
        t->self[id][1] += n->adj[CPROF_ADJ_DIRECT_S] + n->adj[CPROF_ADJ_DIRECT_C] +
                          n->adj[CPROF_ADJ_DIRECT];
        int routine = n->key ? n->key->callee : -1;
        for (int side = 0; side < 2; side++)
            tree_side(sums, cap, routine, side, n->adj[CPROF_ADJ_SELF_S + side],
                      n->adj[CPROF_ADJ_DIRECT_S + side]);
        if (routine < 0)
            continue;       /* <other>, or a construct's: its bodies said it (adj) */
        /* Its activations: self time where their calls hang; and children of the
         * activation they were called from, if the tree has it. */
        int caller = parent->key ? parent->key->callee : -1, timed = timed_routine(rf, routine);
        /* A child of a routine's context, or of a construct's body (tree_lower) */
        if (parent->key) {
            t->next[id] = t->first[parent->id];
            t->first[parent->id] = id;
        }
        for (int k = 0; k < CPROF_NCASES; k++) {
            t->self[canon->id][0] += n->time[k];
            tree_side(sums, cap, routine, k != CPROF_SS, n->time[k], 0);
            if (caller < 0)
                continue;
            uint64_t calls = timed ? n->count[k] : 0;
            t->self[parent->id][0] -= n->time[k];
            t->self[parent->id][1] += calls;
            tree_side(sums, cap, caller, k >= CPROF_CS, -n->time[k], calls);
        }
    }
    /* A snapshot while activations are open (cprof_write): their calls that closed are
     * children in the tree, their own time is not there yet.  What they had counted
     * is given back (another thread's frames as they are read). */
    struct cprof_frame *top = __atomic_load_n(&w->top, __ATOMIC_ACQUIRE);
    for (struct cprof_frame *f = w->stack + 1; f < top; f++) {
        if (!cprof_tree_frame(f) || f->ctx->id >= t->n)
            continue;
        int side = cprof_frame_side(w, f), id = f->ctx->id;
        uint64_t open_child = f + 1 < top && f[1].ctx && f[1].ctx->key && f[1].ctx->key->callee >= 0;
        t->self[id][0] += f->children;
        t->self[id][1] -= f->direct + open_child;
        tree_side(sums, cap, f->ctx->key->callee, side, f->children, -(f->direct + open_child));
    }
    tree_lower(t, sums, cap);
}

static void tree_free(struct tree *t)
{
    cprof_free(t->lower, t->lower_size);
    cprof_free(t->first, t->links_size);
    cprof_free(t->next, t->links_size);
    cprof_free(t->self, t->self_size);
    cprof_free(t->by_id, t->by_id_size);
}

/* The worker's calling contexts, in the order they were made: a parent before its
 * children, and the row of context id is id - 1 (the root, id 0, is not written). */
static void write_paths(struct cprof_json *j, const struct tree *t, double npt)
{
    const struct cprof_resource *res;
    int nres = cprof_resources(&res);
    cprof_json_key(j, "paths");
    cprof_json_begin(j, '[');
    for (int id = 1; id < t->n; id++) {
        struct cprof_node scratch;
        const struct cprof_node *n = node_est(t->by_id[id], &scratch, t->lower, t->n);
        const struct cprof_call_rec *key = n->key;
        int construct = key && key->callee < 0;
        int kind = !key ? CPROF_PATH_OTHER
                 : construct ? (((const struct cprof_construct_rec *)key)->kind == CPROF_REGION_TASK
                                    ? CPROF_PATH_TASK : CPROF_PATH_REGION)
                 : key == &key->rec->ext ? CPROF_PATH_OUTSIDE : CPROF_PATH_CALL;
        uint64_t v[CPROF_PATH_NCOLUMNS] = {
            [CPROF_P_KIND] = (uint64_t)kind,
            [CPROF_P_PARENT] = (uint64_t)n->parent->id,
            [CPROF_P_FOLDS] = n->canon == t->by_id[id] ? 0 : (uint64_t)n->canon->id,
            [CPROF_P_SITE] = construct ? (uint64_t)(key->site + 1)
                           : kind == CPROF_PATH_CALL ? (uint64_t)key->site : 0,
            [CPROF_P_CALLEE] = key && !construct ? (uint64_t)key->callee : 0,
        };
        for (int k = 0; k < CPROF_NCASES; k++) {
            v[CPROF_P_OF(CPROF_C_CALLS(k))] = n->count[k] + n->untimed[k];
            v[CPROF_P_OF(CPROF_C_TIME(k))] = n->time[k];
            v[CPROF_P_OF(CPROF_C_NESTED(k))] = n->nested[k];
            v[CPROF_P_OF(CPROF_C_REC_TIME(k))] = n->rec_time[k];
            v[CPROF_P_OF(CPROF_C_REC_NESTED(k))] = n->rec_nested[k];
        }
        v[CPROF_P_SELF_TIME] = t->self[id][0];
        v[CPROF_P_SELF_DIRECT] = t->self[id][1];
        cprof_json_begin(j, '[');
        write_values(j, v, cprof_path_columns, CPROF_PATH_NCOLUMNS, npt);
        for (int i = 0; i < nres; i++)
            if (charged(&res[i])) {
                cprof_json_uint(j, cprof_node_samples(t->by_id[id], 2 * i));
                cprof_json_uint(j, cprof_node_samples(t->by_id[id], 2 * i + 1));
            }
        cprof_json_end(j, ']');
    }
    cprof_json_end(j, ']');
}

/* The worker's "sampled" rows: its contexts' (paths rows), then its records' own. */
static void write_sampled(struct cprof_json *j, const struct tree *t,
                          struct cprof_call_rec **records, size_t nrecords, double npt)
{
    if (!cprof_timing.sampled)
        return;
    cprof_json_key(j, CPROF_SECTION_SAMPLED);
    cprof_json_begin(j, '[');
    for (int id = 1; id < t->n; id++) {
        struct cprof_node scratch;
        const struct cprof_node *n = cprof_node_now(t->by_id[id], &scratch);
        if (n->key && n->key->callee >= 0 && has_untimed(&n->fig))
            write_sampled_of(j, &n->fig, n->key->callee, n->key->site, id, npt);
    }
    for (size_t i = 0; i < nrecords; i++) {
        struct cprof_call_rec scratch;
        const struct cprof_call_rec *now = cprof_call_now(records[i], &scratch);
        if (!has_untimed(&now->fig))
            continue;
        struct cprof_figures own;
        record_own(records[i], now, &own);
        write_sampled_of(j, &own, records[i]->callee, records[i]->site, 0, npt);
    }
    cprof_json_end(j, ']');
}

/* The "resources" section of a worker: for each resource, its total on the worker
 * (null without a counter) and the samples outside any profiled activation. */
static void write_worker_resources(struct cprof_json *j, struct cprof_worker *w)
{
    const struct cprof_resource *res;
    int nres = cprof_resources(&res);
    if (!nres)
        return;
    cprof_json_key(j, CPROF_SECTION_RESOURCES);
    cprof_json_begin(j, '[');
    for (int i = 0; i < nres; i++) {
        int ok;
        uint64_t total = cprof_resource_read(w, i, &ok);
        cprof_json_begin(j, '[');
        if (ok)
            cprof_json_uint(j, total - w->res_base[i]);
        else
            cprof_json_null(j);
        cprof_json_uint(j, cprof_node_samples(w->root, 2 * i));
        cprof_json_uint(j, cprof_node_samples(w->root, 2 * i + 1));
        cprof_json_end(j, ']');
    }
    cprof_json_end(j, ']');
}

/* Whether any worker ran or opened a parallel region or a task. */
static int any_regions(void)
{
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next)
        if (w->construct_list)
            return 1;
    return 0;
}

/* The "regions" section of a worker: its figures of each construct, oldest first. */
static void write_regions(struct cprof_json *j, struct cprof_construct_rec *c, double npt)
{
    if (!c)
        return;
    write_regions(j, c->next, npt);
    struct cprof_call_rec scratch;
    const struct cprof_call_rec *k = cprof_call_now(&c->key, &scratch);
    uint64_t executions = 0, time = 0, nested = 0;
    for (int i = 0; i < CPROF_NCASES; i++) {
        executions += k->count[i];
        time += k->time[i];
        nested += k->nested[i];
    }
    if (!executions && c->sum.opened == c->base.opened)
        return;     /* a step of another worker's path, made here (or all reset) */
    /* What a reset did not take out (end_wait is another thread's to add to). */
    struct cprof_construct_sums m = c->sum, b = c->base;
    m.end_wait = __atomic_load_n(&c->sum.end_wait, __ATOMIC_RELAXED);
    m.end_tasks = __atomic_load_n(&c->sum.end_tasks, __ATOMIC_RELAXED);
    time += m.end_tasks - b.end_tasks;
    uint64_t barrier_wait = m.barrier_wait - b.barrier_wait;
    uint64_t off = barrier_wait + (m.tasks_inside - b.tasks_inside);
    uint64_t v[CPROF_REGION_NCOLUMNS] = {
        [CPROF_G_CONSTRUCT] = (uint64_t)(c->key.site + 1),
        [CPROF_G_KIND] = (uint64_t)c->kind,
        [CPROF_G_EXECUTIONS] = executions,
        [CPROF_G_BUSY] = time > off ? time - off : 0,
        [CPROF_G_NESTED] = nested,
        [CPROF_G_BARRIERS] = m.barriers - b.barriers,
        [CPROF_G_BARRIER_WAIT] = barrier_wait,
        [CPROF_G_END_WAIT] = m.end_wait - b.end_wait,
        [CPROF_G_TEAM_MIN] = c->team_max ? (uint64_t)c->team_min : 0,
        [CPROF_G_TEAM_MAX] = (uint64_t)c->team_max,
        [CPROF_G_TEAM_SUM] = m.team_sum - b.team_sum,
        [CPROF_G_OPENED] = m.opened - b.opened,
        [CPROF_G_MAX_BUSY] = m.max_busy - b.max_busy,
        [CPROF_G_MEAN_BUSY] = m.mean_busy - b.mean_busy,
    };
    write_row(j, v, cprof_region_columns, CPROF_REGION_NCOLUMNS, npt);
}

static void write_worker_regions(struct cprof_json *j, struct cprof_worker *w, double npt)
{
    if (!any_regions())
        return;
    cprof_json_key(j, CPROF_SECTION_REGIONS);
    cprof_json_begin(j, '[');
    write_regions(j, w->construct_list, npt);
    cprof_json_end(j, ']');
}

/* The trace file the profile refers to, or none (path null), and the one rate both
 * convert ticks to ns with. */
struct trace_file {
    const char *path;
    int beside;                     /* named by its base name, beside the profile */
    uint64_t bytes;
    double npt;
};

static void write_worker(struct cprof_json *j, struct cprof_worker *w, double npt,
                         const struct trace_file *tf, const struct routine_flags *rf)
{
    pthread_mutex_lock(&w->lock);
    cprof_json_begin(j, '{');
    cprof_json_field_int(j, "id", w->id);
    cprof_json_field_int(j, "tid", w->tid);
    cprof_json_field_int(j, "omp_thread", w->omp_thread);
    int pu = cprof_placement_main_pu(w);
    cprof_json_field_int(j, "pu", pu);
    cprof_json_field_int(j, "core", cprof_topology_core_of(pu));
    cprof_placement_write_worker(j, w, npt);
    cprof_json_key(j, "routines");
    cprof_json_begin(j, '[');
    int cap = cprof_published(w->routines_cap);
    struct cprof_routine_rec **routines = cprof_published(w->routines);
    size_t sums_size = (cap ? (size_t)cap : 1) * sizeof(struct routine_sums);
    struct routine_sums *sums = cprof_alloc(sums_size);
    size_t nrecords, records_size;
    struct cprof_call_rec **records = records_of(w, &nrecords, &records_size);
    struct tree tree;
    tree_make(&tree, w, sums, cap, rf);
    for (size_t i = 0; i < nrecords; i++) {
        struct cprof_call_rec scratch;
        const struct cprof_call_rec *c = call_est(records[i], &scratch, tree.lower, tree.n);
        if (c->callee < cap)
            add_figures(&sums[c->callee], c);
    }
    for (int i = 0; i < cap; i++) {
        struct cprof_routine_rec *at = cprof_published(routines[i]);
        if (!at)
            continue;
        struct cprof_routine_rec scratch;
        const struct cprof_routine_rec *r = cprof_routine_now(at, &scratch);
        struct routine_sums *sum = &sums[i];
        struct cprof_call_rec ext_scratch;
        const struct cprof_call_rec *x = call_est(&at->ext, &ext_scratch, tree.lower, tree.n);
        add_figures(sum, x);
        const struct cprof_side *team = &r->side[CPROF_SIDE_TEAM];
        /* A worker that only ran a routine's team's bodies has a row for their time. */
        if (!(sum->entries[0] | sum->entries[1] | team->time))
            continue;
        /* Its activations nested in one of its own are kept; a timed routine that
         * opened any has its outermost ones, depth 1. */
        int timed = cprof_clock != CPROF_CLOCK_NONE && sum->timed &&
                    !(i < rf->n && (rf->flags[i] & CPROF_ROUTINE_COUNTED));
        const struct cprof_side *ss = &sum->side[0], *cs = &sum->side[1];
        uint64_t v[CPROF_ROUTINE_NCOLUMNS] = {
            [CPROF_R_ROUTINE] = (uint64_t)i,
            [CPROF_R_S_ENTRIES] = sum->entries[0], [CPROF_R_S_TIME] = ss->time,
            [CPROF_R_C_ENTRIES] = sum->entries[1], [CPROF_R_C_TIME] = cs->time,
            [CPROF_R_MAX_DEPTH] = (uint64_t)(r->max_depth ? r->max_depth : timed),
            [CPROF_R_S_EXT] = x->count[CPROF_SS] + x->untimed[CPROF_SS],
            [CPROF_R_S_EXT_TIME] = x->time[CPROF_SS],
            [CPROF_R_C_EXT] = x->count[CPROF_CS] + x->untimed[CPROF_CS],
            [CPROF_R_C_EXT_TIME] = x->time[CPROF_CS],
            [CPROF_R_S_SELF] = not_below_0(ss->self_time), [CPROF_R_C_SELF] = not_below_0(cs->self_time),
            [CPROF_R_S_NESTED] = ss->nested, [CPROF_R_C_NESTED] = cs->nested,
            [CPROF_R_S_EXT_NESTED] = x->nested[CPROF_SS], [CPROF_R_C_EXT_NESTED] = x->nested[CPROF_CS],
            [CPROF_R_S_DIRECT] = ss->direct, [CPROF_R_C_DIRECT] = cs->direct,
            [CPROF_R_C_THREAD_TIME] = cs->thread_time,
            [CPROF_R_C_THREAD_NESTED] = cs->thread_nested,
            [CPROF_R_S_EXT_REC_TIME] = x->rec_time[CPROF_SS],
            [CPROF_R_C_EXT_REC_TIME] = x->rec_time[CPROF_CS],
            [CPROF_R_S_EXT_REC_NESTED] = x->rec_nested[CPROF_SS],
            [CPROF_R_C_EXT_REC_NESTED] = x->rec_nested[CPROF_CS],
            [CPROF_R_TEAM_TIME] = team->time, [CPROF_R_TEAM_SELF] = team->self_time,
            [CPROF_R_TEAM_NESTED] = team->nested, [CPROF_R_TEAM_DIRECT] = team->direct,
        };
        write_row(j, v, cprof_routine_columns, CPROF_ROUTINE_NCOLUMNS, npt);
    }
    cprof_free(sums, sums_size);
    cprof_json_end(j, ']');
    cprof_json_key(j, "calls");
    cprof_json_begin(j, '[');
    for (size_t i = 0; i < nrecords; i++) {
        struct cprof_call_rec scratch;
        const struct cprof_call_rec *c = call_est(records[i], &scratch, tree.lower, tree.n);
        uint64_t v[CPROF_CALL_NCOLUMNS] = {
            [CPROF_C_SITE] = (uint64_t)c->site, [CPROF_C_CALLEE] = (uint64_t)c->callee,
        };
        for (int k = 0; k < CPROF_NCASES; k++) {
            v[CPROF_C_CALLS(k)] = c->count[k] + c->untimed[k];
            v[CPROF_C_TIME(k)] = c->time[k];
            v[CPROF_C_NESTED(k)] = c->nested[k];
            v[CPROF_C_REC_TIME(k)] = c->rec_time[k];
            v[CPROF_C_REC_NESTED(k)] = c->rec_nested[k];
        }
        write_row(j, v, cprof_call_columns, CPROF_CALL_NCOLUMNS, npt);
    }
    cprof_json_end(j, ']');
    write_paths(j, &tree, npt);
    write_sampled(j, &tree, records, nrecords, npt);
    cprof_free(records, records_size);
    tree_free(&tree);
    write_worker_resources(j, w);
    write_worker_regions(j, w, npt);
    if (tf->path)
        cprof_trace_worker(j, w);
    if (sizes_kept())
        cprof_sizes_write_worker(j, w, npt);
    cprof_json_end(j, '}');
    pthread_mutex_unlock(&w->lock);
}

/* The newest-first worker list, oldest first: the file lists workers by id. */
static void write_workers(struct cprof_json *j, struct cprof_worker *w, double npt,
                          const struct trace_file *tf, const struct routine_flags *rf)
{
    if (!w)
        return;
    write_workers(j, w->next, npt, tf, rf);
    write_worker(j, w, npt, tf, rf);
}

static void write_place(struct cprof_json *j, const struct place *pl)
{
    cprof_json_field_string(j, "host", pl->host);
    cprof_json_field_int(j, "rank", pl->rank);
    cprof_json_field_int(j, "size", pl->size);
}

static void write_names(struct cprof_json *j, const char *key, const struct cprof_column *cols,
                        int n)
{
    cprof_json_key(j, key);
    cprof_json_begin(j, '[');
    for (int c = 0; c < n; c++)
        cprof_json_string(j, cols[c].name);
    cprof_json_end(j, ']');
}

/* What the workers' rows hold, by name (docs/profile-format.md, version 2): their
 * columns, the metric of their times, and the sections beyond version 2's first layout
 * (the job's id). */
static void write_section(struct cprof_json *j, const char *name)
{
    cprof_json_begin(j, '{');
    cprof_json_field_string(j, "name", name);
    cprof_json_key(j, "required");
    cprof_json_bool(j, 0);
    cprof_json_end(j, '}');
}

static void write_layout(struct cprof_json *j, const struct trace_file *tf,
                         const struct cprof_unprofiled *unprofiled)
{
    const struct cprof_resource *res;
    int nres = cprof_resources(&res);
    cprof_json_key(j, "columns");
    cprof_json_begin(j, '{');
    write_names(j, "routines", cprof_routine_columns, CPROF_ROUTINE_NCOLUMNS);
    write_names(j, "calls", cprof_call_columns, CPROF_CALL_NCOLUMNS);
    if (cprof_timing.sampled)
        write_names(j, CPROF_SECTION_SAMPLED, cprof_sampled_columns, CPROF_SAMPLED_NCOLUMNS);
    if (any_regions())
        write_names(j, CPROF_SECTION_REGIONS, cprof_region_columns, CPROF_REGION_NCOLUMNS);
    cprof_json_key(j, "paths");
    cprof_json_begin(j, '[');
    for (int c = 0; c < CPROF_PATH_NCOLUMNS; c++)
        cprof_json_string(j, cprof_path_columns[c].name);
    for (int i = 0; i < nres; i++)
        for (int side = 0; side < 2 && charged(&res[i]); side++) {
            char name[64];
            snprintf(name, sizeof name, CPROF_SAMPLES_COLUMN, side ? 'c' : 's', res[i].name);
            cprof_json_string(j, name);
        }
    cprof_json_end(j, ']');
    cprof_json_end(j, '}');
    cprof_json_key(j, "metrics");
    cprof_json_begin(j, '[');
    cprof_json_begin(j, '{');
    cprof_json_field_string(j, "name", "time");
    cprof_json_field_string(j, "unit", "ns");
    cprof_json_end(j, '}');
    cprof_json_end(j, ']');
    cprof_json_key(j, "sections");
    cprof_json_begin(j, '[');
    write_section(j, CPROF_SECTION_JOB);
    write_section(j, CPROF_SECTION_OPENMP);
    write_section(j, CPROF_SECTION_TOPOLOGY);
    write_section(j, CPROF_SECTION_PLACEMENT);
    if (any_regions())
        write_section(j, CPROF_SECTION_REGIONS);
    if (nres)
        write_section(j, CPROF_SECTION_RESOURCES);
    if (tf->path)
        write_section(j, CPROF_SECTION_TRACE);
    if (sizes_kept())
        write_section(j, CPROF_SECTION_SIZES);
    const struct cprof_unit *units;
    cprof_tables_lock();
    if (cprof_sources(&units))
        write_section(j, CPROF_SECTION_SOURCES);
    cprof_tables_unlock();
    if (unprofiled)
        write_section(j, CPROF_SECTION_UNPROFILED);
    write_section(j, CPROF_SECTION_TIMING);
    if (cprof_timing.sampled)
        write_section(j, CPROF_SECTION_SAMPLED);
    write_section(j, CPROF_SECTION_OVERHEAD);
    cprof_json_end(j, ']');
}

/* The "timing" section: how activations were timed, and the sampled rule's figures. */
static void write_timing(struct cprof_json *j)
{
    cprof_json_key(j, CPROF_SECTION_TIMING);
    cprof_json_begin(j, '{');
    cprof_json_field_string(j, "mode", cprof_timing.sampled ? "sampled" : "every");
    cprof_json_field_int(j, "period", cprof_timing.period);
    cprof_json_field_int(j, "min_activations", cprof_timing.min_activations);
    cprof_json_field_real(j, "short_ns", cprof_timing.short_ns);
    cprof_json_field_real(j, "call_cost_ns", cprof_timing.call_cost_ns);
    cprof_json_field_real(j, "inner_ns", cprof_timing.inner_ns);
    cprof_json_field_real(j, "untimed_ns", cprof_timing.untimed_ns);
    cprof_json_field_real(j, "correction_ns", cprof_timing.correction_ns);
    cprof_json_field_real(j, "site_untimed_ns", cprof_timing.site_untimed_ns);
    cprof_json_field_real(j, "site_correction_ns", cprof_timing.site_correction_ns);
    cprof_json_end(j, '}');
}

/* The "sources" section: each unit's files as it was compiled (docs/source.md). */
static void write_sources(struct cprof_json *j)
{
    const struct cprof_unit *units;
    int n = cprof_sources(&units);
    if (!n)
        return;
    cprof_json_key(j, CPROF_SECTION_SOURCES);
    cprof_json_begin(j, '[');
    for (int i = 0; i < n; i++) {
        cprof_json_begin(j, '{');
        cprof_json_field_string(j, "unit", units[i].file);
        cprof_json_key(j, "files");
        cprof_json_begin(j, '[');
        for (int k = 0; k < units[i].nsources; k++) {
            const struct cprof_source *f = &units[i].sources[k];
            cprof_json_begin(j, '{');
            cprof_json_field_string(j, "name", f->name);
            if (f->path)
                cprof_json_field_string(j, "path", f->path);
            cprof_json_field_int(j, "bytes", f->bytes);
            if (f->hash)
                cprof_json_field_string(j, "hash", f->hash);
            cprof_json_end(j, '}');
        }
        cprof_json_end(j, ']');
        cprof_json_end(j, '}');
    }
    cprof_json_end(j, ']');
}

/* The units compiled without profiling, and why: the list from the head the layout
 * declared the section for. */
static void write_unprofiled(struct cprof_json *j, const struct cprof_unprofiled *u)
{
    if (!u)
        return;
    cprof_json_key(j, CPROF_SECTION_UNPROFILED);
    cprof_json_begin(j, '[');
    for (; u; u = __atomic_load_n(&u->next, __ATOMIC_ACQUIRE)) {
        cprof_json_begin(j, '{');
        cprof_json_field_string(j, "file", u->file);
        cprof_json_field_string(j, "reason", u->reason);
        cprof_json_end(j, '}');
    }
    cprof_json_end(j, ']');
}

/* A routine's or site's unit in "sources", if known. */
static void write_unit_of(struct cprof_json *j, int site, int id)
{
    int k = cprof_unit_of(site, id);
    if (k >= 0)
        cprof_json_field_int(j, CPROF_SECTION_SOURCES, k);
}

/* The "resources" section of the header: what CPROF_RESOURCES asked for, and for each
 * one whether it was measured, or why not. */
static void write_resources(struct cprof_json *j)
{
    const struct cprof_resource *res;
    int nres = cprof_resources(&res);
    if (!nres)
        return;
    cprof_resources_signals_check();
    cprof_json_key(j, CPROF_SECTION_RESOURCES);
    cprof_json_begin(j, '[');
    for (int i = 0; i < nres; i++) {
        cprof_json_begin(j, '{');
        cprof_json_field_string(j, "name", res[i].name);
        cprof_json_field_string(j, "unit", res[i].unit);
        cprof_json_field_string(j, "event", res[i].event);
        cprof_json_field_uint(j, "period", charged(&res[i]) ? res[i].period : 0);
        cprof_json_key(j, "available");
        cprof_json_bool(j, res[i].available);
        if (res[i].reason[0])
            cprof_json_field_string(j, "reason", res[i].reason);
        cprof_json_end(j, '}');
    }
    cprof_json_end(j, ']');
}

static void write_document(struct cprof_json *j, const struct place *pl,
                           const struct trace_file *tf)
{
    double npt = tf->npt;
    correction_ticks = cprof_timing.correction_ns / npt;
    site_correction_ticks = cprof_timing.site_correction_ns / npt;

    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;

    cprof_json_begin(j, '{');
    cprof_json_field_string(j, "format", CPROF_FORMAT_NAME);
    cprof_json_field_int(j, "version", CPROF_FORMAT_VERSION);
    cprof_json_field_string(j, "cprof_version", CPROF_VERSION);
    cprof_json_field_string(j, "program", exe);
    cprof_json_field_int(j, "pid", getpid());
    write_place(j, pl);
    cprof_json_field_uint(j, "start_unix_ns", cprof_start_unix_ns());
    cprof_json_field_uint(j, "elapsed_ns", cprof_elapsed_ns());
    cprof_json_field_string(j, "clock", cprof_clock_name());
    cprof_json_field_real(j, "call_cost_ns", facade_cost_ns.timed);
    cprof_json_field_real(j, "count_cost_ns", facade_cost_ns.counted);
    const struct cprof_unprofiled *unprofiled = cprof_unprofiled_units();
    write_layout(j, tf, unprofiled);
    cprof_json_field_string(j, CPROF_SECTION_JOB, pl->job);
    cprof_openmp_write(j);
    write_timing(j);
    write_unprofiled(j, unprofiled);
    write_resources(j);
    cprof_overhead_write(j);
    if (tf->path)
        cprof_trace_describe(j, tf->path, tf->beside, tf->bytes);
    if (sizes_kept())
        cprof_sizes_write_header(j);
    cprof_topology_write(j);
    cprof_placement_write(j, npt);

    struct cprof_routine **routines;
    struct cprof_site **sites;
    int nroutines, nsites;
    cprof_tables_lock();
    cprof_tables(&routines, &nroutines, &sites, &nsites);
    size_t flags_size = (nroutines ? (size_t)nroutines : 1) * sizeof(int);
    int *flags = cprof_alloc(flags_size);
    size_t leaf_size = nsites ? (size_t)nsites : 1;
    leaf_sites = cprof_alloc(leaf_size);
    nleaf_sites = nsites;
    for (int i = 0; i < nsites; i++)
        leaf_sites[i] = sites[i]->leaf != 0;
    write_sources(j);
    cprof_json_key(j, "routines");
    cprof_json_begin(j, '[');
    for (int i = 0; i < nroutines; i++) {
        flags[i] = routines[i]->flags;
        cprof_json_begin(j, '{');
        cprof_json_field_string(j, "name", routines[i]->name);
        cprof_json_field_string(j, "file", routines[i]->file);
        cprof_json_field_int(j, "line", routines[i]->line);
        if (routines[i]->flags & CPROF_ROUTINE_COUNTED) {
            cprof_json_key(j, "counted");
            cprof_json_bool(j, 1);
        }
        if (routines[i]->flags & CPROF_ROUTINE_INLINABLE) {
            cprof_json_key(j, "inlinable");
            cprof_json_bool(j, 1);
        }
        write_unit_of(j, 0, i);
        cprof_json_end(j, '}');
    }
    cprof_json_end(j, ']');
    cprof_json_key(j, "sites");
    cprof_json_begin(j, '[');
    for (int i = 0; i < nsites; i++) {
        cprof_json_begin(j, '{');
        cprof_json_field_int(j, "caller", sites[i]->caller->id);
        cprof_json_field_string(j, "file", sites[i]->file);
        cprof_json_field_int(j, "line", sites[i]->line);
        cprof_json_field_int(j, "d", sites[i]->d);
        if (sites[i]->construct > 0 && sites[i]->construct < CPROF_REGION_NKINDS)
            cprof_json_field_string(j, "construct", cprof_region_kinds[sites[i]->construct]);
        if (sites[i]->leaf) {
            cprof_json_key(j, "untimed_at_site");
            cprof_json_bool(j, 1);
        }
        write_unit_of(j, 1, i);
        cprof_json_end(j, '}');
    }
    cprof_json_end(j, ']');
    cprof_tables_unlock();

    cprof_json_key(j, "workers");
    cprof_json_begin(j, '[');
    struct routine_flags rf = { flags, nroutines };
    write_workers(j, cprof_workers(), npt, tf, &rf);
    cprof_json_end(j, ']');
    cprof_json_end(j, '}');
    cprof_free(flags, flags_size);
    cprof_free(leaf_sites, leaf_size);
    leaf_sites = 0;
    nleaf_sites = 0;
}

static int write_profile(void)
{
    char path[PATH_MAX + 24], tmp[PATH_MAX + 56];
    struct place pl;
    read_place(&pl);
    int has_pid = output_path(path, PATH_MAX, &pl);
    if (has_pid < 0) {
        fputs("cprof: CPROF_OUT is too long; no profile written\n", stderr);
        errno = ENAMETOOLONG;
        return -1;
    }
    if (getpid() != start_pid && !has_pid) {
        static int said;
        if (!said++)
            fprintf(stderr, "cprof: process %ld, forked by %ld, writes no profile: %s would "
                            "be its parent's (a CPROF_OUT with %%p names one per process)\n",
                    (long)getpid(), (long)getppid(), path);
        return 0;
    }
    /* A device or a pipe (CPROF_OUT=/dev/null, a FIFO) is written to, never replaced:
     * whole-or-nothing by rename only means something for a regular file. */
    struct stat st;
    int stream = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (!stream)
        claim(PROFILE, path, sizeof path, "profile");
    if (stream)
        snprintf(tmp, sizeof tmp, "%s", path);
    else
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    /* The trace first: the profile refers to it only once it is written. */
    char trace_name[PATH_MAX + 24];
    struct trace_file tf = { 0, 0, 0, cprof_ns_per_tick() };
    if (__atomic_load_n(&final, __ATOMIC_SEQ_CST) && cprof_tracing()) {
        if (trace_path(path, &pl, trace_name, PATH_MAX, &tf.beside) < 0)
            fputs("cprof: the trace's name is too long; no trace written\n", stderr);
        else if (tf.beside && stream)
            fputs("cprof: the profile goes to a device or a pipe: set CPROF_TRACE_OUT to keep "
                  "the trace\n", stderr);
        else {
            claim(TRACE, trace_name, sizeof trace_name, "trace");
            if (cprof_trace_write(trace_name, tf.npt, &tf.bytes) == 0) {
                tf.path = trace_name;
                remember(TRACE, trace_name);
            }
        }
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int rc = -1;
    if (fd >= 0) {
        struct cprof_json j;
        cprof_json_open(&j, fd);
        write_document(&j, &pl, &tf);
        rc = cprof_json_close(&j);
        if (close(fd) != 0)
            rc = -1;
    }
    if (rc == 0 && (stream || rename(tmp, path) == 0)) {
        if (!stream)
            remember(PROFILE, path);
        return 0;
    }
    int err = errno;
    fprintf(stderr, "cprof: cannot write profile %s: %s\n", path, strerror(err));
    if (!stream)
        unlink(tmp);
    errno = err;
    return -1;
}

/* The runtime's own code: a call back into the program from there is not counted
 * (docs/semantics.md); one writer at a time. */
int cprof_write(void)
{
    static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
    cprof_inside_begin();
    pthread_mutex_lock(&write_lock);
    cprof_resources_writing(1);
    int rc = write_profile();
    int err = errno;
    cprof_resources_writing(0);
    pthread_mutex_unlock(&write_lock);
    cprof_inside_end();
    errno = err;
    return rc;
}
