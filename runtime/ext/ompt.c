/* ompt.c: parallel regions and tasks as libomp tells its OpenMP tool about them (OMPT,
 * OpenMP 5.0's tools interface): the model's source (omp.c) for LLVM's runtime.
 *
 * libomp calls ompt_start_tool, which the runtime defines (weak: a tool of the
 * program's own comes first, and openmp.c says so), when it initializes; cprof takes
 * the interface if openmp.c chose OMPT as the source, and registers the callbacks the
 * model needs, each of which libomp must always give (else no region is seen, and the
 * profile says why).  The callbacks hand the model the moments gomp.c's wrappers do
 * (docs/semantics.md, "Parallel regions and tasks under OMPT"):
 *  - parallel-begin and -end, on the opener: the team opened and joined;
 *  - implicit-task-begin, on each member: its body begins; it ends at the member's
 *    arrival at the region's closing barrier (a sync region of an implicit barrier,
 *    met once the outlined body has returned: the task's exit frame is gone), or, in a
 *    team of one, at implicit-task-end (libomp gives a worker's end only when it next
 *    leaves the pool);
 *  - task-create, on the creator: the task made (its construct the one left for it, or
 *    its taskloop's: a work-taskloop scope around the tasks a taskloop makes, and the
 *    tasks libomp's taskloop generator tasks make are the taskloop's too);
 *  - task-schedule: a task's body begins where it is scheduled first, ends where it
 *    completes (or is detached, or cancelled); an untied task's later parts begin and
 *    end where it is switched to and away from, counted once;
 *  - sync-region of a barrier: a wait.
 * What a thread has open nests, so each begin pushes a scope on the worker's LIFO and
 * its end pops it, found by its kind and the OMPT data it was opened for: an end
 * whose begin was not followed (the program had stopped profiling) finds nothing.
 * A task's own record (from its creation to its completion, on any thread) comes
 * from a pool: per worker, its surplus returned to a shared list in batches.
 */
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp_model.h"
#include "ompt.h"

static ompt_get_task_info_t get_task_info;

/* What a scope is; what an OMPT task or parallel data's ptr points at starts with one
 * of these too (MEMBER for an implicit task, TASK for an explicit one). */
enum { TEAM = 1, MEMBER, PART, WAIT, CLOSING, TASKLOOP, WORK, TASK, TEAMS_TASK };

struct cprof_ompt_scope {
    int kind;
    struct cprof_ompt_scope *below;
};

struct team_scope {
    struct cprof_ompt_scope s;
    struct cprof_team t;
    struct cprof_member m[];
};

struct member_scope {
    struct cprof_ompt_scope s;
    const struct cprof_team *t;
    int index;
    struct cprof_member_body mb;
};

struct wait_scope {
    struct cprof_ompt_scope s;
    struct cprof_wait x;
};

struct taskloop_scope {
    struct cprof_ompt_scope s;
    struct cprof_task_origin o;
};

/* A worksharing construct: the construct left for its barrier, kept from the body's
 * own constructs and given back at its end. */
struct work_scope {
    struct cprof_ompt_scope s;
    const struct cprof_site *construct;
};

/* What the initial task of a team of a teams construct points at: the parallel region
 * libomp makes for such a team (and OMPT reports) is no construct of the program's. */
static const int teams_task = TEAMS_TASK;
/* The next initial task on this thread is its own (it was just registered), not a
 * teams construct's team's. */
static __thread int root_task_next;

struct part_scope {
    struct cprof_ompt_scope s;
    struct cprof_ompt_task *task;
    struct cprof_body b;
};

/* A task made while profiling, from its creation to its completion. */
struct cprof_ompt_task {
    int kind;                           /* TASK */
    unsigned char started;              /* a part of its body ran */
    unsigned char of_taskloop;          /* a taskloop's (and maybe its generator) */
    unsigned char generator;            /* it made its taskloop's tasks: not counted */
    struct cprof_task_origin o;
    struct part_scope *part;            /* the part of its body open now, or null */
    struct cprof_ompt_task *next_free;
};

