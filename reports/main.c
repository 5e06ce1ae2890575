/* main.c: cprof-report's command line.
 *
 * Exit status: 0 done, 1 a profile file could not be used (or output failed), 2 usage.
 * Errors are one line on stderr, and stdout stays empty unless the report is complete.
 */
#define _GNU_SOURCE
#include "model/profile.h"
#include "views/report.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../format/version.h"
#include "model/alloc.h"

static const char usage_text[] =
    "usage: cprof-report [LOAD] [-b] [--sort KEY] [--threshold PCT] [--routine NAME]\n"
    "                    [FILE...]\n"
    "       cprof-report [LOAD] --csv SECTION [--sort KEY] [--threshold PCT]\n"
    "                    [--routine NAME] [FILE...]\n"
    "       cprof-report [LOAD] --json | --html [--embed-sources [--source-dir DIR]...\n"
    "                    [--source-map OLD=NEW]...] [FILE...]\n"
    "       cprof-report [LOAD] --dot [--threshold PCT] [--routine NAME] [FILE...]\n"
    "       cprof-report [LOAD] --paths [--root NAME | --callers NAME] [-b]\n"
    "                    [--threshold PCT] [--resources] [FILE...]\n"
    "       cprof-report [LOAD] --folded | --hatchet [FILE...]\n"
    "       cprof-report [LOAD] --resources [-b] [--sort KEY] [--threshold PCT]\n"
    "                    [--routine NAME] [--csv SECTION] [FILE...]\n"
    "       cprof-report [LOAD] --regions [-b] [--routine NAME] [FILE...]\n"
    "       cprof-report --trace [FILE]\n"
    "       cprof-report --timeline [--width N] [FILE]\n"
    "       cprof-report [LOAD] --sizes[=NAME] [-b] [FILE...]\n"
    "       cprof-report [LOAD] --source[=SRC]... [-b] [--threshold PCT] [--json |\n"
    "                    --csv lines | --csv line-workers] [--source-dir DIR]...\n"
    "                    [--source-map OLD=NEW]... [FILE...]\n"
    "       cprof-report [--compensate] --diff [-b] [--sort KEY] [--csv SECTION | --json]\n"
    "                    BEFORE AFTER\n"
    "       cprof-report --help | --version\n"
    "LOAD is any of --compensate, --force, --keep-going.\n"
    "Sum the cprof profile files FILE... (written by programs built with cprof-cc;\n"
    "default ./cprof.out) and print the report: summary, flat profile, concurrency\n"
    "cases, call arcs, call graph, per-thread concurrency, placement (where each worker\n"
    "ran, flags, binding, machine), parallel regions (see cprof-report(1) and\n"
    "docs/report.md).\n"
    "  --compensate      take the profiler's own estimated cost (call_cost_ns for each\n"
    "                    profiled call made inside a time) out of every time, never\n"
    "                    below 0; counts are unchanged (see docs/report.md)\n"
    "  --force           sum profiles of different programs (refused otherwise)\n"
    "  --keep-going      leave out each file that cannot be used, with a warning\n"
    "  -b, --brief       leave out the explanations under each section\n"
    "  --sort KEY        order of the flat profile: self (default), inclusive, calls, name\n"
    "  --threshold PCT   hide flat profile and call graph entries below PCT % time\n"
    "  --routine NAME    only the entries that involve the routine(s) named NAME\n"
    "  --csv SECTION     print one section as CSV (times in ns): summary, flat, cases,\n"
    "                    arcs, callgraph, threads, placement, placement-flags, binding,\n"
    "                    machine, regions, region-workers, spread; of an MPI job's\n"
    "                    ranks (docs/mpi.md) also ranks, rank_imbalance; lines,\n"
    "                    line-workers: --source's figures by line\n"
    "  --json            print the summed profile as one JSON document (docs/report-json.md)\n"
    "  --html            print the report as one self-contained HTML page (docs/html.md)\n"
    "  --dot             print the call graph for Graphviz (dot -Tsvg)\n"
    "  --paths           print the call paths: every calling context, heaviest first\n"
    "                    (--csv paths: the same as CSV)\n"
    "  --root NAME       the call paths from routine NAME down, merged (implies --paths)\n"
    "  --callers NAME    the call paths that lead to routine NAME (implies --paths)\n"
    "  --folded          print folded stacks of self times in ns (flamegraph.pl, inferno,\n"
    "                    speedscope)\n"
    "  --hatchet         print the calling-context tree as Hatchet's literal format\n"
    "  --resources       with the resources beyond time (CPROF_RESOURCES): their\n"
    "                    columns in the flat profile (per sampled resource its inclusive\n"
    "                    amount, for cpu cpu/wall), the per-thread table (each worker's\n"
    "                    totals, for cpu its utilisation) and --paths (each context's\n"
    "                    inclusive amount), also as --csv flat, threads and paths; the\n"
    "                    text report then ends with their tables: per worker, per routine\n"
    "                    and per call path (--csv resources, resource-routines,\n"
    "                    resource-paths)\n"
    "  --regions         print the OpenMP parallel regions and tasks: per construct its\n"
    "                    executions, team sizes, busy time, barrier waits, imbalance and\n"
    "                    time lost to it, most waiting first; then per worker\n"
    "  --trace           print the run's trace (CPROF_TRACE=1, docs/tracing.md) in the\n"
    "                    Chrome Trace Event Format, for Perfetto, chrome://tracing or\n"
    "                    speedscope: a track per worker, a counter of workers busy\n"
    "  --timeline        print the run's trace as text: a row per worker, a character\n"
    "                    per stretch of time (--width N of them, default 64) showing\n"
    "                    the routine that ran most of it, and a legend\n"
    "  --sizes[=NAME]    print the input-sensitive profiles (cprof-cc -fcprof-input-size):\n"
    "                    per routine (NAME's only) its costs by read memory size, and\n"
    "                    their fitted growth; NAME's per calling context where it has\n"
    "                    several (--csv sizes, size-growth, size-paths, size-path-growth)\n"
    "  --source[=SRC]    print the profiled sources (SRC's only: a name, the end of a\n"
    "                    path, or a file; again for more), each line with the figures\n"
    "                    of what is at it: a routine's entries and times, a call\n"
    "                    site's calls by case and time per callee, an OpenMP\n"
    "                    construct's busy and wait times; --threshold hides quieter\n"
    "                    files and routines; --json, --csv lines and line-workers give\n"
    "                    the figures by line for tools (docs/source.md)\n"
    "  --source-dir DIR  look for the sources under DIR too (a moved tree; again for\n"
    "                    more), after where they were compiled\n"
    "  --source-map OLD=NEW  look for a source compiled under OLD under NEW first\n"
    "  --embed-sources   with --html: put the sources found unchanged in the page\n"
    "  --diff            compare two profiles: per routine the change of times, calls,\n"
    "                    cases and imbalance, largest first (--csv summary or routines)\n"
    "  --help            print this help and exit\n"
    "  --version         print cprof's version and exit\n";

