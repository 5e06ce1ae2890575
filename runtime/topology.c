/* topology.c: the machine's processing units, cores and packages, and the core of a
 * processing unit (internal.h), from Linux's /sys read with read(2).
 *
 * The profile only needs these counts and one index per worker.  A topology library
 * would build the whole tree with the program's malloc at exit; these files are a
 * few bytes each.  A core is a (package, core id) pair; cores are numbered in order of
 * package, then core id, as hwloc's logical indexes are. */
#include "internal.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first integer in the file at path, or -1. */
static long read_number(const char *path)
{
    char text[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = 0;
    char *end;
    long v = strtol(text, &end, 10);
    return end == text ? -1 : v;
}

static long cpu_fact(int cpu, const char *name)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
    return read_number(path);
}

static int cmp_core(const void *x, const void *y)
{
    const long *a = x, *b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

void cprof_topology_load(struct cprof_topology *t)
{
    memset(t, 0, sizeof *t);
    t->pus = t->cores = t->packages = -1;
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    if (conf <= 0)
        return;
    t->ncpus = (int)conf;
    t->cpu_core = cprof_alloc((size_t)conf * sizeof *t->cpu_core);
    long (*pairs)[2] = cprof_alloc((size_t)conf * sizeof *pairs);
    int n = 0;
    for (int cpu = 0; cpu < conf; cpu++) {
        long package = cpu_fact(cpu, "physical_package_id"), core = cpu_fact(cpu, "core_id");
        t->cpu_core[cpu].package = package;
        t->cpu_core[cpu].core = core;
        if (package >= 0 && core >= 0) {
            pairs[n][0] = package;
            pairs[n][1] = core;
            n++;
        }
    }
    if (n > 0) {
        /* Insertion sort: glibc's qsort may take a buffer from the program's malloc. */
        for (int i = 1; i < n; i++)
            for (int k = i; k > 0 && cmp_core(pairs[k - 1], pairs[k]) > 0; k--) {
                long a = pairs[k][0], b = pairs[k][1];
                pairs[k][0] = pairs[k - 1][0];
                pairs[k][1] = pairs[k - 1][1];
                pairs[k - 1][0] = a;
                pairs[k - 1][1] = b;
            }
        int cores = 0, packages = 0;
        for (int i = 0; i < n; i++)
            if (cores == 0 || cmp_core(pairs[i], pairs[cores - 1])) {
                pairs[cores][0] = pairs[i][0];
                pairs[cores][1] = pairs[i][1];
                cores++;
            }
        for (int i = 0; i < cores; i++)
            packages += i == 0 || pairs[i][0] != pairs[i - 1][0];
        t->pus = n;
        t->cores = cores;
        t->packages = packages;
        t->core_list = pairs;
    } else {
        cprof_free(pairs, (size_t)conf * sizeof *pairs);
    }
}

int cprof_topology_core_of(const struct cprof_topology *t, int pu)
{
    if (pu < 0 || pu >= t->ncpus || !t->core_list || t->cpu_core[pu].core < 0)
        return -1;
    long key[2] = { t->cpu_core[pu].package, t->cpu_core[pu].core };
    const long (*found)[2] = bsearch(key, t->core_list, (size_t)t->cores, sizeof *t->core_list,
                                     cmp_core);
    return found ? (int)(found - t->core_list) : -1;
}

void cprof_topology_free(struct cprof_topology *t)
{
    if (t->ncpus > 0) {
        cprof_free(t->cpu_core, (size_t)t->ncpus * sizeof *t->cpu_core);
        if (t->core_list)
            cprof_free(t->core_list, (size_t)t->ncpus * sizeof *t->core_list);
    }
    memset(t, 0, sizeof *t);
}
