# tests/lib/cli.sh: sourced by tests/cli/*.sh.
# Gives: $root (repo), $bin (dir of cprof-cc, cprof-report), $tmp (removed at exit),
# and the harness of tests/lib/tap.sh, each check's name prefixed "cli/SCRIPT: ".
set -u
root=${CPROF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${CPROF_BIN:-$root/build/bin}
script=cli/$(basename "$0" .sh)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-cli.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# The scripts set the OpenMP variables and CPROF_OUT they need; a launcher's variables
# (the process's place in an MPI job, docs/mpi.md, by which its profile is named
# cprof.RANK.out) are dropped as well, should the suite itself run under mpirun or srun.
for v in $(compgen -e); do
    case $v in OMP_*|GOMP_*|CPROF_OUT|OMPI_*|PMI_*|PMIX_*|SLURM_*) unset "$v" ;; esac
done
export OMP_NUM_THREADS=2 LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
TAP_PREFIX="$script: "
# The compiler of tests/run's pass (CPROF_TEST_CC): cprof-cc compiles with it (tests/run
# sets CPROF_GCC), and the scripts' plain builds, the references, are its own.
plain_cc=${CPROF_TEST_COMPILER:-gcc}
# only_gcc WHY: the rest of the script is about gcc alone: under another compiler, one
# skip saying why, and the script ends.
only_gcc() {
    [ "$plain_cc" = gcc ] && return 0
    skip "the rest of $script" "$1"
    exit 0
}

# has_routines FILE: FILE is a report with a routines array
has_routines() { jq -e '.routines | type == "array"' "$1" > /dev/null 2>&1; }
