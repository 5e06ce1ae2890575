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
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "options.h"
#include "server.h"

/* ---- argument vectors ---- */

struct argv {
    const char **v;
    int n, cap;
};

static void push(struct argv *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->v = realloc(a->v, (size_t)a->cap * sizeof *a->v);
        if (!a->v) {
            fputs("cprof-cc: out of memory\n", stderr);
            exit(1);
        }
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

/* Strings made here live until exit, like the arguments they join. */
static struct argv owned;

static void free_owned(void)
{
    for (int i = 0; i < owned.n; i++)
        free((char *)owned.v[i]);
    free(owned.v);
}

/* An argument made elsewhere (malloc'd), owned from now on, pushed onto vector. */
static void push_owned(void *vector, char *s)
{
    push(&owned, s);
    push(vector, s);
}

static char *fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *format, ...)
{
    va_list ap;
    char *s;
    va_start(ap, format);
    if (vasprintf(&s, format, ap) < 0) {
        fputs("cprof-cc: out of memory\n", stderr);
        exit(1);
    }
    va_end(ap);
    push(&owned, s);
    return s;
}

/* Options whose value is the next argument. */
static int takes_value(const char *o)
{
    static const char *const opts[] = {
        "-o", "-x", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-idirafter",
        "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-iquote", "-isysroot", "-L", "-l",
        "-MF", "-MT", "-MQ", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-u", "-T", "-z",
        "-aux-info", "--param", "-e", "-A", "-G", "-B", "-wrapper", "-dumpbase", "-dumpdir",
        "-dumpbase-ext", NULL };
    for (int i = 0; opts[i]; i++)
        if (!strcmp(o, opts[i]))
            return 1;
    return 0;
}

/* ---- @file arguments, expanded as gcc expands them (libiberty's buildargv):
 * white space separates, quotes group, a backslash escapes; an unreadable @file is
 * an ordinary argument. ---- */

static void expand_file(struct argv *out, const char *arg, int depth);

static void add_arg(struct argv *out, const char *arg, int depth)
{
    if (arg[0] == '@' && arg[1] && depth < 16)
        expand_file(out, arg, depth + 1);
    else
        push(out, arg);
}

static void expand_file(struct argv *out, const char *arg, int depth)
{
    FILE *f = fopen(arg + 1, "r");
    if (!f) {
        push(out, arg);
        return;
    }
    char *word = NULL;
    size_t len = 0, cap = 0;
    int c, quote = 0, in_word = 0;
    for (;;) {
        c = fgetc(f);
        int space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
        if (c == EOF || (space && !quote)) {
            if (in_word) {
                word[len] = 0;
                add_arg(out, fmt("%s", word), depth);
                len = 0;
                in_word = 0;
            }
            if (c == EOF)
                break;
            continue;
        }
        if (c == '\\') {
            /* Escapes apply inside quotes too, and come first. */
            if ((c = fgetc(f)) == EOF)
                break;
        } else if (quote && c == quote) {
            quote = 0;
            continue;
        } else if (!quote && (c == '\'' || c == '"')) {
            quote = c;
            in_word = 1;
            continue;
        }
        if (len + 2 > cap) {
            cap = cap ? 2 * cap : 64;
            word = realloc(word, cap);
            if (!word) {
                fputs("cprof-cc: out of memory\n", stderr);
                exit(1);
            }
        }
        word[len++] = (char)c;
        in_word = 1;
    }
    free(word);
    fclose(f);
}

/* ---- running gcc ---- */

static const char *gcc(void)
{
    const char *g = getenv("CPROF_GCC");
    return g && *g ? g : "gcc";
}

/* C++ is not profiled: it goes to g++, which also links its library. */
static const char *gxx(void)
{
    const char *g = getenv("CPROF_GXX");
    return g && *g ? g : "g++";
}

/* Starts argv with the given stdin and stdout descriptors (-1: inherited) and, with
 * err_path, its stderr going there.  Returns the pid, or -1. */
