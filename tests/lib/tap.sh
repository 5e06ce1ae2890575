# tests/lib/tap.sh: the one harness every test file sources (tests/run, tests/lib/cli.sh,
# tests/report/run.sh): ok / nok / skip / check, the diagnosis lines under a failed
# check, the summary line, and the jq definitions that expectations use.
#   TAP_PREFIX  before every check's name ("cli/name: ", "01_case: "), default none
#   TAP_FD      the file descriptor results go to, default 1
# A result is "ok - NAME", "not ok - NAME" followed by diagnosis lines indented by 4,
# or "ok - NAME # SKIP WHY" for a check that could not run for want of an optional
# tool (tests/README.md: what is a skip).
npass=0 nfail=0 nskip=0

ok()   { echo "ok - ${TAP_PREFIX:-}$1" >&"${TAP_FD:-1}"; npass=$((npass + 1)); }
nok() {
    echo "not ok - ${TAP_PREFIX:-}$1" >&"${TAP_FD:-1}"; shift
    local l; for l in "$@"; do printf '    %s\n' "$l" >&"${TAP_FD:-1}"; done
    nfail=$((nfail + 1))
}
skip() { echo "ok - ${TAP_PREFIX:-}$1 # SKIP $2" >&"${TAP_FD:-1}"; nskip=$((nskip + 1)); }
# check NAME [DIAG... --] COMMAND...: ok if COMMAND succeeds, else not ok with DIAG.
check() {
    local name=$1 a split=0; shift
    local -a diag=()
    for a in "$@"; do [ "$a" = -- ] && split=1 && break; done
    if [ $split = 1 ]; then
        while [ "$1" != -- ]; do diag+=("$1"); shift; done
        shift
    fi
    if "$@"; then ok "$name"; else nok "$name" "${diag[@]}"; fi
}
# indent FILE [LINES]: the head of a file as diagnosis lines (arguments of nok/check).
indent() { head -n "${2:-6}" "$1" 2>/dev/null | cut -c1-200 | sed 's/^/  | /'; }
# show FILE [LINES]: the same, printed under the last result.
show() { indent "$1" "${2:-8}" | sed 's/^/    /' >&"${TAP_FD:-1}"; }
finish() { echo "$npass passed, $nfail failed, $nskip skipped"; [ "$nfail" -eq 0 ]; }

# jq helpers prepended to the filters of `expect` files and of jqv.
JQ_DEFS='
def r(n): .routines[] | select(.name == n);
def rf(n; f): .routines[] | select(.name == n and .file == f);
def arc(a; b): .arcs[] | select(.caller == a and .callee == b);
def arcf(a; af; b; bf): .arcs[] | select(.caller == a and .caller_file == af and .callee == b and .callee_file == bf);
def site(a; b; l): arc(a; b) | .sites[] | select(.line == l);
def absv: if . < 0 then -. else . end;
def between(lo; hi): . >= lo and . <= hi;
def near(a; b; tol): ((a - b) | absv) <= tol;
def callers(b): [.arcs[] | select(.callee == b) | .caller] | sort;
def callees(a): [.arcs[] | select(.caller == a) | .callee] | sort;
def pathname($p; i): if $p[i].parent == null then [$p[i].routine] else pathname($p; $p[i].parent) + [$p[i].routine] end;
def ctx(names): .paths as $p | $p[] | select(pathname($p; .id) == names);
'
# jqv FILE FILTER: compact jq output on one line (empty on error)
jqv() { jq -c "$JQ_DEFS $2" "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
# expect_jq NAME FILE FILTER EXPECTED: one check comparing jq output to EXPECTED (JSON)
expect_jq() {
    local name=$1 file=$2 filter=$3 want got
    want=$(jq -c . <<< "$4")
    got=$(jqv "$file" "$filter")
    if [ "$got" = "$want" ]; then ok "$name"; else nok "$name" "filter:   $filter" "expected: $want" "actual:   ${got:0:300}"; fi
}
