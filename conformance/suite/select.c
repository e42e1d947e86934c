/* Case selection: filter globs, shard resolution and assignment, and the id set of --resume. */
#include "suite.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cts_filter_match(const char *const *globs, int nglobs, const char *id)
{
    if (nglobs == 0)
        return true;
    for (int i = 0; i < nglobs; i++)
        if (fnmatch(globs[i], id, 0) == 0)
            return true;
    return false;
}

/* A whole decimal integer >= 0, nothing else (no sign, no spaces). */
static int parse_count(const char *s, long *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v > 1000000)
        return -1;
    *out = v;
    return 0;
}

int cts_shard_parse(const char *text, cts_shard *out, char *err, size_t errlen)
{
    const char *slash = strchr(text, '/');
    char k[32];
    long ki, n;
    if (!slash || (size_t)(slash - text) >= sizeof k) {
        snprintf(err, errlen, "--shard %s: expected K/N, e.g. 0/4 (shards are 0-based)", text);
        return -1;
    }
    memcpy(k, text, (size_t)(slash - text));
    k[slash - text] = '\0';
    if (parse_count(k, &ki) || parse_count(slash + 1, &n) || n < 1) {
        snprintf(err, errlen, "--shard %s: expected K/N with whole numbers, N >= 1", text);
        return -1;
    }
    if (ki >= n) {
        snprintf(err, errlen, "--shard %s: K must be below N (shards are 0-based: 0/%ld .. %ld/%ld)",
                 text, n, n - 1, n);
        return -1;
    }
    out->index = (int)ki;
    out->count = (int)n;
    return 0;
}

/* index (minus base) of count from two environment variables. 1 = not set, 0 = set, -1 = bad. */
static int shard_from_env(const char *(*get)(const char *), const char *index_var, long base,
                          const char *count_var, long count, cts_shard *out, char *err,
                          size_t errlen)
{
    const char *iv = get(index_var);
    if (!iv || !*iv)
        return 1;
    long idx;
    if (parse_count(iv, &idx)) {
        snprintf(err, errlen, "%s=%s: not a whole number", index_var, iv);
        return -1;
    }
    if (count < 1) {
        snprintf(err, errlen, "%s is set but the shard count is not (%s)", index_var, count_var);
        return -1;
    }
    if (idx < base || idx - base >= count) {
        snprintf(err, errlen, "%s=%s is outside the %ld shards of %s", index_var, iv, count,
                 count_var);
        return -1;
    }
    out->index = (int)(idx - base);
    out->count = (int)count;
    return 0;
}

/* Reads an optional count variable: -1 bad, otherwise the value (0 when unset). */
static long env_count(const char *(*get)(const char *), const char *var, char *err, size_t errlen)
{
    const char *s = get(var);
    long v = 0;
    if (!s || !*s)
        return 0;
    if (parse_count(s, &v)) {
        snprintf(err, errlen, "%s=%s: not a whole number", var, s);
        return -1;
    }
    return v;
}

int cts_shard_resolve(const char *flag, int shards, const char *(*get)(const char *),
                      cts_shard *out, char *err, size_t errlen)
{
    out->index = 0;
    out->count = 1;
    if (flag) {
        if (cts_shard_parse(flag, out, err, errlen) != 0)
            return -1;
        if (shards > 0 && shards != out->count) {
            snprintf(err, errlen, "--shard %s and --shards %d disagree on the shard count", flag,
                     shards);
            return -1;
        }
        return 0;
    }

    /* Slurm: --array=1-4 gives ids 1..4 with SLURM_ARRAY_TASK_MIN=1; --array=0-3 gives 0..3. */
    long count = env_count(get, "SLURM_ARRAY_TASK_COUNT", err, errlen);
    long base = env_count(get, "SLURM_ARRAY_TASK_MIN", err, errlen);
    if (count < 0 || base < 0)
        return -1;
    int r = shard_from_env(get, "SLURM_ARRAY_TASK_ID", base, "SLURM_ARRAY_TASK_COUNT", count, out,
                           err, errlen);
    if (r <= 0)
        return r;

    /* Kubernetes Indexed Job: the index is in the environment, the count is --shards N. */
    r = shard_from_env(get, "JOB_COMPLETION_INDEX", 0, "--shards N", shards, out, err, errlen);
    if (r <= 0)
        return r;

    count = env_count(get, "GTEST_TOTAL_SHARDS", err, errlen);
    if (count < 0)
        return -1;
    r = shard_from_env(get, "GTEST_SHARD_INDEX", 0, "GTEST_TOTAL_SHARDS", count, out, err, errlen);
    if (r <= 0)
        return r;
    if (shards > 1) {
        snprintf(err, errlen, "--shards %d needs --shard K/N or JOB_COMPLETION_INDEX", shards);
        return -1;
    }
    return 0;
}

uint64_t cts_id_hash(const char *id)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a, then a splitmix64 finalizer to mix low bits */
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 0x100000001b3u;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebu;
    h ^= h >> 31;
    return h;
}

bool cts_shard_has(const cts_shard *s, const char *id)
{
    return s->count <= 1 || cts_id_hash(id) % (uint64_t)s->count == (uint64_t)s->index;
}

static size_t slot_of(char *const *ids, size_t cap, const char *id)
{
    size_t i = (size_t)(cts_id_hash(id) & (cap - 1));
    while (ids[i] && strcmp(ids[i], id) != 0)
        i = (i + 1) & (cap - 1);
    return i;
}

bool cts_id_set_has(const cts_id_set *s, const char *id)
{
    return s->cap && s->ids[slot_of(s->ids, s->cap, id)] != NULL;
}

bool cts_id_set_add(cts_id_set *s, const char *id)
{
    if (2 * (s->count + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        char **ids = calloc(cap, sizeof *ids);
        if (!ids)
            abort();
        for (size_t i = 0; i < s->cap; i++)
            if (s->ids[i])
                ids[slot_of(ids, cap, s->ids[i])] = s->ids[i];
        free(s->ids);
        s->ids = ids;
        s->cap = cap;
    }
    size_t i = slot_of(s->ids, s->cap, id);
    if (s->ids[i])
        return false;
    s->ids[i] = strdup(id);
    if (!s->ids[i])
        abort();
    s->count++;
    return true;
}

void cts_id_set_free(cts_id_set *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->ids[i]);
    free(s->ids);
    s->ids = NULL;
    s->cap = s->count = 0;
}
