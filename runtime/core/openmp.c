/* openmp.c: the program's OpenMP runtime, and how cprof observes it (docs/semantics.md,
 * "OpenMP runtimes").
 *
 * Decided once, before the facade is chosen, from what the process loaded, without
 * calling the runtime (libomp initializes itself on its first call, with the
 * program's malloc: a profiled malloc would find it half made):
 *  - libgomp (GNU's libgomp.so.1): gomp.c's wrappers of its entry points, linked by
 *    cprof-cc, see the regions and tasks; the cases come from libgomp's answers;
 *  - an LLVM runtime (libomp, Intel's libiomp5, known by their names): ompt.c,
 *    the OMPT tool libomp starts, sees them; the cases come from libomp's answers once
 *    it has registered the thread, and before that from the initial task's (no
 *    region can be active on a thread libomp does not know);
 *  - an LLVM runtime without OMPT (OMP_TOOL=disabled, another tool found first, a
 *    callback it cannot give): the cases are right, no region is seen;
 *  - both at once: neither the cases nor the regions can be known (each runtime knows
 *    its own regions only).
 * The last two are said in one line on stderr, and in the profile's "openmp" section,
 * which the report reads (docs/report.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "core.h"

enum cprof_omp_source cprof_omp_source;

/* ---- what the runtime asks OpenMP, per thread ---- */

static const struct cprof_omp_api runtime_api = {
    omp_get_active_level, omp_get_level, omp_get_team_size, omp_get_num_threads,
    omp_get_thread_num,
};

/* The answers of the initial task, for a thread libomp has not registered; the
 * runtime's own once its tool turned out not to be started after all. */
static const struct cprof_omp_api initial_task;

static const struct cprof_omp_api *stub_or_runtime(void)
{
    enum cprof_omp_source s = __atomic_load_n(&cprof_omp_source, __ATOMIC_ACQUIRE);
    if (s == CPROF_OMP_OMPT || s == CPROF_OMP_MIXED)
        return &initial_task;
    return cprof_omp_here = &runtime_api;
}
static int stub_zero(void) { return stub_or_runtime() == &initial_task ? 0 : runtime_api.level(); }
static int stub_active_level(void)
{
    return stub_or_runtime() == &initial_task ? 0 : runtime_api.active_level();
}
static int stub_team_size(int level)
{
    return stub_or_runtime() == &initial_task ? (level == 0 ? 1 : -1) : runtime_api.team_size(level);
}
static int stub_num_threads(void)
{
    return stub_or_runtime() == &initial_task ? 1 : runtime_api.num_threads();
}
static int stub_thread_num(void)
{
    return stub_or_runtime() == &initial_task ? 0 : runtime_api.thread_num();
}
static const struct cprof_omp_api initial_task = {
    stub_active_level, stub_zero, stub_team_size, stub_num_threads, stub_thread_num,
};

static void decide(void);

/* A thread's first question: the source decided, its table. */
static __thread int deciding;

static const struct cprof_omp_api *resolved(void)
{
    if (deciding)
        return &initial_task;       /* the decision's own calls back (dlsym's malloc) */
    decide();
    enum cprof_omp_source s = cprof_omp_source;
    return cprof_omp_here = s == CPROF_OMP_OMPT || s == CPROF_OMP_MIXED ? &initial_task
                                                                        : &runtime_api;
}
static int resolve_active_level(void) { return resolved()->active_level(); }
static int resolve_level(void) { return resolved()->level(); }
static int resolve_team_size(int level) { return resolved()->team_size(level); }
static int resolve_num_threads(void) { return resolved()->num_threads(); }
static int resolve_thread_num(void) { return resolved()->thread_num(); }
static const struct cprof_omp_api resolve = {
    resolve_active_level, resolve_level, resolve_team_size, resolve_num_threads,
    resolve_thread_num,
};

__thread const struct cprof_omp_api *cprof_omp_here = &resolve;

void cprof_omp_registered(void)
{
    if (cprof_omp_source != CPROF_OMP_MIXED)
        cprof_omp_here = &runtime_api;
}

void cprof_omp_unregistered(void)
{
    cprof_omp_here = &initial_task;
}

/* ---- which runtime, and how it is observed ---- */