static pid_t spawn(const char *const *argv, int in, int out, int close_in_child, const char *err_path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cprof-cc: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (in >= 0)
            dup2(in, 0);
        if (out >= 0)
            dup2(out, 1);
        if (close_in_child >= 0)
            close(close_in_child);
        if (in > 2)
            close(in);
        if (out > 2)
            close(out);
        if (err_path) {
            int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0) {
                dup2(fd, 2);
                close(fd);
            }
        }
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "cprof-cc: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

/* The exit status of pid, as a shell reports it. */
static int wait_for(pid_t pid)
{
    int status;
    if (pid < 0)
        return 1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

/* Runs argv; with err_path, its stderr goes there.  Returns the exit status. */
static int run(const char *const *argv, const char *err_path)
{
    return wait_for(spawn(argv, -1, -1, -1, err_path));
}

static void copy_to_stderr(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stderr);
    fclose(f);
}

/* The first line of path holding `want` (NULL: the last line). */
static char *line_of(const char *path, const char *want)
{
    static char line[1024];
    line[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return line;
    while (fgets(line, sizeof line, f))
        if (want && strstr(line, want))
            break;
    fclose(f);
    line[strcspn(line, "\n")] = 0;
    return line;
}

/* ---- the temporary directory, one per invocation: parallel makes never share ---- */

static char tmpdir[PATH_MAX];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* In process: a fork and exec of rm per compile is measurable in a build. */
static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup(void)
{
    if (tmpdir[0] && !getenv("CPROF_KEEP_TEMPS"))
        remove_tree(tmpdir);
}

static void make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/cprof-cc.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "cprof-cc: cannot create a temporary directory: %s\n", strerror(errno));
        exit(1);
    }
    atexit(cleanup);
}

/* ---- the command line, understood ---- */

enum mode { LINK, COMPILE, ASSEMBLE_ONLY /* -S */, GCC_ONLY };

enum language { OTHER, C_SOURCE, CXX_SOURCE };

struct input {
    const char *path;   /* "-": standard input */
    int index;          /* position in argv */
    enum language lang;
};

struct cmdline {
    int argc;
    char **argv;
    enum mode mode;
    const char *output;
    struct input *inputs;
    int ninputs, nsources, ncxx;
    const char *std;
    int dep_md;         /* -MD or -MMD given */
    int openmp;         /* -fopenmp in effect */
    struct cprof_rewrite_options select;    /* cprof's own options (options.h) */
};

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* The language gcc would compile an input as: -x, else the suffix. */
static enum language language_of(const char *path, const char *x)
{
    static const char *const cxx_suffixes[] = { ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", NULL };
    if (x)
        return !strcmp(x, "c") ? C_SOURCE : !strcmp(x, "c++") ? CXX_SOURCE : OTHER;
    if (has_suffix(path, ".c"))
        return C_SOURCE;
    for (int i = 0; cxx_suffixes[i]; i++)
        if (has_suffix(path, cxx_suffixes[i]))
            return CXX_SOURCE;
    return OTHER;
}

static void parse(struct cmdline *c, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    c->argc = argc;
    c->argv = argv;
    c->mode = LINK;
    c->inputs = calloc((size_t)argc, sizeof *c->inputs);
    const char *lang = NULL;
    int queries = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            enum language l = language_of(a, lang);
            c->inputs[c->ninputs++] = (struct input){ a, i, l };
            c->nsources += l == C_SOURCE;
            c->ncxx += l == CXX_SOURCE;
            continue;
        }
        if (!strcmp(a, "-###")) {
            c->mode = GCC_ONLY;     /* a dry run: gcc prints, nothing is compiled */
            continue;
        }
        if (!strcmp(a, "-c"))
            c->mode = c->mode == GCC_ONLY ? GCC_ONLY : COMPILE;
        else if (!strcmp(a, "-S"))
            c->mode = c->mode == GCC_ONLY ? GCC_ONLY : ASSEMBLE_ONLY;
        else if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
            c->mode = GCC_ONLY;
        else if (!strcmp(a, "-fopenmp") || !strcmp(a, "-fno-openmp"))
            c->openmp = a[2] == 'o';
        else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD"))
            c->dep_md = 1;
        else if (!strncmp(a, "-std=", 5) || !strcmp(a, "-ansi"))
            c->std = a;
        else if (!strcmp(a, "-v") || !strcmp(a, "--version") || !strncmp(a, "-dump", 5)
                 || !strncmp(a, "-print-", 7) || !strncmp(a, "--help", 6))
            queries = 1;
        else if (!strncmp(a, "-o", 2))
            c->output = a[2] ? a + 2 : (i + 1 < argc ? argv[i + 1] : NULL);
        if (!strncmp(a, "-x", 2)) {
            lang = a[2] ? a + 2 : (i + 1 < argc ? argv[i + 1] : NULL);
            if (lang && !strcmp(lang, "none"))
                lang = NULL;
        }
        if (takes_value(a))
            i++;
    }
    if (queries && c->ninputs == 0)
        c->mode = GCC_ONLY;
}

