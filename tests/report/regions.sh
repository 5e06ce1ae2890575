# Tests of the parallel regions and tasks (the workers' "regions" rows, --regions);
# sourced by run.sh (uses check, run, bad, exact-style helpers of run.sh and text.sh).
# regions.json is a hand-written profile of a program whose main opens a region at
# omp.c:8 twice (team 2: worker 0 busy 30 ms, worker 1 10 ms, which waits 16 ms at the
# end; the slowest member's busy summed 30 ms, the mean 20 ms), calls inner from it,
# which opens a nested region at omp.c:20 once (workers 0 and 2: 4 and 2 ms, mean 3),
# creates 3 tasks at omp.c:12 (1 ms on worker 0, 3 ms over 2 on worker 1), and runs
# one region cprof-cc did not compile (team 1, 0.5 ms).  expected/regions.txt was
# checked by hand against these numbers.
rg=$fx/regions.json

check "--regions of regions.json" text "$exp/regions.txt" --regions "$rg"
check "--csv regions of regions.json: its rows exactly" eval 'csv regions "$rg" && [ "$(cat "$tmp/csv")" = "$(cat <<EOF
construct,file,line,routine,depth,executions,team_min,team_max,busy_ns,busy_min_ns,busy_max_ns,busy_mean_ns,barrier_wait_ns,end_wait_ns,imbalance,lost_ns
parallel,omp.c,8,main,0,2,2,2,40000000,10000000,30000000,20000000,6000000,16000000,1.5000,10000000
parallel,omp.c,20,inner,1,1,2,2,6000000,2000000,4000000,3000000,0,2000000,1.3333,1000000
task,omp.c,12,main,1,3,,,4000000,1000000,3000000,2000000,0,0,,
parallel,,,,0,1,1,1,500000,500000,500000,500000,0,0,1.0000,0
EOF
)" ]'
check "--csv region-workers: CRLF lines, header, rectangular" eval 'csv region-workers "$rg" && same_width'
check "--csv region-workers: worker 1's end wait at omp.c:8" \
    test "$(csv region-workers "$rg" && awk -F, '$3 == 8 && $4 == 1 { print $5 "," $9 }' "$tmp/csv")" = 2,16000000
# Busy in regions per worker: the outermost constructs it ran (worker 0's nested
# region is inside its omp.c:8), whether or not they called profiled routines.
check "--csv threads: each worker's busy time in regions" \
    test "$(for w in 0 1 2; do csv_value threads "$rg" worker $w region_busy_ns; done | tr '\n' ,)" = "30500000,10000000,2000000,"
check "--csv threads: region busy as a share of the run" \
    test "$(csv_value threads "$rg" worker 0 pct_region_busy)" = 61.0000
check "--csv threads of a profile without regions: no region columns" \
    eval 'csv threads "$fx/loop.json" && ! grep -q region "$tmp/csv"'
check "the text report: the regions sections after the per-thread table" \
    eval 'run "$rg" && [ "$(grep -xE "Per-thread concurrency|Parallel regions and tasks|Parallel regions and tasks per worker|Concurrent callee time per worker" "$tmp/out" | tr "\n" ,)" = \
          "Per-thread concurrency,Parallel regions and tasks,Parallel regions and tasks per worker,Concurrent callee time per worker," ]'
check "the text report of a profile without regions has no regions section" \
    eval 'run "$fx/loop.json" && ! grep -q "^Parallel regions" "$tmp/out"'
check "--csv regions of a profile without regions: the header alone" \
    eval 'csv regions "$fx/loop.json" && [ "$(wc -l < "$tmp/csv")" = 1 ] && grep -q "^construct,file,line,routine," "$tmp/csv"'
check "--regions of a profile without regions: says so" \
    eval 'run --regions "$fx/loop.json" && [ "$(cat "$tmp/out")" = "No OpenMP parallel region or task ran in the profiled program." ]'
check "--regions with another view: usage" usage --regions --json "$rg"
check "--regions with --sort: usage" usage --regions --sort calls "$rg"
check "--regions -b: the tables without their explanations" \
    eval 'run --regions -b "$rg" && ! grep -q "^busy  " "$tmp/out" && grep -q "^  parallel  omp.c:20" "$tmp/out"'

# --json: each construct, its enclosing one, per worker figures.
check "--json regions: construct, place, routine, enclosing construct, runs" \
    eval 'run --json "$rg" && [ "$(jq -c "[.regions[] | [.construct, .file, .line, .routine, .enclosing, .depth, .runs]]" "$tmp/out")" = \
          "[[\"parallel\",\"omp.c\",8,\"main\",null,0,2],[\"task\",\"omp.c\",12,\"main\",0,1,3],[\"parallel\",\"omp.c\",20,\"inner\",0,1,1],[\"parallel\",null,null,null,null,0,1]]" ]'
check "--json regions: omp.c:8 summed and per worker, imbalance, lost" \
    eval 'run --json "$rg" && [ "$(jq -c ".regions[0] | [.executions, .worker_executions, .busy_t, .worker_end_wait_t, .team_min, .team_max, .imbalance, .lost_t]" "$tmp/out")" = \
          "[4,[2,2,0],40000000,[0,16000000,0],2,2,1.5,10000000]" ]'
# Summed with itself: counts and times double, team sizes and the imbalance do not.
check "regions.json twice: executions and times doubled, team sizes and imbalance kept" \
    eval 'run --json "$rg" "$rg" && [ "$(jq -c "[.regions[0] | .runs, .worker_busy_t, .team_min, .team_max, .imbalance, .lost_t]" "$tmp/out")" = \
          "[4,[60000000,20000000,0],2,2,1.5,20000000]" ]'
