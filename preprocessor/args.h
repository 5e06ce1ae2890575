/* args.h: argument vectors for the commands cprof-cc runs, the strings made for them,
 * and gcc's @file arguments. */
#ifndef CPROF_ARGS_H
#define CPROF_ARGS_H

/* A growing, null-terminated list of arguments; the strings are not its own. */
struct cprof_argv {
    const char **v;
    int n, cap;
};

void cprof_push(struct cprof_argv *a, const char *s);

/* Pushes s, made elsewhere with malloc, onto the cprof_argv `vector`; s lives until
 * exit (the signature options.h asks for). */
void cprof_push_owned(void *vector, char *s);

/* A string made from format, alive until exit like the arguments it joins. */
char *cprof_fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Pushes arg, or the arguments of the file it names when it is @file, expanded as gcc
 * expands them (libiberty's buildargv): white space separates, quotes group, a
 * backslash escapes; an unreadable @file is an ordinary argument. */
void cprof_push_arg(struct cprof_argv *out, const char *arg);

/* Frees the strings made for arguments (at exit). */
void cprof_free_made(void);

#endif
