/* units.c: the global tables of routines and call sites.
 *
 * Each translation unit compiled by cprof-cc registers its static descriptors from a
 * constructor; ids are assigned here once, so the facade indexes per-worker tables
 * directly.  A descriptor reached before its unit registered (a user constructor that
 * runs first) gets its id lazily; registration then skips it.  Descriptors start with
 * id -1.
 *
 * A unit unregisters from a destructor: when its object is unloaded (dlclose), or at
 * exit.  What the profile needs of its descriptors is then copied into the runtime's
 * memory and the tables point at the copies, so the writer never reads an object that
 * is gone; the same unit loaded again takes its ids back.  At exit, the last unit to
 * unregister has the profile written (profile.c).
 *
 * A unit cprof-cc compiled without profiling registers too, with no tables: its file
 * and why, listed in the profile (each pair once), and it counts as loaded.
 *
 * Each unit's files (where its routines and sites are spelled, their hashes when it was
 * compiled: the profile's "sources") are copied when it first registers, and every
 * routine and site is given its unit's place in that list.
 */
#include <stdint.h>
#include <string.h>
#include "core.h"

static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cprof_routine **routines;
static int nroutines, routines_cap;
static struct cprof_site **sites;
static int nsites, sites_cap;
static int started;
static int loaded;                  /* units registered and not unregistered */
/* The units' files, each unit once (copies), and per routine and site id its unit's
 * index + 1 (0: none known); the latter grow with the tables. */
static struct cprof_unit *units;
static int nunits, units_cap;
static int *routine_unit, *site_unit;
static int routine_unit_cap, site_unit_cap;

/* A unit that unregistered: the ids its descriptors had, in its order (routines, then
 * sites), which the tables' copies carry.  A unit registering with the same tables
 * takes them back (`back`) until it unregisters in turn. */
struct gone {
    const struct cprof_unit *back;
    char *file;
    int nroutines, nsites;
    int *ids;
    int unit;                       /* its index in units */
    struct gone *next;
};
static struct gone *gone;

static struct cprof_unprofiled *unprofiled;

/* What a unit leaves behind lives until exit: the runtime's memory (memory.c). */
static void *own(size_t size) { return cprof_alloc(size); }

static void *grow(void *array, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return array;
    int n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = cprof_realloc(array, (size_t)*cap * elem, (size_t)n * elem);
    *cap = n;
    return p;
}

/* Called with tables_lock held.  The runtime's own code: what it calls back in the
 * program is not counted (and cannot come back here for the lock). */
static void start_once(void)
{
    if (!started && cprof_hooks()->start) {
        started = 1;
        cprof_inside_begin();
        cprof_hooks()->start();
        cprof_inside_end();
    }
}

static void add_routine(struct cprof_routine *r)
{
    if (r->id >= 0)
        return;
    routines = grow(routines, &routines_cap, nroutines + 1, sizeof *routines);
    routines[nroutines] = r;
    __atomic_store_n(&r->id, nroutines, __ATOMIC_RELEASE);
    nroutines++;
}

static void add_site(struct cprof_site *s)
{
    add_routine(s->caller);
    if (s->id >= 0)
        return;
    sites = grow(sites, &sites_cap, nsites + 1, sizeof *sites);
    sites[nsites] = s;
    __atomic_store_n(&s->id, nsites, __ATOMIC_RELEASE);
    nsites++;
}

/* The index of a descriptor in its unit's table, or -1 (a site's callee outside it). */
static int index_of(const struct cprof_routine *r, const struct cprof_unit *unit)
{
    uintptr_t a = (uintptr_t)r, lo = (uintptr_t)unit->routines;
    size_t i = (a - lo) / sizeof *r;
    return a >= lo && i < (size_t)unit->nroutines ? (int)i : -1;
}

static int same_routine(const struct cprof_routine *a, const struct cprof_routine *b)
{
    return !strcmp(a->name, b->name) && !strcmp(a->file, b->file) && a->line == b->line &&
           a->flags == b->flags;
}

/* Does the unit describe what g's copies do?  A site names its caller and callee by
 * their index in the unit, a copy by the id they had. */
static int same_unit(const struct gone *g, const struct cprof_unit *unit)
{
    if (g->back || g->nroutines != unit->nroutines || g->nsites != unit->nsites ||
        strcmp(g->file, unit->file))
        return 0;
    for (int i = 0; i < unit->nroutines; i++)
        if (!same_routine(routines[g->ids[i]], &unit->routines[i]))
            return 0;
    for (int i = 0; i < unit->nsites; i++) {
        const struct cprof_site *c = sites[g->ids[unit->nroutines + i]], *s = &unit->sites[i];
        int caller = index_of(s->caller, unit), callee = s->callee ? index_of(s->callee, unit) : -1;
        if (strcmp(c->file, s->file) || c->line != s->line || c->d != s->d ||
            c->construct != s->construct || caller < 0 ||
            c->caller->id != g->ids[caller] || !c->callee != !s->callee ||
            (s->callee && (callee < 0 || c->callee->id != g->ids[callee])))
            return 0;
    }
    return 1;
}

