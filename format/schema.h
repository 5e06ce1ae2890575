/* schema.h: the profile file's layout (docs/profile-format.md), written once.  The
 * runtime writes its rows by these names, cprof-report reads them by these names, and
 * tests/cli/schema_doc.sh checks the doc's column tables against them. */
#ifndef CPROF_SCHEMA_H
#define CPROF_SCHEMA_H

#define CPROF_FORMAT_NAME "cprof-profile"
#define CPROF_FORMAT_VERSION 2

/* The sections version 2 defines beyond its first layout, each a key of the document
 * (of "machine" for "topology") that the writer declares optional in "sections" (older
 * readers of version 2 skip it):
 * "job", the launcher's id of the MPI job the process is a rank of;
 * "resources" (docs/resources.md), also a key of each worker, with a paths row's
 * samples columns (CPROF_SAMPLES_COLUMN);
 * "regions", a key of each worker: its rows of parallel regions and tasks
 * (CPROF_REGION_COLUMNS), written when the program ran any;
 * "trace" (docs/tracing.md), the trace file written beside the profile and how it was
 * recorded, also a key of each worker: its events recorded and dropped;
 * "input_sizes" (docs/input-size.md): input-sensitive profiles, a key of the header (the
 * cell size, the shadow memory's, the column names) and of each worker: one row per
 * routine, calling context and read memory size, of CPROF_SIZE_COLUMNS (the sums of
 * squares are reals);
 * "topology" (docs/placement.md), a key of "machine": the machine's packages, NUMA
 * nodes, PUs and caches as hwloc sees them, or why they are unknown;
 * "placement" (docs/placement.md), a key of the header (the launch's binding settings)
 * and of each worker (the PUs it ran on, for how long, its moves);
 * "sources" (docs/source.md): the files the units' routines and sites name, as each
 * unit was compiled (where, their size and hash, format/hash.h), one entry per unit; a
 * key of the header, and of each routine and site: its unit's index there;
 * "openmp" (docs/profile-format.md): the program's OpenMP runtime and how cprof observed
 * it, whether the calls' cases and the parallel regions were measured, and if not why;
 * "unprofiled" (docs/cprof-cc.md): the units of the program cprof-cc compiled without
 * profiling, each {"file", "reason"}, a key of the header written when there is one;
 * "timing" (docs/semantics.md, "Sampled timing"): a key of the header, how activations
 * were timed ({"mode": "sampled" or "every", "period", "min_activations", "short_ns",
 * "call_cost_ns", "inner_ns", "untimed_ns", "correction_ns", "site_untimed_ns",
 * "site_correction_ns"}; a site that counted its untimed calls itself says
 * "untimed_at_site": true);
 * "sampled", declared when the mode is "sampled": a key of each worker, its rows
 * (CPROF_SAMPLED_COLUMNS), one per calls or paths row and case whose time columns hold
 * an estimate;
 * "overhead" (docs/overhead.md): what profiling cost the run, measured, a key of the
 * header: {"method": "cpu samples", "samples", "in_cprof", "period_ns", "not_covered"}
 * (and a "reason" where something was not sampled), or {"method": "none", "reason"}. */
#define CPROF_SECTION_JOB "job"
#define CPROF_SECTION_RESOURCES "resources"
#define CPROF_SECTION_REGIONS "regions"
#define CPROF_SECTION_TRACE "trace"
#define CPROF_SECTION_SIZES "input_sizes"
#define CPROF_SECTION_TOPOLOGY "topology"
#define CPROF_SECTION_PLACEMENT "placement"
#define CPROF_SECTION_SOURCES "sources"
#define CPROF_SECTION_OPENMP "openmp"
#define CPROF_SECTION_UNPROFILED "unprofiled"
#define CPROF_SECTION_TIMING "timing"
#define CPROF_SECTION_OVERHEAD "overhead"
#define CPROF_SECTION_SAMPLED "sampled"
/* All of them: what a reader of this version knows. */
__attribute__((unused))
static const char *const cprof_sections[] = {
    CPROF_SECTION_JOB, CPROF_SECTION_RESOURCES, CPROF_SECTION_REGIONS, CPROF_SECTION_TRACE,
    CPROF_SECTION_SIZES, CPROF_SECTION_TOPOLOGY, CPROF_SECTION_PLACEMENT, CPROF_SECTION_SOURCES,
    CPROF_SECTION_OPENMP, CPROF_SECTION_UNPROFILED, CPROF_SECTION_TIMING,
    CPROF_SECTION_SAMPLED, CPROF_SECTION_OVERHEAD };

