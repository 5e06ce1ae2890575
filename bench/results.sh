# results.sh: sourced by a bench that writes its results (BENCH_RESULTS, default
# bench/results/NAME.txt, the file docs/performance.md quotes): results_begin NAME
# sends what follows to that file too, after the bench's name, the date, the machine,
# the compiler and the commit; results_end closes it.  Needs $root and $tmp.
results_begin() {
    local results=${BENCH_RESULTS:-$root/bench/results/$1.txt}
    mkdir -p "$(dirname "$results")"
    exec > >(tee "$results")
    local commit
    commit=$(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo unknown)
    [ -n "$(git -C "$root" status --porcelain -- runtime preprocessor bench 2> /dev/null)" ] &&
        commit="$commit with the working tree's changes (the commit that records this file)"
    echo "bench/$1.sh, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs online, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "compiler: $(gcc --version | head -1); commit: $commit"
}
results_end() {
    exec >&-
    wait "$!" 2> /dev/null
}
