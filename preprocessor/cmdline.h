/* cmdline.h: gcc's command line as cprof-cc understands it: what gcc is asked to do,
 * the inputs and their languages, and the user's flags each step cprof-cc runs
 * needs. */
#ifndef CPROF_CMDLINE_H
#define CPROF_CMDLINE_H

#include "args.h"
#include "rewrite.h"

enum cprof_mode {
    CPROF_LINK,
    CPROF_COMPILE,          /* -c */
    CPROF_ASSEMBLE_ONLY,    /* -S */
    CPROF_GCC_ONLY,         /* -E, -M, queries, a dry run: gcc's own work */
};

enum cprof_language { CPROF_OTHER, CPROF_C, CPROF_CXX };

struct cprof_input {
    const char *path;       /* "-": standard input */
    int index;              /* position in argv */
    enum cprof_language lang;
};

struct cprof_cmdline {
    int argc;
    char **argv;
    enum cprof_mode mode;
    const char *output;
    struct cprof_input *inputs;
    int ninputs, nsources, ncxx;
    const char *std;
    int dep_md;             /* -MD or -MMD given */
    int openmp;             /* -fopenmp in effect */
    int optimizing;         /* the last -O is not -O0 (none: -O0) */
    int pic;                /* -fpic or -fPIC: code for a shared object */
    int winline;            /* -Winline: gcc warns of a function declared inline that it
                               does not inline */
    struct cprof_rewrite_options select;    /* cprof's own options (options.h) */
};

/* Understands argv (cprof's own options already taken out); c owns argv from now on.
 * cprof_cmdline_free releases both. */
void cprof_cmdline_parse(struct cprof_cmdline *c, int argc, char **argv);
void cprof_cmdline_free(struct cprof_cmdline *c);

/* Is o an option whose value is the next argument? */
int cprof_takes_value(const char *o);

/* If a is one of gcc's dependency options (-MD, -MMD, -MP, -MG, -MF, -MT, -MQ), the
 * number of arguments it spans (2: "-MF FILE"; 1: "-MFFILE", "-MD"), else 0. */
int cprof_dependency_option(const char *a);

/* The user's flags for one step (preprocessing, or compiling preprocessed text),
 * without inputs, outputs, the mode and dependency flags. */
void cprof_common_flags(const struct cprof_cmdline *c, struct cprof_argv *out, int preprocessing);

/* -MD/-MMD: the dependency flags for the preprocessing of `in` into `object`, gcc's
 * defaults for the file and its target made explicit (the step writes elsewhere).
 * Returns the dependency file, NULL if the command line is missing it (gcc says so). */
const char *cprof_dependency_flags(const struct cprof_cmdline *c, const struct cprof_input *in,
                                   const char *object, struct cprof_argv *pp);

/* path's last component with its suffix replaced by new_ext. */
char *cprof_base_name(const char *path, const char *new_ext);

#endif
