/* regions.c: user regions (docs/control.md).  cprof-cc turns cprof_region_begin("NAME")
 * into the entry of a routine NAME from the routine around it, through a call site of
 * its own, so a region has cases, arcs and paths as a routine has; the entry's frame
 * comes here, and cprof_region_end() closes the innermost one open on the thread.
 *
 * A region still open when its routine returns was closed with it (the routine's exit
 * closes the frames above its own, as after a longjmp): its entry here is stale, told
 * by the frame no longer being open with the calls count it was entered at.
 */
#include <stdio.h>
#include "../core/core.h"

/* Regions begun on this thread before it had a worker (no frame kept): their ends. */
static __thread int unkept;

static void once(int *said, const char *msg)
{
    if (!__atomic_exchange_n(said, 1, __ATOMIC_RELAXED))
        fputs(msg, stderr);
}

void cprof_region_opened(struct cprof_frame *frame)
{
    struct cprof_worker *w = cprof_self;
    if (!w) {
        unkept++;
        return;
    }
    /* Its first entry in a slot is timed (docs/semantics.md, "Sampled timing"): the
     * later ones are too, so that cprof_region_end always has a frame to close. */
    if (frame)
        cprof_frame_timed_always(frame);
    if (w->nregions < CPROF_REGIONS_MAX) {
        w->regions[w->nregions].frame = frame;
        w->regions[w->nregions].calls0 = frame ? frame->calls0 : 0;
    }
    w->nregions++;
}

void cprof_region_end(void)
{
    static int said;
    struct cprof_worker *w = cprof_self;
    if (!w || !w->nregions) {
        if (unkept > 0)
            unkept--;
        else
            once(&said, "cprof: cprof_region_end() with no region open on its thread: "
                        "ignored (said once)\n");
        return;
    }
    int i = --w->nregions;
    if (i >= CPROF_REGIONS_MAX)
        return;
    struct cprof_frame *f = w->regions[i].frame;
    if (f && f < w->top && f->calls0 == w->regions[i].calls0)
        cprof_facade.leave(f);
}

void cprof_region_cleanup(int *unused)
{
    (void)unused;
    cprof_region_end();
}

/* Reached only where cprof-cc did not rewrite the call (a name that is not a string
 * literal, a call through a pointer, code it did not compile): nothing to profile. */
void cprof_region_begin(const char *name)
{
    static int said;
    once(&said, "cprof: cprof_region_begin() not rewritten by cprof-cc (its name must be a "
                "string literal): such regions are not profiled (said once)\n");
    (void)name;
    cprof_region_opened(0);
}
