/* topology.c: the machine the profile describes (docs/placement.md): packages, NUMA
 * nodes, cores, PUs and caches, as hwloc sees them, and the core of a PU.
 *
 * hwloc takes its memory from malloc, and a profiled program must keep the heap and
 * the behaviour it has without cprof.  So hwloc is never loaded here: the first
 * profile written runs cprof-topology (format/topology.h), whose reply is read from a
 * pipe and kept for the later ones.  It runs as a grandchild, so that its end is never
 * the program's SIGCHLD (a child that execs gets that exit signal whatever it was
 * made with): the runtime's thread makes a child with clone(CLONE_VM | CLONE_VFORK)
 * and no exit signal, which makes the helper's process the same way posix_spawn would,
 * and ends.  The program's handlers, its atfork handlers and its wait() see neither,
 * nothing is allocated, and the helper inherits no descriptor but the pipe and
 * /dev/null, and every signal blocked (it unblocks them itself).  Its exit status goes
 * to whoever adopts it (init): the reply is complete, or it failed.
 * If the helper is missing, fails or takes longer than HELPER_SECONDS, the profile says
 * why where the topology would be, and the machine's counts are -1. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "topology.h"
#include "../../format/topology.h"

#ifndef CPROF_TOPOLOGY
#define CPROF_TOPOLOGY "/usr/local/libexec/cprof/cprof-topology"
#endif

enum { HELPER_SECONDS = 30, REPLY_MAX = 64 << 20 };

static int loaded;
static char *reply;                     /* the helper's reply, or null */
static size_t reply_size;
static const struct cprof_topology_head *head;
static const struct cprof_topology_pu *pus;
static char error[256];                 /* why there is no topology */
static int cores, packages;

struct child {
    int out, null;
    int err;                            /* errno of a failed clone or exec */
    pid_t helper;
};

extern char **environ;
static char stacks[2][32 << 10] __attribute__((aligned(64)));

/* The helper's process, on its own stack and the program's memory (its parent waits
 * until it has exec'd): system calls only.  errno is the waiting thread's, which the
 * runtime saves. */
static int exec_helper(void *arg)
{
    struct child *c = arg;
    if (c->out == 1)
        fcntl(1, F_SETFD, 0);
    else if (dup2(c->out, 1) < 0)
        goto failed;
    if (c->null >= 0)
        dup2(c->null, 2);
    syscall(SYS_close_range, 3u, ~0u, 0u);
    char *argv[] = { (char *)CPROF_TOPOLOGY, 0 };
    execve(CPROF_TOPOLOGY, argv, environ);
failed:
    c->err = errno;
    _exit(127);
}

/* The runtime's child: starts the helper, and ends without a signal. */
static int start_helper(void *arg)
{
    struct child *c = arg;
    c->helper = clone(exec_helper, stacks[1] + sizeof stacks[1], CLONE_VM | CLONE_VFORK | SIGCHLD,
                      c);
    if (c->helper < 0)
        c->err = errno;
    _exit(0);
}

/* Reads the reply into reply (reply_size bytes); 0, or -1 with error said. */
static int read_reply(int fd)
{
    size_t cap = 1 << 16;
    char *buf = cprof_alloc(cap);
    size_t n = 0;
    uint64_t deadline = cprof_monotonic_ns() + HELPER_SECONDS * 1000000000ull;
    for (;;) {
        uint64_t now = cprof_monotonic_ns();
        struct pollfd p = { fd, POLLIN, 0 };
        int ready = now < deadline ? poll(&p, 1, (int)((deadline - now) / 1000000) + 1) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            snprintf(error, sizeof error, "%s gave no reply within %d s", CPROF_TOPOLOGY,
                     HELPER_SECONDS);
            break;
        }
        if (n == cap) {
            if (cap >= REPLY_MAX) {
                snprintf(error, sizeof error, "%s replied more than %d MiB", CPROF_TOPOLOGY,
                         REPLY_MAX >> 20);
                break;
            }
            buf = cprof_realloc(buf, cap, 2 * cap);
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            reply = buf;
            reply_size = n;
            return 0;
        }
        n += (size_t)got;
    }
    cprof_free(buf, cap);
    return -1;
}

/* Runs the helper; its reply in reply, or -1 with error said. */
static int run_helper(void)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(error, sizeof error, "cannot make a pipe for %s: %s", CPROF_TOPOLOGY,
                 strerror(errno));
        return -1;
    }
    struct child c = { fds[1], open("/dev/null", O_WRONLY | O_CLOEXEC), 0, -1 };
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(start_helper, stacks[0] + sizeof stacks[0], CLONE_VM | CLONE_VFORK, &c);
    if (pid < 0)
        c.err = errno;
    else
        while (waitpid(pid, 0, __WALL) < 0 && errno == EINTR)
            ;
    pthread_sigmask(SIG_SETMASK, &old, 0);
    close(fds[1]);
    if (c.null >= 0)
        close(c.null);
    int rc = -1;
    if (c.err)
        snprintf(error, sizeof error, "cannot run %s: %s", CPROF_TOPOLOGY, strerror(c.err));
    else if ((rc = read_reply(fds[0])) != 0 && c.helper > 0)
        kill(c.helper, SIGKILL);        /* still running: it holds the pipe */
    close(fds[0]);
    return rc;
}

