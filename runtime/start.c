/* start.c: the runtime's top, which names the core and every extension: the
 * registration of units (cprof.h's entry points, which bring this file into every
 * program linked with the static runtime), the extensions plugged into the core's
 * registration points (static data, which hooks.c finds), and the start-up, in its
 * order.
 * The core (docs/architecture.md, "Rules of the folders") names no extension: it calls
 * them through cprof_hooks, cprof_tracer and the facade variant chosen here. */
#include "core/core.h"
#include "ext/control.h"
#include "ext/ompt.h"
#include "ext/overhead.h"
#include "ext/placement.h"
#include "ext/profile.h"
#include "ext/resources.h"
#include "ext/sizes.h"
#include "ext/stack.h"
#include "ext/trace.h"

void cprof_register_unit_v9(struct cprof_unit *unit)
{
    cprof_units_add(unit);
}

void cprof_register_unprofiled_v9(const char *file, const char *reason)
{
    cprof_units_add_unprofiled(file, reason);
}

/* The first unit registered (or a profiled routine entered before any did). */
static void start(void)
{
    cprof_openmp_start();       /* before the facade asks OpenMP anything */
    cprof_clock_start();
    cprof_placement_start();
    cprof_resources_start();    /* before the first context: contexts hold its samples */
    cprof_overhead_start();     /* after: CPROF_RESOURCES keeps the signals it always had */
    /* For the clock, tracing and the resources sampled; the input sizes' facade around
     * it when sizes.c is linked (-fcprof-input-size). */
    cprof_facade_select(cprof_trace_start(), cprof_resources_sampled(), cprof_sizes_facade);
    cprof_stack_start();
    cprof_profile_start();
    cprof_control_start();      /* after the cost was measured on the running facade */
}

static void worker_made(struct cprof_worker *w)
{
    if (cprof_tracing())
        cprof_trace_new(w);
}

static void worker_listed(struct cprof_worker *w)
{
    cprof_placement_new(w);
    cprof_resources_open(w);
    cprof_overhead_open();
    cprof_stack_thread();
}

/* Static data, in the section the core finds it in (hooks.c): plugged in before any
 * code runs, constructors included. */
static const struct cprof_hooks hooks __attribute__((used, section("cprof_hooks"))) = {
    .start = start,
    .last_unit_gone = cprof_last_unit_gone,
    .worker_made = worker_made,
    .worker_listed = worker_listed,
    .worker_freed = cprof_trace_free,
    .ompt_start_tool = (const void *)cprof_ompt_start_tool,
};
