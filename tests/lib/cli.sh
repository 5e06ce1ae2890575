# tests/lib/cli.sh: sourced by tests/cli/*.sh.
# Gives: $root (repo), $bin (dir of cprof-cc, cprof-report), $tmp (removed at exit),
# ok / nok / skip / finish, and small helpers.  Every check prints "ok - NAME" or
# "not ok - NAME" followed by indented diagnosis lines, or "ok - NAME # SKIP WHY" if it
# could not run for want of an optional tool (tests/README.md: what is a skip).
set -u
root=${CPROF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${CPROF_BIN:-$root/build/bin}
script=cli/$(basename "$0" .sh)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-cli.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
for v in $(compgen -e); do
    case $v in OMP_*|GOMP_*|CPROF_OUT) unset "$v" ;; esac
done
export OMP_NUM_THREADS=2 LC_ALL=C
npass=0 nfail=0 nskip=0

ok()  { echo "ok - $script: $1"; npass=$((npass + 1)); }
nok() {
    echo "not ok - $script: $1"; shift
    local l; for l in "$@"; do printf '    %s\n' "$l"; done
    nfail=$((nfail + 1))
}
# skip NAME WHY: a check that could not run, counted apart from passes and failures.
skip() { echo "ok - $script: $1 # SKIP $2"; nskip=$((nskip + 1)); }
# check NAME DIAG... -- COMMAND...: ok if COMMAND succeeds
check() {
    local name=$1; shift
    local -a diag=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do diag+=("$1"); shift; done
    shift
    if "$@"; then ok "$name"; else nok "$name" "${diag[@]}"; fi
}
# indent FILE: the head of a file as diagnosis lines
indent() { head -n "${2:-6}" "$1" 2>/dev/null | cut -c1-200 | sed 's/^/  | /'; }
finish() { echo "$npass passed, $nfail failed, $nskip skipped"; [ "$nfail" -eq 0 ]; }

# jqv FILE FILTER: compact jq output (empty on error)
jqv() {
    jq -c '
def r(n): .routines[] | select(.name == n);
def rf(n; f): .routines[] | select(.name == n and .file == f);
def arc(a; b): .arcs[] | select(.caller == a and .callee == b);
'"$2" "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'
}
# expect_jq NAME FILE FILTER EXPECTED: one check comparing jq output to EXPECTED (JSON)
expect_jq() {
    local name=$1 file=$2 filter=$3 want got
    want=$(jq -c . <<< "$4")
    got=$(jqv "$file" "$filter")
    if [ "$got" = "$want" ]; then ok "$name"; else nok "$name" "filter:   $filter" "expected: $want" "actual:   ${got:0:300}"; fi
}
# has_routines FILE: FILE is a report with a routines array
has_routines() { jq -e '.routines | type == "array"' "$1" > /dev/null 2>&1; }
