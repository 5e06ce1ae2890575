# bench/generated.sh: sourced by the benchmarks that need a profile of many routines.
# generated_program N: a C program of N routines on stdout; f_i calls f_(i+1) and
# f_(i+2) (two sites each), and main calls every f_i from a parallel region, so every
# routine has rows on every worker.
generated_program() {
    local n=$1 i
    echo 'volatile long sink;'
    for ((i = n - 1; i >= 0; i--)); do
        echo "void f$i(int k) { sink += k; if (k > 0) { $( ((i + 1 < n)) && echo "f$((i + 1))(k - 1);") $( ((i + 2 < n)) && echo "f$((i + 2))(k - 1);") } }"
    done
    echo 'int main(void) {'
    echo '#pragma omp parallel'
    echo '    {'
    for ((i = 0; i < n; i++)); do echo "        f$i(1);"; done
    echo '    }'
    echo '    return 0;'
    echo '}'
}
