/* job.c: which profile files may be summed together (raw.h; docs/mpi.md).
 *
 * Files are profiles of one program (unless --force), and either repeated runs of it,
 * each a process outside any MPI job (rank -1), which merge.c sums worker by worker, or
 * the ranks of one job, each rank once, whose workers merge.c keeps apart.  The ranks of
 * one job have the same job id, the launcher's (docs/profile-format.md); where the
 * launcher exports none (MPICH's Hydra outside Slurm), ranks without an id are one job
 * if they ran at one time: some instant lies within every rank's run, which the
 * ranks of a job share (they all run from MPI_Init to MPI_Finalize) and repeated runs
 * never do.  A file that does not fit is refused in one line naming the first file,
 * which set what the files are; there is no option to override it, as no sum of the
 * two kinds means anything.
 */
#include "raw.h"
#include "alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one place that decides what "the same program" is. */
static bool same_program(const char *a, const char *b)
{
    return !strcmp(a, b);
}

/* When rf's run ended (saturated: the numbers come from a file). */
static int64_t end_of(const struct raw_file *rf)
{
    int64_t end;
    return __builtin_add_overflow(rf->start_unix_ns, rf->elapsed_ns, &end) ? INT64_MAX : end;
}

/* "job ID", or what stands for a job without one. */
static const char *job_name(char *buf, size_t n, const char *id)
{
    if (!*id)
        return "a job without an id";
    snprintf(buf, n, "job %s", id);
    return buf;
}

int cprof_job_check(struct loader *l, const struct job_files *j, const struct raw_file *rf,
                    bool force)
{
    if (!j->first)
        return 0;
    if (!force && !same_program(j->program, rf->program))
        return cprof_fail(l, "a profile of %s, not of %s like %s (--force sums them anyway)",
                          rf->program, j->program, j->first);
    char a[300], b[300];
    if (rf->rank < 0 && j->job)
        return cprof_fail(l, "a process outside an MPI job, not a rank of %s like %s: a job's"
                          " ranks and separate runs are not summed together",
                          job_name(a, sizeof a, j->job), j->first);
    if (rf->rank < 0)
        return 0;
    if (!j->job)
        return cprof_fail(l, "rank %lld of %s, not a process outside an MPI job like %s: a"
                          " job's ranks and separate runs are not summed together",
                          (long long)rf->rank, job_name(a, sizeof a, rf->job), j->first);
    if (strcmp(rf->job, j->job))
        return cprof_fail(l, "rank %lld of %s, not of %s like %s: one job's ranks at a time",
                          (long long)rf->rank, job_name(a, sizeof a, rf->job),
                          job_name(b, sizeof b, j->job), j->first);
    if (rf->size != j->size)
        return cprof_fail(l, "rank %lld of a job of %lld ranks, not of %lld like %s: not one job",
                          (long long)rf->rank, (long long)rf->size, (long long)j->size,
                          j->first);
    if (!*j->job && (rf->start_unix_ns > j->earliest_end || end_of(rf) < j->latest_start))
        return cprof_fail(l, "rank %lld did not run at the same time as the ranks of %s, and"
                          " the files name no job: not one job", (long long)rf->rank, j->first);
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)rf->rank);
    const char *other = json_string_value(json_object_get(j->seen, key));
    if (other)
        return cprof_fail(l, "rank %lld of %s again (%s has it)", (long long)rf->rank,
                          job_name(a, sizeof a, j->job), other);
    return 0;
}

void cprof_job_add(struct job_files *j, const struct raw_file *rf, const char *path)
{
    if (!j->first) {
        j->first = path;
        j->program = cprof_xstrdup(rf->program);
        j->job = rf->rank >= 0 ? cprof_xstrdup(rf->job) : NULL;
        j->size = rf->size;
        j->latest_start = INT64_MIN;
        j->earliest_end = INT64_MAX;
    }
    if (rf->rank < 0)
        return;
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)rf->rank);
    /* A jansson object is a hash table: rank -> the file that has it (a path, whatever
     * its bytes: not checked as UTF-8). */
    if (!j->seen)
        j->seen = json_object();
    if (!j->seen || json_object_set_new(j->seen, key, json_string_nocheck(path)))
        cprof_out_of_memory();
    if (rf->start_unix_ns > j->latest_start)
        j->latest_start = rf->start_unix_ns;
    if (end_of(rf) < j->earliest_end)
        j->earliest_end = end_of(rf);
}

void cprof_job_free(struct job_files *j)
{
    free(j->program);
    free(j->job);
    json_decref(j->seen);
    memset(j, 0, sizeof *j);
}
