/* profile.c: start-up, and writing the profile file (docs/profile-format.md).
 *
 * The file is built whole in memory (jansson, given the runtime's own memory while it
 * writes: memory.c), written to a temporary file beside the target and renamed: a
 * profile is complete or absent.  A target that is not a regular file (/dev/null, a
 * FIFO) is written directly.  A forked child that did not exec shares the parent's
 * counters up to the fork; it writes a profile only when CPROF_OUT holds %p, so it
 * never overwrites the parent's.
 *
 * The profile of the run is written once, as late as the program runs code cprof
 * compiled: at exit when the last unit unregisters, or by an at_quick_exit handler;
 * cprof_write() writes the profile so far on demand.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "../format/schema.h"

_Static_assert(CPROF_NCASES == CPROF_COLUMN_CASES, "the four cases, as the calls rows hold them");

static pid_t start_pid;
static struct cprof_costs facade_cost_ns;
static int exiting, written;

/* The profile of the whole run, once, with the activations still open closed now. */
static void write_final(void)
{
    if (__atomic_exchange_n(&written, 1, __ATOMIC_SEQ_CST))
        return;
    cprof_close_open_frames();
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
        write_final();
}

void cprof_last_unit_gone(void)
{
    if (__atomic_load_n(&exiting, __ATOMIC_SEQ_CST))
        write_final();
}

void cprof_runtime_start(void)
{
    cprof_clock_start();
    cprof_stack_start();
    facade_cost_ns = cprof_facade_cost_ns();
    start_pid = getpid();
    /* Worker 0 is the initial thread whenever it is the one that starts the runtime,
     * even if another thread runs profiled code first. */
    if (gettid() == start_pid && !cprof_workers())
        cprof_worker_create(1);
    atexit(at_exit);
    /* quick_exit() runs no destructor; handlers run in reverse order of registration,
     * so the program's own, registered later, run before this one. */
    at_quick_exit(write_final);
}

/* CPROF_OUT, or cprof.out; %p becomes the pid, %% a percent sign. */
static int output_path(char *out, size_t size)
{
    const char *pattern = getenv("CPROF_OUT");
    if (!pattern || !*pattern)
        pattern = "cprof.out";
    int has_pid = 0;
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        char buf[32];
        const char *piece = buf;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(buf, sizeof buf, "%ld", (long)getpid());
            has_pid = 1;
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            strcpy(buf, "%");
            p++;
        } else {
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

struct topology {
    hwloc_topology_t topo;
    int ok;
};

static void topology_load(struct topology *t)
{
    t->ok = hwloc_topology_init(&t->topo) == 0 && hwloc_topology_load(t->topo) == 0;
}

static int topology_count(struct topology *t, hwloc_obj_type_t type)
{
    return t->ok ? hwloc_get_nbobjs_by_type(t->topo, type) : -1;
}

static int core_of_pu(struct topology *t, int pu)
{
    if (!t->ok || pu < 0)
        return -1;
    hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(t->topo, (unsigned)pu);
    if (obj)
        obj = hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_CORE, obj);
    return obj ? (int)obj->logical_index : -1;
}

static json_t *ns(uint64_t ticks, double ns_per_tick)
{
    return json_integer((json_int_t)((double)ticks * ns_per_tick + 0.5));
}

/* A row of n columns described by cols (format/schema.h): times in ticks become ns. */
static json_t *row_json(const uint64_t *v, const struct cprof_column *cols, int n, double npt)
{
    json_t *row = json_array();
    for (int c = 0; c < n; c++)
        json_array_append_new(row, cols[c].kind == CPROF_COL_TIME || cols[c].kind == CPROF_COL_SELF_TIME
                                   ? ns(v[c], npt) : json_integer((json_int_t)v[c]));
    return row;
}

/* A routine's entries on a worker: the call records that reach it there, and its
 * external entries.  A callee entered from a site is concurrent unless the case is S-S. */
static void count_entries(struct cprof_worker *w, uint64_t (*entries)[2])
{
    for (int i = 0; i < w->sites_cap; i++)
        for (struct cprof_call_rec *c = w->sites[i]; c; c = c->next) {
            entries[c->callee][0] += c->count[CPROF_SS];
            entries[c->callee][1] += c->count[CPROF_SC] + c->count[CPROF_CS] + c->count[CPROF_CC];
        }
    for (int i = 0; i < w->routines_cap; i++) {
        struct cprof_routine_rec *r = w->routines[i];
        if (r) {
            entries[i][0] += r->ext.count[CPROF_SS];
            entries[i][1] += r->ext.count[CPROF_CS];
        }
    }
}

