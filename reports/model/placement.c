/* placement.c: where the workers ran (docs/placement.md), read from the files and
 * summed: each file's machine (its "topology"), its process's binding settings (the
 * header's "placement") and each worker's placement.
 *
 * A job's ranks keep theirs, one machine per host.  Repeated runs are summed figure by
 * figure, but a placement is one run's: the sum keeps the first file's (the report says
 * so).
 */
#include "raw.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "../../format/topology.h"

/* More PUs than Linux numbers (CONFIG_NR_CPUS is at most 8192). */
#define PU_LIMIT (1 << 16)

static int get_set(struct loader *l, json_t *a, cprof_pu_set *s, const char *where)
{
    if (!json_is_array(a))
        return cprof_fail(l, "invalid profile: %s is not an array of PUs", where);
    s->n = json_array_size(a);
    s->pu = cprof_xcalloc(s->n + 1, sizeof *s->pu);
    for (size_t i = 0; i < s->n; i++) {
        json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= PU_LIMIT ||
            (i && json_integer_value(v) <= s->pu[i - 1]))
            return cprof_fail(l, "invalid profile: %s is not a list of PUs (OS indexes below %d,"
                              " ascending)", where, PU_LIMIT);
        s->pu[i] = json_integer_value(v);
    }
    return 0;
}

/* Rows of width integers, each at least min[c]; *out is allocated either way. */
static int get_rows(struct loader *l, json_t *a, size_t width, const int64_t *min, int64_t **out,
                    size_t *n, const char *where)
{
    if (!json_is_array(a))
        return cprof_fail(l, "invalid profile: %s is not an array", where);
    *n = json_array_size(a);
    *out = cprof_xcalloc(*n * width + 1, sizeof **out);
    for (size_t i = 0; i < *n; i++) {
        json_t *row = json_array_get(a, i);
        if (!json_is_array(row) || json_array_size(row) != width)
            return cprof_fail(l, "invalid profile: %s[%zu] is not a row of %zu integers", where, i,
                              width);
        for (size_t c = 0; c < width; c++) {
            json_t *v = json_array_get(row, c);
            if (!json_is_integer(v) || json_integer_value(v) < min[c])
                return cprof_fail(l, "invalid profile: %s[%zu][%zu] is not an integer not below"
                                  " %lld", where, i, c, (long long)min[c]);
            (*out)[i * width + c] = json_integer_value(v);
        }
    }
    return 0;
}

/* The objects of one kind: packages and nodes {"os", "pus"} (a node's "memory" too),
 * caches {"level", "type", "size", "line", "pus"}. */
static int get_objects(struct loader *l, cprof_prof_machine *m, json_t *a, int kind,
                       const char *key)
{
    static const char *const types[] = { "unified", "data", "instruction" };
    char where[64];
    if (!json_is_array(a))
        return cprof_fail(l, "invalid profile: machine.topology.%s is not an array", key);
    size_t n = json_array_size(a);
    m->objs = cprof_xrealloc(m->objs, (m->nobjs + n + 1) * sizeof *m->objs);
    for (size_t i = 0; i < n; i++) {
        cprof_prof_topo_obj *o = &m->objs[m->nobjs];
        memset(o, 0, sizeof *o);
        o->kind = kind;
        json_t *pus;
        const char *type = "unified";
        const struct field cache[] = {
            {"level", JSON_INTEGER, &o->level, 1},
            {"type", JSON_STRING, &type, 0},
            {"size", JSON_INTEGER, &o->size, 0},
            {"line", JSON_INTEGER, &o->line, 0},
            {"pus", JSON_ARRAY, &pus, 0},
        };
        const struct field other[] = {      /* a package's are the first two */
            {"os", JSON_INTEGER, &o->os, 0},
            {"pus", JSON_ARRAY, &pus, 0},
            {"memory", JSON_INTEGER, &o->size, 0},
        };
        snprintf(where, sizeof where, "machine.topology.%s[%zu]", key, i);
        bool is_cache = kind == CPROF_TOPO_CACHE;
        if (cprof_get_fields(l, json_array_get(a, i), is_cache ? cache : other,
                             is_cache ? NELEM(cache) : NELEM(other) - (kind != CPROF_TOPO_NODE),
                             where))
            return -1;
        while (o->type < 3 && strcmp(type, types[o->type]))
            o->type++;
        if (o->type == 3)
            return cprof_fail(l, "invalid profile: %s: type \"%s\" is not unified, data or"
                              " instruction", where, type);
        m->nobjs++;
        if (get_set(l, pus, &o->pus, where))
            return -1;
    }
    return 0;
}

