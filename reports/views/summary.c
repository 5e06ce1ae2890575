/* summary.c: section 1, what ran, where, for how long, and what profiling it cost. */
#include "report.h"

#include "../model/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char explain[] =
    "program and started come from the (first) profile file; elapsed is summed over\n"
    "the files.  Profiles of different programs are summed only with --force: then\n"
    "programs lists each with its number of files.  With --keep-going, the files left\n"
    "out are counted apart.  Workers are the threads that ran profiled code; packages,\n"
    "cores and processing units are the machine's, as /sys lists them.  Calls profiled\n"
    "counts every entry of a routine, sequential or concurrent.  The overhead is an\n"
    "estimate of the facades' own cost, and of nothing else: the cost of one profiled\n"
    "call, measured by the runtime at start-up, times the calls profiled, also shown\n"
    "as a share of the time the workers had (elapsed times workers).  It leaves out\n"
    "what profiling costs the compiler's optimization (a call gcc would have inlined\n"
    "stays a call when it is profiled), so a program can run slower than it says;\n"
    "the routines where cprof-cc could tell (static and called from one site, or\n"
    "declared inline, yet timed) are counted in \"timed, gcc may inline\".\n"
    "Most of it falls outside the routines' measured times, but the calls a routine\n"
    "makes still cost it about that much each: with --compensate, that cost is taken\n"
    "out of every time (never below 0), and the summary says how much came out of the\n"
    "self times in all.\n";

static const cprof_column cols[] = {
    {"item", NULL, true},
    {NULL, "key", false},
    {"value", "value", true},
};

/* One row; the caller adds the value cell. */
static void row(cprof_table *t, const char *label, const char *key)
{
    cprof_table_row(t);
    cprof_cell_str(t, label);
    cprof_cell_str(t, key);
}

static void int_row(cprof_table *t, const char *label, const char *key, int64_t v)
{
    row(t, label, key);
    cprof_cell_int(t, v);
}

/* An estimate in ns (a sum of costs), shown as a time. */
static void estimate_row(cprof_table *t, const char *label, const char *key, double ns)
{
    row(t, label, key);
    cprof_cell_time(t, (int64_t)llround(fmin(ns, 9e18)));
}

/* Sampled timing (docs/semantics.md, "Sampled timing"): how many routines' times are
 * estimates, how their calls were sampled, the largest relative error. */
static void sampled_rows(cprof_table *t, const cprof_view *v)
{
    const cprof_prof_timing *s = &v->p->timing;
    if (!s->sampled_files)
        return;
    int_row(t, "times estimated: routines", "estimated_routines", (int64_t)v->nestimated);
    if (!v->nestimated)
        return;
    int_row(t, "  timed calls: 1 in", "sampled_period", s->period);
    if (v->max_rel_routine != SIZE_MAX) {
        row(t, "  largest error (% of self)", "max_error_pct");
        char *text = cprof_xasprintf("%.2f (%s)", 100 * v->max_rel, v->r[v->max_rel_routine].label);
        char *csv = cprof_xasprintf("%.4f", 100 * v->max_rel);
        cprof_cell_str2(t, text, csv);
        free(text);
        free(csv);
    }
    if (v->nunknown)
        int_row(t, "  error unknown: routines", "error_unknown_routines", (int64_t)v->nunknown);
    cprof_table_note(t, "Times marked ~ are estimates: the calls of a routine whose activations\n"
                        "were short were timed on a sample (1 in %lld%s, each context and case\n"
                        "apart), its time calls x their mean; err%% gives the standard error\n"
                        "(docs/semantics.md, \"Sampled timing\").", (long long)s->period,
                     s->periods_differ ? " in the first file; others differ" : "");
    if (s->uncorrected_files)
        cprof_table_note(t, "In %zu of the %zu sampled files the cost of an untimed call was not\n"
                            "measured at start-up (no timing.untimed_ns: an older cprof, or no\n"
                            "probe round stayed sampled): the correction of their estimates\n"
                            "for the clock reads a timed call holds may be missing, and the\n"
                            "estimates high (docs/semantics.md, \"Sampled timing\").",
                         s->uncorrected_files, s->sampled_files);
}

/* A note of say (allocated, freed here) folded into lines of at most 80 characters, at
 * spaces: the profile's words are not folded. */
