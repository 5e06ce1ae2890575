#!/usr/bin/env bash
# tests/run itself: a skip (a check that could not run for want of an optional tool)
# is counted apart, neither passed nor failed; a failure still fails the run.  Runs a
# copy of the runner on a tree of its own: one script with a pass, a skip and a failure
# (through tests/lib/cli.sh), one report/run.sh with a pass and a skip.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

fake=$tmp/tree
mkdir -p "$fake/tests/cli" "$fake/tests/lib" "$fake/tests/cases" "$fake/tests/report"
cp "$root/tests/run" "$fake/tests/run"
cp "$root/tests/lib/cli.sh" "$root/tests/lib/tap.sh" "$fake/tests/lib/"
cat > "$fake/tests/cli/three.sh" <<'EOF2'
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
ok "a pass"
skip "a skip" "no such tool"
nok "a failure" "why"
finish
EOF2
cat > "$fake/tests/report/run.sh" <<'EOF2'
echo "ok - report pass"
echo "ok - report skip # SKIP no dot"
echo "1 passed, 0 failed, 1 skipped"
EOF2
CPROF_BIN=$bin bash "$fake/tests/run" > run.out 2>&1; st=$?
check "the last line counts skips apart" "$(indent run.out 20)" -- \
    test "$(tail -n 1 run.out)" = "2 passed, 1 failed, 2 skipped"
check "a failure among skips: exit status 1" "status $st" -- test $st = 1
check "a skip shows as ok with its reason" "$(indent run.out 20)" -- \
    grep -qx 'ok - cli/three: a skip # SKIP no such tool' run.out
check "the script's own summary line is not in the output" "$(indent run.out 20)" -- \
    bash -c "! grep -q '^1 passed, 1 failed, 1 skipped' run.out"
finish
