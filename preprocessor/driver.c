/* driver.c: cprof-cc, a drop-in replacement for gcc that profiles what it compiles.
 *
 * For every C source on the command line:
 *   gcc -E (the user's flags)  ->  rewrite (rewrite.c)  ->  gcc -x cpp-output -c/-S
 * then, when linking, gcc links the objects with the runtime.  Everything that is not
 * compiling C (preprocessing only, dependency listing, queries, assembling, linking
 * objects) is gcc's own work with the user's arguments untouched.
 *
 * When a file cannot be instrumented, it is compiled exactly as gcc would (its
 * diagnostics, its exit status) and, if that succeeds, one warning says it is not
 * profiled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../format/version.h"
#include "alloc.h"
#include "args.h"
#include "cmdline.h"
#include "options.h"
#include "process.h"
#include "server.h"

/* bin/../SUB: the layout of the build tree and of an installation alike. */
static const char *install_dir(const char *sub)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return ".";
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    char *dir = cprof_fmt("%s/../%s", exe, sub), real[PATH_MAX];
    return realpath(dir, real) ? cprof_fmt("%s", real) : dir;
}

/* A program gets the static runtime, its entry points exported so that profiled
 * shared libraries bind to it; a shared library gets the shared runtime, which a
 * profiled program's copy overrides. */
static void runtime_libs(struct cprof_cmdline *c, struct cprof_argv *out)
{
    const char *lib = install_dir("lib");
    int shared = 0;
    for (int i = 1; i < c->argc; i++)
        shared |= !strcmp(c->argv[i], "-shared");
    if (shared) {
        cprof_push(out, cprof_fmt("%s/libcprof.so", lib));
        cprof_push(out, cprof_fmt("-Wl,-rpath,%s", lib));
    } else {
        cprof_push(out, cprof_fmt("%s/libcprof.a", lib));
        cprof_push(out, "-Wl,--export-dynamic-symbol=cprof_*");
    }
    /* runtime/ext/omp.c's wrappers of libgomp: parallel regions, tasks and barriers. */
    cprof_push(out, cprof_fmt("-Wl,@%s/cprof-link.opt", lib));
    /* -fcprof-input-size: the library calls that read or write the program's memory
     * reach runtime/ext/libcalls.c's wrappers, one for each of these names. */
    static const char *const wrapped[] = { "memcpy", "memmove", "memset", "memcmp",
                                           "strlen", "strcmp", "strncmp", "strcpy" };
    for (size_t i = 0; c->select.input_size && !shared && i < sizeof wrapped / sizeof *wrapped; i++)
        cprof_push(out, cprof_fmt("-Wl,--wrap=%s", wrapped[i]));
    /* The program's hooks serve the shared libraries built with the option, as its
     * runtime serves their entries. */
    if (c->select.input_size && !shared)
        cprof_push(out, "-Wl,--export-dynamic-symbol=__tsan_*");
    /* The compiler's OpenMP runtime (gcc: libgomp, clang: libomp), which the runtime
     * asks, and only one (runtime/core/openmp.c). */
    cprof_push(out, "-fopenmp");
    cprof_push(out, "-lpthread");
}

/* -fcprof-input-size (docs/input-size.md): gcc's thread sanitizer calls a hook before
 * every load and store the unit keeps in memory; the runtime defines the hooks
 * (runtime/ext/sizes.c) and no libtsan is linked.  Activations come from cprof's own entry
 * hooks, so tsan's are left out; clang's calls the library's memcpy and memset as gcc's
 * does (libcalls.c wraps them), not tsan's. */
static void input_size_flags(const struct cprof_cmdline *c, struct cprof_argv *cc)
{
    if (!c->select.input_size)
        return;
    cprof_push(cc, "-fsanitize=thread");
    if (cprof_gcc_is_clang()) {
        cprof_push(cc, "-mllvm");
        cprof_push(cc, "-tsan-instrument-func-entry-exit=false");
        cprof_push(cc, "-mllvm");
        cprof_push(cc, "-tsan-instrument-memintrinsics=false");
        return;
    }
    cprof_push(cc, "--param");
    cprof_push(cc, "tsan-instrument-func-entry-exit=0");
}

