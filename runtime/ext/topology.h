/* topology.h: what topology.c offers: the machine, as the profile describes it
 * (docs/placement.md).  Not installed. */
#ifndef CPROF_EXT_TOPOLOGY_H
#define CPROF_EXT_TOPOLOGY_H

#include "../core/core.h"

struct cprof_json;
/* The "machine" section, its topology from cprof-topology (run once, at the first
 * profile written), or why there is none. */
void cprof_topology_write(struct cprof_json *j);
int cprof_topology_core_of(int pu);     /* the logical index of its core; -1 if unknown */

#endif