static int get_machine(struct loader *l, cprof_prof_machine *m, const struct raw_file *rf)
{
    m->host = cprof_xstrdup(rf->host ? rf->host : "");
    json_t *t = rf->topology;
    if (!t) {
        m->error = cprof_xstrdup("the profile has no topology (written by an older cprof)");
        return 0;
    }
    const char *error = NULL, *hwloc = NULL, *model = NULL;
    json_t *pus = NULL, *packages = NULL, *nodes = NULL, *caches = NULL;
    const struct field f[] = {
        {"error", JSON_STRING | OPTIONAL, &error, 0},
        {"hwloc", JSON_STRING | OPTIONAL, &hwloc, 0},
        {"cpu_model", JSON_STRING | OPTIONAL, &model, 0},
        {"pus", JSON_ARRAY | OPTIONAL, &pus, 0},
        {"packages", JSON_ARRAY | OPTIONAL, &packages, 0},
        {"numa_nodes", JSON_ARRAY | OPTIONAL, &nodes, 0},
        {"caches", JSON_ARRAY | OPTIONAL, &caches, 0},
    };
    if (cprof_get_fields(l, t, f, NELEM(f), "machine.topology"))
        return -1;
    if (error) {
        if (json_object_size(t) != 1)
            return cprof_fail(l, "invalid profile: machine.topology has an error and more");
        m->error = cprof_xstrdup(error);
        return 0;
    }
    if (!hwloc || !model || !pus || !packages || !nodes || !caches)
        return cprof_fail(l, "invalid profile: machine.topology is neither {\"error\"} nor"
                          " {\"hwloc\", \"cpu_model\", \"pus\", \"packages\", \"numa_nodes\","
                          " \"caches\"}");
    m->hwloc = cprof_xstrdup(hwloc);
    m->cpu_model = cprof_xstrdup(model);
    static const int64_t min[4] = {0, -1, -1, -1};
    int64_t *rows;
    int rc = get_rows(l, pus, 4, min, &rows, &m->npus, "machine.topology.pus");
    m->pus = (int64_t(*)[4])rows;
    if (rc)
        return -1;
    for (size_t i = 0; i < m->npus; i++)
        if (m->pus[i][0] >= PU_LIMIT)
            return cprof_fail(l, "invalid profile: machine.topology.pus[%zu]: PU %lld past %d", i,
                              (long long)m->pus[i][0], PU_LIMIT);
    return get_objects(l, m, packages, CPROF_TOPO_PACKAGE, "packages") ||
           get_objects(l, m, nodes, CPROF_TOPO_NODE, "numa_nodes") ||
           get_objects(l, m, caches, CPROF_TOPO_CACHE, "caches") ? -1 : 0;
}

