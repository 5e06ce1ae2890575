/* server.h: the rewrite server, which keeps libclang loaded between compiles.
 *
 * Loading libclang costs a new process about 25 ms (half a million relocations, four
 * thousand page faults), more than parsing a typical unit.  So the first cprof-cc that
 * needs a rewrite starts `cprof-rewrite --server`, a detached process that loads it
 * once and forks a pool of workers; a worker runs exactly what a cprof-rewrite
 * process would (same arguments, same stdin and stderr, same working directory) and
 * answers its exit status.  The server quits after CPROF_SERVER_IDLE seconds (default
 * 60) without a request; CPROF_SERVER=0 never uses one.
 *
 * Anything short of a worker that has accepted the job (no server, a stale socket, a
 * busy or stopped server) makes cprof_server_rewrite() return -1 and cprof-cc runs the
 * rewriter itself: the server only ever saves time.
 *
 * One server per cprof-rewrite binary: the socket's name carries the binary's device,
 * inode and modification time, so a rebuilt or reinstalled cprof-rewrite never talks
 * to an older server.  Sockets live in $XDG_RUNTIME_DIR/cprof, else in
 * ${TMPDIR:-/tmp}/cprof-UID, a directory only its owner may enter.
 *
 * The client (cprof-cc, client.c) and the server (cprof-rewrite, server.c) share the
 * protocol below and nothing else.
 */
#ifndef CPROF_SERVER_H
#define CPROF_SERVER_H

#include <stdint.h>

/* A request: this header, sent with three descriptors (the rewriter's stdin, its
 * stderr, the client's working directory), then `bytes` bytes holding argc
 * NUL-terminated arguments.  The magic changes whenever the protocol does. */
#define CPROF_SERVER_MAGIC 0x63707231u     /* "cpr1" */
struct cprof_server_request {
    uint32_t magic, argc, bytes;
};
#define CPROF_SERVER_MAX_BYTES (1u << 20)
#define CPROF_SERVER_MAX_ARGS 4096

/* Then: the worker sends ACK; the client answers GO, or closes the connection if it
 * has given up waiting (and runs the rewriter itself: exactly one of them works);
 * the worker runs the rewrite and sends its exit status as one byte. */
#define CPROF_SERVER_ACK 'A'
#define CPROF_SERVER_GO 'G'

/* How long the client waits for a server to start or a worker to acknowledge. */
#define CPROF_SERVER_WAIT_MS 10000

/* ---- the client: cprof-cc ---- */

/* A worker stopped after accepting the job but before answering (it crashed). */
#define CPROF_SERVER_LOST 256

/* Runs the rewriter command rw (rw[0] is the cprof-rewrite binary, absolute) in the
 * server for that binary, starting one if none runs, with stdin from in_fd and
 * stderr to err_fd.  Returns the rewriter's exit status, CPROF_SERVER_LOST, or -1
 * when no server took the job: the caller then runs rw itself. */
int cprof_server_rewrite(const char *const *rw, int in_fd, int err_fd);

/* ---- the server: cprof-rewrite --server SOCKET READY_FD IDLE_SECONDS ---- */

/* Serves requests on the socket at path until idle_seconds pass without one, in a
 * pool of forked workers that each call rewrite(argc, argv) per request and answer its
 * result.  Writes one byte to ready_fd once it listens (closing it either way).
 * Returns 0 when it stops, also at once when it cannot hold the socket's lock (another
 * server holds it: that one serves), and 2 when it cannot listen at path. */
int cprof_server_run(const char *path, int ready_fd, int idle_seconds,
                     int (*rewrite)(int argc, char **argv));

#endif
