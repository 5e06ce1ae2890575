# Every output mode of cprof-report on committed profiles, byte for byte: sourced by
# run.sh (uses check, $report, $fx, $here, $tmp).  modes/*.json are profiles of
# tests/cases/05_nested (CPROF_RESOURCES=cpu,faults; CPROF_TRACE=1, its trace
# modes/traced.out.trace), 06_recursion (-fcprof-input-size) and 74_regions (their
# sources' paths made /nonexistent/), beside hand-written fixtures; modes/expected/NAME.txt is the transcript of every mode on
# profile NAME (each run's arguments, stdout, stderr and status; --html's page as its
# sha256), as cprof-report printed it before reports/ was split into model and views
# (issue 34).  A change of output that is meant: CPROF_MODES_WRITE=1 tests/report/run.sh
# writes the transcripts anew, and git diff shows what changed.

m=$here/modes
# The profiles are read as p/NAME from $tmp: what the reports say of a file's path is
# the same in every checkout.
mkdir -p "$tmp/p"
cp "$m"/*.json "$m"/traced.out.trace "$fx"/*.json "$tmp/p/"
modes_csv="summary flat cases arcs callgraph threads placement placement-flags binding machine
           regions region-workers spread ranks rank_imbalance lines line-workers paths resources
           resource-routines resource-paths sizes size-growth size-paths size-path-growth"
# one OPTIONS FILE...: one run (OPTIONS split at blanks) as the transcript shows it.
one() {
    local h=$1; shift
    # shellcheck disable=SC2086
    (cd "$tmp" && "$report" $h "$@" > "$tmp/m.out" 2> "$tmp/m.err"; echo "$?" > "$tmp/m.rc")
    echo "== cprof-report $h $*"
    if [ "$h" = --html ]; then sha256sum < "$tmp/m.out"; else cat "$tmp/m.out"; fi
    echo "-- stderr"; cat "$tmp/m.err"; echo "-- status $(cat "$tmp/m.rc")"
}
# every FILE...: every mode on the profile(s) FILE.
every() {
    local -a how=("" -b "-b --sort inclusive" "-b --sort calls" "-b --sort name"
                  "-b --threshold 5" "-b --compensate" --json "--compensate --csv flat" --paths
                  "-b --paths" "--root main" "--callers main" "--paths --resources" --folded
                  --hatchet --regions "--regions -b" "--resources -b" --sizes "--sizes -b"
                  --sizes=main "--source -b" "--source --json" --dot "--dot --threshold 2"
                  "-b --routine main" --html)
    local s h
    for s in $modes_csv; do how+=("--csv $s"); done
    for s in flat threads paths resources resource-routines resource-paths; do
        how+=("--resources --csv $s")
    done
    for h in "${how[@]}"; do one "$h" "$@"; done
}
# --trace and --timeline of the traced run, --diff of two profiles.
trace_diff() {
    local h
    for h in --trace --timeline "--timeline --width 40"; do one "$h" p/nested-traced.json; done
    for h in "" -b --json "--csv summary" "--csv routines" "--compensate --json"; do
        one "--diff $h" p/nested-res.json p/regions-74.json
    done
}
# same NAME COMMAND...: COMMAND's transcript is modes/expected/NAME.txt.
same() {
    local want=$m/expected/$1.txt; shift
    "$@" > "$tmp/transcript"
    if [ "${CPROF_MODES_WRITE:-}" = 1 ]; then cp "$tmp/transcript" "$want"; fi
    cmp -s "$want" "$tmp/transcript" || { diff "$want" "$tmp/transcript" | head -20 >&2; return 1; }
}
for f in nested-res nested-traced recursion-sizes regions-74 basic compensate teams cycle; do
    check "every mode, byte for byte: $f.json" same "$f" every "p/$f.json"
done
check "every mode, byte for byte: an MPI job's three ranks" same job every p/job-{0,1,2}.json
check "every mode, byte for byte: two files summed" \
    same nested-sum every p/nested-res.json p/nested-traced.json
check "--trace, --timeline and --diff, byte for byte" same trace-diff trace_diff
