/* server.c: cprof-rewrite --server (server.h).
 *
 * The server loads libclang and forks a pool of workers that accept requests on its
 * listening socket and serve them one after another.  After its first request a
 * worker runs warm (the code it needs mapped, its heap grown): parsing jacobi.c takes
 * it 8 ms against 13 in a fresh process.  A crash costs one request (whose client
 * then rewrites by itself); a worker retires after WORKER_REQUESTS requests, so a leak
 * cannot grow; the server replaces the workers that end and, once idle, stops them.
 */
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "server.h"

#define WORKER_REQUESTS 100

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

/* One request: runs rewrite() as the cprof-rewrite process the client would have
 * started, with its arguments, stdin, stderr and working directory, then puts the
 * worker back as it was. */
static void serve(int conn, int (*rewrite)(int argc, char **argv))
{
    /* A client that stalls mid-request must not keep a worker forever. */
    struct timeval limit = { CPROF_SERVER_WAIT_MS / 1000, 0 };
    setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    struct cprof_server_request req;
    int fds[3] = { -1, -1, -1 };
    char *text = NULL, **argv = NULL, go;
    if (receive_header(conn, &req, fds) != 0)
        goto done;
    text = malloc(req.bytes + 1);
    argv = calloc(req.argc + 1, sizeof *argv);
    if (!text || !argv || read_full(conn, text, req.bytes) != 0)
        goto done;
    /* Exactly argc NUL-terminated strings. */
    uint32_t argc = 0;
    for (uint32_t at = 0; at < req.bytes && argc < req.argc; argc++) {
        argv[argc] = text + at;
        char *end = memchr(text + at, 0, req.bytes - at);
        if (!end)
            goto done;
        at = (uint32_t)(end - text) + 1;
    }
    if (argc != req.argc
        || send(conn, &(char){ CPROF_SERVER_ACK }, 1, MSG_NOSIGNAL) != 1
        || read_full(conn, &go, 1) != 0 || go != CPROF_SERVER_GO)
        goto done;      /* the client gave up and rewrites by itself */

    if (dup2(fds[0], 0) < 0 || dup2(fds[1], 2) < 0 || fchdir(fds[2]) != 0)
        goto done;
    clearerr(stdin);    /* the last request's end of file */
    int status = rewrite((int)argc, argv);
    fflush(NULL);
    send(conn, &(char){ (char)status }, 1, MSG_NOSIGNAL);
done:
    /* Hold nothing of the client's: its pipe must end when its gcc -E does. */
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 2);
        close(null);
    }
    int home = chdir("/");     /* not to keep the client's directory busy */
    (void)home;
    free(argv);
    free(text);
}

static void wake(int sig)
{
    (void)sig;          /* only interrupts a blocking accept */
}

/* A worker: serves requests until it retires, or, once the server has made the
 * listening socket non-blocking and woken it with SIGUSR1, until the backlog is empty. */
static void worker(int listener, int activity, pid_t server, int (*rewrite)(int argc, char **argv))
{
    /* A server killed outright takes its workers along, each after its request. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != server)
        _exit(0);
    struct sigaction sa = { .sa_handler = wake };      /* no SA_RESTART */
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGCHLD, SIG_DFL);
    sigset_t none, busy;
    sigemptyset(&none);
    sigemptyset(&busy);
    sigaddset(&busy, SIGUSR1);
    sigaddset(&busy, SIGTERM);
    for (int served = 0; served < WORKER_REQUESTS;) {
        sigprocmask(SIG_SETMASK, &none, NULL);
        int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        sigprocmask(SIG_SETMASK, &busy, NULL);
        if (conn < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            break;      /* EAGAIN: the server is stopping and the backlog is empty */
        }
        ssize_t told = write(activity, "", 1);
        (void)told;     /* a full pipe already tells the server it is not idle */
        serve(conn, rewrite);
        close(conn);
        served++;
    }
    exit(0);
}

static pid_t start_worker(int listener, int activity, int (*rewrite)(int argc, char **argv))
{
    pid_t server = getpid(), pid = fork();
    if (pid == 0)
        worker(listener, activity, server, rewrite);
    return pid;
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
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), activity[2];
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0
        || listen(listener, 128) != 0 || pipe2(activity, O_CLOEXEC | O_NONBLOCK) != 0) {
        close(ready_fd);
        unlink(lock_path);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    /* SIGCHLD only interrupts ppoll below, so that ended workers are replaced. */
    sigset_t chld, none;
    sigemptyset(&chld);
    sigemptyset(&none);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    struct sigaction sa = { .sa_handler = wake };
    sigaction(SIGCHLD, &sa, NULL);

    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nworkers = cpus < 2 ? 2 : cpus > 16 ? 16 : (int)cpus;
    pid_t workers[16] = { 0 };
    for (int i = 0; i < nworkers; i++)
        workers[i] = start_worker(listener, activity[1], rewrite);
    ssize_t told = write(ready_fd, "R", 1);
    (void)told;         /* a client that stopped waiting does not stop the server */
    close(ready_fd);

    for (;;) {
        struct pollfd p = { .fd = activity[0], .events = POLLIN };
        struct timespec idle = { idle_seconds, 0 };
        int n = ppoll(&p, 1, &idle, &none);
        if (n == 0 || (n < 0 && errno != EINTR))
            break;
        char drain[256];
        while (n > 0 && read(activity[0], drain, sizeof drain) > 0)
            ;
        pid_t pid;
        while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
            for (int i = 0; i < nworkers; i++)
                if (workers[i] == pid)
                    workers[i] = start_worker(listener, activity[1], rewrite);
    }
    /* Unlink first, so no client connects from now on; then the workers serve
     * whoever already has, and end. */
    unlink(path);
    unlink(lock_path);
    fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK);
    for (int i = 0; i < nworkers; i++)
        if (workers[i] > 0)
            kill(workers[i], SIGUSR1);
    while (wait(NULL) > 0 || errno == EINTR)
        ;
    close(listener);
    close(lock);
    return 0;
}