/* One line on stderr, whatever the file names and keys quoted in msg contain. */
static void error_line(const char *msg)
{
    fputs("cprof-report: ", stderr);
    for (const char *c = msg; *c; c++)
        fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, stderr);
    fputc('\n', stderr);
}

/* --keep-going: a bad file is one line, and the report goes on without it. */
static void warn_line(const char *msg)
{
    char line[1100];
    snprintf(line, sizeof line, "warning: %s (left out)", msg);
    error_line(line);
}

static int usage_error(const char *msg)
{
    if (msg)
        error_line(msg);
    fputs(usage_text, stderr);
    return 2;
}

/* Index of s in names[0..n-1], or -1. */
static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    /* Long options only, but -b; their values are outside char range so that optopt
     * tells an unknown short option from a misused long one. */
    enum { OPT_JSON = 256, OPT_HELP, OPT_CSV, OPT_SORT, OPT_THRESHOLD, OPT_ROUTINE,
           OPT_COMPENSATE, OPT_FORCE, OPT_KEEP_GOING, OPT_DIFF, OPT_DOT, OPT_VERSION,
           OPT_PATHS, OPT_FOLDED, OPT_HATCHET, OPT_ROOT, OPT_CALLERS, OPT_RESOURCES,
           OPT_HTML, OPT_REGIONS, OPT_TRACE, OPT_TIMELINE, OPT_WIDTH, OPT_SIZES,
           OPT_SOURCE, OPT_SOURCE_DIR, OPT_SOURCE_MAP, OPT_EMBED_SOURCES };
    static const struct option options[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"html", no_argument, NULL, OPT_HTML},
        {"trace", no_argument, NULL, OPT_TRACE},
        {"timeline", no_argument, NULL, OPT_TIMELINE},
        {"width", required_argument, NULL, OPT_WIDTH},
        {"compensate", no_argument, NULL, OPT_COMPENSATE},
        {"force", no_argument, NULL, OPT_FORCE},
        {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
        {"diff", no_argument, NULL, OPT_DIFF},
        {"dot", no_argument, NULL, OPT_DOT},
        {"paths", no_argument, NULL, OPT_PATHS},
        {"resources", no_argument, NULL, OPT_RESOURCES},
        {"regions", no_argument, NULL, OPT_REGIONS},
        {"sizes", optional_argument, NULL, OPT_SIZES},
        {"source", optional_argument, NULL, OPT_SOURCE},
        {"source-dir", required_argument, NULL, OPT_SOURCE_DIR},
        {"source-map", required_argument, NULL, OPT_SOURCE_MAP},
        {"embed-sources", no_argument, NULL, OPT_EMBED_SOURCES},
        {"folded", no_argument, NULL, OPT_FOLDED},
        {"hatchet", no_argument, NULL, OPT_HATCHET},
        {"root", required_argument, NULL, OPT_ROOT},
        {"callers", required_argument, NULL, OPT_CALLERS},
        {"help", no_argument, NULL, OPT_HELP},
        {"version", no_argument, NULL, OPT_VERSION},
        {"brief", no_argument, NULL, 'b'},
        {"csv", required_argument, NULL, OPT_CSV},
        {"sort", required_argument, NULL, OPT_SORT},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"routine", required_argument, NULL, OPT_ROUTINE},
        {NULL, 0, NULL, 0},
    };
    static const char *const sort_keys[] = {"self", "inclusive", "calls", "name"};
    cprof_opts o = {0};
    cprof_load_opts lo = {0};
    bool json = false, html = false, diff = false, dot = false, paths = false, folded = false;
    bool hatchet = false, resources = false, regions = false, trace = false, timeline = false;
    bool sizes = false, source = false, embed = false;
    /* --source's files, and where to look for them: each option may come again. */
    const char *src_dirs[argc], *src_maps[argc], *src_only[argc];
    cprof_source_opts so = {src_dirs, 0, src_maps, 0, src_only, 0};
    long width = 0;
    const char *csv_name = NULL, *root = NULL, *callers = NULL, *sizes_name = NULL;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "b", options, NULL)) != -1) {
        char msg[256], *end;
        switch (opt) {
        case OPT_JSON:
            json = true;
            break;
        case OPT_HTML:
            html = true;
            break;
        case OPT_TRACE:
            trace = true;
            break;
        case OPT_TIMELINE:
            timeline = true;
            break;
        case OPT_WIDTH:
            errno = 0;
            width = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || width < 8 || width > 10000) {
                snprintf(msg, sizeof msg, "--width wants a number of columns from 8 to 10000,"
                         " not '%s'", optarg);
                return usage_error(msg);
            }
            break;
        case OPT_DIFF:
            diff = true;
            break;
        case OPT_DOT:
            dot = true;
            break;
        case OPT_PATHS:
            paths = true;
            break;
        case OPT_RESOURCES:
            resources = true;
            break;
        case OPT_REGIONS:
            regions = true;
            break;
        case OPT_SIZES:
            sizes = true;
            sizes_name = optarg;
            break;
        case OPT_SOURCE:
            source = true;
            if (optarg)
                so.only[so.nonly++] = optarg;
            break;
        case OPT_SOURCE_DIR:
            so.dirs[so.ndirs++] = optarg;
            break;
        case OPT_SOURCE_MAP:
            if (!strchr(optarg, '=') || *optarg == '=') {
                snprintf(msg, sizeof msg, "--source-map wants OLD=NEW (OLD not empty), not '%s'",
                         optarg);
                return usage_error(msg);
            }
            so.maps[so.nmaps++] = optarg;
            break;
        case OPT_EMBED_SOURCES:
            embed = true;
            break;
        case OPT_FOLDED:
            folded = true;
            break;
        case OPT_HATCHET:
            hatchet = true;
            break;
        case OPT_ROOT:
            root = optarg;
            paths = true;
            break;
        case OPT_CALLERS:
            callers = optarg;
            paths = true;
            break;
        case OPT_COMPENSATE:
            lo.compensate = true;
            break;
        case OPT_FORCE:
            lo.force = true;
            break;
        case OPT_KEEP_GOING:
            lo.warn = warn_line;
            break;
        case OPT_HELP:
            fputs(usage_text, stdout);
            return fflush(stdout) ? 1 : 0;
        case OPT_VERSION:
            puts("cprof-report (cprof) " CPROF_VERSION);
            return fflush(stdout) ? 1 : 0;
        case 'b':
            o.brief = true;
            break;
        case OPT_CSV:
            csv_name = optarg;
            break;
        case OPT_SORT: {
            int k = lookup(optarg, sort_keys, 4);
            if (k < 0) {
                snprintf(msg, sizeof msg, "unknown key '%s' for --sort", optarg);
                return usage_error(msg);
            }
            o.sort = (cprof_sort)k;
            break;
        }
        case OPT_THRESHOLD:
            errno = 0;
            o.threshold = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o.threshold >= 0 && o.threshold <= 100)) {
                snprintf(msg, sizeof msg, "--threshold wants a percentage from 0 to 100,"
                         " not '%s'", optarg);
                return usage_error(msg);
            }
            o.has_threshold = true;
            break;
        case OPT_ROUTINE:
            o.routine = optarg;
            break;
        default:
            if (optopt > 0 && optopt < 256)
                snprintf(msg, sizeof msg, "invalid option '-%c'", optopt);
            else
                snprintf(msg, sizeof msg, "invalid option '%s'", argv[optind - 1]);
            return usage_error(msg);
        }
    }
    /* A trace is one run's: read from its profile and the file beside it, streamed. */
    if (width && !timeline)
        return usage_error("--width goes with --timeline");
    if (trace || timeline) {
        if (trace + timeline > 1 || argc - optind > 1 || json || html || diff || dot || paths ||
            folded || hatchet || resources || regions || sizes || source || embed || so.ndirs ||
            so.nmaps || o.brief || o.sort || o.has_threshold ||
            o.routine || csv_name || lo.compensate || lo.force || lo.warn)
            return usage_error("--trace and --timeline take one profile and no other option"
                               " (--timeline: --width)");
        char err[1024];
        const char *file = optind < argc ? argv[optind] : "cprof.out";
        if ((trace ? cprof_report_trace(file, stdout, err, sizeof err)
                   : cprof_report_timeline(file, width ? (int)width : 64, stdout, err,
                                           sizeof err))) {
            error_line(err);
            return 1;
        }
        if (fflush(stdout) || ferror(stdout)) {
            snprintf(err, sizeof err, "cannot write the report: %s", strerror(errno));
            error_line(err);
            return 1;
        }
        return 0;
    }
    /* --csv lines and line-workers are --source's rows as CSV. */
    int src_csv = csv_name && !diff && !json
                      ? lookup(csv_name, (const char *const[]){"lines", "line-workers"}, 2) : -1;
    if (src_csv >= 0) {
        source = true;
        csv_name = NULL;
    }
    if (embed && !html)
        return usage_error("--embed-sources goes with --html");
    if ((so.ndirs || so.nmaps) && !source && !embed)
        return usage_error("--source-dir and --source-map go with --source or --html"
                           " --embed-sources");
    if (source && (html || dot || diff || paths || folded || hatchet || resources || regions ||
                   sizes || o.sort || o.routine || csv_name ||
                   ((json || src_csv >= 0) && (o.brief || o.has_threshold)) || (json && src_csv >= 0)))
        return usage_error("--source takes only -b and --threshold, or one of --json, --csv"
                           " lines and --csv line-workers (and --source-dir, --source-map)");
    /* Which options go together (usage_text). */
    bool text_opts = o.brief || o.sort || o.has_threshold || o.routine || csv_name;
    if (diff && (dot || o.has_threshold || o.routine || lo.force || lo.warn))
        return usage_error("--diff takes only -b, --sort, --csv, --json and --compensate");
    if (diff && argc - optind != 2)
        return usage_error("--diff compares two files: BEFORE AFTER");
    if (json && (diff ? o.brief || csv_name : text_opts || dot))
        return usage_error("--json takes no other option but --compensate, --force and"
                           " --keep-going (and --sort with --diff)");
    /* The page is the whole profile: it sorts and filters itself. */
    if (html && (json || diff || dot || text_opts))
        return usage_error("--html takes no other option but --compensate, --force and"
                           " --keep-going");
    if (dot && (o.brief || o.sort || csv_name))
        return usage_error("--dot takes no -b, --sort or --csv");
    /* --csv paths is the --paths table as CSV. */
    bool paths_csv = csv_name && !diff && !json && !strcmp(csv_name, "paths");
    if (paths_csv) {
        paths = true;
        csv_name = NULL;
    }
    /* --csv resources (and the two others) is a --resources table as CSV. */
    int res_csv = csv_name && !diff && !json ? cprof_resources_section(csv_name) : -1;
    if (res_csv >= 0) {
        resources = true;
        csv_name = NULL;
    }
    /* --resources adds their columns to the text report, --paths and --csv flat,
     * threads and paths; its own tables close the text report. */
    if (resources && (json || html || dot || diff || folded || hatchet || (res_csv >= 0 && paths)))
        return usage_error("--resources goes with the text report, --paths (--root,"
                           " --callers) and --csv, not with other views");
    o.resources = resources;
    if (regions && (json || html || dot || diff || o.sort || o.has_threshold || csv_name ||
                    paths || folded || hatchet || resources || sizes))
        return usage_error("--regions takes only -b and --routine (--csv regions,"
                           " region-workers: its tables as CSV)");
    /* --csv sizes, size-growth and size-path-growth are the --sizes tables as CSV;
     * size-paths the tuples of each calling context. */
    enum { SIZES_CSV, GROWTH_CSV, PATHS_CSV, PATH_GROWTH_CSV, NSIZES_CSV };
    int sizes_csv = -1;
    if (csv_name && !diff && !json)
        sizes_csv = lookup(csv_name, (const char *const[]){"sizes", "size-growth", "size-paths",
                                                           "size-path-growth"}, NSIZES_CSV);
    if (sizes_csv >= 0) {
        sizes = true;
        csv_name = NULL;
    }
    if (sizes && (json || html || dot || diff || o.sort || o.has_threshold || o.routine ||
                  paths || folded || hatchet || resources || regions || csv_name))
        return usage_error("--sizes takes only -b and --csv sizes, size-growth, size-paths or"
                           " size-path-growth");
    int path_modes = paths + folded + hatchet;
    if (path_modes > 1 || (path_modes && (json || html || dot || diff || o.sort || o.routine || csv_name)))
        return usage_error("--paths, --folded and --hatchet go alone (--paths with -b,"
                           " --threshold and --resources)");
    if (root && callers)
        return usage_error("--root and --callers go one at a time");
    if ((folded || hatchet) && (o.brief || o.has_threshold))
        return usage_error("--folded and --hatchet take no -b or --threshold");
    int csv = -1;
    o.csv = csv_name != NULL;
    if (csv_name && (csv = diff ? cprof_diff_section(csv_name)
                                : cprof_report_section(csv_name)) < 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "unknown section '%s' for --csv%s", csv_name,
                 diff ? " --diff" : "");
        return usage_error(msg);
    }

    /* Like gprof's gmon.out: the file a profiled program writes by default. */
    static char *const default_paths[] = {"cprof.out"};
    lo.paths = optind < argc ? argv + optind : default_paths;
    lo.npaths = optind < argc ? (size_t)(argc - optind) : 1;
    /* --diff loads its two files apart. */
    size_t nprof = diff ? 2 : 1;
    cprof_profile p[2];
    cprof_view v[2];
    for (size_t i = 0; i < nprof; i++) {
        char err[1024];
        cprof_load_opts one = lo;
        if (diff) {
            one.paths = lo.paths + i;
            one.npaths = 1;
        }
        if (cprof_profile_load(&p[i], &one, err, sizeof err)) {
            error_line(err);
            for (size_t k = 0; k < i; k++)
                cprof_profile_free(&p[k]);
            return 1;
        }
    }
    char *text = NULL, *warning = NULL;
    int rc = 0;
    /* The sections of ranks exist in a job's profile only: an empty CSV would look like
     * a job without routines. */
    if (!diff && csv >= 0 && !p[0].nranks &&
        (csv == cprof_report_section("ranks") || csv == cprof_report_section("rank_imbalance"))) {
        char msg[256];
        snprintf(msg, sizeof msg, "--csv %s: the profiles are not the ranks of an MPI job",
                 csv_name);
        error_line(msg);
        cprof_profile_free(&p[0]);
        return 1;
    }
    char err[1024];
    if ((source || embed) && cprof_source_check(&p[0], &so, err, sizeof err)) {
        error_line(err);
        rc = 1;
    } else if (json && !diff && !source) {
        text = cprof_report_json(&p[0]);
    } else if (html) {
        text = cprof_report_html(&p[0], embed ? &so : NULL);
    } else if (cprof_view_init(&v[0], &p[0], &o)) {
        char msg[512];
        snprintf(msg, sizeof msg, "no routine named '%s' in the profile", o.routine);
        error_line(msg);
        rc = 1;
    } else {
        if (diff) {
            cprof_view_init(&v[1], &p[1], &o);
            const char *const names[2] = {lo.paths[0], lo.paths[1]};
            text = cprof_report_diff(&v[0], &v[1], names, csv, json, &warning);
            cprof_view_free(&v[1]);
        } else if (paths) {
            /* --root, --callers: the same section over the contexts derived for NAME. */
            const char *name = root ? root : callers;
            cprof_profile seen = p[0];
            cprof_view w = v[0];
            w.p = &seen;
            if (name && cprof_paths_derive(&p[0], name, callers != NULL, &seen.paths, &seen.npaths)) {
                char msg[512];
                snprintf(msg, sizeof msg, "no calling context of a routine named '%s' in the"
                         " profile", name);
                error_line(msg);
                rc = 1;
            } else {
                cprof_table *t = cprof_section_paths(&w, !name ? CPROF_PATHS_ALL : root
                                                     ? CPROF_PATHS_DOWN : CPROF_PATHS_UP, name);
                text = cprof_tables_text(&t, 1, paths_csv ? 0 : -1, o.brief);
            }
            if (name)
                cprof_paths_free(&seen);
        } else if (source) {
            text = cprof_report_source(&v[0], &so, src_csv, json);
        } else if (res_csv >= 0) {
            cprof_table **t;
            const char *const *names;
            size_t n;
            cprof_sections_resources(&v[0], &t, &names, &n);
            text = cprof_tables_text(t, n, res_csv, o.brief);
            free(t);
        } else if (regions) {
            cprof_table *t[2] = {cprof_section_regions(&v[0]), cprof_section_region_workers(&v[0])};
            /* None seen is none run only where the runtime was observed. */
            text = t[0] ? cprof_tables_text(t, 2, -1, o.brief)
                 : p[0].omp_unseen_files
                     ? cprof_xasprintf("The program's parallel regions and tasks were not observed: "
                                       "%s.\n", p[0].omp_reason)
                     : cprof_xstrdup("No OpenMP parallel region or task ran in the profiled program.\n");
        } else if (sizes) {
            if (cprof_sizes_check(&v[0], sizes_name)) {
                char msg[512] = "no input sizes in the profile (built with cprof-cc"
                                " -fcprof-input-size?)";
                if (sizes_name)
                    snprintf(msg, sizeof msg, "no input sizes of a routine named '%s' in the"
                             " profile", sizes_name);
                error_line(msg);
                rc = 1;
            } else {
                /* The text form: the tuples, the fits, and NAME's per context where
                 * they come from more than one. */
                bool text_form = sizes_csv < 0;
                bool per_path = sizes_name && cprof_sizes_contexts(&v[0], sizes_name) > 1;
                cprof_table *t[NSIZES_CSV] = {
                    text_form || sizes_csv == SIZES_CSV
                        ? cprof_section_sizes(&v[0], sizes_name, !text_form, false) : NULL,
                    text_form || sizes_csv == GROWTH_CSV
                        ? cprof_section_size_growth(&v[0], sizes_name) : NULL,
                    sizes_csv == PATHS_CSV ? cprof_section_sizes(&v[0], sizes_name, true, true)
                                           : NULL,
                    (text_form && per_path) || sizes_csv == PATH_GROWTH_CSV
                        ? cprof_section_size_path_growth(&v[0], sizes_name) : NULL};
                text = cprof_tables_text(t, NSIZES_CSV, sizes_csv, o.brief);
            }
        } else if (folded || hatchet) {
            /* What a flame graph cannot say, said here: a folded line has a time or is
             * not there. */
            const char *why = cprof_paths_untimed(&v[0]);
            if (folded && why && p[0].npaths) {
                char msg[512];
                snprintf(msg, sizeof msg, "--folded: %s", why);
                error_line(msg);
                rc = 1;
            } else {
                if (why)
                    fprintf(stderr, "cprof-report: note: %s\n", why);
                else if (folded && cprof_paths_counted(&v[0]))
                    fprintf(stderr, "cprof-report: note: --folded: routines counted at their call"
                                    " sites have no line: their time is in their callers' lines\n");
                text = folded ? cprof_report_folded(&v[0]) : cprof_report_hatchet(&v[0]);
            }
        } else
            text = dot ? cprof_report_dot(&v[0]) : cprof_report_text(&v[0], csv);
        cprof_view_free(&v[0]);
    }
    for (size_t i = 0; i < nprof; i++)
        cprof_profile_free(&p[i]);
    if (rc)
        return rc;
    if (!text)
        cprof_out_of_memory();
    fputs(text, stdout);
    free(text);
    if (fflush(stdout) || ferror(stdout)) {
        char msg[256];
        snprintf(msg, sizeof msg, "cannot write the report: %s", strerror(errno));
        error_line(msg);
        return 1;
    }
    if (warning)
        error_line(warning);
    free(warning);
    if (cprof_sums_clamped())
        error_line("warning: a sum of counts or times passed 2^63-1 and is printed as "
                   "9223372036854775807: a figure that shows it is not exact");
    return 0;
}