/* clang says which of its flags a step did not use, where gcc says nothing: compiling
 * the rewritten text, the preprocessor's flags (-I, -D); and compiling and linking in
 * one command, which cprof-cc does in steps, the link's (-shared, -l).  The user's own
 * command does not have them said: its preprocessing (but for a link) and its link
 * still say what is unused. */
static void quiet_flags(const struct cprof_cmdline *c, struct cprof_argv *cc, int preprocessing)
{
    if (cprof_gcc_is_clang() && (!preprocessing || c->mode == CPROF_LINK))
        cprof_push(cc, "-Qunused-arguments");
}

/* The rewriter's command line: cprof's options for this unit. */
static void rewriter_args(struct cprof_cmdline *c, const struct cprof_input *in, const char *copy,
                          const char *rewritten, struct cprof_argv *rw)
{
    cprof_push(rw, cprof_fmt("%s/cprof-rewrite", install_dir("libexec/cprof")));
    if (c->openmp)
        cprof_push(rw, "--openmp");
    if (c->optimizing)
        cprof_push(rw, "--optimizing");
    if (c->pic)
        cprof_push(rw, "--pic");
    if (c->optimizing && !c->winline)
        cprof_push(rw, "--inline-hint");
    if (cprof_gcc_is_clang())
        cprof_push(rw, "--clang");
    if (c->std)
        cprof_push(rw, !strcmp(c->std, "-ansi") ? "--std=c90" : cprof_fmt("-%s", c->std));
    cprof_options_to_rewriter(&c->select, cprof_push_owned, rw);
    cprof_push(rw, in->path);
    cprof_push(rw, copy);
    cprof_push(rw, rewritten);
}

/* Why a unit is compiled without profiling: where (the unit, or file:line in it, as
 * the rewriter says) and what. */
struct fallback {
    char where[512], what[1100];
};

