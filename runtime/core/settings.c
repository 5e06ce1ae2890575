/* settings.c: the CPROF_ variables that take a word or a number (runtime/cprof.7).  A
 * value understood is taken; any other is said in one line on stderr, and the default
 * taken: a setting is never misread in silence. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"

int cprof_setting_word(const char *name, const char *const *words, int fallback,
                       const char *meaning)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    for (int i = 0; words[i]; i++)
        if (!strcmp(v, words[i]))
            return i;
    char list[160] = "";
    size_t n = 0;
    for (int i = 0; words[i] && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", words[i]);
    fprintf(stderr, "cprof: %s=%s is not understood (%s): %s\n", name, v, list, meaning);
    return fallback;
}

int cprof_setting_number(const char *name, unsigned long long min, unsigned long long max,
                         unsigned long long *out, const char *meaning)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (*v < '0' || *v > '9' || errno || *end || n < min || n > max) {
        fprintf(stderr, "cprof: %s=%s is not a whole number from %llu to %llu: %s\n", name, v,
                min, max, meaning);
        return -1;
    }
    *out = n;
    return 0;
}
