/* libcalls.c: library calls that read or write the program's memory, as accesses of
 * their ranges (docs/input-size.md).  cprof-cc -fcprof-input-size links the program
 * with -Wl,--wrap=NAME for each of them, so that the calls the program's objects make
 * reach these wrappers, which record the range and call the library's function.  The
 * runtime's own calls (inside it) are not recorded.  Not in libcprof.so: only a link
 * with --wrap defines the __real_ names. */
#include <string.h>
#include "sizes.h"

#define REAL(ret, name, params) ret __real_##name params; ret __wrap_##name params;

REAL(void *, memcpy, (void *d, const void *s, size_t n))
REAL(void *, memmove, (void *d, const void *s, size_t n))
REAL(void *, memset, (void *d, int c, size_t n))
REAL(int, memcmp, (const void *a, const void *b, size_t n))
REAL(size_t, strlen, (const char *s))
REAL(int, strcmp, (const char *a, const char *b))
REAL(int, strncmp, (const char *a, const char *b, size_t n))
REAL(char *, strcpy, (char *d, const char *s))

void *__wrap_memcpy(void *d, const void *s, size_t n)
{
    cprof_sizes_access(s, n, 0);
    cprof_sizes_access(d, n, 1);
    return __real_memcpy(d, s, n);
}

void *__wrap_memmove(void *d, const void *s, size_t n)
{
    cprof_sizes_access(s, n, 0);
    cprof_sizes_access(d, n, 1);
    return __real_memmove(d, s, n);
}

void *__wrap_memset(void *d, int c, size_t n)
{
    cprof_sizes_access(d, n, 1);
    return __real_memset(d, c, n);
}

/* The bytes a comparison examines: up to the first that differs, or the end. */
static size_t examined(const unsigned char *a, const unsigned char *b, size_t n, int strings)
{
    size_t i = 0;
    while (i < n && a[i] == b[i] && !(strings && !a[i]))
        i++;
    return i < n ? i + 1 : n;
}

int __wrap_memcmp(const void *a, const void *b, size_t n)
{
    size_t k = examined(a, b, n, 0);
    cprof_sizes_access(a, k, 0);
    cprof_sizes_access(b, k, 0);
    return __real_memcmp(a, b, n);
}

size_t __wrap_strlen(const char *s)
{
    size_t n = __real_strlen(s);
    cprof_sizes_access(s, n + 1, 0);
    return n;
}

int __wrap_strcmp(const char *a, const char *b)
{
    size_t k = examined((const void *)a, (const void *)b, SIZE_MAX, 1);
    cprof_sizes_access(a, k, 0);
    cprof_sizes_access(b, k, 0);
    return __real_strcmp(a, b);
}

int __wrap_strncmp(const char *a, const char *b, size_t n)
{
    size_t k = examined((const void *)a, (const void *)b, n, 1);
    cprof_sizes_access(a, k, 0);
    cprof_sizes_access(b, k, 0);
    return __real_strncmp(a, b, n);
}

char *__wrap_strcpy(char *d, const char *s)
{
    size_t n = __real_strlen(s) + 1;
    cprof_sizes_access(s, n, 0);
    cprof_sizes_access(d, n, 1);
    return __real_strcpy(d, s);
}
