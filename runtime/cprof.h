/* cprof.h: what the cprof runtime offers.
 *
 * Two audiences:
 *  - programs (and people) that want to control profiling: cprof_write(), cprof_stop(),
 *    cprof_start(), cprof_reset();
 *  - code rewritten by cprof-cc, which calls the facade entry points below.
 *
 * cprof-cc pastes this header verbatim into preprocessed sources, so it must stay
 * self-contained: no #include, no macros that user code could collide with, only
 * declarations and one inline function.  Every name carries the cprof_ prefix.
 */
#ifndef CPROF_H
#define CPROF_H

/* ---- Control from the program (docs/control.md) ----
 * Code compiled by cprof-cc sees __CPROF__ defined; compiled by anything else, with
 * this header on its include path, the calls do nothing (the #else below). */
#if defined(__CPROF__) || defined(CPROF_BUILDING_RUNTIME)
/* Write the profile now (to the path that would be used at exit, see CPROF_OUT).
 * Returns 0 on success, -1 with errno set on failure.  The profile is written again
 * when the program ends. */
int cprof_write(void);
/* Stop counting: until cprof_start(), calls are neither counted nor timed, and cost an
 * indirect call and a return.  Activations open at the stop are timed to their exit.
 * CPROF_START=off starts the program stopped.  Both nest nothing: a second stop is a
 * no-op. */
void cprof_stop(void);
void cprof_start(void);
/* Forget everything counted so far, as if the program started now: counts, times and
 * elapsed time start from zero; the calling thread's open activations are counted once
 * and timed from now. */
void cprof_reset(void);
/* A user region: the code from cprof_region_begin("NAME") to cprof_region_end() on
 * the same thread is profiled as a routine NAME called from the routine around it,
 * with its cases, arcs and call paths (docs/control.md).  NAME must be a string
 * literal (cprof-cc makes the region's routine from it).  Regions nest; one still open
 * when its routine returns ends there.  #pragma cprof region("NAME") before a
 * statement makes that statement a region. */
void cprof_region_begin(const char *name);
void cprof_region_end(void);
/* CPROF_REGION("NAME") before a statement: #pragma cprof region("NAME"), which builds
 * without cprof-cc do not see (gcc -Wall would warn of an unknown pragma). */
#define CPROF_REGION(name) _Pragma(CPROF_REGION_TEXT(cprof region(name)))
#define CPROF_REGION_TEXT(pragma) #pragma
#else /* not __CPROF__: cprof-cc pastes nothing from here to its #endif */
static __inline__ int cprof_write(void) { return 0; }
static __inline__ void cprof_stop(void) {}
static __inline__ void cprof_start(void) {}
static __inline__ void cprof_reset(void) {}
static __inline__ void cprof_region_begin(const char *name) { (void)name; }
static __inline__ void cprof_region_end(void) {}
#define CPROF_REGION(name)
#endif /* __CPROF__ */

/* ---- ABI used by code that cprof-cc generates; not for hand-written code ---- */

/* The layout of the descriptors below, which the code cprof-cc generates fills in by
 * name: an object compiled against another layout fails to link (the entry points
 * carry the version, cprof_register_unit_v9). */
#define CPROF_API_VERSION 9

/* One per instrumented function definition; static in its translation unit. */
struct cprof_routine {
    const char *name;
    const char *file;      /* where the definition is spelled, as gcc named it */
    int line;
    int id;                /* global id, assigned when its unit registers */
    int seq_depth;         /* the initial thread's sequential activations open (paper
                              4.4.1: they count on every worker) */
    void (*self)(void);    /* the function's address, matched against cprof_pending.target;
                              null for a static function whose address its unit never
                              takes: only its unit's direct calls reach it, and they name
                              it by site->callee */
    int flags;             /* CPROF_ROUTINE_* */
};

/* What the rewriter knew of a routine. */
enum {
    /* No entry hook: its entries are counted at its call sites (cprof_count), its time
     * stays in its callers'. */
    CPROF_ROUTINE_COUNTED = 1,
    /* Timed, though gcc may well inline it in a plain build (declared inline, or static
     * and called from one site): its facade also costs what inlining would have saved. */
    CPROF_ROUTINE_INLINABLE = 2,
    /* Makes no call cprof sees (no call site, no construct): an untimed entry (sampled
     * timing, docs/semantics.md) names no context of its own and returns no frame, so
     * its exit costs the hook's one test. */
    CPROF_ROUTINE_LEAF = 4,
};

/* One per call site in instrumented code. */
struct cprof_leaf_slot;
struct cprof_site {
    struct cprof_routine *caller;  /* lexically enclosing routine */
    struct cprof_routine *callee;  /* a direct call of a routine of the same unit, else null */
    const char *file;
    int line;
    int d;                 /* parallel constructs of the caller's own body enclosing the site */
    int id;                /* global id, assigned when its unit registers */
    int construct;         /* 0: a call site; else the OpenMP construct at file:line, a
                              CPROF_CONSTRUCT_*, which names the parallel region or task
                              it opens (docs/semantics.md) */
    int passes_case;       /* v8: the site sets cprof_pending.kase with its handshake: the
                              entry asks OpenMP nothing */
    int leaf;              /* v9: a call of a leaf routine whose untimed calls the site
                              counts itself (cprof_leaf_untimed): its slot is
                              leaf_slots()[leaf - 1] on the calling thread; 0: none */
    struct cprof_leaf_slot *(*leaf_slots)(void);
};

