/* cprof-topology: the machine's topology, read from hwloc, for the runtime
 * (format/topology.h, docs/placement.md).
 *
 * hwloc builds its tree with malloc, and a profiled program must keep the heap and the
 * behaviour it has without cprof: so the runtime runs this program when it writes the
 * profile, and reads its reply from a pipe.  What hwloc says goes to stdout; its own
 * messages go to the stderr the runtime gives it (/dev/null), never the program's.
 * Exit status 0 with a reply, which may say that hwloc failed; 1 if none could be
 * written. */
#define _GNU_SOURCE
#include <hwloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../format/topology.h"

static void write_all(const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t k = write(1, c, n);
        if (k <= 0)
            exit(1);
        c += k;
        n -= (size_t)k;
    }
}

static void fail(struct cprof_topology_head *h, const char *what)
{
    h->error = 1;
    h->npus = h->nobjects = h->set_words = 0;
    h->bytes = sizeof *h;
    snprintf(h->message, sizeof h->message, "%s", what);
    write_all(h, sizeof *h);
    exit(0);
}

static int os_of(hwloc_topology_t t, hwloc_obj_t pu, hwloc_obj_type_t type)
{
    hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(t, type, pu);
    return a ? (int)a->os_index : -1;
}

/* The first NUMA node whose PUs include pu (a PU may be local to several: DRAM and
 * high-bandwidth memory), or -1. */
static int node_of(hwloc_topology_t t, unsigned pu)
{
    for (hwloc_obj_t n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, NULL); n;
         n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n))
        if (hwloc_bitmap_isset(n->cpuset, pu))
            return (int)n->os_index;
    return -1;
}

/* The objects the reply carries, in its order: packages, NUMA nodes, then the caches
 * by level, data (or unified) before instruction. */
static const hwloc_obj_type_t kinds[] = {
    HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE,
    HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE,
    HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
};

static struct cprof_topology_obj describe(hwloc_obj_t o)
{
    struct cprof_topology_obj d = { .os = (int32_t)o->os_index };
    if (o->type == HWLOC_OBJ_PACKAGE) {
        d.kind = CPROF_TOPO_PACKAGE;
    } else if (o->type == HWLOC_OBJ_NUMANODE) {
        d.kind = CPROF_TOPO_NODE;
        d.size = o->attr->numanode.local_memory;
    } else {
        d.kind = CPROF_TOPO_CACHE;
        d.os = -1;
        d.level = (int32_t)o->attr->cache.depth;
        d.type = o->attr->cache.type == HWLOC_OBJ_CACHE_DATA ? CPROF_CACHE_DATA
               : o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? CPROF_CACHE_INSTRUCTION
               : CPROF_CACHE_UNIFIED;
        d.size = o->attr->cache.size;
        d.line = o->attr->cache.linesize;
    }
    return d;
}

int main(void)
{
    /* The runtime starts it with every signal blocked. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    struct cprof_topology_head h = { .magic = CPROF_TOPOLOGY_MAGIC,
                                     .version = CPROF_TOPOLOGY_VERSION };
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        fail(&h, "hwloc_topology_init failed");
    /* What hwloc-ls shows: instruction caches too, no I/O devices. */
    hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(t) != 0)
        fail(&h, "hwloc_topology_load failed");
    const char *version = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "hwlocVersion");
    unsigned api = hwloc_get_api_version();
    if (version)
        snprintf(h.hwloc, sizeof h.hwloc, "%s", version);
    else
        snprintf(h.hwloc, sizeof h.hwloc, "%u.%u (API)", api >> 16, (api >> 8) & 0xff);
    hwloc_obj_t package = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, NULL);
    const char *model = package ? hwloc_obj_get_info_by_name(package, "CPUModel") : NULL;
    snprintf(h.model, sizeof h.model, "%s", model ? model : "");

    int npus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    int last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(t));
    if (npus <= 0 || last < 0)
        fail(&h, "hwloc found no processing unit");
    h.npus = (uint32_t)npus;
    h.set_words = (uint32_t)last / 64 + 1;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        h.nobjects += (uint32_t)hwloc_get_nbobjs_by_type(t, kinds[k]);
    size_t bytes = sizeof h + (size_t)npus * sizeof(struct cprof_topology_pu) +
                   h.nobjects * (sizeof(struct cprof_topology_obj) + h.set_words * 8);
    if (bytes > UINT32_MAX)
        fail(&h, "the topology is too large to send");
    h.bytes = (uint32_t)bytes;
    write_all(&h, sizeof h);
    for (int i = 0; i < npus; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)i);
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
        struct cprof_topology_pu row = { (int32_t)pu->os_index,
                                         core ? (int32_t)core->logical_index : -1,
                                         os_of(t, pu, HWLOC_OBJ_PACKAGE), node_of(t, pu->os_index) };
        write_all(&row, sizeof row);
    }
    uint64_t *set = calloc(h.set_words, 8);
    if (!set)
        exit(1);
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (hwloc_obj_t o = hwloc_get_next_obj_by_type(t, kinds[k], NULL); o;
             o = hwloc_get_next_obj_by_type(t, kinds[k], o)) {
            struct cprof_topology_obj d = describe(o);
            write_all(&d, sizeof d);
            memset(set, 0, h.set_words * 8);
            unsigned i;
            hwloc_bitmap_foreach_begin(i, o->cpuset)
                if (i / 64 < h.set_words)
                    set[i / 64] |= 1ull << (i % 64);
            hwloc_bitmap_foreach_end();
            write_all(set, h.set_words * 8);
        }
    free(set);
    hwloc_topology_destroy(t);
    return 0;
}
