/* stack.h: what stack.c offers: the threads' stacks for profiled frames.  Not
 * installed. */
#ifndef CPROF_EXT_STACK_H
#define CPROF_EXT_STACK_H

#include "../core/core.h"

/* Lets the initial thread's stack grow past the soft limit it started with. */
void cprof_stack_start(void);
/* On another thread's first profiled call: where its stack runs out, one line. */
void cprof_stack_thread(void);

#endif
