#!/usr/bin/env bash
# cprof-report on bad input: exit status 1, exactly one line on stderr starting with
# "cprof-report: " (naming the file), nothing on stdout.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > tiny.c <<'EOF'
#include <stdio.h>
int leaf(int x) { return x + 1; }
int main(void)
{
    int s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 10; i++)
        s += leaf(i);
    printf("%d\n", s);
    return 0;
}
EOF
"$bin/cprof-cc" -fopenmp -O2 tiny.c -o tiny > cc.err 2>&1 || { nok "build a tiny program" "$(indent cc.err)"; }
CPROF_OUT=$tmp/good.prof ./tiny > /dev/null 2>&1
if [ ! -s good.prof ]; then
    nok "tiny program writes a profile (baseline)"
    : > good.prof
fi

# the baseline: the real profile is accepted
"$bin/cprof-report" --json good.prof > out.json 2> err.txt; st=$?
check "good profile: exit status 0 (baseline)" "status $st" "$(indent err.txt)" -- [ $st = 0 ]
expect_jq "good profile: leaf counted 10 times (baseline)" out.json '[r("leaf") | .s_caller + (.c_caller | add)]' '[10]'

size=$(stat -c %s good.prof)
head -c $((size / 2)) good.prof > truncated.prof
: > empty.prof
printf '\177ELF\002\001\001\000\000garbage\000\377\376\375 {"format": \n\001\002' > garbage.prof
jq '.version = 3' good.prof > v3.prof 2>/dev/null || echo '{}' > v3.prof
jq '.version = "1"' good.prof > vstring.prof 2>/dev/null || echo '{}' > vstring.prof
jq '.format = "gprof"' good.prof > format.prof 2>/dev/null || echo '{}' > format.prof
jq 'del(.routines)' good.prof > noroutines.prof 2>/dev/null || echo '{}' > noroutines.prof
echo '{"hello": "world"}' > otherjson.prof
echo '[1, 2, 3]' > array.prof
mkdir adir.prof

# bad NAME ARGS...: cprof-report --json ARGS must fail cleanly, naming file $BADFILE
bad() {
    local name=$1; shift
    "$bin/cprof-report" --json "$@" > out.txt 2> err.txt; local st=$?
    local lines why=()
    lines=$(wc -l < err.txt)
    [ $st = 1 ] || why+=("exit status $st, want 1")
    [ "$lines" = 1 ] || why+=("stderr has $lines lines, want 1")
    head -n 1 err.txt | grep -q '^cprof-report: ' || why+=("stderr does not start with 'cprof-report: '")
    grep -qF "$BADFILE" err.txt || why+=("stderr does not name $BADFILE")
    [ -s out.txt ] && why+=("stdout not empty: $(head -c 100 out.txt | tr '\n' ' ')")
    if [ ${#why[@]} = 0 ]; then ok "$name"; else nok "$name" "${why[@]}" "stderr:" "$(indent err.txt 4)"; fi
}

BADFILE=missing.prof   bad "missing file" missing.prof
BADFILE=empty.prof     bad "empty file" empty.prof
BADFILE=truncated.prof bad "truncated profile (first half of a real one)" truncated.prof
BADFILE=garbage.prof   bad "garbage bytes" garbage.prof
BADFILE=v3.prof        bad "wrong version (3)" v3.prof
BADFILE=vstring.prof   bad "wrong version (\"1\")" vstring.prof
BADFILE=format.prof    bad "wrong format name" format.prof
BADFILE=noroutines.prof bad "profile without its routines table" noroutines.prof
BADFILE=otherjson.prof bad "JSON that is not a profile (object)" otherjson.prof
BADFILE=array.prof     bad "JSON that is not a profile (array)" array.prof
BADFILE=adir.prof      bad "a directory" adir.prof
BADFILE=truncated.prof bad "a good profile followed by a truncated one" good.prof truncated.prof
BADFILE=missing.prof   bad "a missing file after a good one" good.prof missing.prof

# every truncation point fails cleanly (not only the middle)
fails=()
for cut in 1 2 10 $((size / 4)) $((size * 3 / 4)) $((size - 2)); do
    [ "$cut" -ge 1 ] && [ "$cut" -lt "$size" ] || continue
    head -c "$cut" good.prof > cut.prof
    # a cut that leaves only trailing whitespace off is still a whole document
    if jq -e . cut.prof > /dev/null 2>&1; then continue; fi
    "$bin/cprof-report" --json cut.prof > out.txt 2> err.txt; st=$?
    if [ $st != 1 ] || [ "$(wc -l < err.txt)" != 1 ] || [ -s out.txt ]; then fails+=("cut at $cut bytes: status $st, $(wc -l < err.txt) stderr lines"); fi
done
check "profiles cut at 6 other points fail cleanly" "${fails[@]}" -- [ ${#fails[@]} = 0 ]

# Files that are not regular ones (issue 29): a device of NUL bytes and a pipe that
# does not end are refused in one line (no JSON holds a NUL byte; a pipe past 1 GiB is
# read no further), in bounded memory; a pipe that carries a profile is read.
(ulimit -v 2500000; timeout 600 "$bin/cprof-report" --json /dev/zero > out.txt 2> err.txt); st=$?
check "/dev/zero: one line naming it, exit 1, nothing on stdout" "status $st" "$(indent err.txt)" -- \
    bash -c "[ $st = 1 ] && [ \$(wc -l < err.txt) = 1 ] && grep -q '^cprof-report: /dev/zero: not a profile' err.txt && [ ! -s out.txt ]"
mkfifo endless.fifo good.fifo
yes '{"format": "cprof-profile", "x": ' > endless.fifo 2> /dev/null &
(ulimit -v 2500000; timeout 600 "$bin/cprof-report" --json endless.fifo > out.txt 2> err.txt); st=$?
kill %% 2> /dev/null; wait 2> /dev/null
check "a pipe that does not end: one line (past 1 GiB), exit 1, in 2.5 GB of address space" "status $st" "$(indent err.txt)" -- \
    bash -c "[ $st = 1 ] && [ \$(wc -l < err.txt) = 1 ] && grep -q 'endless.fifo: not a profile.*1 GiB' err.txt && [ ! -s out.txt ]"
cat good.prof > good.fifo &
"$bin/cprof-report" --json good.fifo > fifo.json 2> err.txt; st=$?
wait
expect_jq "a pipe carrying a profile: read (leaf counted 10 times)" fifo.json '[r("leaf") | .s_caller + (.c_caller | add)]' '[10]'

finish
