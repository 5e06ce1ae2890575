/* thread.c: this thread's state, which every call reads first: the handshake
 * (cprof_pending) between a call site and its callee's entry, and whether the thread
 * may count now, with its worker hidden while the runtime runs its own code
 * (workers.c says when a thread may not have a worker). */
#include "core.h"

const struct cprof_site cprof_no_site = { .id = -1 };
/* Its address, for the generated code (cprof.h): a pointer, not the object under a
 * second name, which a program linked with the shared runtime would copy into itself
 * (a copy relocation) while the runtime's own hidden references kept the original. */
const struct cprof_site *const cprof_site_consumed = &cprof_no_site;
/* Its context is none of a worker's until the thread has one: no counted site's cache
 * matches it; nor does any slot of cprof_no_worker's, which has none. */
__thread struct cprof_pending cprof_pending = { .site = &cprof_no_site, .context = &cprof_no_site,
                                                .worker = &cprof_no_worker };

/* What this thread's storage holds once the dynamic linker has initialized it; zero
 * before, as the linker allocated it.  Volatile: never written, it would be taken for
 * a constant. */
#define TLS_SET_UP 0x63707266746c7331ull
static __thread volatile uint64_t tls_set_up = TLS_SET_UP;
/* Nesting of the runtime's own code on this thread, and its worker meanwhile. */
static __thread int inside;
static __thread struct cprof_worker *hidden;

struct cprof_worker cprof_no_worker;

void cprof_inside_begin(void)
{
    if (inside++ == 0) {
        hidden = cprof_self;
        cprof_self_set(0);
    }
}

void cprof_inside_keep(struct cprof_worker *w)
{
    hidden = w;
}

void cprof_inside_end(void)
{
    if (--inside == 0)
        cprof_self_set(hidden);
}

int cprof_may_count(void)
{
    return !inside && tls_set_up == TLS_SET_UP;
}
