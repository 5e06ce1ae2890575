/* sizes.h: what sizes.c offers: input-sensitive profiles (-fcprof-input-size,
 * docs/input-size.md).  Weak: only a program with a unit compiled with
 * -fcprof-input-size (whose memory accesses call sizes.c's __tsan_* entry points)
 * links sizes.c; in any other these are null and none of it runs.  Not installed. */
#ifndef CPROF_EXT_SIZES_H
#define CPROF_EXT_SIZES_H

#include "../core/core.h"

/* The facade that wraps chosen with the input sizes' entry and exit, or chosen itself
 * when no instrumented unit started (or in count mode: no frame to size). */
struct cprof_facade cprof_sizes_facade(struct cprof_facade chosen) __attribute__((weak));
/* Whether sizes are kept this run; the header's and worker w's "sizes" sections. */
int cprof_sizes_kept(void) __attribute__((weak));
void cprof_sizes_write_header(struct cprof_json *j) __attribute__((weak));
void cprof_sizes_write_worker(struct cprof_json *j, struct cprof_worker *w, double npt)
    __attribute__((weak));
/* cprof_reset(): the tuples and the header's counts from now on. */
void cprof_sizes_reset(void) __attribute__((weak));
/* libcalls.c: a library call's read (write 0) or write of size bytes at a. */
void cprof_sizes_access(const void *a, size_t size, int write);

#endif