static char runtime_name[256] = "none";    /* the file, or both files */
static char runtime_version[128];           /* what libomp told its tool */
static char reason[512];                    /* why the regions or the cases are not seen */
static int decided;                         /* 0, 1 deciding, 2 done */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* What names an OpenMP runtime: GNU's, or LLVM's (libomp, Intel's libiomp5); the
 * program binds to the one that defines omp_get_level for it. */
enum { NOT_OPENMP, GNU, LLVM };

static int runtime_kind(const char *path)
{
    const char *b = base_name(path);
    if (!strncmp(b, "libgomp.so", 10))
        return GNU;
    return !strncmp(b, "libomp.so", 9) || !strncmp(b, "libomp5.so", 10) ||
           !strncmp(b, "libiomp5.so", 11) ? LLVM : NOT_OPENMP;
}

/* Loaded objects that are OpenMP runtimes other than the one at base `bound`. */
struct others {
    const void *bound;
    char names[200];
};

static int other_runtime(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct others *o = arg;
    if (info->dlpi_name && runtime_kind(info->dlpi_name) != NOT_OPENMP &&
        (const void *)info->dlpi_addr != o->bound) {
        size_t n = strlen(o->names);
        snprintf(o->names + n, sizeof o->names - n, "%s%s", n ? ", " : "",
                 base_name(info->dlpi_name));
    }
    return 0;
}

/* Whether the runtime at base `bound` has initialized: libomp registers itself then, in
 * /dev/shm/__KMP_REGISTERED_LIB_PID_UID (LLVM 12 on) or the variable
 * __KMP_REGISTERED_LIB_PID, as "ADDRESS-VALUE-FILE": a flag of its own and its value,
 * which tell a live registration from one a dead process of the same pid left. */
static int llvm_started(const void *bound)
{
    char name[80], text[512] = "";
    snprintf(name, sizeof name, "/dev/shm/__KMP_REGISTERED_LIB_%d_%d", (int)getpid(),
             (int)getuid());
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, text, sizeof text - 1);
        text[n > 0 ? n : 0] = 0;
        close(fd);
    } else {
        snprintf(name, sizeof name, "__KMP_REGISTERED_LIB_%d", (int)getpid());
        const char *v = getenv(name);
        snprintf(text, sizeof text, "%s", v ? v : "");
    }
    unsigned long address, value;
    Dl_info at;
    return sscanf(text, "%lx-%lx", &address, &value) == 2 && dladdr((void *)address, &at) &&
           at.dli_fbase == bound && *(const volatile unsigned long *)address == value;
}

/* libomp offered cprof its tool interface (it does once, when it initializes). */
static int offered;

static void unseen(enum cprof_omp_source s, const char *fmt, const char *arg)
{
    snprintf(reason, sizeof reason, fmt, arg);
    __atomic_store_n(&cprof_omp_source, s, __ATOMIC_RELEASE);
}

/* By the objects' names and dladdr, which never fail: a failed dlsym or dlopen calls
 * the program's malloc for its message, and its heap must be gcc's build's. */
static void decide_now(void)
{
    Dl_info bound;
    int kind = dladdr((const void *)runtime_api.level, &bound) && bound.dli_fname
                   ? runtime_kind(bound.dli_fname) : NOT_OPENMP;
    if (kind == NOT_OPENMP) {       /* linked statically, or none: libgomp's entry points */
        cprof_omp_source = CPROF_OMP_LINK;
        return;
    }
    snprintf(runtime_name, sizeof runtime_name, "%s", base_name(bound.dli_fname));
    struct others o = { bound.dli_fbase, "" };
    dl_iterate_phdr(other_runtime, &o);
    if (o.names[0]) {
        size_t n = strlen(runtime_name);
        snprintf(runtime_name + n, sizeof runtime_name - n, " and %s", o.names);
        unseen(CPROF_OMP_MIXED, "two OpenMP runtimes are loaded, %s, each knowing only its "
               "own parallel regions", runtime_name);
        return;
    }
    if (kind == GNU) {
        cprof_omp_source = CPROF_OMP_LINK;
        return;
    }
    const char *tool = getenv("OMP_TOOL");
    Dl_info start;
    /* The runtime calls the first ompt_start_tool in the address space: cprof's, or
     * its own, which calls the next one (cprof's in a profiled library's libcprof.so). */
    const void *first = dlsym(RTLD_DEFAULT, "ompt_start_tool");
    int started = llvm_started(bound.dli_fbase);
    if (tool && !strcasecmp(tool, "disabled"))
        unseen(CPROF_OMP_UNSEEN, "OMP_TOOL=%s: the runtime starts no OpenMP tool", tool);
    else if (!offered && started)
        unseen(CPROF_OMP_UNSEEN, "%s", "it started before cprof's runtime was loaded (a "
                                       "profiled library the program loaded), and starts its "
                                       "OpenMP tool only then");
    else if (first != (const void *)cprof_hooks()->ompt_start_tool &&
             !(first && dladdr(first, &start) && start.dli_fbase == bound.dli_fbase))
        unseen(CPROF_OMP_UNSEEN, "%s", "another OpenMP tool's ompt_start_tool is found before "
                                       "cprof's");
    else
        cprof_omp_source = CPROF_OMP_OMPT;
    /* Unseen, the facade asks libomp from the first call on: it initializes now, inside
     * the runtime, where what it calls of the program's (its own malloc, its own
     * ompt_start_tool) counts nothing and asks nothing. */
    if (cprof_omp_source == CPROF_OMP_UNSEEN && !started)
        runtime_api.level();
}