static void folded_note(cprof_table *t, char *say)
{
    char *line = say;
    for (char *space = NULL, *c = say; *c; c++) {
        if (*c == '\n')
            line = c + 1, space = NULL;
        else if (*c == ' ')
            space = c;
        if (c - line >= 80 && space) {
            *space = '\n';
            line = space + 1;
            space = NULL;
        }
    }
    cprof_table_note(t, "%s", say);
    free(say);
}

static double standard_error(int64_t k, int64_t n)
{
    double q = ((double)k + 1) / ((double)n + 2);
    return sqrt(q * (1 - q) / ((double)n + 3));
}

/* What profiling cost the run, measured by CPU samples in cprof's code, or why it was
 * not (docs/overhead.md); nothing for files written before it was measured. */
static void overhead_rows(cprof_table *t, const cprof_profile *p)
{
    size_t files = p->ovh_files + p->ovh_none_files;
    if (p->ovh_files) {
        double share = p->ovh_samples ? (double)p->ovh_in_cprof / (double)p->ovh_samples : 0.0;
        row(t, "overhead, measured (% of CPU)", "overhead_measured_pct");
        if (p->ovh_samples)
            cprof_cell_pct(t, 100.0 * share);
        else
            cprof_cell_empty(t);
        int_row(t, "  CPU samples", "overhead_samples", p->ovh_samples);
        int_row(t, "  in cprof's code", "overhead_in_cprof", p->ovh_in_cprof);
        char *say;
        if (p->ovh_samples)
            /* The share's standard error, the samples taken as independent draws; of
             * the Laplace estimate (K + 1) / (N + 2), never 0 when none or all are. */
            say = cprof_xasprintf(
                "overhead, measured: %.1f%% of CPU time (%lld of %lld samples in cprof's code, "
                "+/- %.1f%%; a sample every %g ms of each profiled thread's user-mode CPU). "
                "The estimate above is calls x the cost of one call measured at start-up, "
                "kept because it is per routine; the measure is the run's. Not covered by the "
                "measure: %s.", 100.0 * share, (long long)p->ovh_in_cprof,
                (long long)p->ovh_samples, 100.0 * standard_error(p->ovh_in_cprof, p->ovh_samples),
                (double)p->ovh_period_ns / 1e6, p->ovh_not_covered);
        else
            say = cprof_xasprintf(
                "overhead, measured: no CPU sample was taken (a sample every %g ms of each "
                "profiled thread's user-mode CPU: the run used less).",
                (double)p->ovh_period_ns / 1e6);
        folded_note(t, say);
        if (p->ovh_notes) {
            folded_note(t, cprof_xasprintf("overhead, measured: %s.", p->ovh_notes));
        }
    }
    if (p->ovh_none_files) {
        char *say = p->ovh_none_files == files
            ? cprof_xasprintf("overhead, not measured: %s.", p->ovh_reason)
            : cprof_xasprintf("overhead, not measured in %zu of the %zu files (their runs are not "
                              "in the figures above): %s.", p->ovh_none_files, files, p->ovh_reason);
        folded_note(t, say);
    }
    if (files && files < p->nfiles)
        cprof_table_note(t, "overhead, measured: %zu of the %zu files were written by an older cprof,\n"
                            "which did not measure it: their runs are not in the figures above.",
                         p->nfiles - files, p->nfiles);
}

/* The OpenMP runtime, how cprof observed it, and what it could not (docs/semantics.md,
 * "OpenMP runtimes"). */
static void openmp_rows(cprof_table *t, const cprof_profile *p)
{
    if (!p->omp_runtime)
        return;
    static const struct { const char *key, *says; } how[] = {
        {"link", "its entry points, wrapped"}, {"ompt", "OMPT"}, {"none", "not observed"},
    };
    const char *says = p->omp_observed;
    for (size_t i = 0; i < sizeof how / sizeof *how; i++)
        if (!strcmp(how[i].key, p->omp_observed))
            says = how[i].says;
    char *text = cprof_xasprintf("%s (%s)", p->omp_runtime, says);
    row(t, "OpenMP runtime", "openmp");
    cprof_cell_str2(t, text, p->omp_runtime);
    free(text);
    if (cprof_cases_unknown(p))
        cprof_table_note(t, "The calls' cases are not measured: %s.\n"
                            "Every call is counted, but whether it ran inside a parallel region\n"
                            "is not known: the figures split by case are left out.",
                         p->omp_reason);
    else if (p->omp_uncased_files)
        cprof_table_note(t, "In %zu of the %zu files the calls' cases are not measured: %s.\n"
                            "Their calls count as sequential in the sums.", p->omp_uncased_files,
                         p->nfiles, p->omp_reason);
    if (p->omp_unseen_files && !cprof_cases_unknown(p))
        cprof_table_note(t, "Parallel regions and tasks were not observed%s: %s.\n"
                            "No <parallel> or <task> step in the call paths, no --regions, no\n"
                            "team time; the calls and their cases are measured.",
                         p->omp_unseen_files < p->nfiles ? " in some files" : "", p->omp_reason);
}