# --compensate: the profiled call made in worker 0's busy time (nested 1) comes out of
# it at call_cost_ns (20); the waits had no call inside.
check "--compensate: busy less the profiled calls made in it, waits as they are" \
    eval 'run --json --compensate "$rg" && [ "$(jq -c "[.regions[0] | .worker_busy_t, .worker_barrier_wait_t]" "$tmp/out")" = \
          "[[29999980,10000000,0],[1000000,5000000,0]]" ]'
check "consistency.sh passes on the report of regions.json" eval 'run --json "$rg" && consistent "$tmp/out"'

# Bad regions rows: one line naming the row and what is wrong.
rvariant() {  # rvariant NAME JQ-FILTER: a copy of regions.json changed by the filter
    jq "$2" "$rg" >"$tmp/$1.json"
    echo "$tmp/$1.json"
}
check "bad regions: construct out of range" bad "$(rvariant g-range '.workers[0].regions[0][0] = 5')" \
    "invalid profile: workers[0].regions[0]: construct 5 out of range (4 sites)"
check "bad regions: construct at a site that is no construct" bad "$(rvariant g-site '.workers[1].regions[1][0] = 2')" \
    "invalid profile: workers[1].regions[1]: construct 2: site 1 is no construct"
check "bad regions: kind out of range" bad "$(rvariant g-kind '.workers[0].regions[3][1] = 7')" \
    "invalid profile: workers[0].regions[3]: kind 7 out of range (1 to 6)"
check "bad regions: kind 0" bad "$(rvariant g-kind0 '.workers[0].regions[3][1] = 0')" \
    "invalid profile: workers[0].regions[3]: kind 0 out of range (1 to 6)"
check "bad regions: a parallel row of a task's site" bad "$(rvariant g-mismatch '.workers[0].regions[2][1] = 1')" \
    "invalid profile: workers[0].regions[2]: kind 1 (parallel), but site 3 is a task"
check "bad regions: team_min above team_max" bad "$(rvariant g-team '.workers[2].regions[1][8] = 3')" \
    "invalid profile: workers[2].regions[1]: team_min 3 above team_max 2"
check "bad regions: a negative wait" bad "$(rvariant g-neg '.workers[1].regions[0][7] = -1')" \
    "invalid profile: workers[1].regions[0]: column 7 is negative"
check "bad regions: a row of 13 columns" bad "$(rvariant g-short '.workers[0].regions[1] |= .[1:]')" \
    "invalid profile: workers[0].regions[1] is not an array of 14 (or 14) integers"
check "bad regions: a real in a row (read by jansson)" bad "$(rvariant g-real '.workers[0].regions[0][3] = 1.5')" \
    "invalid profile: workers[0].regions[0]: column 3 is not an integer"
check "bad regions: rows but no \"columns\".regions" bad "$(rvariant g-cols 'del(.columns.regions)')" \
    'invalid profile: workers[0] has "regions", but "columns" has none'
check "bad regions: \"columns\".regions without busy_time" bad "$(rvariant g-nobusy '.columns.regions |= map(select(. != "busy_time"))')" \
    'invalid profile: "columns".regions has no "busy_time"'
check "bad regions: a site's construct no construct of the format's" bad "$(rvariant g-loop '.sites[0].construct = "loop"')" \
    'invalid profile: sites[0]: construct "loop" is no construct this reader knows'
check "bad regions: the text report refuses too" badtext "$tmp/g-team.json"
check "bad regions: --regions refuses too" badtext --regions "$tmp/g-team.json"
# The columns in another order (a version 2 reader goes by name): the same report.
check "regions columns in another order: the same report" text "$exp/regions.txt" --regions \
    "$(jq '.columns.regions |= reverse | .workers[].regions[] |= reverse' "$rg" > "$tmp/g-rev.json"; echo "$tmp/g-rev.json")"
# A construct reached from two calling contexts is nested as its heaviest one is: inner
# also called from main outside any region, its region there lighter, then heavier.
second() {  # second TIME: regions.json with that context of omp.c:20's region added
    jq --argjson t "$1" '.workers[0].paths += [
        [0, 1, 0, 1, 1, 0, 0, 1, 1000] + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [3, 7, 0, 3, 0, 0, 0, 1, $t] + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]' "$rg" > "$tmp/second.json"
    run --json "$tmp/second.json" && jq -c '.regions[] | select(.line == 20) | [.enclosing, .depth]' "$tmp/out"
}
check "a construct in two contexts: nested as its heavier one (in the region)" test "$(second 1000)" = "[0,1]"
check "a construct in two contexts: nested as its heavier one (outside any)" test "$(second 9000000)" = "[null,0]"
check "a file that declares its regions section required: read the same" text "$exp/regions.txt" --regions \
    "$(jq '.sections[0].required = true' "$rg" > "$tmp/g-req.json"; echo "$tmp/g-req.json")"
check "--routine: only the constructs of that routine" \
    eval 'csv regions "$rg" --routine main && [ "$(cut -d, -f1-4 "$tmp/csv" | tail -n +2 | tr "\n" " ")" = "parallel,omp.c,8,main task,omp.c,12,main " ] &&
          csv region-workers "$rg" --routine inner && [ "$(tail -n +2 "$tmp/csv" | cut -d, -f3,4 | tr "\n" " ")" = "20,0 20,2 " ]'
# A task made by a task of the same construct (recursion) is nested where that one is.
check "a task of a task of its own construct: nested where the outer one is" test "$(
    jq '.workers[1].paths += [[4, 3, 0, 4, 0, 0, 0, 0, 0, 1, 99000000] + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]' \
        "$rg" > "$tmp/rec.json" && run --json "$tmp/rec.json" &&
    jq -c '.regions[] | select(.line == 12) | [.enclosing, .depth]' "$tmp/out")" = "[0,1]"
