/* trace.h: the trace file's layout (docs/tracing.md), written by the runtime
 * (runtime/trace.c) and read by cprof-report --trace and --timeline (reports/views/trace.c).
 *
 * A header: the magic, the ns per tick (an IEEE double), the number of workers; then
 * each worker by id: its id, the ticks its first delta counts from, its events recorded
 * and dropped, the bytes of its events, and those bytes.  Every header word is 64-bit
 * little-endian.  An event is a kind byte, then LEB128 varints: the ticks since the
 * worker's previous event, and
 *  - ENTER, a routine's activation begins: bits 2-3 its case (S-S, S-C, C-S, C-C), bit 4
 *    (NO_SITE) set if entered from code cprof did not compile; the routine's index in
 *    the profile's "routines", then unless bit 4 the call site's in its "sites";
 *  - BODY, a parallel region's body on one member of its team, or a task's, begins:
 *    bits 2-3 its case, bit 5 (TASK) set for a task, bit 4 set if cprof-cc did not name
 *    the construct; unless bit 4 the construct's index in the profile's "sites";
 *  - EXIT closes the innermost open ENTER or BODY. */
#ifndef CPROF_FORMAT_TRACE_H
#define CPROF_FORMAT_TRACE_H

#define CPROF_TRACE_MAGIC "CPROFTR1"
enum { CPROF_TRACE_HEAD = 24, CPROF_TRACE_WORKER_HEAD = 40 };
enum { CPROF_TRACE_ENTER = 0, CPROF_TRACE_EXIT = 1, CPROF_TRACE_BODY = 2 };
#define CPROF_TRACE_NO_SITE 0x10
#define CPROF_TRACE_TASK 0x20

#endif