/* The constructs a site may stand for: the first two open a region or a task, the
 * others end with a barrier (a worksharing construct without nowait, or a barrier). */
enum { CPROF_CONSTRUCT_PARALLEL = 1, CPROF_CONSTRUCT_TASK, CPROF_CONSTRUCT_FOR,
       CPROF_CONSTRUCT_SECTIONS, CPROF_CONSTRUCT_SINGLE, CPROF_CONSTRUCT_BARRIER };

/* A file a unit's routines and sites name (their `file`), seen when the unit was
 * compiled: where it was (an absolute path), its size and its hash (format/hash.h's
 * text); bytes -1 and hash null if it could not be read then. */
struct cprof_source {
    const char *name;      /* as the routines and sites spell it */
    const char *path;
    long long bytes;
    const char *hash;
};

/* One per translation unit, registered by a constructor before main and unregistered
 * by a destructor after the program's own (priority 101: after every destructor of its
 * object without a priority or with a larger one), or when its object is unloaded. */
struct cprof_unit {
    const char *file;
    int nroutines, nsites;
    struct cprof_routine *routines;
    struct cprof_site *sites;
    struct cprof_unit *next;
    /* v6: the files its routines and sites name, as the unit was compiled (the
     * profile's "sources": docs/source.md). */
    int nsources;
    const struct cprof_source *sources;
};

/* The call-site half of the handshake: set just before an instrumented call (after
 * its arguments are evaluated); the callee's entry accepts it only if it is the
 * site's callee or, for a site without one, if its own address equals target, so a
 * pending site never leaks into another routine.  A null target without a callee (a
 * call of an implicitly declared function) is accepted by any routine. */
struct cprof_worker;
struct cprof_pending {
    const struct cprof_site *site;
    void (*target)(void);
    struct cprof_worker *worker;   /* the runtime's: this thread's shard, beside the
                                      handshake so the entry finds both at one address */
    /* Set by every entry hook and counted call for the routine it enters: the case of
     * that routine's calls made outside any parallel construct of its own, C-S if it is
     * entered concurrently, else S-S.  The routine copies it into a local at entry. */
    int case0;
    /* Set just before a parallel or task construct (its site): the region or task
     * libgomp is asked for next on this thread is that one (runtime/ext/omp.c). */
    const struct cprof_site *construct;
    /* The calling context of the calls made now on this thread (the runtime's: the
     * top activation's), which a counted site's cache must have been filled in. */
    const void *context;
    /* The case of the pending call (S-S, S-C, C-S, C-C: 0 to 3), set with site where
     * the site passes it (site->passes_case): its caller's case0 outside its parallel
     * constructs, else its construct's cache (cprof_site_case fills it). */
    long kase;
};
extern __thread struct cprof_pending cprof_pending;
/* The same, as a call: for units with OpenMP target regions, whose device functions
 * may not touch thread-local storage. */
void cprof_pending_set(const struct cprof_site *site, void (*target)(void));

struct cprof_frame;
/* The name carries the version of these structures and of the protocol: an object
 * compiled by a cprof-cc with another protocol (v8: no untimed calls counted at their
 * sites, v7: no case passed by the call sites, v6: units compiled without profiling
 * not registered), another layout (v5: no sources, v4: no constructs), or that does
 * not unregister its units (v3), fails to link instead of being misread.  The profile
 * is written at exit when the last registered unit unregisters. */
void cprof_register_unit_v9(struct cprof_unit *unit);
void cprof_unregister_unit_v9(struct cprof_unit *unit);
/* A unit cprof-cc compiled without profiling (docs/cprof-cc.md, "When a unit cannot be
 * profiled"): the constructor and destructor it adds to gcc's own object register it
 * as a unit of no routines, its file and the reason copied, so that the profile lists
 * it and is written as for any other unit. */
void cprof_register_unprofiled_v9(const char *file, const char *reason);
void cprof_unregister_unprofiled_v9(void);
/* A routine's entry hook and the exit hook of its cleanup variable, chosen when the
 * runtime starts for the run's mode and clock (one indirect call each, no test of the
 * mode per call).  enter returns null when it keeps no frame (counting only); the
 * exit hook is then not called.  The frame goes by value: the cleanup wrapper each
 * unit defines passes the frame, not the address of its variable, so gcc's points-to
 * analysis never sees thousands of escaping locals when instrumented functions are
 * inlined. */
struct cprof_facade {
    struct cprof_frame *(*enter)(struct cprof_routine *routine);
    void (*leave)(struct cprof_frame *frame);
};
extern struct cprof_facade cprof_facade;
/* -fcprof-input-size: nonzero while the calling thread's activations are sized; an
 * entry hook that finds it set runs the routine's instrumented twin (runtime/ext/sizes.c,
 * docs/input-size.md). */