/* The worker that follows OMPT's events on this thread, or null. */
static struct cprof_worker *follower(void)
{
    return cprof_omp_source == CPROF_OMP_OMPT ? cprof_omp_follower() : 0;
}

static void *push(struct cprof_worker *w, size_t size, int kind)
{
    struct cprof_ompt_scope *s = cprof_lifo_push(w, size, _Alignof(struct member_scope));
    s->kind = kind;
    s->below = w->ompt_top;
    w->ompt_top = s;
    return s;
}

/* The innermost scope, if it is of kind.  (libomp hands a scope's end a copy of the
 * data its begin had, at another address: the scope is known by what data->ptr holds,
 * or by its kind.) */
static void *top(const struct cprof_worker *w, int kind)
{
    struct cprof_ompt_scope *s = w ? w->ompt_top : 0;
    return s && s->kind == kind ? s : 0;
}

static void pop(struct cprof_worker *w, struct cprof_ompt_scope *s)
{
    w->ompt_top = s->below;
    cprof_lifo_pop(w, s);
}

static void close_body(struct cprof_worker *w, struct cprof_ompt_scope *s);

/* Whether s is open on w's thread: then what is open above it, whose end the runtime
 * never gave (libomp 14 ends the loop of a distribute parallel for as a distribute),
 * is closed now. */
static int reach(struct cprof_worker *w, struct cprof_ompt_scope *s)
{
    struct cprof_ompt_scope *at = w && s ? w->ompt_top : 0;
    while (at && at != s)
        at = at->below;
    if (!at)
        return 0;
    while (w->ompt_top != s) {
        close_body(w, w->ompt_top);
        pop(w, w->ompt_top);
    }
    return 1;
}

/* ---- the task records' pool ---- */

#define BATCH 64

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cprof_ompt_task *pool;        /* batches of BATCH, chained */

static struct cprof_ompt_task *task_new(struct cprof_worker *w)
{
    struct cprof_ompt_task *t = w->ompt_free;
    if (!t) {
        pthread_mutex_lock(&pool_lock);
        t = pool;
        for (int i = 0; t && i < BATCH; i++, t = t->next_free)
            w->ompt_nfree++;
        struct cprof_ompt_task *rest = t;
        t = pool;
        pool = rest;
        pthread_mutex_unlock(&pool_lock);
        if (w->ompt_nfree == 0) {
            t = cprof_alloc(BATCH * sizeof *t);
            for (int i = 0; i < BATCH - 1; i++)
                t[i].next_free = &t[i + 1];
            w->ompt_nfree = BATCH;
        } else {
            /* The batch taken ends where the rest begins. */
            struct cprof_ompt_task *last = t;
            for (int i = 1; i < w->ompt_nfree; i++)
                last = last->next_free;
            last->next_free = 0;
        }
    }
    w->ompt_free = t->next_free;
    w->ompt_nfree--;
    memset(t, 0, sizeof *t);
    t->kind = TASK;
    return t;
}

/* Back to the worker that completes it; a worker with two batches spare gives one back. */
static void task_free(struct cprof_worker *w, struct cprof_ompt_task *t)
{
    t->kind = 0;
    t->next_free = w->ompt_free;
    w->ompt_free = t;
    if (++w->ompt_nfree < 2 * BATCH)
        return;
    struct cprof_ompt_task *first = w->ompt_free, *last = first;
    for (int i = 1; i < BATCH; i++)
        last = last->next_free;
    w->ompt_free = last->next_free;
    w->ompt_nfree -= BATCH;
    pthread_mutex_lock(&pool_lock);
    last->next_free = pool;
    pool = first;
    pthread_mutex_unlock(&pool_lock);
}

static struct cprof_ompt_task *task_of(const ompt_data_t *d)
{
    struct cprof_ompt_task *t = d ? d->ptr : 0;
    return t && t->kind == TASK ? t : 0;
}

/* ---- parallel regions ---- */

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
    (void)thread_data;
    root_task_next = type == ompt_thread_initial;
    cprof_omp_registered();
}

/* libomp lets the thread go (its exit, or its own shutdown, whose frees may reach a
 * profiled free): not asked any more. */