/* A descriptor that already has an id (reached before its unit registered) keeps it. */
static void take_ids(struct gone *g, struct cprof_unit *unit)
{
    g->back = unit;
    for (int i = 0; i < unit->nroutines; i++)
        if (unit->routines[i].id < 0)
            __atomic_store_n(&unit->routines[i].id, g->ids[i], __ATOMIC_RELEASE);
    for (int i = 0; i < unit->nsites; i++)
        if (unit->sites[i].id < 0)
            __atomic_store_n(&unit->sites[i].id, g->ids[unit->nroutines + i], __ATOMIC_RELEASE);
}

/* A copy holds its strings: the descriptor's are in the object going away. */
static char *copy_string(char **to, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = memcpy(*to, s, n);
    *to += n;
    return p;
}

static char *own_string(const char *s)
{
    return s ? strcpy(own(strlen(s) + 1), s) : NULL;
}

/* The unit's files, copied into units; its index there. */
static int add_unit_sources(const struct cprof_unit *unit)
{
    units = grow(units, &units_cap, nunits + 1, sizeof *units);
    struct cprof_unit *u = &units[nunits];
    struct cprof_source *f = own(((size_t)unit->nsources + 1) * sizeof *f);
    u->file = own_string(unit->file);
    u->nsources = unit->nsources;
    u->sources = f;
    for (int i = 0; i < unit->nsources; i++)
        f[i] = (struct cprof_source){ own_string(unit->sources[i].name),
                                      own_string(unit->sources[i].path),
                                      unit->sources[i].bytes, own_string(unit->sources[i].hash) };
    return nunits++;
}

/* Descriptor id (of a table now n long) belongs to unit k. */
static void set_unit(int **of, int *cap, int n, int id, int k)
{
    *of = grow(*of, cap, n, sizeof **of);
    (*of)[id] = k + 1;
}

void cprof_units_add(struct cprof_unit *unit)
{
    pthread_mutex_lock(&tables_lock);
    start_once();
    __atomic_store_n(&loaded, loaded + 1, __ATOMIC_RELAXED);
    cprof_following_update();
    struct gone *g = gone;
    while (g && !same_unit(g, unit))
        g = g->next;
    if (g)
        take_ids(g, unit);
    for (int i = 0; i < unit->nroutines; i++)
        add_routine(&unit->routines[i]);
    for (int i = 0; i < unit->nsites; i++)
        add_site(&unit->sites[i]);
    int k = g ? g->unit : add_unit_sources(unit);
    for (int i = 0; i < unit->nroutines; i++)
        set_unit(&routine_unit, &routine_unit_cap, nroutines, unit->routines[i].id, k);
    for (int i = 0; i < unit->nsites; i++)
        set_unit(&site_unit, &site_unit_cap, nsites, unit->sites[i].id, k);
    pthread_mutex_unlock(&tables_lock);
}

static struct cprof_routine *copy_routine(const struct cprof_routine *r)
{
    struct cprof_routine *c = own(sizeof *c + strlen(r->name) + strlen(r->file) + 2);
    char *to = (char *)(c + 1);
    c->name = copy_string(&to, r->name);
    c->file = copy_string(&to, r->file);
    c->line = r->line;
    c->id = r->id;
    c->flags = r->flags;
    return c;
}

/* After the unit's routines: caller and callee are the tables' entries, copies. */
static struct cprof_site *copy_site(const struct cprof_site *s)
{
    struct cprof_site *c = own(sizeof *c + strlen(s->file) + 1);
    char *to = (char *)(c + 1);
    c->caller = routines[s->caller->id];
    c->callee = s->callee ? routines[s->callee->id] : 0;
    c->file = copy_string(&to, s->file);
    c->line = s->line;
    c->d = s->d;
    c->construct = s->construct;
    c->id = s->id;
    c->leaf = s->leaf;      /* the profile says which counted their untimed calls; no
                               slot is filled once its unit is gone */
    c->leaf_slots = 0;
    return c;
}

static struct gone *remember(const struct cprof_unit *unit)
{
    struct gone *g = own(sizeof *g);
    g->unit = unit->nroutines ? routine_unit[unit->routines[0].id] - 1
                              : unit->nsites ? site_unit[unit->sites[0].id] - 1 : -1;
    g->file = strcpy(own(strlen(unit->file) + 1), unit->file);
    g->nroutines = unit->nroutines;
    g->nsites = unit->nsites;
    g->ids = own(((size_t)unit->nroutines + (size_t)unit->nsites + 1) * sizeof *g->ids);
    for (int i = 0; i < unit->nroutines; i++)
        g->ids[i] = unit->routines[i].id;
    for (int i = 0; i < unit->nsites; i++)
        g->ids[unit->nroutines + i] = unit->sites[i].id;
    g->next = gone;
    return gone = g;
}