/* Is argv[i] an option that only the preprocessing step needs, or that must not be
 * repeated in it (dependency output, -o, the mode)?  Returns how many arguments it
 * spans (0: keep). */
static int skip_for_compile(char **argv, int i, int preprocessing)
{
    const char *a = argv[i];
    static const char *const deps[] = { "-MD", "-MMD", "-MP", "-MG", NULL };
    static const char *const deps_value[] = { "-MF", "-MT", "-MQ", NULL };
    for (int k = 0; deps[k]; k++)
        if (!strcmp(a, deps[k]))
            return 1;
    for (int k = 0; deps_value[k]; k++) {
        if (!strcmp(a, deps_value[k]))
            return 2;
        if (!strncmp(a, deps_value[k], 3))
            return 1;
    }
    if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E"))
        return 1;
    if (!strcmp(a, "-o"))
        return 2;
    if (!strncmp(a, "-o", 2))
        return 1;
    if (!strcmp(a, "-x"))
        return 2;
    if (!strncmp(a, "-x", 2))
        return 1;
    /* Linking options: harmless to gcc -c, but it warns about some. */
    if (!strcmp(a, "-l") || !strcmp(a, "-L") || !strcmp(a, "-Xlinker") || !strcmp(a, "-T")
        || !strcmp(a, "-u") || !strcmp(a, "-z") || !strcmp(a, "-e"))
        return 2;
    if (!strncmp(a, "-l", 2) || !strncmp(a, "-L", 2) || !strncmp(a, "-Wl,", 4))
        return 1;
    if (!preprocessing && (!strcmp(a, "-include") || !strcmp(a, "-imacros")))
        return 2;
    return 0;
}

/* The user's flags for one step, without inputs, outputs, mode and dependency flags. */
static void common_flags(struct cmdline *c, struct argv *out, int preprocessing)
{
    for (int i = 1; i < c->argc; i++) {
        const char *a = c->argv[i];
        if (a[0] != '-' || !a[1])
            continue;           /* an input */
        int skip = skip_for_compile(c->argv, i, preprocessing);
        if (skip) {
            i += skip - 1;
            continue;
        }
        push(out, a);
        if (takes_value(a) && i + 1 < c->argc)
            push(out, c->argv[++i]);
    }
}

static char *base_name(const char *path, const char *new_ext)
{
    char *copy = fmt("%s", path);
    char *b = basename(copy);
    char *dot = strrchr(b, '.');
    if (dot)
        *dot = 0;
    return fmt("%s%s", b, new_ext);
}

/* -MD/-MMD: gcc's defaults for the dependency file and its target, made explicit
 * because the preprocessing step writes to a temporary file. */