static void on_thread_end(ompt_data_t *thread_data)
{
    (void)thread_data;
    cprof_omp_unregistered();
}

static void on_parallel_begin(ompt_data_t *encountering_task, const ompt_frame_t *frame,
                              ompt_data_t *parallel, unsigned int requested, int flags,
                              const void *codeptr)
{
    (void)frame;
    (void)codeptr;
    parallel->ptr = 0;
    if ((flags & ompt_parallel_league) || encountering_task->ptr == &teams_task)
        return;                         /* teams: no parallel region of the model's */
    struct cprof_worker *w = follower();
    if (!w) {
        if (cprof_omp_source == CPROF_OMP_OMPT)
            cprof_omp_take(CPROF_CONSTRUCT_PARALLEL);
        return;
    }
    int cap = requested < 1 ? 1 : requested > 1024 ? 1024 : (int)requested;
    struct team_scope *t = push(w, sizeof *t + (size_t)cap * sizeof *t->m, TEAM);
    if (!cprof_team_begin(&t->t, t->m, cap)) {
        pop(w, &t->s);
        return;
    }
    parallel->ptr = t;
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *encountering_task, int flags,
                            const void *codeptr)
{
    (void)encountering_task;
    (void)flags;
    (void)codeptr;
    struct cprof_worker *w = cprof_self;
    struct team_scope *t = parallel->ptr;
    if (!t || !reach(w, &t->s))
        return;
    parallel->ptr = 0;
    cprof_team_end(&t->t);
    pop(w, &t->s);
}

/* The member's body, if open on this thread, ends. */
static void member_end(struct cprof_worker *w, ompt_data_t *task)
{
    struct member_scope *m = task->ptr;
    if (!m || m->s.kind != MEMBER || !reach(w, &m->s))
        return;
    task->ptr = 0;
    cprof_member_end(&m->mb, m->t, m->index);
    pop(w, &m->s);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                             ompt_data_t *task, unsigned int size, unsigned int index, int flags)
{
    if (flags & ompt_task_initial) {
        if (endpoint == ompt_scope_begin && !root_task_next)
            task->ptr = (void *)&teams_task;
        root_task_next = 0;
        return;
    }
    struct cprof_worker *w = cprof_self;
    if (endpoint != ompt_scope_begin) {
        member_end(w, task);
        return;
    }
    task->ptr = 0;
    struct team_scope *t = parallel ? parallel->ptr : 0;
    if (!t || !(w = follower()))
        return;
    struct member_scope *m = push(w, sizeof *m, MEMBER);
    m->t = &t->t;
    m->index = (int)index;
    /* No activation of the body is above the frame below it. */
    cprof_member_begin(&m->mb, &t->t, (int)size, w->top[-1].sp);
    task->ptr = m;
}

/* ---- barriers ---- */

static int barrier(ompt_sync_region_t kind)
{
    return kind == ompt_sync_region_barrier || kind == ompt_sync_region_barrier_implicit ||
           kind == ompt_sync_region_barrier_explicit ||
           kind == ompt_sync_region_barrier_implementation ||
           kind == ompt_sync_region_barrier_implicit_workshare ||
           kind == ompt_sync_region_barrier_implicit_parallel;
}

/* The region's closing barrier: named so since OpenMP 5.1; before, an implicit barrier
 * the member meets once its outlined body has returned (no exit frame). */
static int closing(ompt_sync_region_t kind)
{
    if (kind == ompt_sync_region_barrier_implicit_parallel)
        return 1;
    if (kind != ompt_sync_region_barrier_implicit && kind != ompt_sync_region_barrier)
        return 0;
    ompt_frame_t *frame = 0;
    return get_task_info(0, 0, 0, &frame, 0, 0) == 2 && frame && !frame->exit_frame.ptr;
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
    (void)parallel;
    (void)codeptr;
    if (!barrier(kind))
        return;
    struct cprof_worker *w = cprof_self;
    if (endpoint == ompt_scope_begin) {
        int ends = closing(kind);
        if (ends)
            member_end(w, task);
        if (!w)
            return;
        if (ends) {
            push(w, sizeof(struct cprof_ompt_scope), CLOSING);
            return;
        }
        struct wait_scope *x = push(w, sizeof *x, WAIT);
        cprof_wait_begin(&x->x);
        return;
    }
    /* The barrier's own scope: whatever its tasks opened has closed.  (libomp names a
     * worker's implicit task at the closing barrier's end by a copy of its data.) */
    struct cprof_ompt_scope *s = w ? w->ompt_top : 0;
    if (s && s->kind == WAIT)
        cprof_wait_end(&((struct wait_scope *)s)->x);
    else if (!s || s->kind != CLOSING)
        return;
    pop(w, s);
}