void cprof_unregister_unit_v9(struct cprof_unit *unit)
{
    pthread_mutex_lock(&tables_lock);
    struct gone *g = gone;
    while (g && g->back != unit)
        g = g->next;
    if (g)
        g->back = 0;
    else
        remember(unit);
    /* Entries that point into the unit: all of a unit seen for the first time, only
     * those with ids of their own in a unit that took its ids back. */
    for (int i = 0; i < unit->nroutines; i++) {
        struct cprof_routine *r = &unit->routines[i];
        if (routines[r->id] == r)
            routines[r->id] = copy_routine(r);
    }
    for (int i = 0; i < unit->nsites; i++) {
        struct cprof_site *s = &unit->sites[i];
        if (sites[s->id] == s)
            sites[s->id] = copy_site(s);
    }
    /* A call from the unit to code cprof did not compile left its handshake pending on
     * this thread: the next entry from outside reads the copy. */
    uintptr_t p = (uintptr_t)cprof_pending.site, lo = (uintptr_t)unit->sites;
    if (p >= lo && (p - lo) / sizeof *unit->sites < (size_t)unit->nsites)
        cprof_pending.site = sites[cprof_pending.site->id];
    __atomic_store_n(&loaded, loaded - 1, __ATOMIC_RELAXED);
    cprof_following_update();
    int last = loaded == 0;
    pthread_mutex_unlock(&tables_lock);
    if (last && cprof_hooks()->last_unit_gone)
        cprof_hooks()->last_unit_gone();
}

void cprof_units_add_unprofiled(const char *file, const char *reason)
{
    pthread_mutex_lock(&tables_lock);
    start_once();
    __atomic_store_n(&loaded, loaded + 1, __ATOMIC_RELAXED);
    struct cprof_unprofiled **u = &unprofiled;
    while (*u && (strcmp((*u)->file, file) || strcmp((*u)->reason, reason)))
        u = &(*u)->next;
    if (!*u) {
        /* Linked last, complete: the writer reads the list without the lock. */
        struct cprof_unprofiled *n = own(sizeof *n);
        n->file = strcpy(own(strlen(file) + 1), file);
        n->reason = strcpy(own(strlen(reason) + 1), reason);
        __atomic_store_n(u, n, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&tables_lock);
}

void cprof_unregister_unprofiled_v9(void)
{
    pthread_mutex_lock(&tables_lock);
    __atomic_store_n(&loaded, loaded - 1, __ATOMIC_RELAXED);
    int last = loaded == 0;
    pthread_mutex_unlock(&tables_lock);
    if (last && cprof_hooks()->last_unit_gone)
        cprof_hooks()->last_unit_gone();
}

const struct cprof_unprofiled *cprof_unprofiled_units(void)
{
    return __atomic_load_n(&unprofiled, __ATOMIC_ACQUIRE);
}

/* Changed under the tables' lock; read without it by every parallel region (omp.c). */
int cprof_units_loaded(void)
{
    return __atomic_load_n(&loaded, __ATOMIC_RELAXED);
}

/* Set by cprof_facade_stop (control.c's cprof_stop, cprof_start). */
int cprof_stopped;
int cprof_following_now;

void cprof_following_update(void)
{
    __atomic_store_n(&cprof_following_now,
                     cprof_units_loaded() && !__atomic_load_n(&cprof_stopped, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
}

void cprof_routine_id_slow(struct cprof_routine *r)
{
    pthread_mutex_lock(&tables_lock);
    start_once();
    add_routine(r);
    pthread_mutex_unlock(&tables_lock);
}

void cprof_site_id_slow(struct cprof_site *s)
{
    pthread_mutex_lock(&tables_lock);
    start_once();
    add_site(s);
    pthread_mutex_unlock(&tables_lock);
}

void cprof_tables_lock(void) { pthread_mutex_lock(&tables_lock); }
void cprof_tables_unlock(void) { pthread_mutex_unlock(&tables_lock); }

void cprof_tables(struct cprof_routine ***r, int *nr, struct cprof_site ***s, int *ns)
{
    *r = routines;
    *nr = nroutines;
    *s = sites;
    *ns = nsites;
}

int cprof_sources(const struct cprof_unit **u)
{
    *u = units;
    return nunits;
}

int cprof_unit_of(int site, int id)
{
    return id < (site ? site_unit_cap : routine_unit_cap) ? (site ? site_unit : routine_unit)[id] - 1
                                                          : -1;
}

const struct cprof_site *cprof_site_by_id(int id)
{
    pthread_mutex_lock(&tables_lock);
    const struct cprof_site *s = id < nsites ? sites[id] : 0;
    pthread_mutex_unlock(&tables_lock);
    return s;
}
