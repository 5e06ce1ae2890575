/* interp: a stack-machine bytecode interpreter running small programs on many inputs.
 *
 * Computes: for each of INPUTS inputs k, one of three interpreted programs (chosen by
 * k % 3) on an argument drawn from k: the recursive Fibonacci number fib(n), the
 * number of Collatz steps from n to 1, and the sum of gcd(n, i) for i = 1..n with gcd
 * an interpreted call.  The bytecode is assembled at start-up by a tiny assembler with
 * labels.
 *
 * Shape: a `parallel for` (schedule(dynamic)) over the inputs, each run by its own
 * machine; the interpreter is written as many small non-static routines, as an
 * interpreter like Lua's is (vm_push, vm_pop, vm_fetch, the arithmetic ops, vm_call and
 * vm_ret for the interpreted program's calls and returns, vm_step dispatching one
 * instruction): hundreds of millions of calls of routines of a few instructions, which
 * gcc inlines into vm_step and vm_run in a plain build.
 *
 * Checks: every result is computed again natively in C and must be equal; the results
 * go to one slot per input and are summed in order afterwards (integers), so every
 * printed number is independent of the thread count.  Exit status 0 if the checks pass,
 * 1 otherwise.
 *
 * INPUTS and FIB_MAX can be set at compile time (-DINPUTS=...) for a smaller run.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef INPUTS
#define INPUTS 12000
#endif
#ifndef FIB_MAX
#define FIB_MAX 18              /* fib's argument is 10..FIB_MAX */
#endif
#define STACK 4096
#define FRAMES 256
#define CODE 512

enum op { PUSH, LOAD, STORE, ADD, SUB, MUL, DIV, MOD, LT, EQ, JMP, JZ, CALL, RET, HALT };

/* A value of the interpreted language: an integer or a float, as in Lua. */
struct value {
    int is_float;
    union {
        long i;
        double f;
    };
};

struct frame {
    int ret_pc, fp, nargs;
};

struct vm {
    const int *code;
    int pc, sp, fp, depth;
    long steps;
    struct value stack[STACK];
    struct frame frames[FRAMES];
};

/* ---- the machine's helpers: small and not static, as in a real interpreter ---- */

void vm_error(struct vm *m, const char *what)
{
    fprintf(stderr, "interp: %s at pc %d\n", what, m->pc);
    exit(2);
}

void vm_push(struct vm *m, struct value v)
{
    if (m->sp == STACK)
        vm_error(m, "stack overflow");
    m->stack[m->sp++] = v;
}

struct value vm_pop(struct vm *m)
{
    if (m->sp == m->fp)
        vm_error(m, "stack underflow");
    return m->stack[--m->sp];
}

int vm_fetch(struct vm *m)
{
    return m->code[m->pc++];
}

struct value int_value(long i)
{
    return (struct value){ .is_float = 0, .i = i };
}

double to_float(struct value v)
{
    return v.is_float ? v.f : (double)v.i;
}

/* Arithmetic: integers stay integers; a float operand makes the result a float. */
struct value op_arith(struct vm *m, int op, struct value a, struct value b)
{
    if (!a.is_float && !b.is_float) {
        switch (op) {
        case ADD: return int_value(a.i + b.i);
        case SUB: return int_value(a.i - b.i);
        case MUL: return int_value(a.i * b.i);
        case DIV: if (b.i == 0) vm_error(m, "division by zero"); return int_value(a.i / b.i);
        default: if (b.i == 0) vm_error(m, "modulo by zero"); return int_value(a.i % b.i);
        }
    }
    double x = to_float(a), y = to_float(b), r;
    switch (op) {
    case ADD: r = x + y; break;
    case SUB: r = x - y; break;
    case MUL: r = x * y; break;
    case DIV: r = x / y; break;
    default: r = fmod(x, y); break;
    }
    return (struct value){ .is_float = 1, .f = r };
}

int op_less(struct value a, struct value b)
{
    if (!a.is_float && !b.is_float)
        return a.i < b.i;
    return to_float(a) < to_float(b);
}

int op_equal(struct value a, struct value b)
{
    if (a.is_float == b.is_float)
        return a.is_float ? a.f == b.f : a.i == b.i;
    return to_float(a) == to_float(b);
}

int is_false(struct value v)
{
    return v.is_float ? v.f == 0 : v.i == 0;
}

/* A binary operation: pops b then a, pushes a OP b. */
void vm_binary(struct vm *m, int op)
{
    struct value b = vm_pop(m);
    struct value a = vm_pop(m);
    switch (op) {
    case LT: vm_push(m, int_value(op_less(a, b))); break;
    case EQ: vm_push(m, int_value(op_equal(a, b))); break;
    default: vm_push(m, op_arith(m, op, a, b)); break;
    }
}

/* Argument or local i of the current frame. */
struct value *vm_slot(struct vm *m, int i)
{
    if (m->fp + i >= m->sp)
        vm_error(m, "bad slot");
    return &m->stack[m->fp + i];
}

