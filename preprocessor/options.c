/* options.c: cprof-cc's own options, declared once (options.h). */
#define _GNU_SOURCE
#include "options.h"
#include "alloc.h"
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum kind {
    LIST,       /* -fcprof-NAME=LIST: comma-separated globs */
    COUNT,      /* -fcprof-NAME=N, N >= 0 */
    SWITCH,     /* -fcprof-NAME, -fno-cprof-NAME; its variable set to anything but 0 */
};

struct option {
    const char *name;       /* -fcprof-NAME for cprof-cc, --NAME for cprof-rewrite */
    const char *env;
    enum kind kind;
    size_t field;           /* in struct cprof_rewrite_options: a const char * or an int */
    int fallback;           /* COUNT and SWITCH: the value when neither flag nor variable says */
    const char *help;       /* after the flag and the variable; \n continues the line */
    const char *const *on_under;    /* SWITCH: variables whose presence turns it on by default */
    int driver;             /* read by cprof-cc alone: never passed to the rewriter */
};

#define FIELD(f) offsetof(struct cprof_rewrite_options, f)

static const struct option options[] = {
    { "include-function", "CPROF_INCLUDE_FUNCTIONS", LIST, FIELD(include_functions), 0,
      "only these functions", 0, 0 },
    { "include-file", "CPROF_INCLUDE_FILES", LIST, FIELD(include_files), 0,
      "only functions defined in\nthese files", 0, 0 },
    { "exclude-function", "CPROF_EXCLUDE_FUNCTIONS", LIST, FIELD(exclude_functions), 0,
      "not these functions", 0, 0 },
    { "exclude-file", "CPROF_EXCLUDE_FILES", LIST, FIELD(exclude_files), 0,
      "not functions defined in\nthese files", 0, 0 },
    { "libcalls", "CPROF_LIBCALLS", SWITCH, FIELD(libcalls), 0,
      "profile calls to library\nfunctions as leaf routines", 0, 0 },
    /* mpicc runs cprof-cc with OMPI_CC (Open MPI) or MPICH_CC (MPICH) naming it. */
    { "mpicalls", "CPROF_MPICALLS", SWITCH, FIELD(mpicalls), 0,
      "profile calls to MPI (MPI_*)\nas leaf routines; on under\nmpicc (OMPI_CC, MPICH_CC set)",
      (const char *const[]){ "OMPI_CC", "MPICH_CC", NULL }, 0 },
    { "small", "CPROF_SMALL", COUNT, FIELD(small_tokens), 64,
      "a body of at most N tokens\nis small: counted at its call\nsites (default 64)", 0, 0 },
    { "count-only", "CPROF_COUNT_ONLY", LIST, FIELD(count_only_functions), 0,
      "count these at their call\nsites even if not small", 0, 0 },
    { "timed", "CPROF_TIMED", LIST, FIELD(timed_functions), 0,
      "always time these", 0, 0 },
    { "input-size", "CPROF_INPUT_SIZE", SWITCH, FIELD(input_size), 0,
      "input-sensitive profiles: each\nroutine's cost by input size\n(implies -fcprof-small=0)", 0, 0 },
    { "strict", "CPROF_STRICT", SWITCH, FIELD(strict), 0,
      "a unit that cannot be\nprofiled is an error, not\ncompiled unprofiled (CI)", 0, 1 },
};
enum { NOPTIONS = sizeof options / sizeof *options };

static const char **list_of(struct cprof_rewrite_options *o, const struct option *op)
{
    return (const char **)((char *)o + op->field);
}

static int *int_of(struct cprof_rewrite_options *o, const struct option *op)
{
    return (int *)((char *)o + op->field);
}

static const void *field_of(const struct cprof_rewrite_options *o, const struct option *op)
{
    return (const char *)o + op->field;
}

/* Sets op from text (a flag's value, or a variable's); source names it in a message. */
static int set(struct cprof_rewrite_options *o, const struct option *op, const char *text,
               const char *source, char *err, size_t err_size)
{
    if (op->kind == LIST) {
        *list_of(o, op) = text;
        return 0;
    }
    if (op->kind == SWITCH) {
        *int_of(o, op) = *text && strcmp(text, "0");
        return 0;
    }
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (!*text || *end || errno || n < 0 || n > INT_MAX) {
        snprintf(err, err_size, "%s: '%s' is not a number of tokens (0 or more)", source, text);
        return -1;
    }
    *int_of(o, op) = (int)n;
    return 0;
}

