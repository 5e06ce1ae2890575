# Tests of the ranks of an MPI job summed as one run (docs/mpi.md); sourced by run.sh
# (uses check, run, $fx, $exp, $tmp).  job-0.json, job-1.json and job-2.json are the three
# ranks of one job (id "42"), whose numbers are derived in docs/report.md ("The test
# fixtures"); expected/job.txt and expected/job.json were checked by hand against them.
job=("$fx/job-0.json" "$fx/job-1.json" "$fx/job-2.json")

# text EXPECTED ARGS... (text.sh) and exact EXPECTED FILE... (run.sh)
check "a job's text report" text "$exp/job.txt" "${job[@]}"
check "a job's --json" exact "$exp/job.json" "${job[@]}"
check "a job's report does not depend on the order of its files" \
    eval 'run "$fx/job-2.json" "$fx/job-0.json" "$fx/job-1.json" && cmp -s "$exp/job.txt" "$tmp/out" &&
          run --json "$fx/job-1.json" "$fx/job-2.json" "$fx/job-0.json" && cmp -s "$exp/job.json" "$tmp/out"'
for s in ranks rank_imbalance threads spread; do
    check "a job's --csv $s: CRLF lines, header, rectangular" eval 'csv '"$s"' "${job[@]}" && same_width'
done
check "--csv ranks: rank 2's worker self, %busy" \
    test "$(csv_value ranks "${job[2]}" rank 2 self_worker_ns "${job[0]}" "${job[1]}"),$(csv_value ranks "${job[2]}" rank 2 pct_busy "${job[0]}" "${job[1]}")" = 26000000,65.0000
check "--csv rank_imbalance: body's mean and slowest rank" \
    test "$(csv_value rank_imbalance "${job[2]}" name body inclusive_mean_ns "${job[0]}" "${job[1]}"),$(csv_value rank_imbalance "${job[2]}" name body inclusive_slowest_rank "${job[0]}" "${job[1]}")" = 12000000,2
check "--csv rank_imbalance: body's worst imbalance over one rank's workers, and that rank" \
    test "$(csv_value rank_imbalance "${job[2]}" name body thread_imbalance "${job[0]}" "${job[1]}"),$(csv_value rank_imbalance "${job[2]}" name body thread_imbalance_rank "${job[0]}" "${job[1]}")" = 1.3333,2
check "--csv summary: the job's ranks, id, size, hosts" \
    test "$(for k in ranks job size hosts; do csv_value summary "${job[2]}" key $k value "${job[0]}" "${job[1]}"; done | tr '\n' ,)" = "3,42,3,2,"
check "--csv ranks of repeated runs: refused in one line" \
    eval 'run --csv ranks "$fx/loop.json"; [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
          [ "$(cat "$tmp/err")" = "cprof-report: --csv ranks: the profiles are not the ranks of an MPI job" ]'
check "consistency.sh passes on a job's report" eval 'run --json "${job[@]}" && consistent "$tmp/out"'

# Files that are not one job's ranks, each refused in one line naming the first file.
# (sed, not jq: jq would round start_unix_ns.)
edited() {  # edited NAME SED_SCRIPT: job-1.json edited, in $tmp/NAME.json
    sed "$2" "${job[1]}" > "$tmp/$1.json"
    echo "$tmp/$1.json"
}
refused_job() {  # refused_job MESSAGE FILE...: exit 1, the one line "cprof-report: MESSAGE"
    local want=$1; shift
    run --json "$@"
    [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = "cprof-report: $want" ] ||
        { echo "got: $(cat "$tmp/err")" >&2; return 1; }
}
f=$(edited twice 's/"pid": 101/"pid": 102/; s/"rank": 1/"rank": 0/')
check "a rank twice" refused_job "$f: rank 0 of job 42 again (${job[0]} has it)" "${job[0]}" "$f"
f=$(edited run 's/"rank": 1/"rank": -1/')
check "a separate run after a rank" refused_job \
    "$f: a process outside an MPI job, not a rank of job 42 like ${job[0]}: a job's ranks and separate runs are not summed together" \
    "${job[0]}" "$f"
check "a rank after separate runs" refused_job \
    "${job[0]}: rank 0 of job 42, not a process outside an MPI job like $f: a job's ranks and separate runs are not summed together" \
    "$f" "$f" "${job[0]}"
check "separate runs (rank -1) are still summed" eval 'run --json "$f" "$f" && [ "$rc" = 0 ] &&
    [ "$(jq -c "[.files, .job, (.workers | length)]" "$tmp/out")" = "[2,null,2]" ]'
f=$(edited other 's/"job": "42"/"job": "43"/')
check "ranks of two jobs" refused_job "$f: rank 1 of job 43, not of job 42 like ${job[0]}: one job's ranks at a time" "${job[0]}" "$f"
f=$(edited size 's/"size": 3/"size": 4/')
check "ranks of one job id but two sizes" refused_job "$f: rank 1 of a job of 4 ranks, not of 3 like ${job[0]}: not one job" "${job[0]}" "$f"
f=$(edited noid 's/"job": "42"/"job": ""/')
check "a job without an id and one with" refused_job "$f: rank 1 of a job without an id, not of job 42 like ${job[0]}: one job's ranks at a time" "${job[0]}" "$f"
sed 's/"job": "42"/"job": ""/' "${job[0]}" > "$tmp/noid0.json"
check "no job id: ranks that ran at one time are one job" \
    eval 'run --json "$tmp/noid0.json" "$f" && [ "$rc" = 0 ] && [ "$(jq -c "[.job.id, [.job.ranks[].rank]]" "$tmp/out")" = "[\"\",[0,1]]" ]'
f=$(edited later 's/"job": "42"/"job": ""/; s/"start_unix_ns": 1795000000000001000/"start_unix_ns": 1795000000020000000/')
check "no job id: a rank that started after the others ended is not of their job" refused_job \
    "$f: rank 1 did not run at the same time as the ranks of $tmp/noid0.json, and the files name no job: not one job" \
    "$tmp/noid0.json" "$f"
check "--keep-going: a rank twice left out, one warning" \
    eval 'run --json --keep-going "${job[@]}" "${job[1]}" && [ "$rc" = 0 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
          [ "$(jq -c "[.files, .files_skipped, [.job.ranks[].rank]]" "$tmp/out")" = "[3,1,[0,1,2]]" ]'