static json_t *worker_json(struct cprof_worker *w, struct topology *topo, double npt)
{
    json_t *routines = json_array(), *calls = json_array();
    pthread_mutex_lock(&w->lock);
    size_t entries_size = (w->routines_cap ? (size_t)w->routines_cap : 1) * sizeof(uint64_t[2]);
    uint64_t (*entries)[2] = cprof_alloc(entries_size);
    count_entries(w, entries);
    for (int i = 0; i < w->routines_cap; i++) {
        struct cprof_routine_rec *r = w->routines[i];
        if (!r || !(entries[i][0] | entries[i][1]))
            continue;
        const struct cprof_call_rec *x = &r->ext;
        uint64_t v[CPROF_ROUTINE_NCOLUMNS] = {
            [CPROF_R_ROUTINE] = (uint64_t)i,
            [CPROF_R_S_ENTRIES] = entries[i][0], [CPROF_R_S_TIME] = r->side[0].time,
            [CPROF_R_C_ENTRIES] = entries[i][1], [CPROF_R_C_TIME] = r->side[1].time,
            [CPROF_R_MAX_DEPTH] = (uint64_t)r->max_depth,
            [CPROF_R_S_EXT] = x->count[CPROF_SS], [CPROF_R_S_EXT_TIME] = x->time[CPROF_SS],
            [CPROF_R_C_EXT] = x->count[CPROF_CS], [CPROF_R_C_EXT_TIME] = x->time[CPROF_CS],
            [CPROF_R_S_SELF] = r->side[0].self_time, [CPROF_R_C_SELF] = r->side[1].self_time,
            [CPROF_R_S_NESTED] = r->side[0].nested, [CPROF_R_C_NESTED] = r->side[1].nested,
            [CPROF_R_S_EXT_NESTED] = x->nested[CPROF_SS], [CPROF_R_C_EXT_NESTED] = x->nested[CPROF_CS],
            [CPROF_R_S_DIRECT] = r->side[0].direct, [CPROF_R_C_DIRECT] = r->side[1].direct,
            [CPROF_R_C_THREAD_TIME] = r->side[1].thread_time,
            [CPROF_R_C_THREAD_NESTED] = r->side[1].thread_nested,
            [CPROF_R_S_EXT_REC_TIME] = x->rec_time[CPROF_SS],
            [CPROF_R_C_EXT_REC_TIME] = x->rec_time[CPROF_CS],
            [CPROF_R_S_EXT_REC_NESTED] = x->rec_nested[CPROF_SS],
            [CPROF_R_C_EXT_REC_NESTED] = x->rec_nested[CPROF_CS],
        };
        json_array_append_new(routines, row_json(v, cprof_routine_columns, CPROF_ROUTINE_NCOLUMNS, npt));
    }
    cprof_free(entries, entries_size);
    for (int i = 0; i < w->sites_cap; i++) {
        for (struct cprof_call_rec *c = w->sites[i]; c; c = c->next) {
            uint64_t v[CPROF_CALL_NCOLUMNS] = {
                [CPROF_C_SITE] = (uint64_t)i, [CPROF_C_CALLEE] = (uint64_t)c->callee,
            };
            for (int k = 0; k < CPROF_NCASES; k++) {
                v[CPROF_C_CALLS(k)] = c->count[k];
                v[CPROF_C_TIME(k)] = c->time[k];
                v[CPROF_C_NESTED(k)] = c->nested[k];
                v[CPROF_C_REC_TIME(k)] = c->rec_time[k];
                v[CPROF_C_REC_NESTED(k)] = c->rec_nested[k];
            }
            json_t *row = row_json(v, cprof_call_columns, CPROF_CALL_NCOLUMNS, npt);
            json_array_append_new(calls, row);
        }
    }
    pthread_mutex_unlock(&w->lock);
    return json_pack("{s:i s:I s:i s:i s:i s:o s:o}", "id", w->id, "tid", (json_int_t)w->tid,
                     "omp_thread", w->omp_thread, "pu", w->pu, "core", core_of_pu(topo, w->pu),
                     "routines", routines, "calls", calls);
}

