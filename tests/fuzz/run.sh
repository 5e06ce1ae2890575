#!/usr/bin/env bash
# tests/fuzz/run.sh FUZZER SECONDS [ARTIFACT_DIR]: run the profile fuzzer (built by
# `make fuzz`) for SECONDS on a scratch copy of tests/fuzz/corpus, with the dictionary.
# Last line: "fuzz: N runs, no crash" (status 0), or "fuzz: FAILED ..." (status 1) after
# the head of libFuzzer's report; the reproducer is kept in ARTIFACT_DIR (default: the
# fuzzer's directory), named crash-*, leak-*, timeout-* or oom-*.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fuzzer=$1 seconds=$2 artifacts=${3:-$(dirname "$1")}
case $seconds in ''|*[!0-9]*) echo "fuzz: FAILED: SECONDS must be a number, not '$seconds'"; exit 2 ;; esac
[ -x "$fuzzer" ] || { echo "fuzz: FAILED: no fuzzer $fuzzer"; exit 2; }
mkdir -p "$artifacts" && artifacts=$(cd "$artifacts" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/cprof-fuzz.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
cp "$here"/corpus/* "$work/corpus/"   # libFuzzer adds what it finds here, not in the tree

# UBSan is compiled with -fno-sanitize-recover; the options only make its reports useful.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
"$fuzzer" "$work/corpus" -dict="$here/profile.dict" -max_len=65536 \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" > "$work/log" 2>&1
st=$?

runs=$(sed -n 's/^Done \([0-9]*\) runs in .*/\1/p' "$work/log" | tail -n 1)
[ -n "$runs" ] || runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$work/log" | tail -n 1)
if [ $st = 0 ] && [ -n "$runs" ]; then
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$work/log"
    grep -E '^(Done |stat::(new_units_added|peak_rss_mb))' "$work/log"
    echo "fuzz: $runs runs, no crash"
    exit 0
fi
# The report: from the first sanitizer / contract / libFuzzer error line on.
start=$(grep -nE '^==[0-9]+==|runtime error:|profile_fuzz: contract broken|ERROR: libFuzzer|^INFO: .*(timeout|out-of-memory)' "$work/log" | head -n 1 | cut -d: -f1)
sed -n "${start:-1},\$p" "$work/log" | head -n 60
artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$work/log" | tail -n 1)
echo "fuzz: FAILED (status $st) after ${runs:-?} runs${artifact:+; reproducer: $artifact}"
exit 1
