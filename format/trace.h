/* trace.h: the trace file's layout (docs/tracing.md), written by the runtime
 * (runtime/trace.c) and read by cprof-report --trace and --timeline (reports/trace.c).
 *
 * A header: the magic, the ns per tick (an IEEE double), the number of workers; then
 * each worker by id: its id, the ticks its first delta counts from, its events recorded
 * and dropped, the bytes of its events, and those bytes.  Every header word is 64-bit
 * little-endian.  An event is a kind byte (bits 0-1 the kind, for an entry bits 2-3 its
 * case S-S, S-C, C-S, C-C and bit 4 set for an entry from code cprof did not compile),
 * then LEB128 varints: the ticks since the worker's previous event, and for an entry
 * the routine's index in the profile's "routines" and, unless bit 4, the site's in its
 * "sites".  An exit closes the innermost open entry. */
#ifndef CPROF_FORMAT_TRACE_H
#define CPROF_FORMAT_TRACE_H

#define CPROF_TRACE_MAGIC "CPROFTR1"
enum { CPROF_TRACE_HEAD = 24, CPROF_TRACE_WORKER_HEAD = 40 };
enum { CPROF_TRACE_ENTER = 0, CPROF_TRACE_EXIT = 1 };
#define CPROF_TRACE_EXTERNAL 0x10

#endif