static int get_process(struct loader *l, cprof_prof_process *x, const struct raw_file *rf)
{
    json_t *env, *places, *affinity;
    const char *bind;
    int64_t bins;
    const struct field f[] = {
        {"origin_unix_ns", JSON_INTEGER, &x->start_unix_ns, 0},
        {"span_ns", JSON_INTEGER, &x->span_ns, 0},
        {"bins", JSON_INTEGER, &bins, 1},
        {"env", JSON_OBJECT, &env, 0},
        {"proc_bind", JSON_STRING, &bind, 0},
        {"places", JSON_ARRAY, &places, 0},
        {"affinity", JSON_ARRAY | OPTIONAL, &affinity, 0},
    };
    affinity = NULL;
    x->rank = rf->rank;
    x->pid = rf->pid;
    if (cprof_get_fields(l, rf->placement, f, NELEM(f), "placement"))
        return -1;
    x->proc_bind = cprof_xstrdup(bind);
    size_t n = x->nenv = json_object_size(env);
    x->env_names = cprof_xcalloc(n + 1, sizeof *x->env_names);
    x->env_values = cprof_xcalloc(n + 1, sizeof *x->env_values);
    const char *key;
    json_t *v;
    size_t i = 0;
    json_object_foreach(env, key, v) {
        if (!json_is_string(v))
            return cprof_fail(l, "invalid profile: placement.env.%s is not a string", key);
        x->env_names[i] = cprof_xstrdup(key);
        x->env_values[i++] = cprof_xstrdup(json_string_value(v));
    }
    x->nplaces = json_array_size(places);
    x->places = cprof_xcalloc(x->nplaces + 1, sizeof *x->places);
    for (i = 0; i < x->nplaces; i++)
        if (get_set(l, json_array_get(places, i), &x->places[i], "a place of placement.places"))
            return -1;
    x->has_affinity = affinity != NULL;
    return x->has_affinity ? get_set(l, affinity, &x->affinity, "placement.affinity") : 0;
}

static int get_worker(struct loader *l, cprof_prof_placement *w, json_t *o, size_t wi)
{
    char where[64];
    snprintf(where, sizeof where, "workers[%zu].placement", wi);
    json_t *affinity = NULL, *pus, *bins;
    const struct field f[] = {
        {"affinity", JSON_ARRAY | OPTIONAL, &affinity, 0},
        {"first_ns", JSON_INTEGER, &w->first_ns, 0},
        {"last_ns", JSON_INTEGER, &w->last_ns, 0},
        {"observations", JSON_INTEGER, &w->observations, 1},
        {"moves", JSON_INTEGER, &w->moves, 0},
        {"placed_ns", JSON_INTEGER, &w->placed_ns, 0},
        {"pus", JSON_ARRAY, &pus, 0},
        {"bin_ns", JSON_REAL, &w->bin_ns, 1},
        {"bins", JSON_ARRAY, &bins, 0},
    };
    if (cprof_get_fields(l, o, f, NELEM(f), where))
        return -1;
    w->known = true;
    w->has_affinity = affinity != NULL;
    if (w->has_affinity && get_set(l, affinity, &w->affinity, where))
        return -1;
    static const int64_t min[3] = {0, 0, 0};
    int64_t *rows;
    /* The rows are the worker's (to free) whether they are right or not. */
    int rc = get_rows(l, pus, 2, min, &rows, &w->npus, where);
    w->pus = (int64_t(*)[2])rows;
    if (rc)
        return -1;
    rc = get_rows(l, bins, 3, min, &rows, &w->nbins, where);
    w->bins = (int64_t(*)[3])rows;
    if (rc)
        return -1;
    int64_t placed = 0;
    for (size_t i = 0; i < w->npus; i++)
        if (w->pus[i][0] >= PU_LIMIT || __builtin_add_overflow(placed, w->pus[i][1], &placed))
            return cprof_fail(l, "invalid profile: %s.pus[%zu] is out of range", where, i);
    if (placed != w->placed_ns || w->last_ns < w->first_ns || w->moves >= w->observations ||
        !w->npus)
        return cprof_fail(l, "invalid profile: %s does not add up (the PUs' times are its"
                          " placed_ns, first_ns <= last_ns, fewer moves than observations)",
                          where);
    for (size_t i = 0; i < w->nbins; i++)
        if (w->bins[i][1] >= PU_LIMIT || (double)w->bins[i][2] > w->bin_ns + 1 ||
            (i && w->bins[i][0] <= w->bins[i - 1][0]))
            return cprof_fail(l, "invalid profile: %s.bins[%zu] is out of order or range", where, i);
    return 0;
}

