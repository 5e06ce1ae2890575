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
/* The same from a signal handler on w's thread (a CPU sample). */
void cprof_placement_sample(struct cprof_worker *w);
/* The PU w was placed on longest. */
int cprof_placement_main_pu(const struct cprof_worker *w);
/* The header's "placement" (the writing thread observed first), and worker w's (w->lock
 * held), with the profile's ns per tick. */
void cprof_placement_write(struct cprof_json *j, double npt);
void cprof_placement_write_worker(struct cprof_json *j, const struct cprof_worker *w, double npt);

#endif