/* CALL target nargs: the arguments are the top nargs values; one local is reserved. */
void vm_call(struct vm *m, int target, int nargs)
{
    if (m->depth == FRAMES)
        vm_error(m, "call depth exceeded");
    m->frames[m->depth++] = (struct frame){ m->pc, m->fp, nargs };
    m->fp = m->sp - nargs;
    vm_push(m, int_value(0));
    m->pc = target;
}

/* RET: the result replaces the frame's arguments and locals. */
void vm_ret(struct vm *m)
{
    struct value v = vm_pop(m);
    struct frame f = m->frames[--m->depth];
    m->sp = m->fp;
    m->fp = f.fp;
    m->pc = f.ret_pc;
    vm_push(m, v);
}

/* Executes one instruction; returns 0 at HALT. */
int vm_step(struct vm *m)
{
    m->steps++;
    int op = vm_fetch(m);
    switch (op) {
    case PUSH: vm_push(m, int_value(vm_fetch(m))); break;
    case LOAD: vm_push(m, *vm_slot(m, vm_fetch(m))); break;
    case STORE: { int i = vm_fetch(m); struct value v = vm_pop(m); *vm_slot(m, i) = v; break; }
    case ADD: case SUB: case MUL: case DIV: case MOD: case LT: case EQ: vm_binary(m, op); break;
    case JMP: m->pc = vm_fetch(m); break;
    case JZ: { int t = vm_fetch(m); if (is_false(vm_pop(m))) m->pc = t; break; }
    case CALL: { int t = vm_fetch(m); vm_call(m, t, vm_fetch(m)); break; }
    case RET: vm_ret(m); break;
    case HALT: return 0;
    default: vm_error(m, "bad opcode");
    }
    return 1;
}

/* Runs the program at entry on one argument; returns its (integer) result. */
long vm_run(struct vm *m, const int *code, int entry, long arg, long *steps)
{
    m->code = code;
    m->sp = m->fp = m->depth = 0;
    m->steps = 0;
    m->pc = entry;
    vm_push(m, int_value(arg));
    while (vm_step(m))
        ;
    *steps += m->steps;
    struct value v = vm_pop(m);
    if (v.is_float)
        vm_error(m, "a float result");
    return v.i;
}

/* ---- the assembler: labels resolved when the code is finished ---- */

static int code[CODE], ncode;
static int label_at[16], fixup_at[64], fixup_label[64], nfixup;

static void emit(int x) { code[ncode++] = x; }
static void label(int l) { label_at[l] = ncode; }
static void emit_ref(int l)
{
    fixup_at[nfixup] = ncode;
    fixup_label[nfixup++] = l;
    emit(-1);
}

enum { FIB, FIB_BASE, COLLATZ, C_LOOP, C_EVEN, C_NEXT, C_END, GCD, G_LOOP, G_END,
       GCDSUM, S_LOOP, S_END, MAIN_FIB, MAIN_COLLATZ, MAIN_GCDSUM };

