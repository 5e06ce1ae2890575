/* placement.h: what placement.c offers: where each worker ran (docs/placement.md).
 * Not installed. */
#ifndef CPROF_EXT_PLACEMENT_H
#define CPROF_EXT_PLACEMENT_H

#include "../core/core.h"

/* Start-up, after the clock: the launch's binding settings and affinity mask. */
void cprof_placement_start(void);
/* On a listed worker's own thread, as it is made: its first observation. */
void cprof_placement_new(struct cprof_worker *w);
/* On w's own thread: the PU it runs on now; idle: it waits for work from here (a team
 * member after its region), and the time until its next observation is no one's. */
void cprof_placement_observe(struct cprof_worker *w, int idle);
/* A task's body begins on w's thread, at t (cprof_ticks(): 0 in count mode): observed
 * only if TASK_GAP of placement's clock has passed since w's last observation, or
 * that one began a wait (docs/placement.md): tasks may be far shorter than reading
 * the PU.  The part of w's placement this reads inline comes first in it. */
struct cprof_place_due {
    uint64_t next;                  /* placement's clock: 0 after a wait began */
};
void cprof_placement_task_slow(struct cprof_worker *w);
static inline void cprof_placement_task(struct cprof_worker *w, uint64_t t)
{
    const struct cprof_place_due *d = (const struct cprof_place_due *)(const void *)w->place;
    if (d && (t >= d->next || cprof_clock == CPROF_CLOCK_NONE))
        cprof_placement_task_slow(w);
}
/* The same from a signal handler on w's thread (a CPU sample). */
void cprof_placement_sample(struct cprof_worker *w);
/* The PU w was placed on longest. */
int cprof_placement_main_pu(const struct cprof_worker *w);
/* The header's "placement" (the writing thread observed first), and worker w's (w->lock
 * held), with the profile's ns per tick. */
void cprof_placement_write(struct cprof_json *j, double npt);
void cprof_placement_write_worker(struct cprof_json *j, const struct cprof_worker *w, double npt);

#endif
