/* rewriter.c: cprof-rewrite, the libclang half of cprof-cc, in a process of its own.
 *
 *   cprof-rewrite [OPTION...] UNIT_FILE INPUT_COPY OUTPUT  < preprocessed-text
 *   cprof-rewrite --server SOCKET READY_FD IDLE_SECONDS     (server.h)
 *
 * cprof-cc pipes gcc -E's output in, through a worker of the rewrite server (which
 * keeps libclang loaded, server.h) or, without one, a process of its own.  A cprof-cc
 * that only answers a probe (--version, -E...) never loads libclang.  A crash in
 * libclang is a failed rewrite, not a failed build.
 *
 * Writes INPUT_COPY (the text as read) and OUTPUT (the rewritten text).  Exit status 0
 * on success; 1 with one last stderr line "file:line: warning: reason" when the unit
 * cannot be instrumented; 2 for a usage error.
 *
 * Options: --openmp, --std=STD, and cprof-cc's own options in their rewriter form
 * (options.h: --include-function=LIST, --libcalls, --small=N, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "options.h"
#include "rewrite.h"
#include "server.h"

static char *read_all(FILE *f, size_t *size)
{
    size_t cap = 1 << 16, n = 0, got;
    char *p = cprof_xcalloc(cap, 1);
    while ((got = fread(p + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            p = cprof_xrealloc(p, cap *= 2);
    }
    if (ferror(f)) {
        free(p);
        return NULL;
    }
    *size = n;
    return p;
}

static int write_all(const char *path, const char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int rewrite_main(int argc, char **argv)
{
    /* cprof-cc passes every option (options.h): the rewriter has no defaults. */
    struct cprof_rewrite_options o = { 0 };
    const char *clang_args[1];
    char err[512];
    int nclang = 0, i = 1;
    for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
        const char *a = argv[i];
        int known = cprof_options_take_rewriter(&o, a, err, sizeof err);
        if (known < 0) {
            fprintf(stderr, "cprof-rewrite: %s\n", err);
            return 2;
        }
        if (!strcmp(a, "--openmp"))
            o.openmp = known = 1;
        else if (!strcmp(a, "--optimizing"))
            o.optimizing = known = 1;
        else if (!strcmp(a, "--pic"))
            o.pic = known = 1;
        else if (!strcmp(a, "--inline-hint"))
            o.inline_hint = known = 1;
        else if (!strcmp(a, "--clang"))
            o.clang = known = 1;
        else if (!strncmp(a, "--std=", 6)) {
            clang_args[0] = a + 1;      /* -std=... */
            nclang = known = 1;
        }
        if (!known) {
            fprintf(stderr, "cprof-rewrite: unknown option %s\n", a);
            return 2;
        }
    }
    if (argc - i != 3) {
        fputs("usage: cprof-rewrite [OPTION...] UNIT_FILE INPUT_COPY OUTPUT < preprocessed\n", stderr);
        return 2;
    }
    const char *unit = argv[i], *copy = argv[i + 1], *out = argv[i + 2];
    size_t size;
    char *text = read_all(stdin, &size);
    if (!text || write_all(copy, text, size) != 0) {
        fprintf(stderr, "%s: warning: cannot read the preprocessed text\n", unit);
        free(text);
        return 1;
    }
    char why[1024];
    int rc = cprof_rewrite(text, size, copy, out, unit, &o, clang_args, nclang, why, sizeof why);
    free(text);
    if (rc != 0) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--server"))
        return cprof_server_run(argv[2], atoi(argv[3]), atoi(argv[4]), rewrite_main);
    return rewrite_main(argc, argv);
}
