/* An ifunc: sel is bound at load time to what its resolver returns.  The resolver runs
 * while the dynamic linker relocates the program, before thread-local storage is set up. */
#include <stdio.h>
#include <unistd.h>

static int calls_a, calls_b;

int impl_a(int x)
{
    calls_a++;
    return x + 1;
}

int impl_b(int x)
{
    calls_b++;
    return x + 2;
}

static int prefer_b(void) { return 0; }

/* used: clang does not take the ifunc attribute below for a use (-Wunused-function). */
__attribute__((used)) static int (*resolve_sel(void))(int)
{
    return prefer_b() ? impl_b : impl_a;
}

int sel(int x) __attribute__((ifunc("resolve_sel")));

int main(void)
{
    int s = 0;
    for (int i = 0; i < 5; i++)
        s += sel(i);
    int (*volatile p)(int) = sel;
    s += p(10);
    s += impl_a(20);
#pragma omp parallel for reduction(+:s) schedule(static)
    for (int i = 0; i < 4; i++)
        s += sel(i);
    printf("%d %d %d\n", s, calls_a, calls_b);
    FILE *f = fopen("measured.json", "w");
    if (f) {
        fprintf(f, "{\"pid\": %ld}\n", (long)getpid());
        fclose(f);
    }
    return 0;
}
