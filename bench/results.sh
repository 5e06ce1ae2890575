# bench/results.sh: sourced by the benches whose output docs/performance.md quotes.
# results_to FILE: from here on, what the bench prints also goes to FILE, after a
# header: the bench and the date, the CPU and its load, the compiler and the commit
# (marked when the working tree differs in the parts that decide the figures).
results_to() {
    local commit
    mkdir -p "$(dirname "$1")"
    exec > >(tee "$1")
    results_tee=$!
    commit=$(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo unknown)
    [ -n "$(git -C "$root" status --porcelain -- runtime preprocessor reports examples bench 2> /dev/null |
            grep -v ' bench/results/')" ] &&
        commit="$commit with the working tree's changes (the commit that records this file)"
    echo "bench/$(basename "$0"), $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs online, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "compiler: $(gcc --version | head -1); commit: $commit"
}

# results_settings VAR...: the settings this run had (a variable unset: its default).
results_settings() {
    local settings="" v
    for v in "$@"; do
        settings="$settings $v=${!v-default}"
    done
    echo "settings:$settings"
    echo
}

# results_done, last: waits for the file to be written.
results_done() {
    exec >&-
    wait "$results_tee" 2> /dev/null
}
