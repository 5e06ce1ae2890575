/* json.c: the profile's JSON, written as it is made (core.h, "json.c").
 *
 * No document is built in memory: the profile costs the program's exit the time to
 * format its numbers, and memory for one buffer.  The buffer is the runtime's own
 * (memory.c), and the file is written with write(2), so nothing here calls the
 * program's allocator or stdio. */
#define _GNU_SOURCE
#include "core.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { BUFFER = 1 << 16 };

void cprof_json_open(struct cprof_json *j, int fd)
{
    j->fd = fd;
    j->buf = cprof_alloc(BUFFER);
    j->len = 0;
    j->err = 0;
    j->need_comma = 0;
}

static void flush(struct cprof_json *j)
{
    for (size_t done = 0; done < j->len && !j->err;) {
        ssize_t n = write(j->fd, j->buf + done, j->len - done);
        if (n > 0)
            done += (size_t)n;
        else if (n < 0 && errno != EINTR)
            j->err = errno;
    }
    j->len = 0;
}

static void put_slow(struct cprof_json *j, const char *s, size_t n)
{
    while (n > 0) {
        if (j->len == BUFFER)
            flush(j);
        size_t k = BUFFER - j->len < n ? BUFFER - j->len : n;
        memcpy(j->buf + j->len, s, k);
        j->len += k;
        s += k;
        n -= k;
    }
}

/* Inline, so that the copy of a few bytes of known length is a move or two: a
 * profile is made of such pieces. */
static inline void put(struct cprof_json *j, const char *s, size_t n)
{
    if (__builtin_expect(n <= BUFFER - j->len, 1)) {
        memcpy(j->buf + j->len, s, n);
        j->len += n;
    } else {
        put_slow(j, s, n);
    }
}

int cprof_json_close(struct cprof_json *j)
{
    flush(j);
    cprof_free(j->buf, BUFFER);
    j->buf = 0;
    if (j->err)
        errno = j->err;
    return j->err ? -1 : 0;
}

/* A value or a key starts: after a sibling, a comma. */
static void next(struct cprof_json *j)
{
    if (j->need_comma)
        put(j, ",", 1);
    j->need_comma = 1;
}

void cprof_json_begin(struct cprof_json *j, char bracket)
{
    next(j);
    put(j, &bracket, 1);
    j->need_comma = 0;
}

void cprof_json_end(struct cprof_json *j, char bracket)
{
    put(j, &bracket, 1);
    j->need_comma = 1;
}

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
    size_t len = s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;       /* overlong, a surrogate, or past U+10FFFF */
    return len;
}

/* A string, escaped; a byte that is not valid UTF-8 (a file name may hold one)
 * becomes U+FFFD, so that the document stays JSON. */
void cprof_json_string(struct cprof_json *j, const char *s)
{
    next(j);
    put(j, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n > 0) {
        size_t run = 0;
        while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\')
            run++;
        put(j, (const char *)p, run);
        p += run;
        n -= run;
        if (n == 0)
            break;
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            put(j, esc, 2);
            p++, n--;
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            put(j, esc, 6);
            p++, n--;
        } else {
            size_t len = utf8_length(p, n);
            if (len) {
                put(j, (const char *)p, len);
            } else {
                put(j, "\\ufffd", 6);
                len = 1;
            }
            p += len, n -= len;
        }
    }
    put(j, "\"", 1);
}

void cprof_json_key(struct cprof_json *j, const char *key)
{
    cprof_json_string(j, key);
    put(j, ":", 1);
    j->need_comma = 0;
}

/* Digits by hand: a profile is mostly numbers, and snprintf's were most of its cost. */
static void put_digits(struct cprof_json *j, uint64_t v)
{
    char s[20];
    size_t n = sizeof s;
    do {
        s[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(j, s + n, sizeof s - n);
}

void cprof_json_int(struct cprof_json *j, int64_t v)
{
    next(j);
    if (v < 0)
        put(j, "-", 1);
    put_digits(j, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

void cprof_json_uint(struct cprof_json *j, uint64_t v)
{
    next(j);
    put_digits(j, v);
}

/* A real stays a real when read back (a point or an exponent), exact to the bit. */
void cprof_json_real(struct cprof_json *j, double v)
{
    char s[40];
    next(j);
    int n = snprintf(s, sizeof s, "%.17g", v);
    if (!strpbrk(s, ".en"))
        n += snprintf(s + n, sizeof s - (size_t)n, ".0");
    put(j, s, (size_t)n);
}

void cprof_json_bool(struct cprof_json *j, int v)
{
    next(j);
    put(j, v ? "true" : "false", v ? 4 : 5);
}

void cprof_json_null(struct cprof_json *j)
{
    next(j);
    put(j, "null", 4);
}

void cprof_json_field_int(struct cprof_json *j, const char *key, int64_t v)
{
    cprof_json_key(j, key);
    cprof_json_int(j, v);
}

void cprof_json_field_uint(struct cprof_json *j, const char *key, uint64_t v)
{
    cprof_json_key(j, key);
    cprof_json_uint(j, v);
}

void cprof_json_field_string(struct cprof_json *j, const char *key, const char *s)
{
    cprof_json_key(j, key);
    cprof_json_string(j, s);
}

void cprof_json_field_real(struct cprof_json *j, const char *key, double v)
{
    cprof_json_key(j, key);
    cprof_json_real(j, v);
}
