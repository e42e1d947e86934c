/* Where and how a run happened, one record per `aclcts run` session (a shard, or a resumed part
 * of one): host, SoC the backend reports, backend and the SHA-256 of its libraries, contract,
 * aclcts version, start and end (UTC), command line, shard, cases run. `run` appends it to
 * RESULTS.provenance.jsonl beside its JSONL file (results.jsonl -> results.provenance.jsonl);
 * certify copies the records of every shard into the package manifest. */
#ifndef ACLCTS_CONFORMANCE_PROVENANCE_H_
#define ACLCTS_CONFORMANCE_PROVENANCE_H_

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "backend.h"

#define CTS_PROV_MAX_LIBS 8

typedef struct {
    char name[32];   /* libascendcl.so, ... */
    char path[1024]; /* absolute path on the host that ran */
    char sha256[65];
} cts_prov_lib;

typedef struct {
    char results[1024]; /* the JSONL file the session appended to, as given */
    char host[256], soc[64], product[24], backend[64], backend_dir[1024], contract[16];
    char aclcts_version[32], start[24], end[24], shard[32], command[4096];
    long long cases;    /* cases this session ran */
    cts_prov_lib libs[CTS_PROV_MAX_LIBS];
    int nlibs;
    char file[1056];    /* the provenance file written (not serialized) */
    long offset;        /* where this session's record starts in it */
} cts_provenance;

/* Fills the facts known before the run (host, SoC asked of the backend in a child process,
 * backend and its libraries' hashes, contract (NULL: CTS_DEFAULT_CONTRACT), version, start, shard,
 * command) and appends the record with an empty end to the provenance file of jsonl_path, so a
 * session killed mid-run is still on record ("end": ""). 0, or -1 (errno) when it cannot be
 * written. */
int cts_provenance_begin(cts_provenance *p, const cts_backend *b, const char *backend_spec,
                         const char *product, const char *contract, int shard_index,
                         int shard_count, int argc, char **argv, const char *jsonl_path);
/* Sets end and cases and rewrites the session's record in place. 0 or -1 (errno). */
int cts_provenance_finish(cts_provenance *p, long long cases);
/* RESULTS.provenance.jsonl for RESULTS[.jsonl]. */
void cts_provenance_path(const char *jsonl_path, char *out, size_t len);
/* Reads every record of a provenance file (-1 with a message when missing or malformed). */
int cts_provenance_read(const char *path, cts_provenance **out, size_t *n, char *err,
                        size_t errlen);

/* JSON object <-> record (for the manifest's "shards"); from_json: 0, or -1 naming the key. */
json_t *cts_provenance_to_json(const cts_provenance *p);
int cts_provenance_from_json(const json_t *o, cts_provenance *p, char *err, size_t errlen);

/* The SoC name the backend reports for the product, asked in a child process so the caller
 * never initializes the runtime. "unknown" when it cannot tell. */
void cts_backend_soc_name(const cts_backend *b, const char *product, char *out, size_t len);

#endif
