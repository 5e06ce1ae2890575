#!/usr/bin/env bash
# The program's own signals (docs/resources.md, "The program's signals"): with CPU time
# and context switches sampled (two of cprof's signals) beside the overhead's samples
# (docs/overhead.md: the third), a handler the program installs for
# a realtime signal gets exactly the signals the program sends it, never cprof's
# samples, whichever signal (each one cprof picks, the next it would move to, and the
# issue's SIGRTMIN+5), whenever (before the runtime starts, in a library's constructor;
# in a constructor of the program's; in main; in a thread) and however (signal(),
# sigaction()).  The samples go on; a move of cprof's signal is said in the resource's
# or the overhead's reason, and a program that takes every realtime signal stops the sampling, said too.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

# The program: SIG_TEST="WHEN API OFFSET" (the signal SIGRTMAX - OFFSET, or SIGRTMIN+5
# for OFFSET "min5"): installs a counting handler then, spins and sleeps while cprof
# samples, sends itself 5 of the signal and prints how many its handlers got.  Before
# the runtime starts is a library's constructor (built by gcc: its calls are libc's);
# the rest is the program's, its calls cprof-cc's wrappers'.
cat > sigtest.h <<'EOF'
#include <signal.h>
#include <stdlib.h>
#include <string.h>
static volatile sig_atomic_t got;
static void counted(int sig) { (void)sig; got++; }
static void counted_info(int sig, siginfo_t *si, void *uc) { (void)sig, (void)si, (void)uc; got++; }
static int test_sig(void)
{
    const char *t = getenv("SIG_TEST"), *off = strrchr(t, ' ') + 1;
    return strcmp(off, "min5") ? SIGRTMAX - atoi(off) : SIGRTMIN + 5;
}
static void take_if(const char *when)
{
    const char *t = getenv("SIG_TEST");
    if (strncmp(t, when, strlen(when)) || t[strlen(when)] != ' ')
        return;
    if (strstr(t, " signal ")) {
        signal(test_sig(), counted);
    } else {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = counted_info;
        sa.sa_flags = SA_SIGINFO;
        sigaction(test_sig(), &sa, 0);
    }
}
EOF
cat > early.c <<'EOF'
#include "sigtest.h"
__attribute__((constructor)) static void early(void) { take_if("before"); }
int early_got(void) { return got; }
EOF
cat > main.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "sigtest.h"
int early_got(void);
__attribute__((constructor)) static void ctor(void) { take_if("ctor"); }
double spin(long n)
{
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    return x;
}
/* A signal taken in a thread as it starts, the run's work after it (main waits
 * meanwhile): sampling stopped at the move would have seen almost none of it. */
static void *later(void *arg)
{
    (void)arg;
    take_if("thread");
    spin(30000000);
    return 0;
}
int main(void)
{
    take_if("main");
    pthread_t t;
    pthread_create(&t, 0, later, 0);
    pthread_join(t, 0);
    for (int i = 0; i < 20; i++) {
        spin(2000000);
        usleep(1000);
    }
    for (int i = 0; i < 5; i++)
        raise(test_sig());
    printf("the handlers got %d of the 5 signals sent\n", (int)got + early_got());
    return 0;
}
EOF
"$plain_cc" -O1 -fPIC -shared early.c -o libearly.so
"$plain_cc" -O1 main.c -o plain -L. -learly -Wl,-rpath,"$tmp" -lpthread
"$bin/cprof-cc" -O1 main.c -o prof -L. -learly -Wl,-rpath,"$tmp" -lpthread 2> cc.err ||
    nok "cprof-cc compiles the program" "$(indent cc.err)"

