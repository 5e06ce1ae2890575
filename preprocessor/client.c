/* client.c: cprof-cc's side of the rewrite server (server.h): find the server of a
 * cprof-rewrite binary, start it when none runs, hand it one rewrite. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "server.h"

/* The socket of the server for the binary rewriter, in a directory only we may
 * enter; -1 if there is no safe place for it. */
static int socket_path(const char *rewriter, char *path, size_t size)
{
    struct stat bin, dir_st;
    if (stat(rewriter, &bin) != 0)
        return -1;
    char dir[PATH_MAX];
    const char *runtime = getenv("XDG_RUNTIME_DIR"), *tmp = getenv("TMPDIR");
    if (runtime && runtime[0] == '/')
        snprintf(dir, sizeof dir, "%s/cprof", runtime);
    else
        snprintf(dir, sizeof dir, "%s/cprof-%u", tmp && *tmp ? tmp : "/tmp", (unsigned)getuid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    /* Someone else's directory, or one others may write in, could hold a fake server. */
    if (lstat(dir, &dir_st) != 0 || !S_ISDIR(dir_st.st_mode) || dir_st.st_uid != getuid()
        || (dir_st.st_mode & 077))
        return -1;
    int n = snprintf(path, size, "%s/rewrite-%jx-%jx-%jx.%09ld", dir, (uintmax_t)bin.st_dev,
                     (uintmax_t)bin.st_ino, (uintmax_t)bin.st_mtim.tv_sec, bin.st_mtim.tv_nsec);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static int connect_to(const char *path)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    /* Non-blocking: a server whose backlog is full is a server we do without. */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0
        || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        int e = errno;      /* the caller tells "no server" from "busy" by it */
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* One byte from fd within timeout_ms (-1: no limit); -1 on timeout, end or error. */
static int read_byte(int fd, int timeout_ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int n;
    while ((n = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    if (n <= 0)
        return -1;
    unsigned char c;
    ssize_t got;
    while ((got = read(fd, &c, 1)) < 0 && errno == EINTR)
        ;
    return got == 1 ? c : -1;
}

/* Starts a detached server for rewriter (its own session, no descriptor of ours but
 * the readiness pipe, stdio on /dev/null) and waits until it listens or gives up. */
static void start_server(const char *rewriter, const char *path)
{
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0)
        return;
    const char *idle = getenv("CPROF_SERVER_IDLE");
    char idle_arg[32];
    snprintf(idle_arg, sizeof idle_arg, "%d", idle && atoi(idle) > 0 ? atoi(idle) : 60);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        if (fork() != 0)
            _exit(0);       /* the server is nobody's child: init reaps it */
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        /* fd 3 is the readiness pipe; a build's pipes (make's jobserver, a CI log)
         * must not stay open for the server's lifetime. */
        if (ready[1] == 3)
            fcntl(3, F_SETFD, 0);
        else
            dup2(ready[1], 3);
        close_range(4, ~0u, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (chdir("/") == 0)
            execl(rewriter, rewriter, "--server", path, "3", idle_arg, (char *)NULL);
        _exit(127);
    }
    close(ready[1]);
    if (pid > 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        read_byte(ready[0], CPROF_SERVER_WAIT_MS);
    }
    close(ready[0]);
}

/* Sends the request: the header with the three descriptors, then the arguments. */
static int send_request(int sock, const char *const *rw, int in_fd, int err_fd)
{
    uint32_t argc = 0, bytes = 0;
    for (; rw[argc]; argc++)
        bytes += (uint32_t)strlen(rw[argc]) + 1;
    if (bytes > CPROF_SERVER_MAX_BYTES || argc > CPROF_SERVER_MAX_ARGS)
        return -1;
    int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cwd < 0)
        return -1;
    struct cprof_server_request req = { CPROF_SERVER_MAGIC, argc, bytes };
    struct iovec iov = { &req, sizeof req };
    int fds[3] = { in_fd, err_fd, cwd };
    union {
        char buf[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } control;
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                          .msg_controllen = sizeof control.buf };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cm), fds, sizeof fds);
    int ok = sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof req;
    close(cwd);
    for (uint32_t i = 0; ok && i < argc; i++) {
        const char *p = rw[i];
        size_t left = strlen(p) + 1;
        while (ok && left) {
            ssize_t n = send(sock, p, left, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
            ok = n > 0;
            if (ok) {
                p += n;
                left -= (size_t)n;
            }
        }
    }
    return ok ? 0 : -1;
}

int cprof_server_rewrite(const char *const *rw, int in_fd, int err_fd)
{
    const char *use = getenv("CPROF_SERVER");
    char path[sizeof ((struct sockaddr_un *)0)->sun_path];
    if ((use && !strcmp(use, "0")) || socket_path(rw[0], path, sizeof path) != 0)
        return -1;
    int sock = connect_to(path);
    if (sock < 0 && (errno == ENOENT || errno == ECONNREFUSED)) {
        start_server(rw[0], path);
        sock = connect_to(path);
    }
    if (sock < 0)
        return -1;
    int status = -1;
    if (send_request(sock, rw, in_fd, err_fd) == 0
        && read_byte(sock, CPROF_SERVER_WAIT_MS) == CPROF_SERVER_ACK
        && send(sock, &(char){ CPROF_SERVER_GO }, 1, MSG_NOSIGNAL) == 1) {
        /* The job is the worker's now: wait for it as for a child process. */
        status = read_byte(sock, -1);
        if (status < 0)
            status = CPROF_SERVER_LOST;
    }
    close(sock);
    return status;
}
