/* control.h: what control.c offers: cprof_stop(), cprof_start(), cprof_reset() from
 * the program.  Not installed. */
#ifndef CPROF_EXT_CONTROL_H
#define CPROF_EXT_CONTROL_H

#include "../core/core.h"

/* A call record's figures that a reset or a stop took out: its figures as they were at
 * the last reset, plus the calls counted while stopped; and the counts (timed and
 * untimed) at the last stop. */
struct cprof_call_base {
    uint64_t v[CPROF_NFIGS][CPROF_NCASES];
    uint64_t adj[CPROF_NADJ];           /* a context's */
    unsigned long long stop_count[2][CPROF_NCASES];
    uint64_t samples[];             /* a context's, cprof_node_extra bytes */
};
/* Start-up: CPROF_START=off begins stopped. */
void cprof_control_start(void);
/* What the profile shows of a record: the record less what was taken out (and a call
 * record's plus its contexts').  The record itself when nothing is, else scratch. */
const struct cprof_call_rec *cprof_call_now(const struct cprof_call_rec *c,
                                            struct cprof_call_rec *scratch);
const struct cprof_routine_rec *cprof_routine_now(const struct cprof_routine_rec *r,
                                                  struct cprof_routine_rec *scratch);
const struct cprof_node *cprof_node_now(const struct cprof_node *n, struct cprof_node *scratch);
/* Its samples[i], less what a reset took out. */
uint64_t cprof_node_samples(const struct cprof_node *n, int i);

#endif
