#!/usr/bin/env bash
# The profile file's version 2 (docs/profile-format.md): rows read by the column names
# the header declares, whatever their order; columns, metrics and optional sections of a
# newer writer skipped; what cannot be read refused in one line; the process's place in
# a job (host, MPI rank and size from the launcher's environment).
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > prog.c <<'C'
#include <stdio.h>
static long total;
void leaf(int i) { for (int k = 0; k < 3; k++) __atomic_fetch_add(&total, i + k, __ATOMIC_RELAXED); }
void work(void)
{
#pragma omp parallel for
    for (int i = 0; i < 100; i++)
        leaf(i);
}
int main(void) { work(); work(); printf("%ld\n", total); return 0; }
C
"$bin/cprof-cc" -fopenmp -O2 prog.c -o prog > cc.err 2>&1
OMP_NUM_THREADS=2 CPROF_OUT=base.out ./prog > /dev/null
expect_jq "the runtime writes version 2, naming its columns and metrics, the job, openmp, topology, placement, regions, sources, timing, sampled and overhead sections" base.out \
    '[.version, (.columns | keys), .metrics[0].name, .sections]' \
    '[2, ["calls", "paths", "regions", "routines", "sampled"], "time", [{"name": "job", "required": false}, {"name": "openmp", "required": false}, {"name": "topology", "required": false}, {"name": "placement", "required": false}, {"name": "regions", "required": false}, {"name": "sources", "required": false}, {"name": "timing", "required": false}, {"name": "sampled", "required": false}, {"name": "overhead", "required": false}]]'
"$bin/cprof-report" --json base.out > base.json 2> base.err
check "cprof-report reads it" "$(indent base.err)" -- test -s base.json -a ! -s base.err

# same NAME JQ: the file changed by JQ gives the same report, nothing on stderr.  (jq
# holds numbers as doubles: start_unix_ns, past 2^53, comes back rounded.)
jq 'del(.start_unix_ns)' base.json > base.cmp
same() {
    jq -c "$2" base.out > v.out
    "$bin/cprof-report" --json v.out > v.json 2> v.err; local st=$?
    jq 'del(.start_unix_ns)' v.json > v.cmp 2> /dev/null
    check "$1: the same report" "status $st" "$(indent v.err)" "$(diff base.cmp v.cmp | head -4)" -- \
        bash -c "[ $st = 0 ] && cmp -s base.cmp v.cmp && [ ! -s v.err ]"
}
# refused NAME JQ WORDS: exit 1, one line on stderr holding WORDS, nothing on stdout.
refused() {
    jq -c "$2" base.out > v.out
    "$bin/cprof-report" --json v.out > v.json 2> v.err; local st=$?
    check "$1: refused in one line" "status $st" "$(indent v.err)" -- \
        bash -c "[ $st = 1 ] && [ \$(wc -l < v.err) = 1 ] && grep -qF -- '$3' v.err && [ ! -s v.json ]"
}
same "columns in reverse order, rows to match" \
    '.columns |= map_values(reverse) | .workers[] |= (.routines |= map(reverse) | .calls |= map(reverse) | .paths |= map(reverse) | .regions |= map(reverse))'
same "a newer writer's metric and its column (ss_time@cpu)" \
    '.metrics += [{"name": "cpu", "unit": "ns"}] | .columns.calls += ["ss_time@cpu"] | .workers[].calls |= map(. + [5])'
same "an optional section it does not know, at the top and in workers" \
    '.sections += [{"name": "zeta", "required": false}] | .zeta = {"events": []} | .workers[].zeta = [1, 2]'
refused "a required section it does not know" \
    '.sections += [{"name": "zeta", "required": true}] | .zeta = {}' 'needs section "zeta"'
refused "a key no section declares" '.zeta = {}' 'unexpected key "zeta"'
# An absent optional key must not make room for an unknown one (keys were once counted).
refused "a key no section declares, an optional key absent" 'del(.cprof_version) | .zeta = {}' \
    'unexpected key "zeta"'