int cprof_options_from_env(struct cprof_rewrite_options *o, char *err, size_t err_size)
{
    for (const struct option *op = options; op < options + NOPTIONS; op++) {
        if (op->kind == LIST)
            *list_of(o, op) = NULL;
        else
            *int_of(o, op) = op->fallback;
        for (const char *const *v = op->on_under; v && *v; v++)
            if (getenv(*v))
                *int_of(o, op) = 1;
        const char *e = getenv(op->env);
        if (e && *e && set(o, op, e, op->env, err, err_size) != 0)
            return -1;
    }
    return 0;
}

/* arg is prefix NAME, or prefix NAME=VALUE: the option and its value (null for a
 * switch given without one). */
static const struct option *match(const char *arg, const char *prefix, const char **value)
{
    size_t p = strlen(prefix);
    if (strncmp(arg, prefix, p))
        return NULL;
    for (const struct option *op = options; op < options + NOPTIONS; op++) {
        size_t n = strlen(op->name);
        if (strncmp(arg + p, op->name, n))
            continue;
        if (arg[p + n] == '=' && op->kind != SWITCH) {
            *value = arg + p + n + 1;
            return op;
        }
        if (arg[p + n] == 0 && op->kind == SWITCH) {
            *value = NULL;
            return op;
        }
    }
    return NULL;
}

int cprof_options_take(struct cprof_rewrite_options *o, const char *arg, char *err,
                       size_t err_size)
{
    const char *value;
    const struct option *op = match(arg, "-fcprof-", &value);
    if (op)
        return set(o, op, value ? value : "1", arg, err, err_size) == 0 ? 1 : -1;
    op = match(arg, "-fno-cprof-", &value);
    if (op && op->kind == SWITCH) {
        *int_of(o, op) = 0;
        return 1;
    }
    return 0;
}

int cprof_option_given(const char *name, char *const *args, int n)
{
    const struct option *op = options;
    while (op < options + NOPTIONS && strcmp(op->name, name))
        op++;
    if (op == options + NOPTIONS)
        return 0;
    const char *e = getenv(op->env), *value;
    int given = e && *e;
    for (int i = 1; i < n && !given; i++)
        given = match(args[i], "-fcprof-", &value) == op || match(args[i], "-fno-cprof-", &value) == op;
    return given;
}

int cprof_options_take_rewriter(struct cprof_rewrite_options *o, const char *arg, char *err,
                                size_t err_size)
{
    const char *value;
    const struct option *op = match(arg, "--", &value);
    if (!op)
        return 0;
    return set(o, op, value ? value : "1", arg, err, err_size) == 0 ? 1 : -1;
}

void cprof_options_to_rewriter(const struct cprof_rewrite_options *o,
                               void (*add)(void *ctx, char *argument), void *ctx)
{
    for (const struct option *op = options; op < options + NOPTIONS; op++) {
        const char *const *list = field_of(o, op);
        const int *n = field_of(o, op);
        char *a = NULL;
        int rc = 0;
        if (op->driver)
            continue;
        if (op->kind == LIST && *list)
            rc = asprintf(&a, "--%s=%s", op->name, *list);
        else if (op->kind == COUNT)
            rc = asprintf(&a, "--%s=%d", op->name, *n);
        else if (op->kind == SWITCH && *n)
            rc = asprintf(&a, "--%s", op->name);
        if (rc < 0)
            cprof_out_of_memory();
        if (a)
            add(ctx, a);
    }
}

void cprof_options_help(FILE *out)
{
    for (const struct option *op = options; op < options + NOPTIONS; op++) {
        char flag[64];
        if (op->kind == SWITCH)
            snprintf(flag, sizeof flag, "-fcprof-%s, -fno-cprof-%s", op->name, op->name);
        else
            snprintf(flag, sizeof flag, "-fcprof-%s=%s", op->name, op->kind == LIST ? "LIST" : "N");
        char env[64];
        snprintf(env, sizeof env, "%s%s", op->env, op->kind == SWITCH ? "=1" : "");
        if (strlen(flag) > 30)
            fprintf(out, "  %s\n  %-30s %-24s ", flag, "", env);
        else
            fprintf(out, "  %-30s %-24s ", flag, env);
        for (const char *h = op->help; *h; h++) {
            fputc(*h, out);
            if (*h == '\n')
                fprintf(out, "%58s", "");
        }
        fputc('\n', out);
    }
}
