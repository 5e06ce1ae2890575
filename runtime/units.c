/* units.c: the global tables of routines and call sites.
 *
 * Each translation unit compiled by cprof-cc registers its static descriptors from a
 * constructor; ids are assigned here once, so the facade indexes per-worker tables
 * directly.  A descriptor reached before its unit registered (a user constructor that
 * runs first) gets its id lazily; registration then skips it.  Descriptors start with
 * id -1.
 */
#include "internal.h"

static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cprof_routine **routines;
static int nroutines, routines_cap;
static struct cprof_site **sites;
static int nsites, sites_cap;
static int started;

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
    if (!started) {
        started = 1;
        cprof_inside_begin();
        cprof_runtime_start();
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

void cprof_register_unit_v3(struct cprof_unit *unit)
{
    pthread_mutex_lock(&tables_lock);
    start_once();
    for (int i = 0; i < unit->nroutines; i++)
        add_routine(&unit->routines[i]);
    for (int i = 0; i < unit->nsites; i++)
        add_site(&unit->sites[i]);
    pthread_mutex_unlock(&tables_lock);
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
