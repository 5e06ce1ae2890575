# bench/generated.sh: sourced by the benchmarks that need a profile of many routines,
# or a large unit to compile.
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

# generated_unit N: one C unit of N small routines, in turn: a static leaf (counted at
# its call sites), a static routine calling two earlier ones (counted, and inlined by
# gcc), a routine with a loop calling the one before (timed), and one whose loop is a
# parallel for calling two earlier ones; main calls the last.
generated_unit() {
    local n=$1 i a b c
    echo '#include <stdio.h>'
    for ((i = 0; i < n; i++)); do
        a=$(( i > 0 ? i - 1 : 0 )) b=$(( i / 2 )) c=$(( i > 2 ? i - 3 : 0 ))
        case $((i % 4)) in
        0) echo "static int f$i(int x) { return x * 3 + $i; }" ;;
        1) echo "static int f$i(int x) { return f$a(x) + f$b(x - 1); }" ;;
        2) echo "int f$i(int x) { int s = 0; for (int k = 0; k < x; k++) s += f$a(k); return s; }" ;;
        3) printf 'int f%d(int x)\n{\n    int s = 0;\n#pragma omp parallel for reduction(+:s)\n' "$i"
           printf '    for (int k = 0; k < x; k++)\n        s += f%d(k) + f%d(k);\n    return s;\n}\n' "$a" "$c" ;;
        esac
    done
    echo "int main(void) { printf(\"%d\\n\", f$((n - 1))(3)); return 0; }"
}
