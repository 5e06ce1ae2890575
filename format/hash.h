/* hash.h: the hash of a source file that the profile records (docs/profile-format.md,
 * the "sources" section): cprof-rewrite takes it of each file a unit's routines and
 * call sites name when the unit is compiled, cprof-report takes it again of the file
 * it finds to tell whether the file changed since (docs/source.md).  FNV-1a over the
 * file's bytes, 64 bits, written "fnv1a64:" and 16 lowercase hex digits: it finds an
 * edit, not an attacker. */
#ifndef CPROF_HASH_H
#define CPROF_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CPROF_HASH_PREFIX "fnv1a64:"
/* "fnv1a64:" and 16 digits, and the final 0. */
#define CPROF_HASH_TEXT (8 + 16 + 1)

static inline uint64_t cprof_hash_start(void) { return 0xcbf29ce484222325u; }

static inline uint64_t cprof_hash_add(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

/* The hash of the file at path, and its size in *bytes; -1 if it cannot be read. */
static inline int cprof_hash_file(const char *path, uint64_t *hash, int64_t *bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char buf[65536];
    uint64_t h = cprof_hash_start();
    int64_t n = 0;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        h = cprof_hash_add(h, buf, got);
        n += (int64_t)got;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return -1;
    *hash = h;
    *bytes = n;
    return 0;
}

static inline void cprof_hash_text(uint64_t hash, char out[CPROF_HASH_TEXT])
{
    snprintf(out, CPROF_HASH_TEXT, CPROF_HASH_PREFIX "%016llx", (unsigned long long)hash);
}

#endif
