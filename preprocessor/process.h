/* process.h: running the programs cprof-cc drives (gcc, cprof-rewrite), and the
 * temporary directory of one cprof-cc invocation. */
#ifndef CPROF_PROCESS_H
#define CPROF_PROCESS_H

#include <sys/types.h>

/* The C compiler ($CPROF_GCC, default gcc) and the C++ one ($CPROF_GXX, g++: C++ is
 * not profiled, and g++ links its library); run as cprof-clang, clang and clang++. */
const char *cprof_gcc(void);
const char *cprof_gxx(void);
/* argv[0]: cprof-cc, or cprof-clang (docs/cprof-cc.md, "Clang"). */
void cprof_driver_named(const char *argv0);
/* Whether the C compiler is LLVM's (clang by any name, Intel's icx), by its name: it
 * takes LLVM's options, and links LLVM's OpenMP runtime. */
int cprof_gcc_is_clang(void);

/* Starts argv with the given stdin and stdout descriptors (-1: inherited), closing
 * close_in_child (-1: none) in the child, and with err_path its stderr going there.
 * Returns the pid, or -1 after a message. */
pid_t cprof_spawn(const char *const *argv, int in, int out, int close_in_child,
                  const char *err_path);

/* The exit status of pid as a shell reports it (128 + signal); 1 for pid -1. */
int cprof_wait(pid_t pid);

/* Runs argv; with err_path, its stderr goes there.  Returns the exit status. */
int cprof_run(const char *const *argv, const char *err_path);

void cprof_copy_to_stderr(const char *path);

/* The first line of path holding `want` (NULL: the last line), without its newline;
 * valid until the next call. */
char *cprof_line_of(const char *path, const char *want);

/* The invocation's own directory under $TMPDIR (parallel makes never share one),
 * created on the first call and removed at exit unless CPROF_KEEP_TEMPS is set.
 * Exits with a message if it cannot be created. */
const char *cprof_tmpdir(void);

#endif