int cprof_placement_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf)
{
    bool any = false;
    for (size_t w = 0; w < rf->nworkers; w++)
        any |= rf->workers[w].placement != NULL;
    if (!rf->placement && !any)
        return 0;
    if (!rf->placement)
        return cprof_fail(l, "invalid profile: its workers have a placement, the header none");
    p->machines = cprof_xcalloc(1, sizeof *p->machines);
    p->nmachines = 1;
    p->processes = cprof_xcalloc(1, sizeof *p->processes);
    p->nprocesses = 1;
    p->placement = cprof_xcalloc(p->nworkers + 1, sizeof *p->placement);
    if (get_machine(l, &p->machines[0], rf) || get_process(l, &p->processes[0], rf))
        return -1;
    for (size_t w = 0; w < rf->nworkers; w++)
        if (rf->workers[w].placement &&
            get_worker(l, &p->placement[w], rf->workers[w].placement, w))
            return -1;
    return 0;
}

/* ---- summing ---- */

static cprof_pu_set copy_set(const cprof_pu_set *s)
{
    cprof_pu_set c = {cprof_xcalloc(s->n + 1, sizeof *s->pu), s->n};
    memcpy(c.pu, s->pu, s->n * sizeof *s->pu);
    return c;
}

static void *copy(const void *p, size_t size)
{
    void *c = cprof_xcalloc(1, size + 1);
    memcpy(c, p, size);
    return c;
}

static char *dup_or_null(const char *s)
{
    return s ? cprof_xstrdup(s) : NULL;
}

static cprof_prof_machine copy_machine(const cprof_prof_machine *m)
{
    cprof_prof_machine c = *m;
    c.host = cprof_xstrdup(m->host);
    c.error = dup_or_null(m->error);
    c.hwloc = dup_or_null(m->hwloc);
    c.cpu_model = dup_or_null(m->cpu_model);
    c.pus = copy(m->pus, m->npus * sizeof *m->pus);
    c.objs = copy(m->objs, m->nobjs * sizeof *m->objs);
    for (size_t i = 0; i < m->nobjs; i++)
        c.objs[i].pus = copy_set(&m->objs[i].pus);
    return c;
}

static cprof_prof_process copy_process(const cprof_prof_process *x, size_t machine)
{
    cprof_prof_process c = *x;
    c.machine = machine;
    c.proc_bind = cprof_xstrdup(x->proc_bind);
    c.env_names = cprof_xcalloc(x->nenv + 1, sizeof *c.env_names);
    c.env_values = cprof_xcalloc(x->nenv + 1, sizeof *c.env_values);
    for (size_t i = 0; i < x->nenv; i++) {
        c.env_names[i] = cprof_xstrdup(x->env_names[i]);
        c.env_values[i] = cprof_xstrdup(x->env_values[i]);
    }
    c.places = cprof_xcalloc(x->nplaces + 1, sizeof *c.places);
    for (size_t i = 0; i < x->nplaces; i++)
        c.places[i] = copy_set(&x->places[i]);
    c.affinity = copy_set(&x->affinity);
    return c;
}

static cprof_prof_placement copy_placement(const cprof_prof_placement *w, size_t process)
{
    cprof_prof_placement c = *w;
    c.process = process;
    c.affinity = copy_set(&w->affinity);
    c.pus = copy(w->pus, w->npus * sizeof *w->pus);
    c.bins = copy(w->bins, w->nbins * sizeof *w->bins);
    return c;
}

/* q's machines, processes and placements into out (as wmap maps its workers), its
 * machines merged with out's of the same host. */