refused "the trace section without its fields" \
    '.sections += [{"name": "trace", "required": false}] | .trace = {"file": "x.trace"}' '"trace" has no "bytes"'
refused "a column missing" \
    '(.columns.calls | index("ss_time")) as $i | .columns.calls |= del(.[$i]) | .workers[].calls |= map(del(.[$i]))' \
    'has no "ss_time"'
refused "version 3" '.version = 3' 'unsupported profile version 3 (this cprof-report reads versions 1 to 2)'
refused "a rank not below the job's size" '.rank = 4 | .size = 4' 'invalid profile: rank 4 is not below size 4'
refused "the job section in version 1" \
    '.version = 1 | del(.columns, .metrics, .sections, .host, .rank, .size, .timing) | .workers[] |= del(.sampled)' \
    'version 1 has no "job"'
same "the job section declared required: this reader knows it" \
    '.sections |= map(if .name == "job" then .required = true else . end)'
refused "the job section not a string" '.job = 7' '"job" is not a string'
# The sources section (docs/source.md): a key of the header and of routines and sites.
refused "the sources section undeclared" '.sections |= map(select(.name != "sources"))' \
    '"sources" without its section'
same "the sources section declared required: this reader knows it" \
    '.sections |= map(if .name == "sources" then .required = true else . end)'
refused "a routine's unit out of range" '.routines[0].sources = 9' 'routines[0]: unit 9 out of range (1 in "sources")'
refused "a site's unit not an integer" '.sites[0].sources = "x"' 'sites[0]: "sources" is not an integer'
refused "a source file with a hash but no size" '.sources[0].files[0].bytes = -1' \
    'sources[0].files[0] has a hash but no size'
refused "a source file with an unknown key" '.sources[0].files[0].mtime = 1' \
    'sources[0].files[0] has an unexpected key "mtime"'
refused "version 2 without its header" 'del(.columns)' 'version 2 needs "columns"'

# The process in a job: host, and rank and size from the launcher's variables.
# The process in a job: host, rank and size, and the job's id, from the launcher's
# variables (docs/mpi.md).
expect_jq "outside a job: host, rank -1, size -1, no job id" base.out '[.host, .rank, .size, .job]' \
    "[\"$(hostname)\", -1, -1, \"\"]"
OMP_NUM_THREADS=2 PMI_RANK=3 PMI_SIZE=4 CPROF_OUT=pmi.out ./prog > /dev/null
expect_jq "PMI_RANK=3 PMI_SIZE=4 (Hydra): rank 3 of 4, no job id" pmi.out '[.rank, .size, .job]' '[3, 4, ""]'
OMP_NUM_THREADS=2 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_MCA_ess_base_jobid=5 \
    PMIX_NAMESPACE=ns9 CPROF_OUT=ompi.out ./prog > /dev/null
expect_jq "Open MPI's variables: rank 1 of 2 of job ns9 (PMIx's namespace first)" ompi.out \
    '[.rank, .size, .job]' '[1, 2, "ns9"]'
OMP_NUM_THREADS=2 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_MCA_ess_base_jobid=5 \
    CPROF_OUT=ompi3.out ./prog > /dev/null
expect_jq "an older Open MPI's job id" ompi3.out '[.rank, .job]' '[0, "5"]'
OMP_NUM_THREADS=2 SLURM_PROCID=2 SLURM_NTASKS=3 SLURM_JOB_ID=77 SLURM_STEP_ID=4 \
    CPROF_OUT=slurm.out ./prog > /dev/null
expect_jq "Slurm's variables: rank 2 of 3 of job step 77.4" slurm.out '[.rank, .size, .job]' '[2, 3, "77.4"]'
OMP_NUM_THREADS=2 SLURM_JOB_ID=77 CPROF_OUT=batch.out ./prog > /dev/null
expect_jq "a job id without a rank: outside a job" batch.out '[.rank, .job]' '[-1, ""]'
finish
