#!/usr/bin/env bash
# Untimed calls of leaf routines counted at their sites (docs/semantics.md, "Sampled
# timing"; docs/rewriting.md): a passing site of a leaf defined before it calls the
# leaf's copy without its hook on the calls the runtime leaves untimed.  The class: the
# shapes of a leaf (returning int, void, a struct; a pointer argument; __func__ inside)
# and of a call (an argument with a side effect, with a call, a bit-field; a parallel
# loop's cache; a call before the definition; default(none)), and the routines that
# must keep the handshake (a static local, variadic, an old-style definition).  Each
# build prints what gcc's prints; the sites marked AT count at the site, no other; the
# counts, cases, arcs and contexts are the same sampled, every-call and counting; a
# unit of a shared object (-fPIC) does the same.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > leaf.c <<'EOF'
#include <stdarg.h>
#include <stdio.h>
struct pair { long a, b; };
struct bits { unsigned f : 5, g : 3; };
int later(int x);
int early(int n) { return later(n) + 1; }                      /* NOT: before later's definition */
int sq(int x) { return x * x + 1; }
static void bump(long *p) { *p += 3; }
__attribute__((noinline)) struct pair mk(long a, long b) { struct pair p = { a + b, a - b }; return p; }
const char *who(void) { return __func__; }
int counter(void) { static int n; return ++n; }
int vsum(int n, ...) { va_list ap; int s = 0; va_start(ap, n); while (n--) s += va_arg(ap, int); va_end(ap); return s; }
int old(x) int x; { return x + 2; }
int later(int x) { return x - 1; }
int main(void)
{
    long s = 0, cells[4] = { 0 };
    struct bits b = { 7, 2 };
    int k = 0;
    for (int i = 0; i < 100000; i++) {
        s += sq(i & 1023);                                      /* AT */
        bump(&cells[k++ & 3]);                                  /* AT */
        s += sq(sq(i & 7));                                     /* AT AT */
        s += mk(i, 3).b;                                        /* AT */
        s += counter();                                         /* NOT: a static local */
        s += vsum(2, i, 1);                                     /* NOT: variadic */
        s += old(i);                                            /* NOT: old-style */
        s += sq(b.f) + later(b.g);                              /* AT AT */
    }
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 20000; i++)
        s += sq(i & 255);                                       /* AT */
#pragma omp parallel for reduction(+:s) default(none)
    for (int i = 0; i < 20000; i++)
        s += sq(i & 255);                                       /* NOT: default(none) */
    s += early(5);
    printf("%ld %ld %ld %ld %ld %s %d\n", s, cells[0], cells[1], cells[2], cells[3], who(), k); /* AT */
    return 0;
}
EOF

# The lines whose sites count their untimed calls (one entry per site on the line).
grep -n '/\* AT' leaf.c | while IFS=: read -r n rest; do
    for w in $rest; do [ "$w" = AT ] && echo "$n"; done
done | jq -s -c . > at_lines.json

"$plain_cc" -O2 -fopenmp leaf.c -o ref 2> ref.err && ./ref > ref.stdout
check "the plain build runs" "$(indent ref.err)" -- test -s ref.stdout

# build NAME FLAGS...: no message, the plain build's output, its profile and report
"$bin/cprof-cc" -O2 -fopenmp -fcprof-small=0 -Wall -Wextra -pedantic -Werror -Wno-old-style-definition \
    leaf.c -o prog > cc.msg 2>&1
st=$?
check "builds with -Wall -Wextra -pedantic -Werror, no message" "status $st" "$(indent cc.msg)" -- \
    [ $st = 0 -a ! -s cc.msg ]
run() {
    local name=$1; shift
    env "$@" CPROF_OUT="$tmp/$name.out" ./prog > "$name.stdout" 2> "$name.stderr"
    check "$name: output and stderr are the plain build's" "$(diff ref.stdout "$name.stdout" | head -5)" \
        "$(indent "$name.stderr")" -- sh -c 'cmp -s "$1" "$2" && [ ! -s "$3" ]' _ ref.stdout "$name.stdout" "$name.stderr"
    "$bin/cprof-report" --json "$name.out" > "$name.json" 2> "$name.rerr"
    check "$name: reported" "$(indent "$name.rerr")" -- has_routines "$name.json"
}
run sampled CPROF_TIMING=sampled
run every CPROF_TIMING=every
run count CPROF_MODE=count

expect_jq "the sites that count their untimed calls: those marked AT, no other" sampled.out \
    "[.sites[] | select(.untimed_at_site) | .line] | sort" "$(cat at_lines.json)"
expect_jq "every-call and counting runs' profiles mark the same sites" every.out \
    "[.sites[] | select(.untimed_at_site) | .line] | sort" "$(cat at_lines.json)"
# sq: 100000 + 2 x 100000 + 100000 (b.f) + 2 x 20000 in the loops
expect_jq "sampled: sq's calls, all of them" sampled.json '[r("sq") | .s_caller + (.c_caller | add)]' '[440000]'
expect_jq "sampled: sq's calls from the first loop's sites are sampled (fewer than half timed)" \
    sampled.out '(.routines | map(.name)) as $n | .columns.sampled as $sc
      | [.workers[].sampled[] | [$sc, .] | transpose | map({(.[0]): .[1]}) | add
         | select($n[.callee] == "sq" and .calls == 100000 and .timed < 50000)] | length >= 1' 'true'
