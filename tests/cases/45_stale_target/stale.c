/* A call through a pointer to code cprof did not compile leaves its site's target
 * pending; that code is unmapped before the next profiled entry, which comes from
 * outside (a qsort comparator).  The entry's slow path, which may follow a PLT entry
 * (plt.c), must not read the unmapped target. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        puts("no executable mapping");
        return 0;
    }
#if defined(__x86_64__) || defined(__i386__)
    code[0] = 0xc3;     /* ret */
    void (*generated)(void) = (void (*)(void))code;
    generated();
#endif
    munmap(code, 4096);
    int a[2] = { 7, 3 };
    qsort(a, 2, sizeof *a, cmp);
    printf("%d %d\n", a[0], a[1]);
    return 0;
}