cprof_table *cprof_section_summary(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    cprof_table *t = cprof_table_new("Summary", explain, cols, 3);
    cprof_table_no_header(t);
    int64_t s_calls = 0, c_calls = 0;
    for (size_t i = 0; i < p->nroutines; i++) {
        s_calls = cprof_add(s_calls, v->r[i].s_calls);
        c_calls = cprof_add(c_calls, v->r[i].c_calls);
    }
    if (p->nprograms == 1) {
        row(t, "program", "program");
        cprof_cell_str(t, p->program);
    } else {
        /* Summed with --force: say what was summed. */
        char *list = NULL;
        for (size_t i = 0; i < p->nprograms; i++) {
            char *s = cprof_xasprintf("%s%s%s (%zu file%s)", list ? list : "", list ? ", " : "",
                                      p->programs[i].name, p->programs[i].nfiles,
                                      p->programs[i].nfiles == 1 ? "" : "s");
            free(list);
            list = s;
        }
        row(t, "programs", "programs");
        cprof_cell_str(t, list);
        free(list);
    }
    if (p->nranks) {
        char *job = cprof_xasprintf("%zu rank%s on %zu host%s", p->nranks,
                                    p->nranks == 1 ? "" : "s", p->nhosts,
                                    p->nhosts == 1 ? "" : "s");
        char *ranks = cprof_xasprintf("%zu", p->nranks);
        row(t, "MPI job", "ranks");
        cprof_cell_str2(t, job, ranks);
        free(job);
        free(ranks);
        row(t, "  id", "job");
        cprof_cell_str(t, *p->job ? p->job : "unknown");
        int_row(t, "  size", "size", p->size);
        int_row(t, "  hosts", "hosts", (int64_t)p->nhosts);
        cprof_table_note(t, "The ranks of one MPI job (docs/mpi.md): elapsed is the longest rank's;\n"
                            "program, started and pid are the lowest rank's; the workers are each\n"
                            "rank's threads, (rank, worker).  Wall times add up the ranks' (up to\n"
                            "elapsed x ranks).");
    }
    /* Units cprof-cc compiled without profiling (docs/cprof-cc.md): said first, since
     * the rest is about the units it did profile. */
    if (p->nunprofiled) {
        char *list = NULL;
        for (size_t i = 0; i < p->nunprofiled; i++) {
            char *s = cprof_xasprintf("%s%s%s (%s)", list ? list : "", list ? ", " : "",
                                      p->unprofiled[i].file, p->unprofiled[i].reason);
            free(list);
            list = s;
        }
        char *n = cprof_xasprintf("%zu", p->nunprofiled);
        char *say = cprof_xasprintf("%zu unit%s not profiled: %s", p->nunprofiled,
                                    p->nunprofiled == 1 ? "" : "s", list);
        row(t, "units not profiled", "unprofiled_units");
        cprof_cell_str2(t, say, n);
        cprof_table_note(t, "Units not profiled were compiled by gcc alone (cprof-cc said why when\n"
                            "it compiled them; -fcprof-strict makes that an error): their routines\n"
                            "are not in this profile, and the profiled routines they call are\n"
                            "entered from <external>.");
        free(say);
        free(n);
        free(list);
    }
    row(t, "started", "start_unix_ns");
    cprof_cell_date(t, p->start_unix_ns);
    int_row(t, "pid", "pid", p->pid);
    int_row(t, "profile files", "files", (int64_t)p->nfiles);
    if (p->nskipped)
        int_row(t, "  left out (bad)", "files_skipped", (int64_t)p->nskipped);
    int_row(t, "workers", "workers", (int64_t)p->nworkers);
    int_row(t, "packages", "packages", cprof_if_known(p->packages));
    int_row(t, "cores", "cores", cprof_if_known(p->cores));
    int_row(t, "processing units", "pus", cprof_if_known(p->pus));
    row(t, "clock", "clock");
    cprof_cell_str(t, p->clock);
    row(t, "elapsed (ms)", "elapsed_ns");
    cprof_cell_time(t, p->elapsed_ns);
    int_row(t, "calls profiled", "calls", cprof_add(s_calls, c_calls));
    if (cprof_cases_unknown(p)) {
        row(t, "  sequential", "s_calls");
        cprof_cell_empty(t);
        row(t, "  concurrent", "c_calls");
        cprof_cell_empty(t);
    } else {
        int_row(t, "  sequential", "s_calls", s_calls);
        int_row(t, "  concurrent", "c_calls", c_calls);
    }
    openmp_rows(t, p);
    row(t, "cost of one call (ns)", "call_cost_ns");
    cprof_cell_real(t, p->call_cost_ns);
    estimate_row(t, "overhead, estimated (ms)", "overhead_ns", p->overhead_ns);
    row(t, "  % of elapsed x workers", "overhead_pct");
    double capacity = (double)p->elapsed_ns * (double)p->nworkers;
    cprof_cell_pct(t, capacity > 0 ? 100.0 * p->overhead_ns / capacity : 0.0);
    overhead_rows(t, p);
    if (p->trace_files) {
        int_row(t, "trace events (CPROF_TRACE)", "trace_events", p->trace_events);
        int_row(t, "  dropped", "trace_dropped", p->trace_dropped);
        cprof_table_note(t, "The run was traced: cprof-report --timeline and --trace show its\n"
                            "trace per worker, and the events a full buffer (or a signal\n"
                            "handler that interrupted the recording of one) left out\n"
                            "(docs/tracing.md).");
    }
    /* A resource not measured, or not sampled as asked (docs/resources.md). */
    for (size_t r = 0; r < p->nresources; r++)
        if (p->resources[r].reason)
            cprof_table_note(t, "Resource %s: %s.", p->resources[r].name, p->resources[r].reason);
    /* Routines counted at their call sites (docs/performance.md): their own time
     * stays in their callers'; what timing them would have cost is avoided. */
    int64_t counted = 0, counted_calls = 0;
    for (size_t i = 0; i < p->nroutines; i++)
        if (p->routines[i].counted && v->r[i].ran) {
            counted++;
            counted_calls = cprof_add(counted_calls, cprof_add(v->r[i].s_calls, v->r[i].c_calls));
        }
    if (counted) {
        int_row(t, "counted, not timed: routines", "counted_routines", counted);
        int_row(t, "  their calls", "counted_calls", counted_calls);
        row(t, "  cost of one count (ns)", "count_cost_ns");
        cprof_cell_real(t, p->count_cost_ns);
        estimate_row(t, "  cost avoided, estimated (ms)", "counted_avoided_ns",
                     (double)counted_calls * fmax(p->call_cost_ns - p->count_cost_ns, 0.0));
        cprof_table_note(t, "Routines marked [counted] (small ones gcc would inline) are counted\n"
                            "at their call sites, every case exact, but not timed: their own\n"
                            "time is their callers' self time.");
    }
    /* Timed routines gcc may inline in a plain build: what the estimate leaves out. */
    int64_t inlinable = 0, inlinable_calls = 0;
    for (size_t i = 0; i < p->nroutines; i++)
        if (p->routines[i].inlinable && v->r[i].ran) {
            inlinable++;
            inlinable_calls = cprof_add(inlinable_calls, cprof_add(v->r[i].s_calls, v->r[i].c_calls));
        }
    if (inlinable) {
        int_row(t, "timed, gcc may inline: routines", "inlinable_routines", inlinable);
        int_row(t, "  their calls", "inlinable_calls", inlinable_calls);
    }
    sampled_rows(t, v);
    row(t, "times compensated", "compensated");
    cprof_cell_str(t, p->compensated ? "yes" : "no");
    if (p->compensated)
        estimate_row(t, "  taken out of self (ms)", "compensated_ns", p->compensated_ns);
    if (v->o->routine) {
        row(t, "restricted to routine", "routine");
        cprof_cell_str(t, v->o->routine);
    }
    return t;
}
