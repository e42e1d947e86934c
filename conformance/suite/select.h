/* Which cases a run executes: --filter globs, the shard of this process (from --shard or the
 * environment of a Slurm array / Kubernetes Indexed Job / gtest-style runner), and the ids a
 * previous run already recorded (--resume). Pure functions; the caller owns all memory. */
#ifndef ACLCTS_CONFORMANCE_SELECT_H_
#define ACLCTS_CONFORMANCE_SELECT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when id matches any of the fnmatch(3) globs; an empty list matches everything. */
bool cts_filter_match(const char *const *globs, int nglobs, const char *id);

/* Shards are 0-based: index in [0, count). count 1 = no sharding. */
typedef struct {
    int index, count;
} cts_shard;

/* Parses "K/N" (0 <= K < N). 0, or -1 with a message in err. */
int cts_shard_parse(const char *text, cts_shard *out, char *err, size_t errlen);

/* The shard of this process. `flag` is --shard (or NULL), `shards` is --shards N (0 if absent);
 * getenv is the environment lookup (getenv, or a table in tests). Order: --shard, then
 * SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT, then
 * JOB_COMPLETION_INDEX of --shards N, then GTEST_SHARD_INDEX of GTEST_TOTAL_SHARDS; else 0/1.
 * --shard K/N with --shards M is an error unless M = N.
 * Returns 0, or -1 with a message naming the variable in err. */
int cts_shard_resolve(const char *flag, int shards, const char *(*getenv_fn)(const char *),
                      cts_shard *out, char *err, size_t errlen);

/* Stable assignment: a 64-bit hash of the case id modulo the count, so a case keeps its shard
 * when other cases are added and the union of the shards is every case exactly once. */
uint64_t cts_id_hash(const char *id);
bool cts_shard_has(const cts_shard *s, const char *id);

/* A set of case ids (open addressing over cts_id_hash), for --resume and merge. */
typedef struct {
    char **ids;
    size_t cap, count;
} cts_id_set;

bool cts_id_set_has(const cts_id_set *s, const char *id);
/* Adds a copy of id; returns false if it was already there. */
bool cts_id_set_add(cts_id_set *s, const char *id);
void cts_id_set_free(cts_id_set *s);

#endif