/* An "input_sizes" row's columns. */
#define CPROF_SIZE_COLUMNS(X) \
    X(Z_ROUTINE,          "routine") \
    X(Z_PATH,             "path") \
    X(Z_RMS,              "rms") \
    X(Z_CALLS,            "calls") \
    X(Z_TIME_MAX,         "time_max") \
    X(Z_TIME_MIN,         "time_min") \
    X(Z_TIME_SUM,         "time_sum") \
    X(Z_TIME_SQ,          "time_sq") \
    X(Z_ACC_MAX,          "accesses_max") \
    X(Z_ACC_MIN,          "accesses_min") \
    X(Z_ACC_SUM,          "accesses_sum") \
    X(Z_ACC_SQ,           "accesses_sq")
#define CPROF_SIZE_ID(id, name) CPROF_##id,
enum cprof_size_column { CPROF_SIZE_COLUMNS(CPROF_SIZE_ID) CPROF_SIZE_NCOLUMNS };
#undef CPROF_SIZE_ID
#define CPROF_SIZE_NAME(id, name) name,
__attribute__((unused))
static const char *const cprof_size_columns[] = { CPROF_SIZE_COLUMNS(CPROF_SIZE_NAME) };
#undef CPROF_SIZE_NAME

/* What a column holds.  A time (ns) names the column that counts the profiled calls
 * made inside it on its thread: their facades ran within that time, which is what
 * --compensate takes out.  A self time is a time less that of the activations nested
 * in it. */
enum cprof_column_kind { CPROF_COL_INDEX, CPROF_COL_COUNT, CPROF_COL_TIME, CPROF_COL_SELF_TIME };

/* A worker's "routines" rows, one per routine it entered: X(ID, name, kind, calls). */
#define CPROF_ROUTINE_COLUMNS(X) \
    X(R_ROUTINE,          "routine",                   CPROF_COL_INDEX,     -1) \
    X(R_S_ENTRIES,        "s_entries",                 CPROF_COL_COUNT,     -1) \
    X(R_S_TIME,           "s_time",                    CPROF_COL_TIME,      CPROF_R_S_NESTED) \
    X(R_C_ENTRIES,        "c_entries",                 CPROF_COL_COUNT,     -1) \
    X(R_C_TIME,           "c_time",                    CPROF_COL_TIME,      CPROF_R_C_NESTED) \
    X(R_MAX_DEPTH,        "max_depth",                 CPROF_COL_COUNT,     -1) \
    X(R_S_EXT,            "s_external",                CPROF_COL_COUNT,     -1) \
    X(R_S_EXT_TIME,       "s_external_time",           CPROF_COL_TIME,      CPROF_R_S_EXT_NESTED) \
    X(R_C_EXT,            "c_external",                CPROF_COL_COUNT,     -1) \
    X(R_C_EXT_TIME,       "c_external_time",           CPROF_COL_TIME,      CPROF_R_C_EXT_NESTED) \
    X(R_S_SELF,           "s_self_time",               CPROF_COL_SELF_TIME, CPROF_R_S_DIRECT) \
    X(R_C_SELF,           "c_self_time",               CPROF_COL_SELF_TIME, CPROF_R_C_DIRECT) \
    X(R_S_NESTED,         "s_nested",                  CPROF_COL_COUNT,     -1) \
    X(R_C_NESTED,         "c_nested",                  CPROF_COL_COUNT,     -1) \
    X(R_S_EXT_NESTED,     "s_external_nested",         CPROF_COL_COUNT,     -1) \
    X(R_C_EXT_NESTED,     "c_external_nested",         CPROF_COL_COUNT,     -1) \
    X(R_S_DIRECT,         "s_direct",                  CPROF_COL_COUNT,     -1) \
    X(R_C_DIRECT,         "c_direct",                  CPROF_COL_COUNT,     -1) \
    X(R_C_THREAD_TIME,    "c_thread_time",             CPROF_COL_TIME,      CPROF_R_C_THREAD_NESTED) \
    X(R_C_THREAD_NESTED,  "c_thread_nested",           CPROF_COL_COUNT,     -1) \
    X(R_S_EXT_REC_TIME,   "s_external_rec_time",       CPROF_COL_TIME,      CPROF_R_S_EXT_REC_NESTED) \
    X(R_C_EXT_REC_TIME,   "c_external_rec_time",       CPROF_COL_TIME,      CPROF_R_C_EXT_REC_NESTED) \
    X(R_S_EXT_REC_NESTED, "s_external_rec_nested",     CPROF_COL_COUNT,     -1) \
    X(R_C_EXT_REC_NESTED, "c_external_rec_nested",     CPROF_COL_COUNT,     -1) \
    X(R_TEAM_TIME,        "team_time",                 CPROF_COL_TIME,      CPROF_R_TEAM_NESTED) \
    X(R_TEAM_SELF,        "team_self_time",            CPROF_COL_SELF_TIME, CPROF_R_TEAM_DIRECT) \
    X(R_TEAM_NESTED,      "team_nested",               CPROF_COL_COUNT,     -1) \
    X(R_TEAM_DIRECT,      "team_direct",               CPROF_COL_COUNT,     -1)

