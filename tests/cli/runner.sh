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
    test "$(tail -n 1 run.out)" = "2 passed, 1 failed, 3 skipped"
check "outside a git checkout, whether the tests left the tree as they found it is a skip" \
    "$(indent run.out 20)" -- \
    grep -qx 'ok - the tests leave the source tree as they found it # SKIP not a git checkout' run.out
check "a failure among skips: exit status 1" "status $st" -- test $st = 1
check "a skip shows as ok with its reason" "$(indent run.out 20)" -- \
    grep -qx 'ok - cli/three: a skip # SKIP no such tool' run.out
check "the failure and its diagnosis are said again just above the last line" "$(indent run.out 20)" -- \
    bash -c "tail -n 4 run.out | head -n 3 | tr '\n' '|' |
             grep -qx '# again, the failures above (1):|# not ok - cli/three: a failure|#     why|'"
check "the script's own summary line is not in the output" "$(indent run.out 20)" -- \
    bash -c "! grep -q '^1 passed, 1 failed, 1 skipped' run.out"

# In a git checkout: a test that writes in the source tree (as bench/task_stack.sh wrote
# its committed results file from cli/task_stack) fails the run; none that does passes.
if command -v git > /dev/null; then
    rm "$fake/tests/cli/three.sh"
    git -C "$fake" init -q && git -C "$fake" add -A &&
        git -C "$fake" -c user.name=t -c user.email=t@t commit -q -m tree
    CPROF_BIN=$bin bash "$fake/tests/run" > clean.out 2>&1; st=$?
    check "a git checkout the tests leave as they found it: ok, status 0" "status $st" "$(indent clean.out 20)" -- \
        bash -c "[ $st = 0 ] && grep -qx 'ok - the tests leave the source tree as they found it' clean.out"
    printf '. "$(dirname "$0")/../lib/cli.sh"\nmkdir -p "$root/bench/results" && echo 1 > "$root/bench/results/x.txt"\nok "writes"\nfinish\n' \
        > "$fake/tests/cli/writes.sh"
    git -C "$fake" add -A && git -C "$fake" -c user.name=t -c user.email=t@t commit -q -m writes
    CPROF_BIN=$bin bash "$fake/tests/run" > dirty.out 2>&1; st=$?
    check "a test that writes in the source tree: not ok, status 1, the file named" "status $st" \
        "$(indent dirty.out 20)" -- \
        bash -c "[ $st = 1 ] && grep -qx 'not ok - the tests leave the source tree as they found it' dirty.out &&
                 grep -q 'bench/results/x.txt' dirty.out"
    # A file already changed before the run, which a test changes again: git status
    # says " M" both times, the contents differ.
    git -C "$fake" add -A && git -C "$fake" -c user.name=t -c user.email=t@t commit -q -m x
    echo 2 > "$fake/bench/results/x.txt"
    CPROF_BIN=$bin bash "$fake/tests/run" > again.out 2>&1; st=$?
    check "a test that changes a file already changed: not ok, status 1" "status $st" \
        "$(indent again.out 20)" -- \
        bash -c "[ $st = 1 ] && grep -qx 'not ok - the tests leave the source tree as they found it' again.out"
else
    skip "the tests leave a git checkout as they found it" "git is not installed"
fi

# A case's expect lines: one whose filter begins with "[" runs (it is no compiler's tag:
# such lines went unchecked), one tagged with another compiler's name does not, one
# tagged with the pass's compiler runs without its tag.
cases=$tmp/cases
mkdir -p "$cases/tests/cases/01_tags" "$cases/tests/lib"
cp "$root/tests/run" "$cases/tests/run"
cp "$root/tests/lib/"* "$cases/tests/lib/"
echo 'int main(void) { return 0; }' > "$cases/tests/cases/01_tags/main.c"
cat > "$cases/tests/cases/01_tags/expect" <<'EOF2'
[.routines[].name] => ["main"]
[othercc] .routines | length => 99
[gcc] [r("main").s_caller] => [1]
EOF2
CPROF_BIN=$bin CPROF_TEST_CC=gcc bash "$cases/tests/run" 01_tags > tags.out 2>&1
check "an expect line whose filter begins with [ is checked" "$(indent tags.out 20)" -- \
    grep -qx 'ok - 01_tags: \[.routines\[\].name\] => \["main"\]' tags.out
check "an expect line of another compiler is not" "$(indent tags.out 20)" -- \
    bash -c "! grep -q '=> 99' tags.out"
check "an expect line of the pass's compiler is, without its tag" "$(indent tags.out 20)" -- \
    grep -qx 'ok - 01_tags: \[r("main").s_caller\] => \[1\]' tags.out
finish