/* The reply as format/topology.h lays it out, or -1 with error said. */
static int check_reply(void)
{
    const struct cprof_topology_head *h = (const void *)reply;
    if (reply_size == 0) {
        snprintf(error, sizeof error, "%s ended without a reply", CPROF_TOPOLOGY);
        return -1;
    }
    if (reply_size < sizeof *h || h->magic != CPROF_TOPOLOGY_MAGIC ||
        h->version != CPROF_TOPOLOGY_VERSION || h->bytes != reply_size) {
        snprintf(error, sizeof error, "%s replied what this runtime cannot read (%zu bytes)",
                 CPROF_TOPOLOGY, reply_size);
        return -1;
    }
    if (h->error) {
        snprintf(error, sizeof error, "hwloc: %.*s", (int)sizeof h->message, h->message);
        return -1;
    }
    size_t object = sizeof(struct cprof_topology_obj) + (size_t)h->set_words * 8;
    if (h->npus == 0 || h->set_words == 0 || h->set_words > (1u << 16) ||
        reply_size != sizeof *h + (size_t)h->npus * sizeof *pus + (size_t)h->nobjects * object) {
        snprintf(error, sizeof error, "%s replied a topology of inconsistent size",
                 CPROF_TOPOLOGY);
        return -1;
    }
    head = h;
    pus = (const void *)(h + 1);
    return 0;
}

/* Object i and its set. */
static const struct cprof_topology_obj *object(uint32_t i, const uint64_t **set)
{
    size_t size = sizeof(struct cprof_topology_obj) + (size_t)head->set_words * 8;
    const char *o = (const char *)(pus + head->npus) + i * size;
    *set = (const uint64_t *)(o + sizeof(struct cprof_topology_obj));
    return (const void *)o;
}

static void count(void)
{
    cores = 0;
    for (uint32_t i = 0; i < head->npus; i++)
        if (pus[i].core + 1 > cores)
            cores = pus[i].core + 1;
    for (uint32_t i = 0; i < head->nobjects; i++) {
        const uint64_t *set;
        packages += object(i, &set)->kind == CPROF_TOPO_PACKAGE;
    }
}

static void load(void)
{
    if (loaded)
        return;
    loaded = 1;
    int saved = errno;
    if (run_helper() == 0 && check_reply() == 0)
        count();
    else if (reply) {
        cprof_free(reply, reply_size);
        reply = 0;
    }
    errno = saved;
}

int cprof_topology_core_of(int pu)
{
    load();
    for (uint32_t i = 0; head && i < head->npus; i++)
        if (pus[i].pu == pu)
            return pus[i].core;
    return -1;
}

static void write_set(struct cprof_json *j, const char *key, const uint64_t *set)
{
    cprof_json_key(j, key);
    cprof_json_begin(j, '[');
    for (uint32_t w = 0; w < head->set_words; w++)
        for (int b = 0; b < 64; b++)
            if (set[w] >> b & 1)
                cprof_json_int(j, (int64_t)w * 64 + b);
    cprof_json_end(j, ']');
}

static void write_objects(struct cprof_json *j, const char *key, int kind)
{
    static const char *const types[] = { "unified", "data", "instruction" };
    cprof_json_key(j, key);
    cprof_json_begin(j, '[');
    for (uint32_t i = 0; i < head->nobjects; i++) {
        const uint64_t *set;
        const struct cprof_topology_obj *o = object(i, &set);
        if (o->kind != kind)
            continue;
        cprof_json_begin(j, '{');
        if (kind == CPROF_TOPO_CACHE) {
            cprof_json_field_int(j, "level", o->level);
            cprof_json_field_string(j, "type", types[o->type >= 0 && o->type < 3 ? o->type : 0]);
            cprof_json_field_uint(j, "size", o->size);
            cprof_json_field_uint(j, "line", o->line);
        } else {
            cprof_json_field_int(j, "os", o->os);
            if (kind == CPROF_TOPO_NODE)
                cprof_json_field_uint(j, "memory", o->size);
        }
        write_set(j, "pus", set);
        cprof_json_end(j, '}');
    }
    cprof_json_end(j, ']');
}

void cprof_topology_write(struct cprof_json *j)
{
    load();
    cprof_json_key(j, "machine");
    cprof_json_begin(j, '{');
    cprof_json_field_int(j, "pus", head ? (int)head->npus : -1);
    cprof_json_field_int(j, "cores", head ? cores : -1);
    cprof_json_field_int(j, "packages", head ? packages : -1);
    cprof_json_key(j, CPROF_SECTION_TOPOLOGY);
    cprof_json_begin(j, '{');
    if (!head) {
        cprof_json_field_string(j, "error", error);
    } else {
        char version[sizeof head->hwloc + 1], model[sizeof head->model + 1];
        snprintf(version, sizeof version, "%.*s", (int)sizeof head->hwloc, head->hwloc);
        snprintf(model, sizeof model, "%.*s", (int)sizeof head->model, head->model);
        cprof_json_field_string(j, "hwloc", version);
        cprof_json_field_string(j, "cpu_model", model);
        cprof_json_key(j, "pus");
        cprof_json_begin(j, '[');
        for (uint32_t i = 0; i < head->npus; i++) {
            cprof_json_begin(j, '[');
            cprof_json_int(j, pus[i].pu);
            cprof_json_int(j, pus[i].core);
            cprof_json_int(j, pus[i].package);
            cprof_json_int(j, pus[i].node);
            cprof_json_end(j, ']');
        }
        cprof_json_end(j, ']');
        write_objects(j, "packages", CPROF_TOPO_PACKAGE);
        write_objects(j, "numa_nodes", CPROF_TOPO_NODE);
        write_objects(j, "caches", CPROF_TOPO_CACHE);
    }
    cprof_json_end(j, '}');
    cprof_json_end(j, '}');
}