extern __thread int cprof_sizes_twin;
/* The case of a call from site made now on this thread, asked of OpenMP: what a
 * construct's cache of the case (cprof_pending.kase) starts from. */
int cprof_site_case(const struct cprof_site *site);
/* The call-site facade of a counted routine (site->callee): classifies and counts the
 * call, keeps no frame. */
void cprof_count(const struct cprof_site *site);
/* A counted routine of external linkage (docs/cprof-cc.md, "Small routines"): its own
 * unit's calls count at their sites, then leave cprof_pending.site on their unit's
 * marker, which its entry finds and gives back as cprof_site_consumed (what any entry
 * leaves); an entry that finds another handshake (another unit's call, a call through
 * a pointer, code cprof did not compile) is counted there by cprof_count_entry, as the
 * call's site or as from outside, with no frame and no time, whatever the run's
 * timing. */
extern const struct cprof_site *const cprof_site_consumed;
void cprof_count_entry(struct cprof_routine *routine);
/* A counted site's cache on one thread (the unit's thread-local slot): where its calls
 * count in one calling context, the one they are made in while it is current.  The
 * slot keeps the context's complement: a slot and a context both still zero (the
 * thread-local storage of a thread the dynamic linker has not set up yet, which an
 * ifunc resolver sees) never match.  (unsigned long holds a pointer on every Linux
 * ABI: the header may use no type from <stdint.h>, nor a predefined macro.) */
struct cprof_count_slot {
    unsigned long not_context;
    unsigned long long *counts;
};
/* The same, where the case of the call is known (kase >= 0, from the caller's case0 or
 * from a cache private to the thread in the enclosing parallel construct) and this
 * thread's counts of the site in the current context are in *slot (filled on the first
 * call in a context): one test and one increment, no call.  Else cprof_count_miss
 * counts the call, fills *slot and returns the case. */
int cprof_count_miss(const struct cprof_site *site, struct cprof_count_slot *slot);
static __inline__ __attribute__((always_inline, unused)) int
cprof_count_cached(const struct cprof_site *site, struct cprof_count_slot *slot, int kase)
{
    if (__builtin_expect(slot->not_context == ~(unsigned long)cprof_pending.context && kase >= 0, 1)) {
        slot->counts[kase]++;
        return kase;
    }
    return cprof_count_miss(site, slot);
}
/* The same for a call outside every parallel construct of its caller, whose case is
 * the caller's case0, never unknown: one test fewer. */
static __inline__ __attribute__((always_inline, unused)) void
cprof_count_case0(const struct cprof_site *site, struct cprof_count_slot *slot, int case0)
{
    if (__builtin_expect(slot->not_context == ~(unsigned long)cprof_pending.context, 1))
        slot->counts[case0]++;
    else
        cprof_count_miss(site, slot);
}
/* A site's cache for the untimed calls of a leaf routine (CPROF_TIMING=sampled,
 * docs/semantics.md "Sampled timing"; the unit's thread-local slot, site->leaf): the
 * key of the calling context and case its figures are for (context | case), the
 * sampling countdown of those figures, their untimed count and the worker's calls.
 * The runtime fills it when it counts an untimed call from the site; until then its
 * countdown is a zero of the unit's, so that a key still zero (a thread whose context
 * is not set yet) never counts. */
struct cprof_leaf_slot {
    unsigned long key;
    int *left;
    unsigned long long *untimed, *calls;
};
/* The site's half of an untimed call, where the slot holds the context the call is
 * made in, its case kase (-1: not known yet, never held), and the figures are between
 * two timed calls: counted as the runtime's untimed entry counts it; the site then
 * calls the routine's copy that has no hook.  Else 0: the call makes the usual
 * handshake and calls the routine. */
static __inline__ __attribute__((always_inline, unused)) int
cprof_leaf_untimed(struct cprof_leaf_slot *slot, long kase)
{
    if (__builtin_expect(slot->key == ((unsigned long)cprof_pending.context | (unsigned long)kase), 1)
        && __builtin_expect(*slot->left > 0, 1)) {
        --*slot->left;
        ++*slot->untimed;
        ++*slot->calls;
        return 1;
    }
    return 0;
}
/* What cprof-cc makes of cprof_region_begin("NAME"): the region routine's entry
 * (cprof_facade.enter, after its site's handshake) handed to the runtime, which keeps
 * it for cprof_region_end(). */
void cprof_region_opened(struct cprof_frame *frame);
/* The cleanup of the variable that a #pragma cprof region's line declares: the region's
 * end, however its statement is left. */
void cprof_region_cleanup(int *unused);
/* Before a call that ends the process from outside (MPI_Abort: the launcher kills the
 * ranks), once its own activation is open: the run's profile, as at exit (every open
 * activation closed now), written once. */
void cprof_write_final(void);
void *cprof_setjmp_mark(void *env);
void *cprof_longjmp_unwind(void *env);

#endif
