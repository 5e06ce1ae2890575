# bench/results.sh, sourced by a bench script that keeps its output (bench/results/):
# bench_results FILE: from now on what the script prints also goes to FILE (its
# BENCH_RESULTS), after the script's name and date, the machine, the compiler and the
# commit (marked when the working tree's runtime, preprocessor, reports or bench differ
# from it: the commit that records the file).  Needs $root.
bench_results() {
    local commit
    commit=$(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo unknown)
    # Looked at before FILE is written: a results file only rewritten is no change.
    [ -n "$(git -C "$root" status --porcelain -- runtime preprocessor reports bench 2> /dev/null)" ] &&
        commit="$commit with the working tree's changes (the commit that records this file)"
    mkdir -p "$(dirname "$1")"
    exec > >(tee "$1")
    echo "bench/$(basename "$0"), $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs online, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "compiler: $(gcc --version | head -1); commit: $commit"
}
