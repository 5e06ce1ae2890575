/* server.c: cprof-rewrite --server (server.h): libclang stays loaded in this process
 * and each rewrite runs in a forked worker, so a crash or a leak in one rewrite stays
 * in its worker, and a worker starts in under a millisecond. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "server.h"

static int read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

/* The request header and its three descriptors. */
static int receive_header(int conn, struct cprof_server_request *req, int fds[3])
{
    struct iovec iov = { req, sizeof *req };
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                          .msg_controllen = sizeof control.buf };
    ssize_t n;
    while ((n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL)) < 0 && errno == EINTR)
        ;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    if (n != (ssize_t)sizeof *req || (msg.msg_flags & MSG_CTRUNC) || !cm
        || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS
        || cm->cmsg_len != CMSG_LEN(3 * sizeof(int)))
        return -1;
    memcpy(fds, CMSG_DATA(cm), 3 * sizeof(int));
    return req->magic == CPROF_SERVER_MAGIC && req->argc >= 1 && req->argc <= CPROF_SERVER_MAX_ARGS
        && req->bytes <= CPROF_SERVER_MAX_BYTES ? 0 : -1;
}

/* One request, in a worker: returns the exit status the worker ends with. */
static int serve(int conn, int (*rewrite)(int argc, char **argv))
{
    /* A client that stalls mid-request must not keep a worker forever. */
    struct timeval limit = { CPROF_SERVER_WAIT_MS / 1000, 0 };
    setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    struct cprof_server_request req;
    int fds[3];
    if (receive_header(conn, &req, fds) != 0)
        return 2;
    char *text = malloc(req.bytes + 1), **argv = calloc(req.argc + 1, sizeof *argv);
    if (!text || !argv || read_full(conn, text, req.bytes) != 0)
        return 2;
    /* Exactly argc NUL-terminated strings. */
    uint32_t argc = 0;
    for (uint32_t at = 0; at < req.bytes && argc < req.argc; argc++) {
        argv[argc] = text + at;
        char *end = memchr(text + at, 0, req.bytes - at);
        if (!end)
            return 2;
        at = (uint32_t)(end - text) + 1;
    }
    if (argc != req.argc)
        return 2;
    char go;
    if (send(conn, &(char){ CPROF_SERVER_ACK }, 1, MSG_NOSIGNAL) != 1 || read_full(conn, &go, 1) != 0
        || go != CPROF_SERVER_GO)
        return 2;       /* the client gave up and rewrites itself */

    /* From here on, this process is the cprof-rewrite the client would have run. */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    if (dup2(fds[0], 0) < 0 || dup2(fds[1], 2) < 0 || fchdir(fds[2]) != 0)
        return 2;
    for (int i = 0; i < 3; i++)
        close(fds[i]);
    int status = rewrite((int)argc, argv);
    fflush(NULL);
    send(conn, &(char){ (char)status }, 1, MSG_NOSIGNAL);
    free(argv);
    free(text);
    return status;
}

/* Takes every pending connection, each in a worker of its own. */
static void accept_all(int listener, int lock, int (*rewrite)(int argc, char **argv))
{
    int conn;
    while ((conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) >= 0 || errno == EINTR) {
        if (conn < 0)
            continue;
        pid_t pid = fork();
        if (pid == 0) {
            close(listener);
            close(lock);
            exit(serve(conn, rewrite));
        }
        close(conn);    /* fork failed: the client sees the end and rewrites itself */
    }
}

int cprof_server_run(const char *path, int ready_fd, int idle_seconds,
                     int (*rewrite)(int argc, char **argv))
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    char lock_path[sizeof addr.sun_path + 8];
    if (strlen(path) >= sizeof addr.sun_path)
        return 2;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    snprintf(lock_path, sizeof lock_path, "%s.lock", path);
    /* The lock says who owns the socket's name: held, another server serves it;
     * free, any socket file there is a dead server's. */
    int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) {
        close(ready_fd);
        return 0;
    }
    unlink(path);
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0
        || listen(listener, 128) != 0) {
        close(ready_fd);
        unlink(lock_path);
        return 2;
    }
    signal(SIGCHLD, SIG_IGN);       /* workers are reaped by the kernel */
    signal(SIGPIPE, SIG_IGN);
    ssize_t told = write(ready_fd, "R", 1);
    (void)told;         /* a client that stopped waiting does not stop the server */
    close(ready_fd);
    for (;;) {
        struct pollfd p = { .fd = listener, .events = POLLIN };
        int n = poll(&p, 1, idle_seconds * 1000);
        if (n == 0 || (n < 0 && errno != EINTR))
            break;
        if (n > 0)
            accept_all(listener, lock, rewrite);
    }
    /* Unlink first, then serve whoever connected meanwhile: no client is left
     * waiting on a server that will never answer. */
    unlink(path);
    unlink(lock_path);
    accept_all(listener, lock, rewrite);
    close(listener);
    close(lock);
    return 0;
}