static void add_from(cprof_profile *out, const cprof_profile *q, const size_t *wmap)
{
    size_t *mmap = cprof_xcalloc(q->nmachines + 1, sizeof *mmap);
    for (size_t i = 0; i < q->nmachines; i++) {
        size_t k = 0;
        while (k < out->nmachines && strcmp(out->machines[k].host, q->machines[i].host))
            k++;
        if (k == out->nmachines) {
            out->machines = cprof_xrealloc(out->machines, (k + 1) * sizeof *out->machines);
            out->machines[out->nmachines++] = copy_machine(&q->machines[i]);
        }
        mmap[i] = k;
    }
    size_t first = out->nprocesses;
    out->processes = cprof_xrealloc(out->processes,
                                    (first + q->nprocesses + 1) * sizeof *out->processes);
    for (size_t i = 0; i < q->nprocesses; i++)
        out->processes[out->nprocesses++] = copy_process(&q->processes[i],
                                                         mmap[q->processes[i].machine]);
    for (size_t w = 0; w < q->nworkers && q->placement; w++)
        if (q->placement[w].known && !out->placement[wmap[w]].known)
            out->placement[wmap[w]] = copy_placement(&q->placement[w],
                                                     first + q->placement[w].process);
    free(mmap);
}

void cprof_placement_sum(cprof_profile *out, const cprof_profile *a, const cprof_profile *b,
                         const struct sum_map *amap, const struct sum_map *bmap)
{
    if (!a->nprocesses && !b->nprocesses)
        return;
    out->placement = cprof_xcalloc(out->nworkers + 1, sizeof *out->placement);
    if (!a->nranks) {
        /* Runs: the first file's (a's, the earlier files). */
        add_from(out, a->nprocesses ? a : b, (a->nprocesses ? amap : bmap)->worker);
        return;
    }
    add_from(out, a, amap->worker);
    add_from(out, b, bmap->worker);
    /* A job's ranks in rank order (a's and b's interleave), each worker still pointing
     * at its own: where[i] is process i's new index. */
    size_t n = out->nprocesses, *where = cprof_xcalloc(n + 1, sizeof *where);
    cprof_prof_process *sorted = cprof_xcalloc(n + 1, sizeof *sorted);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++)
            where[i] += out->processes[k].rank < out->processes[i].rank;
    for (size_t i = 0; i < n; i++)
        sorted[where[i]] = out->processes[i];
    free(out->processes);
    out->processes = sorted;
    for (size_t w = 0; w < out->nworkers; w++)
        out->placement[w].process = where[out->placement[w].process];
    free(where);
}

void cprof_placement_free(cprof_profile *p)
{
    for (size_t i = 0; i < p->nmachines; i++) {
        cprof_prof_machine *m = &p->machines[i];
        free(m->host);
        free(m->error);
        free(m->hwloc);
        free(m->cpu_model);
        free(m->pus);
        for (size_t k = 0; k < m->nobjs; k++)
            free(m->objs[k].pus.pu);
        free(m->objs);
    }
    for (size_t i = 0; i < p->nprocesses; i++) {
        cprof_prof_process *x = &p->processes[i];
        for (size_t k = 0; k < x->nenv; k++) {
            free(x->env_names[k]);
            free(x->env_values[k]);
        }
        free(x->env_names);
        free(x->env_values);
        free(x->proc_bind);
        for (size_t k = 0; k < x->nplaces; k++)
            free(x->places[k].pu);
        free(x->places);
        free(x->affinity.pu);
    }
    for (size_t w = 0; p->placement && w < p->nworkers; w++) {
        free(p->placement[w].affinity.pu);
        free(p->placement[w].pus);
        free(p->placement[w].bins);
    }
    free(p->machines);
    free(p->processes);
    free(p->placement);
    p->machines = NULL;
    p->processes = NULL;
    p->placement = NULL;
    p->nmachines = p->nprocesses = 0;
}