/* ---- tasks ---- */

/* A worksharing construct begins: the construct left for its barrier is kept until
 * its end, which gives it back (its body's constructs leave theirs meanwhile). */
static void on_worksharing(ompt_work_t type, ompt_scope_endpoint_t endpoint)
{
    struct cprof_worker *w = cprof_self;
    if (endpoint != ompt_scope_begin) {
        struct work_scope *x = top(w, WORK);
        if (x) {
            if (x->construct)
                cprof_pending.construct = x->construct;
            pop(w, &x->s);
        }
        return;
    }
    if (cprof_omp_source != CPROF_OMP_OMPT || !w)
        return;
    struct work_scope *x = push(w, sizeof *x, WORK);
    x->construct = cprof_omp_take(type == ompt_work_loop ? CPROF_CONSTRUCT_FOR
                                  : type == ompt_work_sections ? CPROF_CONSTRUCT_SECTIONS
                                                               : CPROF_CONSTRUCT_SINGLE);
}

static void on_work(ompt_work_t type, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                    ompt_data_t *task, uint64_t count, const void *codeptr)
{
    (void)parallel;
    (void)task;
    (void)count;
    (void)codeptr;
    if (type == ompt_work_loop || type == ompt_work_sections || type == ompt_work_single_executor
        || type == ompt_work_single_other) {
        on_worksharing(type, endpoint);
        return;
    }
    if (type != ompt_work_taskloop)
        return;
    struct cprof_worker *w = cprof_self;
    if (endpoint != ompt_scope_begin) {
        struct taskloop_scope *l = top(w, TASKLOOP);
        if (l)
            pop(w, &l->s);
        return;
    }
    if (cprof_omp_source != CPROF_OMP_OMPT)
        return;
    const struct cprof_site *s = cprof_omp_take(CPROF_CONSTRUCT_TASK);
    if (!(w = follower()))
        return;
    struct taskloop_scope *l = push(w, sizeof *l, TASKLOOP);
    cprof_task_made(&l->o, w, s, 1);
}

static void on_task_create(ompt_data_t *encountering_task, const ompt_frame_t *frame,
                           ompt_data_t *new_task, int flags, int has_dependences,
                           const void *codeptr)
{
    (void)frame;
    (void)has_dependences;
    (void)codeptr;
    new_task->ptr = 0;
    if (!(flags & ompt_task_explicit) || cprof_omp_source != CPROF_OMP_OMPT)
        return;
    struct cprof_worker *w = cprof_self;
    struct taskloop_scope *l = top(w, TASKLOOP);
    struct cprof_ompt_task *in = task_of(encountering_task);
    /* The construct left for it; none in a taskloop's task: its generator's. */
    const struct cprof_site *s = l ? 0 : cprof_omp_take(CPROF_CONSTRUCT_TASK);
    if (!(w = follower()))
        return;
    struct cprof_ompt_task *t = task_new(w);
    if (l) {
        t->o = l->o;
        t->of_taskloop = 1;
    } else if (!s && in && in->of_taskloop && in->part) {
        /* libomp's taskloop generator task makes the taskloop's tasks: theirs is the
         * taskloop's origin, and the generator is no task of the program's. */
        t->o = in->o;
        t->of_taskloop = 1;
        if (!in->generator) {
            in->generator = 1;
            cprof_task_uncount(&in->part->b);
        }
    } else {
        cprof_task_made(&t->o, w, s, 1);
    }
    new_task->ptr = t;
}