static void assemble(void)
{
    /* main stubs: the argument is slot 0 of a frame-less call: CALL f 1; HALT. */
    label(MAIN_FIB); emit(CALL); emit_ref(FIB); emit(1); emit(HALT);
    label(MAIN_COLLATZ); emit(CALL); emit_ref(COLLATZ); emit(1); emit(HALT);
    label(MAIN_GCDSUM); emit(CALL); emit_ref(GCDSUM); emit(1); emit(HALT);
    /* fib(n): n < 2 ? n : fib(n - 1) + fib(n - 2) */
    label(FIB);
    emit(LOAD); emit(0); emit(PUSH); emit(2); emit(LT); emit(JZ); emit_ref(FIB_BASE);
    emit(LOAD); emit(0); emit(RET);
    label(FIB_BASE);
    emit(LOAD); emit(0); emit(PUSH); emit(1); emit(SUB); emit(CALL); emit_ref(FIB); emit(1);
    emit(LOAD); emit(0); emit(PUSH); emit(2); emit(SUB); emit(CALL); emit_ref(FIB); emit(1);
    emit(ADD); emit(RET);
    /* collatz(n): slot 1 counts the steps until n == 1 */
    label(COLLATZ);
    label(C_LOOP);
    emit(LOAD); emit(0); emit(PUSH); emit(1); emit(EQ); emit(JZ); emit_ref(C_NEXT);
    emit(JMP); emit_ref(C_END);
    label(C_NEXT);
    emit(LOAD); emit(0); emit(PUSH); emit(2); emit(MOD); emit(JZ); emit_ref(C_EVEN);
    emit(LOAD); emit(0); emit(PUSH); emit(3); emit(MUL); emit(PUSH); emit(1); emit(ADD);
    emit(STORE); emit(0);
    emit(LOAD); emit(1); emit(PUSH); emit(1); emit(ADD); emit(STORE); emit(1);
    emit(JMP); emit_ref(C_LOOP);
    label(C_EVEN);
    emit(LOAD); emit(0); emit(PUSH); emit(2); emit(DIV); emit(STORE); emit(0);
    emit(LOAD); emit(1); emit(PUSH); emit(1); emit(ADD); emit(STORE); emit(1);
    emit(JMP); emit_ref(C_LOOP);
    label(C_END);
    emit(LOAD); emit(1); emit(RET);
    /* gcd(a, b): Euclid; slot 2 is the local reserved by CALL, used as t */
    label(GCD);
    label(G_LOOP);
    emit(LOAD); emit(1); emit(PUSH); emit(0); emit(EQ); emit(JZ); emit_ref(G_END);
    emit(LOAD); emit(0); emit(RET);
    label(G_END);
    emit(LOAD); emit(0); emit(LOAD); emit(1); emit(MOD); emit(STORE); emit(2);
    emit(LOAD); emit(1); emit(STORE); emit(0);
    emit(LOAD); emit(2); emit(STORE); emit(1);
    emit(JMP); emit_ref(G_LOOP);
    /* gcdsum(n): slot 1 is i, counting down; the sum is kept on the stack */
    label(GCDSUM);
    emit(LOAD); emit(0); emit(STORE); emit(1);
    emit(PUSH); emit(0);
    label(S_LOOP);
    emit(LOAD); emit(1); emit(PUSH); emit(0); emit(EQ); emit(JZ); emit_ref(S_END);
    emit(RET);
    label(S_END);
    emit(LOAD); emit(0); emit(LOAD); emit(1); emit(CALL); emit_ref(GCD); emit(2); emit(ADD);
    emit(LOAD); emit(1); emit(PUSH); emit(1); emit(SUB); emit(STORE); emit(1);
    emit(JMP); emit_ref(S_LOOP);
    for (int f = 0; f < nfixup; f++)
        code[fixup_at[f]] = label_at[fixup_label[f]];
}

/* ---- the same programs in C, for the check ---- */

static long fib_ref(long n) { return n < 2 ? n : fib_ref(n - 1) + fib_ref(n - 2); }

static long collatz_ref(long n)
{
    long steps = 0;
    for (; n != 1; steps++)
        n = n % 2 ? 3 * n + 1 : n / 2;
    return steps;
}

static long gcdsum_ref(long n)
{
    long s = 0;
    for (long i = n; i > 0; i--) {
        long a = n, b = i;
        while (b) {
            long t = a % b;
            a = b;
            b = t;
        }
        s += a;
    }
    return s;
}

static uint64_t hash(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Input k: the program and its argument. */
static int program_of(long k) { return (int)(k % 3); }

static long argument_of(long k)
{
    uint64_t h = hash((uint64_t)k + 1);
    switch (program_of(k)) {
    case 0: return 10 + (long)(h % (FIB_MAX - 9));
    case 1: return 1 + (long)(h % 100000);
    default: return 1 + (long)(h % 300);
    }
}

static long result[INPUTS], steps_of[INPUTS];

int main(void)
{
    assemble();
    static const int entry[3] = { MAIN_FIB, MAIN_COLLATZ, MAIN_GCDSUM };
    int entry_pc[3];
    for (int p = 0; p < 3; p++)
        entry_pc[p] = label_at[entry[p]];

    #pragma omp parallel
    {
        struct vm *m = malloc(sizeof *m);
        #pragma omp for schedule(dynamic, 16)
        for (long k = 0; k < INPUTS; k++) {
            steps_of[k] = 0;
            result[k] = vm_run(m, code, entry_pc[program_of(k)], argument_of(k), &steps_of[k]);
        }
        free(m);
    }

    long sum[3] = { 0, 0, 0 }, steps = 0, wrong = 0;
    uint64_t digest = 0;
    for (long k = 0; k < INPUTS; k++) {
        long n = argument_of(k), ref;
        int p = program_of(k);
        ref = p == 0 ? fib_ref(n) : p == 1 ? collatz_ref(n) : gcdsum_ref(n);
        if (result[k] != ref) {
            if (wrong++ < 5)
                printf("FAILED: input %ld (program %d, argument %ld): %ld, not %ld\n", k, p, n,
                       result[k], ref);
        }
        sum[p] += result[k];
        steps += steps_of[k];
        digest += hash((uint64_t)result[k] ^ (uint64_t)k);
    }
    printf("%d inputs, %ld instructions interpreted\n", INPUTS, steps);
    printf("sums: fib %ld, collatz steps %ld, gcd sums %ld; digest %016llx\n", sum[0], sum[1],
           sum[2], (unsigned long long)digest);
    if (wrong) {
        printf("FAILED: %ld of %d results differ from C\n", wrong, INPUTS);
        return 1;
    }
    printf("ok (every result equal to C's)\n");
    return 0;
}
