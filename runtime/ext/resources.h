/* resources.h: what resources.c offers: resources beyond time, CPROF_RESOURCES
 * (docs/resources.md).  Not installed. */
#ifndef CPROF_EXT_RESOURCES_H
#define CPROF_EXT_RESOURCES_H

#include "../core/core.h"

struct cprof_resource {
    const char *name, *unit, *event;
    uint32_t type;
    uint64_t config;
    uint64_t period;            /* units per sample; 0: counted only */
    int sampled;                /* charged to contexts by sampling, else counted only */
    int monitored;              /* sampled by the monitor thread (csw, migrations) */
    int available;              /* else reason says why not */
    int opened;                 /* by some worker */
    char reason[400];           /* why not available, or not sampled as asked; what
                                   happened to its sampling signal */
};
/* Start-up, before the first worker: reads CPROF_RESOURCES, installs the handler. */
void cprof_resources_start(void);
/* Whether samples are charged to calling contexts (the facade then keeps each frame's
 * case, by which the side a sample goes to is known). */
int cprof_resources_sampled(void);
/* The resources asked for, in order. */
int cprof_resources(const struct cprof_resource **r);
/* On a listed worker's own thread, at its creation: its counters. */
void cprof_resources_open(struct cprof_worker *w);
/* Worker w's total of resource r so far; *ok 0 if it has no counter. */
uint64_t cprof_resource_read(const struct cprof_worker *w, int r, int *ok);
/* The program is about to set the action of sig (its call named): if cprof samples
 * with it, the sampling moves to another signal first.  Whether cprof samples with it. */
void cprof_resources_signal_taken(int sig, const char *call);
int cprof_resources_signal_owned(int sig);
/* As the profile is written: whether the sampling signal still has cprof's handler. */
void cprof_resources_signals_check(void);
/* Every worker's counters on or off (cprof_start, cprof_stop). */
void cprof_resources_enable(int on);
/* A counter's descriptor fd moved above the descriptors a program usually sees, so
 * that its own open() returns the numbers it would without cprof (overhead.c's too). */
int cprof_resources_fd_high(int fd);
/* The calling thread's counters off (1) while it writes the profile, on again (0). */
void cprof_resources_writing(int writing);

#endif
