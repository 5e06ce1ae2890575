/* ompt.h: what ompt.c offers the start-up.  Not installed. */
#ifndef CPROF_EXT_OMPT_H
#define CPROF_EXT_OMPT_H

#include "../core/core.h"

/* ompt.c's ompt_start_tool, which openmp.c checks the runtime will call. */
struct ompt_start_tool_result_t;
struct ompt_start_tool_result_t *cprof_ompt_start_tool(unsigned int omp_version,
                                                       const char *runtime_version);

#endif
