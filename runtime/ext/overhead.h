/* overhead.h: what overhead.c offers: what profiling costs the run, measured by CPU
 * samples of cprof's own code (docs/overhead.md).  Not installed. */
#ifndef CPROF_EXT_OVERHEAD_H
#define CPROF_EXT_OVERHEAD_H

#include "../core/core.h"

/* Start-up: the sampling signal and its handler, or why there is no sampling. */
void cprof_overhead_start(void);
/* On a listed worker's own thread: its CPU sampled from now on. */
void cprof_overhead_open(void);
/* cprof_reset(): the samples so far are not the profile's (docs/control.md). */
void cprof_overhead_reset(void);
/* The profile's "overhead" key (format/schema.h, CPROF_SECTION_OVERHEAD). */
void cprof_overhead_write(struct cprof_json *j);

#endif
