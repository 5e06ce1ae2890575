/* topology.h: what cprof-topology (topology/cprof-topology.c, installed in
 * libexec/cprof) tells the runtime (runtime/ext/topology.c) of the machine, read from
 * hwloc (docs/placement.md): one reply on its standard output, in the machine's byte
 * order.
 *
 * The head; then npus PU rows, in hwloc's logical order; then nobjects objects (the
 * packages, the NUMA nodes, the caches from L1 up), each followed by the PUs it covers
 * as set_words 64-bit words (bit i of word i / 64: the PU of OS index i).  With error
 * set the reply is the head alone, and message says why. */
#ifndef CPROF_FORMAT_TOPOLOGY_H
#define CPROF_FORMAT_TOPOLOGY_H

#include <stdint.h>

#define CPROF_TOPOLOGY_MAGIC 0x6f706f7466727063ull   /* "cprftopo" */
#define CPROF_TOPOLOGY_VERSION 1

struct cprof_topology_head {
    uint64_t magic;
    uint32_t version;
    uint32_t bytes;             /* the whole reply, this head included */
    uint32_t npus, nobjects, set_words;
    int32_t error;
    char hwloc[16];             /* the library's version */
    char model[96];             /* the first package's CPU model, "" if hwloc has none */
    char message[160];
};

/* A PU: its OS index (the Linux CPU number), the logical index of its core, the OS
 * indexes of its package and of the first NUMA node local to it; -1 where it has none. */
struct cprof_topology_pu {
    int32_t pu, core, package, node;
};

enum { CPROF_TOPO_PACKAGE, CPROF_TOPO_NODE, CPROF_TOPO_CACHE };
enum { CPROF_CACHE_UNIFIED, CPROF_CACHE_DATA, CPROF_CACHE_INSTRUCTION };

/* A package or NUMA node (os: its OS index; size: a node's local memory in bytes), or
 * a cache (level 1...; type; size and line in bytes). */
struct cprof_topology_obj {
    int32_t kind, os, level, type;
    uint64_t size;
    uint32_t line, unused;
};

#endif