/* Per case (S-S, S-C, C-S, C-C, in that order) the calls and callee time, then per case
 * the calls nested in those activations, the recursion-nested time and its calls: the
 * figures of a calls row and of a paths row, their ids prefixed P (C_SS_TIME...). */
#define CPROF_FIGURE_COLUMNS(X, P) \
    X(P##_SS,              "ss_calls",                  CPROF_COL_COUNT,     -1) \
    X(P##_SS_TIME,         "ss_time",                   CPROF_COL_TIME,      CPROF_##P##_SS_NESTED) \
    X(P##_SC,              "sc_calls",                  CPROF_COL_COUNT,     -1) \
    X(P##_SC_TIME,         "sc_time",                   CPROF_COL_TIME,      CPROF_##P##_SC_NESTED) \
    X(P##_CS,              "cs_calls",                  CPROF_COL_COUNT,     -1) \
    X(P##_CS_TIME,         "cs_time",                   CPROF_COL_TIME,      CPROF_##P##_CS_NESTED) \
    X(P##_CC,              "cc_calls",                  CPROF_COL_COUNT,     -1) \
    X(P##_CC_TIME,         "cc_time",                   CPROF_COL_TIME,      CPROF_##P##_CC_NESTED) \
    X(P##_SS_NESTED,       "ss_nested",                 CPROF_COL_COUNT,     -1) \
    X(P##_SC_NESTED,       "sc_nested",                 CPROF_COL_COUNT,     -1) \
    X(P##_CS_NESTED,       "cs_nested",                 CPROF_COL_COUNT,     -1) \
    X(P##_CC_NESTED,       "cc_nested",                 CPROF_COL_COUNT,     -1) \
    X(P##_SS_REC_TIME,     "ss_rec_time",               CPROF_COL_TIME,      CPROF_##P##_SS_REC_NESTED) \
    X(P##_SC_REC_TIME,     "sc_rec_time",               CPROF_COL_TIME,      CPROF_##P##_SC_REC_NESTED) \
    X(P##_CS_REC_TIME,     "cs_rec_time",               CPROF_COL_TIME,      CPROF_##P##_CS_REC_NESTED) \
    X(P##_CC_REC_TIME,     "cc_rec_time",               CPROF_COL_TIME,      CPROF_##P##_CC_REC_NESTED) \
    X(P##_SS_REC_NESTED,   "ss_rec_nested",             CPROF_COL_COUNT,     -1) \
    X(P##_SC_REC_NESTED,   "sc_rec_nested",             CPROF_COL_COUNT,     -1) \
    X(P##_CS_REC_NESTED,   "cs_rec_nested",             CPROF_COL_COUNT,     -1) \
    X(P##_CC_REC_NESTED,   "cc_rec_nested",             CPROF_COL_COUNT,     -1)

/* A worker's "calls" rows, one per call site and callee reached from it: the site, the
 * callee, its figures. */
#define CPROF_CALL_COLUMNS(X) \
    X(C_SITE,             "site",                      CPROF_COL_INDEX,     -1) \
    X(C_CALLEE,           "callee",                    CPROF_COL_INDEX,     -1) \
    CPROF_FIGURE_COLUMNS(X, C)

/* A worker's "paths" rows, one per calling context (docs/semantics.md), parents before
 * children: its kind (0 a call from a site, 1 an entry from outside, 2 <other>: calls
 * past the runtime's limit, how many in ss_calls, 3 a parallel region, 4 a task: its
 * executions on the worker), its parent's row + 1 (0: a root), the row + 1 of the
 * context its calls hang from (0: itself; else an ancestor of the same routine:
 * recursion folded), the site and routine (0 where the kind has none; a region's or
 * task's site is its construct's + 1, 0 for one cprof-cc did not compile), then a calls
 * row's columns from ss_calls on, then the context's self time (the time the thread's
 * calls were made in it, less what nested there) and the calls made directly there. */
#define CPROF_PATH_COLUMNS(X) \
    X(P_KIND,             "kind",                      CPROF_COL_COUNT,     -1) \
    X(P_PARENT,           "parent",                    CPROF_COL_COUNT,     -1) \
    X(P_FOLDS,            "folds_into",                CPROF_COL_COUNT,     -1) \
    X(P_SITE,             "site",                      CPROF_COL_COUNT,     -1) \
    X(P_CALLEE,           "callee",                    CPROF_COL_COUNT,     -1) \
    CPROF_FIGURE_COLUMNS(X, P) \
    X(P_SELF_TIME,        "self_time",                 CPROF_COL_SELF_TIME, CPROF_P_SELF_DIRECT) \
    X(P_SELF_DIRECT,      "self_direct",               CPROF_COL_COUNT,     -1)

enum { CPROF_PATH_CALL, CPROF_PATH_OUTSIDE, CPROF_PATH_OTHER, CPROF_PATH_REGION, CPROF_PATH_TASK };

/* A worker's "sampled" rows (section "sampled"), one per calls or paths row and case
 * whose time holds an estimate: the callee and site as in the calls row, the paths row
 * + 1 (0: the calls row's own calls, outside every context), the case (0 S-S, 1 S-C,
 * 2 C-S, 3 C-C), the calls counted there; the sample: how many short activations were
 * timed, their time and the sum of its squares (ns^2, a real); and the activations
 * timed that were not short, kept as they are (exact), and their time.  The row's time
 * holds the estimate (docs/semantics.md, "Sampled timing"). */
#define CPROF_SAMPLED_COLUMNS(X) \
    X(S_CALLEE,           "callee",                    CPROF_COL_INDEX,     -1) \
    X(S_SITE,             "site",                      CPROF_COL_INDEX,     -1) \
    X(S_PATH,             "path",                      CPROF_COL_COUNT,     -1) \
    X(S_CASE,             "case",                      CPROF_COL_COUNT,     -1) \
    X(S_CALLS,            "calls",                     CPROF_COL_COUNT,     -1) \
    X(S_TIMED,            "timed",                     CPROF_COL_COUNT,     -1) \
    X(S_TIMED_TIME,       "timed_time",                CPROF_COL_TIME,      -1) \
    X(S_TIMED_SQ,         "timed_sq",                  CPROF_COL_COUNT,     -1) \
    X(S_EXACT,            "exact",                     CPROF_COL_COUNT,     -1) \
    X(S_EXACT_TIME,       "exact_time",                CPROF_COL_TIME,      -1)

/* A worker's "regions" rows (docs/semantics.md, "Parallel regions and tasks"), one per
 * construct it ran or opened: the construct's site + 1 (0: one cprof-cc did not
 * compile) and kind (1 parallel, 2 task); as a member of the team (or the task's
 * runner): executions, busy time (in the body, less the waits at barriers inside it,
 * and a task's less the other tasks run inside it; a region's with the tasks run at its
 * closing barrier) and the profiled calls made in it, barriers passed inside and the time waited in
 * them, the time waited at the region's closing barrier, the team sizes (smallest,
 * largest, sum over executions); as the thread that opened the region (or created the
 * task): executions opened (tasks created), and over a region's the sum of the slowest
 * member's busy time and of the team's mean busy time.  A worker has a row for each
 * construct it ran or opened. */
#define CPROF_REGION_COLUMNS(X) \
    X(G_CONSTRUCT,        "construct",                 CPROF_COL_COUNT,     -1) \
    X(G_KIND,             "kind",                      CPROF_COL_COUNT,     -1) \
    X(G_EXECUTIONS,       "executions",                CPROF_COL_COUNT,     -1) \
    X(G_BUSY,             "busy_time",                 CPROF_COL_TIME,      CPROF_G_NESTED) \
    X(G_NESTED,           "nested",                    CPROF_COL_COUNT,     -1) \
    X(G_BARRIERS,         "barriers",                  CPROF_COL_COUNT,     -1) \
    X(G_BARRIER_WAIT,     "barrier_wait",              CPROF_COL_TIME,      -1) \
    X(G_END_WAIT,         "end_wait",                  CPROF_COL_TIME,      -1) \
    X(G_TEAM_MIN,         "team_min",                  CPROF_COL_COUNT,     -1) \
    X(G_TEAM_MAX,         "team_max",                  CPROF_COL_COUNT,     -1) \
    X(G_TEAM_SUM,         "team_sum",                  CPROF_COL_COUNT,     -1) \
    X(G_OPENED,           "opened",                    CPROF_COL_COUNT,     -1) \
    X(G_MAX_BUSY,         "max_busy",                  CPROF_COL_TIME,      -1) \
    X(G_MEAN_BUSY,        "mean_busy",                 CPROF_COL_TIME,      -1)

/* A regions row's kind, and the name a site's "construct" gives it (runtime/cprof.h's
 * CPROF_CONSTRUCT_* are the same numbers): a parallel region, a task, or a construct
 * that ends with a barrier, whose row counts the barrier's passes (executions), the
 * time on the worker from its last synchronization (the body's start or the barrier
 * before) to this barrier (busy) and the wait there. */
enum { CPROF_REGION_PARALLEL = 1, CPROF_REGION_TASK, CPROF_REGION_FOR, CPROF_REGION_SECTIONS,
       CPROF_REGION_SINGLE, CPROF_REGION_BARRIER, CPROF_REGION_NKINDS };
__attribute__((unused))
static const char *const cprof_region_kinds[CPROF_REGION_NKINDS] = {
    "", "parallel", "task", "for", "sections", "single", "barrier" };

/* Resources beyond time (docs/resources.md): at most this many in a file.  With some,
 * a paths row ends with two columns per resource, its samples taken while the context
 * was entered sequentially and concurrently, named in "columns" by this format from
 * "s" or "c" and the resource's name (s_samples@cpu). */
#define CPROF_RESOURCES_MAX 8
#define CPROF_SAMPLES_COLUMN "%c_samples@%s"

#define CPROF_COLUMN_ID(id, name, kind, calls) CPROF_##id,
enum cprof_routine_column { CPROF_ROUTINE_COLUMNS(CPROF_COLUMN_ID) CPROF_ROUTINE_NCOLUMNS };
enum cprof_call_column { CPROF_CALL_COLUMNS(CPROF_COLUMN_ID) CPROF_CALL_NCOLUMNS };
enum cprof_path_column { CPROF_PATH_COLUMNS(CPROF_COLUMN_ID) CPROF_PATH_NCOLUMNS };
enum cprof_region_column { CPROF_REGION_COLUMNS(CPROF_COLUMN_ID) CPROF_REGION_NCOLUMNS };
enum cprof_sampled_column { CPROF_SAMPLED_COLUMNS(CPROF_COLUMN_ID) CPROF_SAMPLED_NCOLUMNS };
#undef CPROF_COLUMN_ID

/* Case k's columns of a calls row (k: 0 S-S, 1 S-C, 2 C-S, 3 C-C). */
#define CPROF_COLUMN_CASES 4
#define CPROF_C_CALLS(k)      (CPROF_C_SS + 2 * (k))
#define CPROF_C_TIME(k)       (CPROF_C_SS_TIME + 2 * (k))
#define CPROF_C_NESTED(k)     (CPROF_C_SS_NESTED + (k))
#define CPROF_C_REC_TIME(k)   (CPROF_C_SS_REC_TIME + (k))
#define CPROF_C_REC_NESTED(k) (CPROF_C_SS_REC_NESTED + (k))
/* A paths row from its ss_calls column on is laid out as a calls row from its own. */
#define CPROF_P_OF(c)         (CPROF_P_SS + (c) - CPROF_C_SS)
_Static_assert(CPROF_P_OF(CPROF_C_CC_REC_NESTED) == CPROF_P_CC_REC_NESTED
               && CPROF_P_SELF_TIME - CPROF_P_SS == CPROF_CALL_NCOLUMNS - CPROF_C_SS,
               "a paths row's figures are a calls row's");
_Static_assert(CPROF_C_TIME(3) == CPROF_C_CC_TIME && CPROF_C_NESTED(3) == CPROF_C_CC_NESTED
               && CPROF_C_REC_TIME(3) == CPROF_C_CC_REC_TIME
               && CPROF_C_REC_NESTED(3) == CPROF_C_CC_REC_NESTED,
               "a calls row's columns come per case in the order S-S, S-C, C-S, C-C");

/* Writers before the recursion columns made rows this wide; readers take the missing
 * columns as 0. */
#define CPROF_ROUTINE_NCOLUMNS_OLD CPROF_R_C_THREAD_TIME
#define CPROF_CALL_NCOLUMNS_OLD CPROF_C_SS_REC_TIME
/* The routines columns every file has (version 1's rows at most this wide, version 2's
 * "columns" naming each): those from team_time on came later, and a file without
 * them reads them as 0. */
#define CPROF_ROUTINE_NCOLUMNS_REQUIRED CPROF_R_TEAM_TIME
/* The paths columns every file with paths has: self_time and self_direct came later. */
#define CPROF_PATH_NCOLUMNS_REQUIRED CPROF_P_SELF_TIME

struct cprof_column {
    const char *name;
    enum cprof_column_kind kind;
    int calls;              /* a time's calls column, else -1 */
};

/* Unused where a file includes this header for its constants alone. */
#define CPROF_COLUMN_ENTRY(id, name, kind, calls) { name, kind, calls },
__attribute__((unused))
static const struct cprof_column cprof_routine_columns[] = { CPROF_ROUTINE_COLUMNS(CPROF_COLUMN_ENTRY) };
__attribute__((unused))
static const struct cprof_column cprof_call_columns[] = { CPROF_CALL_COLUMNS(CPROF_COLUMN_ENTRY) };
__attribute__((unused))
static const struct cprof_column cprof_path_columns[] = { CPROF_PATH_COLUMNS(CPROF_COLUMN_ENTRY) };
__attribute__((unused))
static const struct cprof_column cprof_region_columns[] = { CPROF_REGION_COLUMNS(CPROF_COLUMN_ENTRY) };
__attribute__((unused))
static const struct cprof_column cprof_sampled_columns[] = { CPROF_SAMPLED_COLUMNS(CPROF_COLUMN_ENTRY) };
#undef CPROF_COLUMN_ENTRY

#endif