# The counts, cases, arcs and contexts are the same in the three runs (counting keeps
# no contexts: its routines and arcs).
check "sampled and every: the same counts, cases, arcs and contexts" -- \
    python3 "$root/tests/lib/same_profile.py" sampled.json every.json
counts='[[.routines[] | [.name, .s_caller, .c_caller]], [.arcs[] | [.caller, .callee, .s_callarc, .c_callarc]]]'
expect_jq "sampled and count: the same routines' and arcs' calls by case" count.json "$counts" \
    "$(jqv sampled.json "$counts")"

# The site's path is taken: of a loop's 20000 calls of a leaf, those the runtime leaves
# untimed (the sampled row's calls less its timed ones: most of them) count at the site,
# save the ones the facade counts, each of which fills the site's slot: fill_leaf runs
# once (gdb's count of a breakpoint there, which no timed activation holds: breakpoints
# in the loop itself would slow the timed calls after each stop, and the rule with them).
cat > hot.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) int f(int x) { return x * 3 + 1; }
int main(void)
{
    long s = 0;
    for (int i = 0; i < 20000; i++)
        s += f(i);
    printf("%ld\n", s);
    return 0;
}
EOF
"$bin/cprof-cc" -O2 hot.c -o hot > hot.msg 2>&1
check "hot: built" "$(indent hot.msg)" -- test -x hot
CPROF_OUT=$tmp/hot.out gdb -batch -ex 'break fill_leaf' -ex run -ex 'ignore 1 100000' -ex continue \
    -ex 'info breakpoints' ./hot > gdb.txt 2>&1
fills=$(awk '/already hit/ { print $4 }' gdb.txt)
untimed=$(jq '[.columns.sampled as $c | .workers[].sampled[] | [$c, .] | transpose
               | map({(.[0]): .[1]}) | add | .calls - .timed - .exact] | add // 0' hot.out 2> /dev/null)
check "hot: over 10000 untimed calls, the site's slot filled once (all but one counted at the site)" \
    "untimed: $untimed, fills: ${fills:-none}" "$(indent gdb.txt)" -- \
    sh -c '[ "$1" -gt 10000 ] && [ "$2" = 1 ]' _ "${untimed:-0}" "${fills:-0}"

# The slots' TLS model: static in a program's unit, initial-exec (gcc 12 folded
# local-exec addresses into examples/md's loop with a displacement ld could not fit;
# clang makes it local-exec, which it may), and dynamic under -fpic and -fPIC, whose
# unit may go into a shared object loaded by dlopen, with no room left for static TLS.
# The assembly's relocations of __cprof_l say which.
for pic in "" -fpic -fPIC -fno-pic; do
    "$bin/cprof-cc" -O2 -fopenmp -fcprof-small=0 $pic -S -Wno-old-style-definition leaf.c -o leaf.s 2> s.err
    models=$(grep -io '__cprof_l@[a-z]*' leaf.s | tr 'A-Z' 'a-z' | sort -u | tr '\n' ' ')
    case $pic in
    -fpic|-fPIC) want=dynamic; ok='^(__cprof_l@(tlsld|tlsgd|dtpoff) )+$' ;;
    *) want=static; ok="^(__cprof_l@(gottpoff$([ "$plain_cc" = gcc ] || echo '|tpoff')) )+$" ;;
    esac
    check "${pic:-no -fpic}: the slots' TLS model is $want" "$(indent s.err)" "relocations: $models" -- \
        sh -c 'echo "$1" | grep -Eq "$2"' _ "$models" "$ok"
done

# A unit of a shared object (-fPIC): the same program's output and counts, and no
# static TLS needed (readelf: no STATIC_TLS flag).
sed 's/^int main(void)/int lib_main(void)/' leaf.c > lib.c
printf 'int lib_main(void);\nint main(void) { return lib_main(); }\n' > main.c
"$bin/cprof-cc" -O2 -fopenmp -fcprof-small=0 -fPIC -shared -Wno-old-style-definition lib.c -o libleaf.so > so.msg 2>&1 &&
    "$bin/cprof-cc" -O2 -fopenmp main.c -L. -lleaf -Wl,-rpath,"$tmp" -o shared > so2.msg 2>&1
check "a shared object (-fPIC): builds, no message" "$(indent so.msg)" "$(indent so2.msg)" -- \
    [ -x shared -a ! -s so.msg -a ! -s so2.msg ]
check "a shared object: no static TLS (dlopen finds room)" "$(readelf -d libleaf.so | grep -i flags)" -- \
    sh -c '! readelf -d libleaf.so | grep -q STATIC_TLS'
CPROF_OUT=$tmp/shared.out ./shared > shared.stdout 2> shared.stderr
check "a shared object: the plain build's output" "$(diff ref.stdout shared.stdout | head -5)" -- \
    cmp -s ref.stdout shared.stdout
"$bin/cprof-report" --json shared.out > shared.json 2>&1
expect_jq "a shared object: its leaf sites count their untimed calls, sq's calls all there" shared.json \
    '[r("sq") | .s_caller + (.c_caller | add)]' '[440000]'
expect_jq "a shared object: the same sites marked" shared.out \
    "[.sites[] | select(.untimed_at_site) | .line] | sort" "$(cat at_lines.json)"
finish