static void fallback_set(struct fallback *fb, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fallback_set(struct fallback *fb, const char *where, const char *fmt, ...)
{
    snprintf(fb->where, sizeof fb->where, "%s", where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fb->what, sizeof fb->what, fmt, ap);
    va_end(ap);
}

/* The rewriter's own line, "FILE:LINE: warning: WHAT". */
static void fallback_from_rewriter(struct fallback *fb, const char *unit, const char *line)
{
    const char *w = strstr(line, ": warning: ");
    if (!w) {
        fallback_set(fb, unit, "%s", line);
        return;
    }
    fallback_set(fb, "", "%s", w + 11);
    snprintf(fb->where, sizeof fb->where, "%.*s", (int)(w - line), line);
}

/* s as a C string literal. */
static char *c_literal(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += 4;
    char *out = cprof_xcalloc(n, 1), *o = out;
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p == '"' || *p == '\\')
            o += sprintf(o, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            o += sprintf(o, "\\%03o", *p);
        else
            *o++ = (char)*p;
    *o++ = '"';
    return out;
}

/* What a unit compiled without profiling adds to gcc's object: a constructor and a
 * destructor that register it with the runtime as a unit of no routines, so that the
 * profile lists it with the reason (runtime/cprof.h).  As a header (-include, where
 * nothing of it is the user's to warn about), or as preprocessed text. */
static void write_registration(FILE *f, const char *file, const char *reason, int header)
{
    char *lf = c_literal(file), *lr = c_literal(reason);
    if (header)
        fputs("#pragma GCC system_header\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n", f);
    fputs("void cprof_register_unprofiled_v9(const char *, const char *);\n"
          "void cprof_unregister_unprofiled_v9(void);\n", f);
    if (header)
        fputs("#ifdef __cplusplus\n}\n#endif\n", f);
    fprintf(f, "static void __attribute__((__constructor__, __used__)) __cprof_unprofiled_init(void)\n"
               "{ cprof_register_unprofiled_v9(%s, %s); }\n"
               "static void __attribute__((__destructor__(101), __used__)) __cprof_unprofiled_fini(void)\n"
               "{ cprof_unregister_unprofiled_v9(); }\n", lf, lr);
    free(lf);
    free(lr);
}

/* -MD for a C++ unit, written by the compile: without the registration's header, which
 * lives in the temporary directory (make would look for it). */
static void drop_dependency(const char *dep_file, const char *header)
{
    FILE *f = fopen(dep_file, "r");
    if (!f)
        return;
    char *text = NULL;
    size_t size = 0;
    ssize_t n = getdelim(&text, &size, 0, f);
    fclose(f);
    if (n <= 0) {
        free(text);
        return;
    }
    size_t hl = strlen(header);
    char *o = text;
    for (const char *p = text; *p;) {
        /* " HEADER" as a prerequisite (after a blank or a continued line), or the line
         * "HEADER:" that -MP adds. */
        const char *h = *p == ' ' ? p + 1 : p;
        int at_line = p == text || p[-1] == '\n';
        if (!strncmp(h, header, hl) && (h[hl] == ' ' || h[hl] == '\n' || h[hl] == '\\' || !h[hl]
                                        || (at_line && h[hl] == ':'))
            && (*p == ' ' || at_line)) {
            p = h + hl;
            if (at_line && *p == ':') {
                p++;
                while (*p == '\n')
                    p++;
            }
            continue;
        }
        *o++ = *p++;
    }
    *o = 0;
    f = fopen(dep_file, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(text);
}

/* gcc's own compile of a unit cprof cannot profile (cc: the command so far, its inputs
 * to come), with the registration that makes the profile list it.  gcc's diagnostics
 * and status stand; if it compiles, one warning says the unit is not profiled, or with
 * -fcprof-strict one error and no output. */
static int compile_unprofiled(const struct cprof_cmdline *c, const struct cprof_input *in,
                              struct cprof_argv *cc, const char *dir, const char *pre,
                              const struct fallback *fb, const char *object, const char *dep_file)
{
    int from_stdin = !strcmp(in->path, "-");
    /* A C unit's standard input was read once, by gcc -E: its preprocessed text stands
     * for it (where -include has no effect), the registration after it. */
    int preprocessed = from_stdin && in->lang == CPROF_C;
    const char *file = from_stdin ? "<stdin>" : in->path;
    /* The unit's line, or the header's, in the reason the profile carries. */
    size_t pl = strlen(file);
    char *reason = !strcmp(fb->where, file) || !strcmp(fb->where, in->path) ? cprof_fmt("%s", fb->what)
                   : !strncmp(fb->where, file, pl) && fb->where[pl] == ':'
                   ? cprof_fmt("%s, line %s", fb->what, fb->where + pl + 1)
                   : cprof_fmt("%s, in %s", fb->what, fb->where);
    /* Unprofiled, <cprof.h> is still found, and its calls do nothing (no __CPROF__). */
    cprof_push(cc, "-idirafter");
    cprof_push(cc, install_dir("include"));
    char *registration = cprof_fmt("%s/%s", dir, preprocessed ? "unprofiled.i" : "unprofiled.h");
    FILE *f = fopen(registration, "w");
    if (!f) {
        fprintf(stderr, "cprof-cc: %s: %s\n", registration, strerror(errno));
        return 1;
    }
    if (preprocessed) {
        FILE *p = fopen(pre, "r");
        char buf[65536];
        size_t n;
        while (p && (n = fread(buf, 1, sizeof buf, p)) > 0)
            fwrite(buf, 1, n, f);
        if (p)
            fclose(p);
        fputs("\n# 1 \"<cprof>\" 3\n", f);
    }
    write_registration(f, file, reason, !preprocessed);
    if (fclose(f) != 0) {
        fprintf(stderr, "cprof-cc: %s: %s\n", registration, strerror(errno));
        return 1;
    }
    if (!preprocessed) {
        cprof_push(cc, "-include");
        cprof_push(cc, registration);
    }
    cprof_push(cc, "-x");
    cprof_push(cc, preprocessed ? "cpp-output" : in->lang == CPROF_CXX ? "c++" : "c");
    cprof_push(cc, preprocessed ? registration : in->path);
    int status = cprof_run(cc->v, NULL);
    if (dep_file)
        drop_dependency(dep_file, registration);
    if (status != 0)
        return status;
    if (c->select.strict) {
        if (strcmp(object, "-"))
            unlink(object);
        fprintf(stderr, "cprof-cc: %s: error: %s; not compiled (-fcprof-strict)\n", fb->where, fb->what);
        return 1;
    }
    fprintf(stderr, "cprof-cc: %s: warning: %s; compiled without profiling\n", fb->where, fb->what);
    return 0;
}

/* A C++ source: never profiled, compiled by g++ as the user asked, with the
 * registration. */
static int compile_cxx(const struct cprof_cmdline *c, const struct cprof_input *in, int n, const char *object)
{
    char *dir = cprof_fmt("%s/%d", cprof_tmpdir(), n);
    mkdir(dir, 0700);
    struct cprof_argv cc = { 0 };
    cprof_push(&cc, cprof_gxx());
    cprof_common_flags(c, &cc, 1);
    const char *dep_file = c->dep_md ? cprof_dependency_flags(c, in, object, &cc) : NULL;
    cprof_push(&cc, c->mode == CPROF_ASSEMBLE_ONLY ? "-S" : "-c");
    cprof_push(&cc, "-o");
    cprof_push(&cc, object);
    struct fallback fb;
    fallback_set(&fb, in->path, "C++ is not profiled");
    int status = compile_unprofiled(c, in, &cc, dir, NULL, &fb, object, dep_file);
    free(cc.v);
    return status;
}

/* Compiles one source, profiled if possible.  Returns gcc's exit status. */
static int compile_source(struct cprof_cmdline *c, const struct cprof_input *in, int n, const char *object)
{
    char *dir = cprof_fmt("%s/%d", cprof_tmpdir(), n);
    mkdir(dir, 0700);
    char *pre = cprof_fmt("%s/%s", dir, cprof_base_name(in->path, ".i"));
    char *rewritten = cprof_fmt("%s/%s", dir, cprof_base_name(in->path, ".cprof.i"));
    char *errors = cprof_fmt("%s/stderr", dir), *rw_errors = cprof_fmt("%s/rewrite.stderr", dir);

    /* gcc -E | cprof-rewrite, the rewriter a worker of the rewrite server if one can
     * be had (server.h).  Starting a server, or loading libclang in a rewriter of its
     * own, overlaps preprocessing. */
    struct cprof_argv pp = { 0 }, rw = { 0 };
    cprof_push(&pp, cprof_gcc());
    cprof_common_flags(c, &pp, 1);
    quiet_flags(c, &pp, 1);
    if (c->dep_md)
        cprof_dependency_flags(c, in, object, &pp);
    /* Profiled code may call cprof_write(): #ifdef __CPROF__ / #include <cprof.h>. */
    cprof_push(&pp, "-D__CPROF__=1");
    cprof_push(&pp, "-idirafter");
    cprof_push(&pp, install_dir("include"));
    cprof_push(&pp, "-E");
    cprof_push(&pp, "-x");
    cprof_push(&pp, "c");
    cprof_push(&pp, in->path);
    rewriter_args(c, in, pre, rewritten, &rw);
    int fd[2];
    if (pipe(fd) != 0) {
        fprintf(stderr, "cprof-cc: pipe: %s\n", strerror(errno));
        return 1;
    }
    pid_t preprocessor = cprof_spawn(pp.v, -1, fd[1], fd[0], NULL);
    close(fd[1]);
    int rewrite_status = -1;
    int err_fd = open(rw_errors, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (err_fd >= 0) {
        rewrite_status = cprof_server_rewrite(rw.v, fd[0], err_fd);
        close(err_fd);
    }
    if (rewrite_status < 0)
        rewrite_status = cprof_wait(cprof_spawn(rw.v, fd[0], -1, -1, rw_errors));
    close(fd[0]);
    int status = cprof_wait(preprocessor);
    free(pp.v);
    free(rw.v);
    if (status != 0)
        return status;

    struct fallback fb;
    int rewrote = rewrite_status == 0;
    if (rewrote)
        cprof_copy_to_stderr(rw_errors);      /* its warnings about parts left unprofiled */
    else if (rewrite_status == 1)
        fallback_from_rewriter(&fb, in->path, cprof_line_of(rw_errors, NULL));
    else if (rewrite_status == CPROF_SERVER_LOST)
        fallback_set(&fb, in->path, "the rewriter stopped without an exit status (%s)",
                     cprof_line_of(rw_errors, NULL));
    else
        fallback_set(&fb, in->path, "the rewriter failed (status %d: %s)", rewrite_status,
                     cprof_line_of(rw_errors, NULL));

    struct cprof_argv cc = { 0 };
    cprof_push(&cc, cprof_gcc());
    cprof_common_flags(c, &cc, !rewrote);
    quiet_flags(c, &cc, !rewrote);
    input_size_flags(c, &cc);
    cprof_push(&cc, c->mode == CPROF_ASSEMBLE_ONLY ? "-S" : "-c");
    cprof_push(&cc, "-o");
    cprof_push(&cc, object);
    /* A loop clang was asked to vectorize (omp simd) that a facade keeps from it: not
     * the user's to fix (gcc says nothing of it).  A warning option clang does not know
     * (gcc's -Wimplicit-fallthrough=3) its preprocessing said already, as the user's
     * command says it once. */
    if (rewrote && cprof_gcc_is_clang()) {
        cprof_push(&cc, "-Wno-pass-failed");
        cprof_push(&cc, "-Wno-unknown-warning-option");
    }
    if (rewrote) {
        cprof_push(&cc, "-x");
        cprof_push(&cc, "cpp-output");
        cprof_push(&cc, rewritten);
        status = cprof_run(cc.v, errors);
        if (status == 0) {
            cprof_copy_to_stderr(errors);
            free(cc.v);
            return 0;
        }
        fallback_set(&fb, in->path, "the instrumented code did not compile (%s)",
                     cprof_line_of(errors, "error"));
        /* Back to the user's flags, preprocessing included. */
        cc.n = 0;
        cprof_push(&cc, cprof_gcc());
        cprof_common_flags(c, &cc, 1);
        quiet_flags(c, &cc, 1);
        input_size_flags(c, &cc);
        cprof_push(&cc, c->mode == CPROF_ASSEMBLE_ONLY ? "-S" : "-c");
        cprof_push(&cc, "-o");
        cprof_push(&cc, object);
    }
    status = compile_unprofiled(c, in, &cc, dir, pre, &fb, object, NULL);
    free(cc.v);
    return status;
}

static int release(struct cprof_cmdline *c, struct cprof_argv *final, const char **objects, int status)
{
    free(final->v);
    free(objects);
    cprof_cmdline_free(c);
    return status;
}

/* Runs the final gcc command and frees what main built. */
static int finish(struct cprof_cmdline *c, struct cprof_argv *final, const char **objects)
{
    return release(c, final, objects, cprof_run(final->v, NULL));
}

/* -fcprof-help: cprof's options and variables (docs/cprof-cc.md); --help stays gcc's,
 * which build tools ask. */
static const char cprof_help[] =
    "usage: cprof-cc [gcc options and files] [-fcprof-... options]\n"
    "cprof-cc compiles like gcc, and profiles the C functions it compiles (see\n"
    "docs/cprof-cc.md; --help prints gcc's help).\n"
    "\n"
    "Options (each replaces its variable; LIST: comma-separated globs):\n";

/* What follows the options in -fcprof-help. */
static const char cprof_help_end[] =
    "  -fcprof-help                   print this help and exit\n"
    "  -fcprof-version                print cprof's version and exit (--version is gcc's)\n"
    "\n"
    "Variables read by cprof-cc:\n"
    "  CPROF_GCC, CPROF_GXX     the compilers it runs (default gcc, g++; run as\n"
    "                           cprof-clang: clang, clang++)\n"
    "  CPROF_KEEP_TEMPS=1       keep the temporary directory (rewritten sources)\n"
    "  CPROF_SERVER=0           never use the rewrite server\n"
    "  CPROF_SERVER_IDLE=SECONDS  how long a server waits for work (default 60)\n"
    "Variables read by a profiled program:\n"
    "  CPROF_OUT=FILE           where the profile goes (default cprof.out, in an MPI job\n"
    "                           cprof.RANK.out; %p: the pid, %r: the rank, %h: the host)\n"
    "  CPROF_MODE=count         counts only, no clock read per call\n"
    "  CPROF_CLOCK=monotonic    clock_gettime instead of the time-stamp counter\n"
    "  CPROF_DEBUG=1            check the runtime's invariants at every call\n"
    "  CPROF_START=off          start stopped: nothing counted until cprof_start()\n"
    "  CPROF_PATHS_MAX=N        calling contexts kept per worker (default 100000)\n"
    "  CPROF_PATHS=0            keep no calling contexts (call paths)\n"
    "  CPROF_SHADOW_MB=N        -fcprof-input-size's shadow memory bound (default: half\n"
    "                           the machine's memory)\n"
    "  CPROF_SIZES_SLOWDOWN=X   -fcprof-input-size: size a sample of the activations, the\n"
    "                           run about X times its unsized time (default: all)\n"
    "  CPROF_RESOURCES=LIST     resources beyond time, NAME[:PERIOD],...: cpu, faults,\n"
    "                           minor-faults, major-faults, csw, migrations, cycles,\n"
    "                           instructions, cache-misses, branch-misses\n"
    "  CPROF_TRACE=1            record a trace of every activation (docs/tracing.md),\n"
    "                           written beside the profile (PROFILE.trace)\n"
    "  CPROF_TRACE_BUFFER=SIZE  trace bytes per worker (default 32M); full: it stops\n"
    "  CPROF_TRACE_INCLUDE=GLOBS, CPROF_TRACE_EXCLUDE=GLOBS  routines traced, or not\n"
    "  CPROF_TRACE_MIN_NS=N     no activation shorter than N ns in the trace\n"
    "  CPROF_TRACE_OUT=FILE     where the trace goes instead\n"
    "Read the profile with cprof-report (cprof-report --help).\n";

/* cprof's own options (docs/cprof-cc.md), taken out of the arguments gcc will see;
 * the environment gives the defaults.  A bad value: a message, and exit status 1. */
static void take_cprof_options(struct cprof_argv *args, struct cprof_rewrite_options *o)
{
    char err[512];
    if (cprof_options_from_env(o, err, sizeof err) != 0) {
        fprintf(stderr, "cprof-cc: %s\n", err);
        exit(1);
    }
    int kept = 1;
    for (int i = 1; i < args->n; i++) {
        int taken = cprof_options_take(o, args->v[i], err, sizeof err);
        if (taken < 0) {
            fprintf(stderr, "cprof-cc: %s\n", err);
            exit(1);
        }
        if (!taken)
            args->v[kept++] = args->v[i];
    }
    args->n = kept;
    args->v[kept] = NULL;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-fcprof-help")) {
            fputs(cprof_help, stdout);
            cprof_options_help(stdout);
            fputs(cprof_help_end, stdout);
            return fflush(stdout) ? 1 : 0;
        } else if (!strcmp(argv[i], "-fcprof-version")) {
            puts("cprof-cc (cprof) " CPROF_VERSION);
            return fflush(stdout) ? 1 : 0;
        }
    cprof_driver_named(argv[0]);
    atexit(cprof_free_made);
    struct cprof_argv args = { 0 };
    cprof_push(&args, argv[0]);
    for (int i = 1; i < argc; i++)
        cprof_push_arg(&args, argv[i]);
    struct cprof_rewrite_options select = { 0 };
    /* A routine counted at its sites has no activation to size: -fcprof-input-size times
     * every routine, unless told which are small (cheaper: docs/input-size.md). */
    int small_given = cprof_option_given("small", (char *const *)args.v, args.n);
    take_cprof_options(&args, &select);
    if (select.input_size && !small_given)
        select.small_tokens = 0;
    struct cprof_cmdline c;
    cprof_cmdline_parse(&c, args.n, (char **)args.v);
    c.select = select;

    struct cprof_argv final = { 0 };
    cprof_push(&final, c.ncxx ? cprof_gxx() : cprof_gcc());
    /* gcc itself refuses -o with several outputs; let it say so. */
    int several_outputs = c.mode != CPROF_LINK && c.output && c.ninputs > 1;
    int nsources = c.nsources + c.ncxx;
    if (c.mode == CPROF_GCC_ONLY || nsources == 0 || several_outputs) {
        for (int i = 1; i < c.argc; i++)
            cprof_push(&final, c.argv[i]);
        if (c.mode == CPROF_LINK && c.ninputs > 0)
            runtime_libs(&c, &final);
        return finish(&c, &final, NULL);
    }

    cprof_tmpdir();
    const char **objects = cprof_xcalloc((size_t)c.argc, sizeof *objects);
    int status = 0;
    for (int k = 0; k < c.ninputs; k++) {
        const struct cprof_input *in = &c.inputs[k];
        if (in->lang == CPROF_OTHER)
            continue;
        const char *object;
        if (c.mode == CPROF_LINK)
            object = cprof_fmt("%s/%d.o", cprof_tmpdir(), k);
        else if (c.output)
            object = c.output;
        else
            object = cprof_base_name(in->path, c.mode == CPROF_COMPILE ? ".o" : ".s");
        objects[in->index] = object;
        int s = in->lang == CPROF_C ? compile_source(&c, in, k, object) : compile_cxx(&c, in, k, object);
        if (s != 0)
            status = s;
    }
    /* What gcc still has to do: link, or compile the inputs that are not C or C++. */
    if (status != 0 || (c.mode != CPROF_LINK && c.ninputs == nsources))
        return release(&c, &final, objects, status);

    for (int i = 1; i < c.argc; i++) {
        const char *a = c.argv[i];
        if (objects[i]) {
            if (c.mode == CPROF_LINK) {
                /* An object, whatever -x said before it. */
                cprof_push(&final, "-x");
                cprof_push(&final, "none");
                cprof_push(&final, objects[i]);
            }
            continue;
        }
        /* Dependency flags were for the compile steps. */
        int skip = c.mode == CPROF_LINK && a[0] == '-' ? cprof_dependency_option(a) : 0;
        if (skip) {
            i += skip - 1;
            continue;
        }
        cprof_push(&final, a);
        if (a[0] == '-' && cprof_takes_value(a) && i + 1 < c.argc)
            cprof_push(&final, c.argv[++i]);
    }
    if (c.mode == CPROF_LINK)
        runtime_libs(&c, &final);
    return finish(&c, &final, objects);
}
