/* process.c: running the programs cprof-cc drives, and its temporary directory
 * (process.h). */
#define _GNU_SOURCE
#include "process.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int as_clang;

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void cprof_driver_named(const char *argv0)
{
    as_clang = !strncmp(base_of(argv0), "cprof-clang", 11);
}

const char *cprof_gcc(void)
{
    const char *g = getenv("CPROF_GCC");
    return g && *g ? g : as_clang ? "clang" : "gcc";
}

const char *cprof_gxx(void)
{
    const char *g = getenv("CPROF_GXX");
    return g && *g ? g : as_clang ? "clang++" : "g++";
}

int cprof_gcc_is_clang(void)
{
    const char *b = base_of(cprof_gcc());
    return strstr(b, "clang") || !strncmp(b, "icx", 3);
}

pid_t cprof_spawn(const char *const *argv, int in, int out, int close_in_child,
                  const char *err_path)
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

int cprof_wait(pid_t pid)
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

int cprof_run(const char *const *argv, const char *err_path)
{
    return cprof_wait(cprof_spawn(argv, -1, -1, -1, err_path));
}

void cprof_copy_to_stderr(const char *path)
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

char *cprof_line_of(const char *path, const char *want)
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

/* ---- the temporary directory ---- */

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

const char *cprof_tmpdir(void)
{
    if (tmpdir[0])
        return tmpdir;
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/cprof-cc.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "cprof-cc: cannot create a temporary directory: %s\n", strerror(errno));
        exit(1);
    }
    atexit(cleanup);
    return tmpdir;
}