static void dependency_flags(struct cmdline *c, const struct input *in, const char *object,
                             struct argv *pp)
{
    const char *dep_file = NULL;
    int has_target = 0;
    for (int i = 1; i < c->argc; i++) {
        const char *a = c->argv[i];
        if (!strcmp(a, "-MD") || !strcmp(a, "-MMD") || !strcmp(a, "-MP") || !strcmp(a, "-MG"))
            push(pp, a);
        else if ((!strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ")) && i + 1 < c->argc) {
            if (!strcmp(a, "-MF"))
                dep_file = c->argv[i + 1];
            else
                has_target = 1;
            push(pp, a);
            push(pp, c->argv[++i]);
        } else if (!strncmp(a, "-MF", 3) || !strncmp(a, "-MT", 3) || !strncmp(a, "-MQ", 3)) {
            if (!strncmp(a, "-MF", 3))
                dep_file = a + 3;
            else
                has_target = 1;
            push(pp, a);
        }
    }
    if (!dep_file) {
        if (c->output && c->mode != LINK) {
            char *copy = fmt("%s", c->output);
            char *dot = strrchr(copy, '.');
            char *slash = strrchr(copy, '/');
            if (dot && (!slash || dot > slash))
                *dot = 0;
            push(pp, "-MF");
            push(pp, fmt("%s.d", copy));
        } else {
            push(pp, "-MF");
            push(pp, base_name(in->path, ".d"));
        }
    }
    if (!has_target) {
        push(pp, "-MQ");
        push(pp, object);
    }
}

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
    char *dir = fmt("%s/../%s", exe, sub), real[PATH_MAX];
    return realpath(dir, real) ? fmt("%s", real) : dir;
}

/* A program gets the static runtime, its entry points exported so that profiled
 * shared libraries bind to it; a shared library gets the shared runtime, which a
 * profiled program's copy overrides. */
static void runtime_libs(struct cmdline *c, struct argv *out)
{
    const char *lib = install_dir("lib");
    int shared = 0;
    for (int i = 1; i < c->argc; i++)
        shared |= !strcmp(c->argv[i], "-shared");
    if (shared) {
        push(out, fmt("%s/libcprof.so", lib));
        push(out, fmt("-Wl,-rpath,%s", lib));
    } else {
        push(out, fmt("%s/libcprof.a", lib));
        push(out, "-Wl,--export-dynamic-symbol=cprof_*");
    }
    push(out, "-lhwloc");
    push(out, "-ljansson");
    push(out, "-lgomp");
    push(out, "-lpthread");
}

/* The rewriter's command line: cprof's options for this unit. */
static void rewriter_args(struct cmdline *c, const struct input *in, const char *copy,
                          const char *rewritten, struct argv *rw)
{
    push(rw, fmt("%s/cprof-rewrite", install_dir("libexec/cprof")));
    if (c->openmp)
        push(rw, "--openmp");
    if (c->std)
        push(rw, !strcmp(c->std, "-ansi") ? "--std=c90" : fmt("-%s", c->std));
    cprof_options_to_rewriter(&c->select, push_owned, rw);
    push(rw, in->path);
    push(rw, copy);
    push(rw, rewritten);
}

