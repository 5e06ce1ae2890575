#!/usr/bin/env bash
# Fuzz cprof-report's profile reader and JSON writer (tests/fuzz/profile_fuzz.c) for a
# bounded time: CPROF_FUZZ_SECONDS (default 30).  Needs clang-14 and libclang-rt-14-dev;
# skipped only if clang-14 is not installed.
fuzz_seconds=${CPROF_FUZZ_SECONDS:-30}
. "$(dirname "$0")/../lib/cli.sh"

name="fuzz the profile reader and JSON writer for ${fuzz_seconds}s: no crash, leak or UB"
if ! command -v clang-14 > /dev/null 2>&1; then
    skip "$name" "clang-14 not installed"
    finish
    exit
fi

if ! make -s -C "$root" B="$tmp/build" "$tmp/build/fuzz/profile_fuzz" > "$tmp/make.log" 2>&1; then
    nok "build the fuzzer (clang-14 -fsanitize=fuzzer,address,undefined)" "$(indent "$tmp/make.log" 20)"
    finish
    exit
fi
ok "build the fuzzer (clang-14 -fsanitize=fuzzer,address,undefined)"

"$root/tests/fuzz/run.sh" "$tmp/build/fuzz/profile_fuzz" "$fuzz_seconds" "$tmp/artifacts" > "$tmp/fuzz.log" 2>&1
last=$(tail -n 1 "$tmp/fuzz.log")
case $last in
    "fuzz: "*" runs, no crash") ok "$name (${last#fuzz: })" ;;
    *)
        repro=$(ls "$tmp"/artifacts/* 2>/dev/null | head -n 1)
        nok "$name" "$last" "$(indent "$tmp/fuzz.log" 40)" \
            ${repro:+"reproducer ($(wc -c < "$repro") bytes, first 400 shown with cat -v):"} \
            ${repro:+"$(head -c 400 "$repro" | cat -v | sed 's/^/  | /')"}
        ;;
esac
finish