/* Part of task t's body begins on this thread: its first, counted, or a later one. */
static void part_begin(struct cprof_ompt_task *t)
{
    int again = t->started;
    t->started = 1;
    struct cprof_worker *w = follower();
    if (!w)
        return;
    struct part_scope *p = push(w, sizeof *p, PART);
    p->task = t;
    cprof_task_begin(&p->b, w, &t->o, w->top[-1].sp);
    if (again || t->generator)
        cprof_task_uncount(&p->b);
    t->part = p;
}

static void part_end(struct cprof_worker *w, struct cprof_ompt_task *t)
{
    struct part_scope *p = t->part;
    if (!p || !reach(w, &p->s))
        return;
    t->part = 0;
    cprof_task_close(&p->b);
    pop(w, &p->s);
}

static void on_task_schedule(ompt_data_t *prior_task, ompt_task_status_t status,
                             ompt_data_t *next_task)
{
    /* A detached task fulfilled late: its body ended long ago, its record is gone. */
    if (status == ompt_task_late_fulfill)
        return;
    struct cprof_worker *w = cprof_self;
    struct cprof_ompt_task *prior = task_of(prior_task), *next = task_of(next_task);
    if (prior && (status == ompt_task_switch || status == ompt_task_yield)) {
        if (next == prior)
            next = prior->part ? 0 : prior;     /* an untied task's next part, here */
        else if (prior->part && (!next || next->part))
            part_end(w, prior);     /* back to a task below it: the part of an untied one */
        /* else next nests in it */
    } else if (prior) {
        /* Completed, cancelled, detached (its event fulfilled or not). */
        part_end(w, prior);
        prior_task->ptr = 0;
        if (w)
            task_free(w, prior);
    }
    if (next && !next->part)
        part_begin(next);
}

/* A scope left open above the one that ends: its body ends now, as if its end had
 * come (its data still names it, but it is no longer open: reach finds it no more). */
static void close_body(struct cprof_worker *w, struct cprof_ompt_scope *s)
{
    (void)w;
    if (s->kind == TEAM) {
        cprof_team_end(&((struct team_scope *)s)->t);
    } else if (s->kind == MEMBER) {
        struct member_scope *m = (struct member_scope *)s;
        cprof_member_end(&m->mb, m->t, m->index);
    } else if (s->kind == PART) {
        struct part_scope *p = (struct part_scope *)s;
        p->task->part = 0;
        cprof_task_close(&p->b);
    }
}

/* ---- the tool ---- */

static int initialize(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *tool_data)
{
    (void)initial_device;
    (void)tool_data;
    static const struct {
        ompt_callbacks_t event;
        ompt_callback_t callback;
        const char *name;
    } want[] = {
        { ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin, "thread-begin" },
        { ompt_callback_thread_end, (ompt_callback_t)on_thread_end, "thread-end" },
        { ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin, "parallel-begin" },
        { ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end, "parallel-end" },
        { ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task, "implicit-task" },
        { ompt_callback_task_create, (ompt_callback_t)on_task_create, "task-create" },
        { ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule, "task-schedule" },
        { ompt_callback_sync_region, (ompt_callback_t)on_sync_region, "sync-region" },
        { ompt_callback_work, (ompt_callback_t)on_work, "work" },
    };
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
    const char *missing = !set ? "ompt_set_callback" : !get_task_info ? "ompt_get_task_info" : 0;
    for (size_t i = 0; !missing && i < sizeof want / sizeof *want; i++)
        if (set(want[i].event, want[i].callback) != ompt_set_always)
            missing = want[i].name;
    cprof_openmp_tool_ready(!missing, missing);
    return !missing;
}

static void finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
}

struct ompt_start_tool_result_t *cprof_ompt_start_tool(unsigned int omp_version,
                                                       const char *runtime_version)
{
    static ompt_start_tool_result_t result = { initialize, finalize, { 0 } };
    (void)omp_version;
    return cprof_openmp_tool_offered(runtime_version) ? &result : 0;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
    __attribute__((weak, alias("cprof_ompt_start_tool")));
