/* options.h: cprof-cc's own options (-fcprof-*), each declared once, in options.c: the
 * flag a user gives cprof-cc, the variable that sets its default, how it travels to
 * cprof-rewrite, and its line of -fcprof-help.  Adding an option is adding a row there
 * and a field to struct cprof_rewrite_options. */
#ifndef CPROF_OPTIONS_H
#define CPROF_OPTIONS_H

#include <stdio.h>
#include "rewrite.h"

/* Defaults, then the CPROF_* variables.  Returns 0, or -1 with a one-line message in
 * err for a value that is not valid. */
int cprof_options_from_env(struct cprof_rewrite_options *o, char *err, size_t err_size);

/* If arg is one of cprof-cc's options (-fcprof-NAME=VALUE, -f[no-]cprof-NAME), sets it
 * and returns 1; returns 0 for any other argument, -1 with a message for a bad value. */
int cprof_options_take(struct cprof_rewrite_options *o, const char *arg, char *err,
                       size_t err_size);

/* Whether option NAME is given by its variable or in args[1..n) (before cprof_options_take
 * takes them). */
int cprof_option_given(const char *name, char *const *args, int n);

/* The same for cprof-rewrite's form of them (--NAME=VALUE, --NAME). */
int cprof_options_take_rewriter(struct cprof_rewrite_options *o, const char *arg, char *err,
                                size_t err_size);

/* Calls add(ctx, argument) for each rewriter argument that carries o (all of them, so
 * the rewriter needs no defaults of its own).  The arguments are valid until free. */
void cprof_options_to_rewriter(const struct cprof_rewrite_options *o,
                               void (*add)(void *ctx, char *argument), void *ctx);

/* The options' part of -fcprof-help. */
void cprof_options_help(FILE *out);

#endif
