/* trace.h: what trace.c offers: CPROF_TRACE, a time-stamped trace per worker
 * (docs/tracing.md).  Not installed. */
#ifndef CPROF_EXT_TRACE_H
#define CPROF_EXT_TRACE_H

#include "../core/core.h"

/* Start-up, the clock known: reads CPROF_TRACE and the rest; whether to trace. */
int cprof_trace_start(void);
int cprof_tracing(void);
/* The traced facade's: frame f of worker w just opened for an entry of routine r (its
 * record rec, case kase) from site id site (-1: from outside), returned; and a frame
 * closing at now. */
struct cprof_frame *cprof_trace_enter(struct cprof_worker *w, const struct cprof_routine *r,
                                      struct cprof_frame *f, struct cprof_routine_rec *rec,
                                      int kase, int site);
void cprof_trace_exit(struct cprof_worker *w, const struct cprof_frame *f, uint64_t now);
/* Frame f just opened for the body of construct c (a parallel region's on one member
 * of its team, or a task's), case kase; returned. */
struct cprof_frame *cprof_trace_body(struct cprof_worker *w, struct cprof_frame *f,
                                     struct cprof_construct_rec *c, int kase);
/* A new worker's trace (tracing on), and an unlisted worker's, at its release. */
void cprof_trace_new(struct cprof_worker *w);
void cprof_trace_free(struct cprof_worker *w);
/* Writes the trace file at path (profile.c names it), with the profile's ns per tick: 0,
 * or -1 after one line on stderr.  *bytes: its size. */
int cprof_trace_write(const char *path, double npt, uint64_t *bytes);
/* The profile's "trace" section (the file at path, named by its base name if beside
 * the profile), and a worker's. */
void cprof_trace_describe(struct cprof_json *j, const char *path, int beside, uint64_t bytes);
void cprof_trace_worker(struct cprof_json *j, const struct cprof_worker *w);

#endif
