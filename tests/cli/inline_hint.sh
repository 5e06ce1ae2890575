#!/usr/bin/env bash
# Small routines of external linkage counted at their sites (docs/cprof-cc.md, "Small
# routines") are inlined where the plain build inlines them: cprof-cc declares them
# inline after the unit's text, since their entry's test of the handshake would push
# them past gcc's limit for functions not declared inline (an interpreter's vm_push
# stayed a call, 30 instructions each).  No diagnostic comes of it, -Winline included;
# the counts are the same with and without the hint.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > vm.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
struct vm { int sp; long stack[64]; };
void vm_error(struct vm *m, const char *what)
{
    fprintf(stderr, "vm: %s at %d\n", what, m->sp);
    exit(2);
}
void vm_push(struct vm *m, long v)
{
    if (m->sp == 64)
        vm_error(m, "stack overflow");
    m->stack[m->sp++] = v;
}
long vm_pop(struct vm *m)
{
    if (m->sp == 0)
        vm_error(m, "stack underflow");
    return m->stack[--m->sp];
}
__attribute__((noinline)) long vm_run(struct vm *m, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) {
        vm_push(m, i);
        vm_push(m, 2 * i);
        s += vm_pop(m) - vm_pop(m);
    }
    return s;
}
EOF
cat > main.c <<'EOF'
#include <stdio.h>
struct vm { int sp; long stack[64]; };
long vm_run(struct vm *m, int n);
void vm_push(struct vm *m, long v);
int main(void)
{
    struct vm m = { 0 };
    long s = vm_run(&m, 100);
    vm_push(&m, 7);                     /* from another unit: counted at the entry */
    printf("%ld %d\n", s, m.sp);
    return 0;
}
EOF

# calls_in EXE FUNCTION: the names FUNCTION's code calls directly
calls_in() {
    objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f { on = 1; next } /^$/ { on = 0 }
        on && $2 == "call" { print $NF }' | tr -d '<>' | sort -u | tr '\n' ' '
}

"$plain_cc" -O2 -fopenmp vm.c main.c -o ref
./ref > ref.stdout 2>&1
if calls_in ref vm_run | grep -q vm_push; then
    skip "vm_push inlined as in the plain build" "$plain_cc -O2 does not inline it here"
else
    # build NAME FLAGS...: built with no message at all, output equal to the plain build's
    build() {
        local name=$1; shift
        "$bin/cprof-cc" -O2 -fopenmp "$@" vm.c main.c -o "$name" > "$name.msg" 2>&1; local st=$?
        check "$name: builds with $*, no message" "status $st" "$(indent "$name.msg")" -- [ $st = 0 -a ! -s "$name.msg" ]
        CPROF_OUT=$tmp/$name.out ./"$name" > "$name.stdout" 2>&1
        check "$name: output equals $plain_cc's" "$(diff ref.stdout "$name.stdout" | head -5)" -- cmp -s ref.stdout "$name.stdout"
        "$bin/cprof-report" --json "$name.out" > "$name.json"
        expect_jq "$name: vm_push, vm_pop counted: 200 + 1 from main.c, 200" "$name.json" \
            '[r("vm_push"), r("vm_pop") | [.counted, .s_caller]]' '[[true,201],[true,200]]'
    }
    build hinted -Wall -Wextra -pedantic -Werror
    check "hinted: vm_run calls neither vm_push nor vm_pop (inlined)" "vm_run calls: $(calls_in hinted vm_run)" \
        -- sh -c "! objdump -d hinted | awk '/<vm_run>:/,/^\$/' | grep -q 'call.*<vm_p'"
    check "hinted: vm_push still defined for main.c" -- sh -c "nm hinted | grep -q ' T vm_push$'"
    # -Winline: no hint (gcc would warn of a hinted routine it does not inline), the
    # same counts.
    build winline -Wall -Winline -Werror
    mkdir keep
    TMPDIR=$tmp/keep CPROF_KEEP_TEMPS=1 CPROF_SERVER=0 "$bin/cprof-cc" -O2 -Winline -fopenmp -c vm.c -o kept.o
    TMPDIR=$tmp/keep CPROF_KEEP_TEMPS=1 CPROF_SERVER=0 "$bin/cprof-cc" -O2 -fopenmp -c vm.c -o kept2.o
    check "the hint is seen in the kept text (-O2): vm_push and vm_pop declared inline" \
        "$(grep -h '__inline__ __typeof__' keep/*/*/*.cprof.i | head -3)" \
        -- [ "$(grep -h '^__inline__ __typeof__' keep/*/*/*.cprof.i | sort | tr '\n' ' ')" \
        = "__inline__ __typeof__(vm_pop) vm_pop; __inline__ __typeof__(vm_push) vm_push; " ]
    check "winline: no inline declaration added" "$(ls keep/*/*/*.cprof.i)" \
        -- [ "$(grep -l '__inline__ __typeof__' keep/*/*/*.cprof.i | wc -l)" = 1 ]
fi
finish