/* Compiles one source, profiled if possible.  Returns gcc's exit status. */
static int compile_source(struct cmdline *c, const struct input *in, int n, const char *object)
{
    char *dir = fmt("%s/%d", tmpdir, n);
    mkdir(dir, 0700);
    char *pre = fmt("%s/%s", dir, base_name(in->path, ".i"));
    char *rewritten = fmt("%s/%s", dir, base_name(in->path, ".cprof.i"));
    char *errors = fmt("%s/stderr", dir), *rw_errors = fmt("%s/rewrite.stderr", dir);

    /* gcc -E | cprof-rewrite, the rewriter a worker of the rewrite server if one can
     * be had (server.h).  Starting a server, or loading libclang in a rewriter of its
     * own, overlaps preprocessing. */
    struct argv pp = { 0 }, rw = { 0 };
    push(&pp, gcc());
    common_flags(c, &pp, 1);
    if (c->dep_md)
        dependency_flags(c, in, object, &pp);
    /* Profiled code may call cprof_write(): #ifdef __CPROF__ / #include <cprof.h>. */
    push(&pp, "-D__CPROF__=1");
    push(&pp, "-idirafter");
    push(&pp, install_dir("include"));
    push(&pp, "-E");
    push(&pp, "-x");
    push(&pp, "c");
    push(&pp, in->path);
    rewriter_args(c, in, pre, rewritten, &rw);
    int fd[2];
    if (pipe(fd) != 0) {
        fprintf(stderr, "cprof-cc: pipe: %s\n", strerror(errno));
        return 1;
    }
    pid_t preprocessor = spawn(pp.v, -1, fd[1], fd[0], NULL);
    close(fd[1]);
    int rewrite_status = -1;
    int err_fd = open(rw_errors, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (err_fd >= 0) {
        rewrite_status = cprof_server_rewrite(rw.v, fd[0], err_fd);
        close(err_fd);
    }
    if (rewrite_status < 0)
        rewrite_status = wait_for(spawn(rw.v, fd[0], -1, -1, rw_errors));
    close(fd[0]);
    int status = wait_for(preprocessor);
    free(pp.v);
    free(rw.v);
    if (status != 0)
        return status;

    char why[1100];
    int rewrote = rewrite_status == 0;
    if (rewrote)
        copy_to_stderr(rw_errors);      /* its warnings about parts left unprofiled */
    else if (rewrite_status == 1)
        snprintf(why, sizeof why, "%s", line_of(rw_errors, NULL));
    else if (rewrite_status == CPROF_SERVER_LOST)
        snprintf(why, sizeof why, "%s: warning: the rewriter stopped without an exit status (%s)",
                 in->path, line_of(rw_errors, NULL));
    else
        snprintf(why, sizeof why, "%s: warning: the rewriter failed (status %d: %s)", in->path,
                 rewrite_status, line_of(rw_errors, NULL));

    struct argv cc = { 0 };
    push(&cc, gcc());
    common_flags(c, &cc, !rewrote);
    push(&cc, c->mode == ASSEMBLE_ONLY ? "-S" : "-c");
    push(&cc, "-o");
    push(&cc, object);
    if (rewrote) {
        push(&cc, "-x");
        push(&cc, "cpp-output");
        push(&cc, rewritten);
        status = run(cc.v, errors);
        if (status == 0) {
            copy_to_stderr(errors);
            free(cc.v);
            return 0;
        }
        snprintf(why, sizeof why, "%s: warning: the instrumented code did not compile (%s)", in->path,
                 line_of(errors, "error"));
        /* Back to the user's flags, preprocessing included. */
        cc.n = 0;
        push(&cc, gcc());
        common_flags(c, &cc, 1);
        push(&cc, c->mode == ASSEMBLE_ONLY ? "-S" : "-c");
        push(&cc, "-o");
        push(&cc, object);
    }
    /* Standard input was read once: the preprocessed text stands for it. */
    push(&cc, "-x");
    push(&cc, strcmp(in->path, "-") ? "c" : "cpp-output");
    push(&cc, strcmp(in->path, "-") ? in->path : pre);
    status = run(cc.v, NULL);
    free(cc.v);
    if (status == 0)
        fprintf(stderr, "cprof-cc: %s; compiled without profiling\n", why);
    return status;
}

static int release(struct cmdline *c, struct argv *final, const char **objects, int status)
{
    free(final->v);
    free(objects);
    free(c->inputs);
    free(c->argv);
    return status;
}

/* Runs the final gcc command and frees what main built. */
static int finish(struct cmdline *c, struct argv *final, const char **objects)
{
    return release(c, final, objects, run(final->v, NULL));
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
    "\n"
    "Variables read by cprof-cc:\n"
    "  CPROF_GCC, CPROF_GXX     the compilers it runs (default gcc, g++)\n"
    "  CPROF_KEEP_TEMPS=1       keep the temporary directory (rewritten sources)\n"
    "  CPROF_SERVER=0           never use the rewrite server\n"
    "  CPROF_SERVER_IDLE=SECONDS  how long a server waits for work (default 60)\n"
    "Variables read by a profiled program:\n"
    "  CPROF_OUT=FILE           where the profile goes (default cprof.out; %p: the pid)\n"
    "  CPROF_MODE=count         counts only, no clock read per call\n"
    "  CPROF_CLOCK=monotonic    clock_gettime instead of the time-stamp counter\n"
    "  CPROF_DEBUG=1            check the runtime's invariants at every call\n"
    "Read the profile with cprof-report (cprof-report --help).\n";

/* cprof's own options (docs/cprof-cc.md), taken out of the arguments gcc will see;
 * the environment gives the defaults.  A bad value: a message, and exit status 1. */
static void take_cprof_options(struct argv *args, struct cprof_rewrite_options *o)
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
        }
    atexit(free_owned);
    struct argv args = { 0 };
    push(&args, argv[0]);
    for (int i = 1; i < argc; i++)
        add_arg(&args, argv[i], 0);
    struct cprof_rewrite_options select = { 0 };
    take_cprof_options(&args, &select);
    struct cmdline c;
    parse(&c, args.n, (char **)args.v);
    c.select = select;

    for (int k = 0; k < c.ninputs; k++)
        if (c.inputs[k].lang == CXX_SOURCE && c.mode != GCC_ONLY)
            fprintf(stderr, "cprof-cc: %s: warning: C++ is not profiled; compiled by %s\n",
                    c.inputs[k].path, gxx());
    struct argv final = { 0 };
    push(&final, c.ncxx ? gxx() : gcc());
    /* gcc itself refuses -o with several outputs; let it say so. */
    int several_outputs = c.mode != LINK && c.output && c.ninputs > 1;
    if (c.mode == GCC_ONLY || c.nsources == 0 || several_outputs) {
        for (int i = 1; i < c.argc; i++)
            push(&final, c.argv[i]);
        if (c.mode == LINK && c.ninputs > 0)
            runtime_libs(&c, &final);
        return finish(&c, &final, NULL);
    }

    make_tmpdir();
    const char **objects = calloc((size_t)c.argc, sizeof *objects);
    int status = 0;
    for (int k = 0; k < c.ninputs; k++) {
        const struct input *in = &c.inputs[k];
        if (in->lang != C_SOURCE)
            continue;
        const char *object;
        if (c.mode == LINK)
            object = fmt("%s/%d.o", tmpdir, k);
        else if (c.output)
            object = c.output;
        else
            object = base_name(in->path, c.mode == COMPILE ? ".o" : ".s");
        objects[in->index] = object;
        int s = compile_source(&c, in, k, object);
        if (s != 0)
            status = s;
    }
    /* What gcc still has to do: link, or compile the inputs that are not C. */
    if (status != 0 || (c.mode != LINK && c.ninputs == c.nsources))
        return release(&c, &final, objects, status);

    for (int i = 1; i < c.argc; i++) {
        const char *a = c.argv[i];
        if (objects[i]) {
            if (c.mode == LINK) {
                /* An object, whatever -x said before it. */
                push(&final, "-x");
                push(&final, "none");
                push(&final, objects[i]);
            }
            continue;
        }
        int skip = 0;
        if (c.mode == LINK && a[0] == '-' && a[1]) {
            /* Dependency flags were for the compile steps. */
            static const char *const deps[] = { "-MD", "-MMD", "-MP", "-MG", NULL };
            for (int k = 0; deps[k]; k++)
                if (!strcmp(a, deps[k]))
                    skip = 1;
            if (!strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ"))
                skip = 2;
            else if (!strncmp(a, "-MF", 3) || !strncmp(a, "-MT", 3) || !strncmp(a, "-MQ", 3))
                skip = 1;
        }
        if (skip) {
            i += skip - 1;
            continue;
        }
        push(&final, a);
        if (a[0] == '-' && takes_value(a) && i + 1 < c.argc)
            push(&final, c.argv[++i]);
    }
    if (c.mode == LINK)
        runtime_libs(&c, &final);
    return finish(&c, &final, objects);
}