# cprof's picks with cpu and csw sampled: the monitor SIGRTMAX, the samples SIGRTMAX-1,
# the overhead's SIGRTMAX-2; taken after the start, each moves to SIGRTMAX-3, the next.
for when in before ctor main thread; do
    for api in signal sigaction; do
        for off in 0 1 2 3 min5; do
            export SIG_TEST="$when $api $off"
            name="$when, $api, $( [ "$off" = min5 ] && echo SIGRTMIN+5 || echo "SIGRTMAX-$off" | sed 's/-0$//')"
            want=$(./plain)
            got=$(CPROF_RESOURCES=cpu:100000,csw:1 CPROF_OUT=$tmp/p.out /usr/bin/time -f %U -o user.txt ./prof 2> err)
            check "$name: the handler gets exactly the program's signals, as under gcc" \
                "$plain_cc's:   $want" "cprof's: $got" "$(indent err)" -- [ "$got" = "$want" ]
            "$bin/cprof-report" --json p.out > p.json 2> rep.err ||
                { nok "$name: a profile cprof-report reads" "$(indent rep.err)"; continue; }
            # The moves said: the resource whose signal the program took (after the start).
            took="from S s on: the program's $api took"
            case $when/$off in
                before/*|*/2|*/3|*/min5) moved='{"cpu":null,"csw":null}' ;;
                */0) moved='{"cpu":null,"csw":"sampled with SIGRTMAX-3 (61) '$took' SIGRTMAX (64), cprof'"'"'s signal until then"}' ;;
                */1) moved='{"cpu":"sampled with SIGRTMAX-3 (61) '$took' SIGRTMAX-1 (63), cprof'"'"'s signal until then","csw":null}' ;;
            esac
            expect_jq "$name: the resources' reasons say the move, if any" p.json \
                '[.resources[] | {(.name): (.reason | if . then sub("from [0-9.]+ s"; "from S s") else . end)}] | add' "$moved"
            case $when/$off in
                before/*|*/[013]|*/min5) moved=null ;;
                */2) moved='"sampled with SIGRTMAX-3 (61) '$took' SIGRTMAX-2 (62), cprof'"'"'s signal until then"' ;;
            esac
            expect_jq "$name: the overhead's reason says the move, if any" p.out \
                '.overhead.reason | if . then sub("from [0-9.]+ s"; "from S s") else . end' "$moved"
            # The overhead's samples went on: one each period_ns of user-mode CPU (not the
            # kernel's, which sampling at 0.1 ms makes large), against the run's user time
            # (tick-based, so rough under 10,000 signals a second; on a quiet machine 60%
            # to 130% of it, and lower on a busy one: 10%).  Sampling stopped by the move
            # would have seen almost none of the run, whose work all follows the move
            # (main.c).
            expect_jq "$name: the overhead's samples went on (at least 10% of the user CPU time)" p.out \
                "[.overhead.samples, .overhead.period_ns * .overhead.samples >= 0.1 * $(cat user.txt) * 1e9]" \
                "[$(jq .overhead.samples p.out), true]"
            # The samples went on: the spin loop's CPU samples against the CPU time the
            # workers counted, in the same run.
            expect_jq "$name: the CPU samples went on (at least 80% of the workers' CPU time)" p.json \
                '.resources[] | select(.name == "cpu") | ([.routines[] | .s_samples + .c_samples] + [.outside[][]] | add) * .period >= 0.8 * (.totals | add)' true
        done
    done
done
unset SIG_TEST

# Every realtime signal taken in main: sampling stops, said with the time.
cat > all.c <<'EOF'
#include <signal.h>
#include <stdio.h>
static volatile sig_atomic_t got[65];
static void on(int s) { got[s]++; }
double spin(long n) { volatile double x = 0; for (long i = 0; i < n; i++) x += (double)i * 0.5; return x; }
int main(void)
{
    spin(20000000);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
        signal(s, on);
    spin(20000000);
    int total = 0;
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) {
        raise(s);
        total += got[s];
    }
    printf("%d signals for %d sent\n", total, SIGRTMAX - SIGRTMIN + 1);
    return 0;
}
EOF
"$plain_cc" -O1 all.c -o all.plain
"$bin/cprof-cc" -O1 all.c -o all 2> cc.err || nok "cprof-cc compiles all.c" "$(indent cc.err)"
want=$(./all.plain)
got=$(CPROF_RESOURCES=cpu:100000,csw:1 CPROF_OUT=$tmp/a.out ./all)
check "every realtime signal taken: each handler gets the program's own only" "$plain_cc's: $want" "cprof's: $got" -- [ "$got" = "$want" ]
"$bin/cprof-report" --json a.out > a.json
expect_jq "every realtime signal taken: the reasons say from when nothing was sampled" a.json \
    '[.resources[] | .reason | sub("from [0-9.]+ s"; "from S s")]' \
    '["not sampled from S s on: the program'"'"'s signal took SIGRTMAX-1 (63), and no realtime signal was left free", "not sampled from S s on: the program'"'"'s signal took SIGRTMAX (64), and no realtime signal was left free"]'
"$bin/cprof-report" a.out > a.txt
check "the summary says it" "$(indent a.txt 30)" -- grep -q "^Resource cpu: not sampled from [0-9.]* s on: the program's signal took SIGRTMAX-1 (63)" a.txt
expect_jq "every realtime signal taken: the overhead's reason says from when nothing was sampled" a.out \
    '.overhead.reason | sub("from [0-9.]+ s"; "from S s")' \
    '"not sampled from S s on: the program'"'"'s signal took SIGRTMAX-2 (62), and no realtime signal was left free"'
check "the summary says the overhead's" "$(indent a.txt 30)" -- \
    grep -q "overhead, measured: not sampled from [0-9.]* s on: the program's signal took SIGRTMAX-2 (62)" \
    <(tr '\n' ' ' < a.txt)
finish