static json_t *profile_json(void)
{
    double npt = cprof_ns_per_tick();
    struct topology topo;
    topology_load(&topo);

    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;

    json_t *root = json_pack("{s:s s:i s:s s:I s:I s:I s:s s:f s:{s:i s:i s:i}}",
        "format", CPROF_FORMAT_NAME, "version", CPROF_FORMAT_VERSION, "program", exe,
        "pid", (json_int_t)getpid(), "start_unix_ns", (json_int_t)cprof_start_unix_ns(),
        "elapsed_ns", (json_int_t)cprof_elapsed_ns(),
        "clock", cprof_clock_name(),
        "call_cost_ns", facade_cost_ns.timed,
        "machine", "pus", topology_count(&topo, HWLOC_OBJ_PU),
        "cores", topology_count(&topo, HWLOC_OBJ_CORE),
        "packages", topology_count(&topo, HWLOC_OBJ_PACKAGE));

    struct cprof_routine **routines;
    struct cprof_site **sites;
    int nroutines, nsites;
    cprof_tables_lock();
    cprof_tables(&routines, &nroutines, &sites, &nsites);
    json_t *jr = json_array(), *js = json_array();
    for (int i = 0; i < nroutines; i++) {
        json_t *r = json_pack("{s:s s:s s:i}", "name", routines[i]->name,
                              "file", routines[i]->file, "line", routines[i]->line);
        if (routines[i]->flags & CPROF_ROUTINE_COUNTED)
            json_object_set_new(r, "counted", json_true());
        if (routines[i]->flags & CPROF_ROUTINE_INLINABLE)
            json_object_set_new(r, "inlinable", json_true());
        json_array_append_new(jr, r);
    }
    for (int i = 0; i < nsites; i++)
        json_array_append_new(js, json_pack("{s:i s:s s:i s:i}", "caller", sites[i]->caller->id,
                                            "file", sites[i]->file, "line", sites[i]->line,
                                            "d", sites[i]->d));
    cprof_tables_unlock();
    json_object_set_new(root, "count_cost_ns", json_real(facade_cost_ns.counted));
    json_object_set_new(root, "routines", jr);
    json_object_set_new(root, "sites", js);

    /* The list is newest first; the file lists workers by id. */
    json_t *workers = json_array();
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next)
        json_array_insert_new(workers, 0, worker_json(w, &topo, npt));
    json_object_set_new(root, "workers", workers);
    if (topo.ok)
        hwloc_topology_destroy(topo.topo);
    return root;
}

static int write_profile(void)
{
    char path[PATH_MAX], tmp[PATH_MAX + 32];
    int has_pid = output_path(path, sizeof path);
    if (has_pid < 0) {
        fputs("cprof: CPROF_OUT is too long; no profile written\n", stderr);
        errno = ENAMETOOLONG;
        return -1;
    }
    if (getpid() != start_pid && !has_pid)
        return 0;
    json_t *root = profile_json();
    /* A device or a pipe (CPROF_OUT=/dev/null, a FIFO) is written to, never replaced:
     * whole-or-nothing by rename only means something for a regular file. */
    struct stat st;
    int stream = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (stream)
        snprintf(tmp, sizeof tmp, "%s", path);
    else
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    /* Not json_dump_file: stdio would take its buffer from the program's malloc. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int rc = fd < 0 ? -1 : json_dumpfd(root, fd, JSON_COMPACT);
    if (fd >= 0 && close(fd) != 0)
        rc = -1;
    json_decref(root);
    if (rc == 0 && (stream || rename(tmp, path) == 0))
        return 0;
    int err = errno;
    fprintf(stderr, "cprof: cannot write profile %s: %s\n", path, strerror(err));
    if (!stream)
        unlink(tmp);
    errno = err;
    return -1;
}

/* jansson's memory while the profile is written: a pool, released after.  A block it
 * frees that is not the pool's is the program's own jansson data (freed by another
 * thread meanwhile): its allocator's. */
static struct cprof_pool json_pool = { .lock = PTHREAD_MUTEX_INITIALIZER };
static json_free_t program_json_free;

static void *json_pool_alloc(size_t size) { return cprof_pool_alloc(&json_pool, size); }

static void json_pool_free(void *p)
{
    if (p && !cprof_pool_owns(&json_pool, p))
        program_json_free(p);
}

/* The runtime's own code: whatever it calls back in the program (its malloc, through
 * hwloc) is not counted; one writer at a time. */
int cprof_write(void)
{
    static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
    cprof_inside_begin();
    pthread_mutex_lock(&write_lock);
    json_malloc_t program_json_malloc;
    json_get_alloc_funcs(&program_json_malloc, &program_json_free);
    json_set_alloc_funcs(json_pool_alloc, json_pool_free);
    int rc = write_profile();
    int err = errno;
    json_set_alloc_funcs(program_json_malloc, program_json_free);
    cprof_pool_release(&json_pool);
    pthread_mutex_unlock(&write_lock);
    cprof_inside_end();
    errno = err;
    return rc;
}
