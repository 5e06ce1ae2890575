/* cmdline.c: gcc's command line as cprof-cc understands it (cmdline.h). */
#define _GNU_SOURCE
#include "cmdline.h"
#include "alloc.h"
#include "process.h"
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

/* gcc's dependency options, which only the preprocessing step takes. */
static const struct { const char *name; int has_value; } dependency_options[] = {
    { "-MD", 0 }, { "-MMD", 0 }, { "-MP", 0 }, { "-MG", 0 },
    { "-MF", 1 }, { "-MT", 1 }, { "-MQ", 1 },
};

int cprof_dependency_option(const char *a)
{
    for (size_t k = 0; k < sizeof dependency_options / sizeof *dependency_options; k++) {
        const char *name = dependency_options[k].name;
        if (!strcmp(a, name))
            return dependency_options[k].has_value ? 2 : 1;
        if (dependency_options[k].has_value && !strncmp(a, name, strlen(name)))
            return 1;
    }
    return 0;
}

int cprof_takes_value(const char *o)
{
    static const char *const opts[] = {
        "-o", "-x", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-idirafter",
        "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-iquote", "-isysroot", "-L", "-l",
        "-Xlinker", "-Xassembler", "-Xpreprocessor", "-u", "-T", "-z",
        "-aux-info", "--param", "-e", "-A", "-G", "-B", "-wrapper", "-dumpbase", "-dumpdir",
        "-dumpbase-ext", NULL };
    for (int i = 0; opts[i]; i++)
        if (!strcmp(o, opts[i]))
            return 1;
    return cprof_dependency_option(o) == 2;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* The language gcc would compile an input as: -x, else the suffix. */
static enum cprof_language language_of(const char *path, const char *x)
{
    static const char *const cxx_suffixes[] = { ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", NULL };
    if (x)
        return !strcmp(x, "c") ? CPROF_C : !strcmp(x, "c++") ? CPROF_CXX : CPROF_OTHER;
    if (has_suffix(path, ".c"))
        return CPROF_C;
    for (int i = 0; cxx_suffixes[i]; i++)
        if (has_suffix(path, cxx_suffixes[i]))
            return CPROF_CXX;
    return CPROF_OTHER;
}

void cprof_cmdline_parse(struct cprof_cmdline *c, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    c->argc = argc;
    c->argv = argv;
    c->mode = CPROF_LINK;
    c->inputs = cprof_xcalloc((size_t)argc, sizeof *c->inputs);
    const char *lang = NULL;
    int queries = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            enum cprof_language l = language_of(a, lang);
            c->inputs[c->ninputs++] = (struct cprof_input){ a, i, l };
            c->nsources += l == CPROF_C;
            c->ncxx += l == CPROF_CXX;
            continue;
        }
        if (!strcmp(a, "-###")) {
            c->mode = CPROF_GCC_ONLY;     /* a dry run: gcc prints, nothing is compiled */
            continue;
        }
        if (!strcmp(a, "-c"))
            c->mode = c->mode == CPROF_GCC_ONLY ? CPROF_GCC_ONLY : CPROF_COMPILE;
        else if (!strcmp(a, "-S"))
            c->mode = c->mode == CPROF_GCC_ONLY ? CPROF_GCC_ONLY : CPROF_ASSEMBLE_ONLY;
        else if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
            c->mode = CPROF_GCC_ONLY;
        else if (!strcmp(a, "-fopenmp") || !strncmp(a, "-fopenmp=", 9) || !strcmp(a, "-fno-openmp"))
            c->openmp = a[2] == 'o';    /* clang's -fopenmp=RUNTIME too (CMake gives it) */
        else if (!strncmp(a, "-O", 2))
            c->optimizing = strcmp(a, "-O0") != 0;
        else if (!strcmp(a, "-fpic") || !strcmp(a, "-fPIC") || !strcmp(a, "-fno-pic") || !strcmp(a, "-fno-PIC"))
            c->pic = a[2] != 'n';
        else if (!strcmp(a, "-Winline") || !strcmp(a, "-Werror=inline") || !strcmp(a, "-Wno-inline"))
            c->winline = a[2] != 'n';
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
        if (cprof_takes_value(a))
            i++;
    }
    if (queries && c->ninputs == 0)
        c->mode = CPROF_GCC_ONLY;
}

void cprof_cmdline_free(struct cprof_cmdline *c)
{
    free(c->inputs);
    free(c->argv);
}

/* Is argv[i] an option that only the preprocessing step needs, or that must not be
 * repeated in it (dependency output, -o, the mode)?  Returns how many arguments it
 * spans (0: keep). */
static int skip_for_compile(char **argv, int i, int preprocessing)
{
    const char *a = argv[i];
    int deps = cprof_dependency_option(a);
    if (deps)
        return deps;
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

void cprof_common_flags(const struct cprof_cmdline *c, struct cprof_argv *out, int preprocessing)
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
        cprof_push(out, a);
        if (cprof_takes_value(a) && i + 1 < c->argc)
            cprof_push(out, c->argv[++i]);
    }
}

char *cprof_base_name(const char *path, const char *new_ext)
{
    char *copy = cprof_fmt("%s", path);
    char *b = basename(copy);
    char *dot = strrchr(b, '.');
    if (dot)
        *dot = 0;
    return cprof_fmt("%s%s", b, new_ext);
}

const char *cprof_dependency_flags(const struct cprof_cmdline *c, const struct cprof_input *in,
                                   const char *object, struct cprof_argv *pp)
{
    const char *dep_file = NULL;
    int has_target = 0;
    for (int i = 1; i < c->argc; i++) {
        const char *a = c->argv[i];
        int n = cprof_dependency_option(a);
        if (n == 2 && i + 1 == c->argc)
            break;              /* gcc says what is missing */
        if (n == 0)
            continue;
        const char *value = n == 2 ? c->argv[i + 1] : a + 3;
        if (!strncmp(a, "-MF", 3))
            dep_file = value;
        else if (!strncmp(a, "-MT", 3) || !strncmp(a, "-MQ", 3))
            has_target = 1;
        cprof_push(pp, a);
        if (n == 2)
            cprof_push(pp, c->argv[++i]);
    }
    /* gcc 12's names: -o OUT's with its suffix dropped, then .d (the target OUT, even
     * linking); linking without -o, a-SOURCE.d for SOURCE.o (clang: SOURCE.d); else
     * SOURCE.d. */
    if (!dep_file) {
        if (c->output) {
            char *copy = cprof_fmt("%s", c->output);
            char *dot = strrchr(copy, '.');
            char *slash = strrchr(copy, '/');
            if (dot && (!slash || dot > slash))
                *dot = 0;
            dep_file = cprof_fmt("%s.d", copy);
        } else {
            dep_file = c->mode == CPROF_LINK && !cprof_gcc_is_clang()
                       ? cprof_fmt("a-%s", cprof_base_name(in->path, ".d"))
                       : cprof_base_name(in->path, ".d");
        }
        cprof_push(pp, "-MF");
        cprof_push(pp, dep_file);
    }
    if (!has_target) {
        cprof_push(pp, "-MQ");
        cprof_push(pp, c->mode != CPROF_LINK ? object
                       : c->output ? c->output : cprof_base_name(in->path, ".o"));
    }
    return dep_file;
}