/* Once per process, the first caller deciding inside the runtime (what dlsym calls
 * back in the program counts nothing); another thread waits for it. */
static void decide(void)
{
    int expected = 0;
    if (__atomic_load_n(&decided, __ATOMIC_ACQUIRE) == 2)
        return;
    if (__atomic_compare_exchange_n(&decided, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        deciding = 1;
        cprof_inside_begin();
        decide_now();
        cprof_inside_end();
        deciding = 0;
        __atomic_store_n(&decided, 2, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&decided, __ATOMIC_ACQUIRE) != 2)
        sched_yield();
}

/* What is not seen, in one line. */
static void say_unseen(void)
{
    if (cprof_omp_source == CPROF_OMP_MIXED)
        fprintf(stderr, "cprof: %s; the profile counts every call but not its case (S-S, S-C, "
                "C-S, C-C), and has no parallel regions or tasks\n", reason);
    else if (cprof_omp_source == CPROF_OMP_UNSEEN)
        fprintf(stderr, "cprof: %s (%s): the profile has no parallel regions or tasks (the "
                "calls' cases are measured)\n", runtime_name, reason);
}

void cprof_openmp_start(void)
{
    decide();
    say_unseen();
}

int cprof_openmp_tool_offered(const char *version)
{
    offered = 1;
    decide();
    snprintf(runtime_version, sizeof runtime_version, "%s", version ? version : "");
    if (cprof_omp_source != CPROF_OMP_OMPT)
        return 0;
    const char *libraries = getenv("OMP_TOOL_LIBRARIES");
    if (libraries && *libraries)
        fprintf(stderr, "cprof: OMP_TOOL_LIBRARIES=%s is not loaded: cprof is the program's "
                "OpenMP tool\n", libraries);
    return 1;
}

/* libomp initialized its tool, cprof's. */
static int tool_ready;

int cprof_openmp_ready(void)
{
    enum cprof_omp_source s = cprof_omp_source;
    return s == CPROF_OMP_LINK || s == CPROF_OMP_UNSEEN ||
           (s == CPROF_OMP_OMPT && __atomic_load_n(&tool_ready, __ATOMIC_ACQUIRE));
}

void cprof_openmp_tool_ready(int ok, const char *missing)
{
    __atomic_store_n(&tool_ready, ok, __ATOMIC_RELEASE);
    if (ok) {
        cprof_omp_registered();     /* the thread libomp initializes on, registered */
        return;
    }
    unseen(CPROF_OMP_UNSEEN, "it cannot give cprof the OMPT callback %s", missing);
    say_unseen();
}

void cprof_openmp_write(struct cprof_json *j)
{
    static const char *const observed[] = {
        [CPROF_OMP_UNKNOWN] = "none", [CPROF_OMP_LINK] = "link", [CPROF_OMP_OMPT] = "ompt",
        [CPROF_OMP_UNSEEN] = "none", [CPROF_OMP_MIXED] = "none",
    };
    enum cprof_omp_source s = cprof_omp_source;
    cprof_json_key(j, CPROF_SECTION_OPENMP);
    cprof_json_begin(j, '{');
    cprof_json_field_string(j, "runtime", runtime_name);
    if (runtime_version[0])
        cprof_json_field_string(j, "version", runtime_version);
    cprof_json_field_string(j, "observed", observed[s]);
    cprof_json_key(j, "cases");
    cprof_json_bool(j, s != CPROF_OMP_MIXED);
    cprof_json_key(j, "regions");
    cprof_json_bool(j, s == CPROF_OMP_LINK || s == CPROF_OMP_OMPT);
    if (reason[0])
        cprof_json_field_string(j, "reason", reason);
    cprof_json_end(j, '}');
}
