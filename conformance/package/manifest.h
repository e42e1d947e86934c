/* manifest.json of a certification package: what ran (each shard's provenance: host, SoC,
 * backend and its libraries' SHA-256, contract, aclcts version, times, command), the suite set
 * and whether it is the canonical one of this release, completeness, the verdict and counts,
 * waivers, and every packaged file with its SHA-256. Read and written with jansson; a key
 * twice, a key the format does not define or a value of the wrong type is an error. */
#ifndef ACLCTS_CONFORMANCE_MANIFEST_H_
#define ACLCTS_CONFORMANCE_MANIFEST_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "provenance.h"
#include "verdict.h"

#define CTS_MANIFEST_FORMAT "aclcts-certification-package/2"

typedef struct {
    char role[16];          /* "suite", "result", "report" */
    char path[512];         /* path inside the package */
    char source[1024];      /* where it came from (suite: the path given to certify) */
    char sha256[65];
} cts_manifest_file;

typedef struct {
    char case_id[256];
    char reason[1024];
} cts_manifest_waiver;

typedef struct {
    char version[32], commit[64];   /* the aclcts that packaged */
    char product[24], contract[16], backend[64], seed[32];
    char suite_set[65];             /* digest of the packaged suites (suite_set.h) */
    char canonical_set[65];         /* the packaging aclcts's canonical digest */
    bool canonical, complete;
    char verdict[32];               /* "CONFORMANT" / "NOT CONFORMANT" */
    char verdict_reason[256];       /* why not, in words ("" when CONFORMANT) */
    char host[256], start[24], end[24], command[4096]; /* the packaging step */
    size_t counts[CTS_STATUS_COUNT], total;
    cts_provenance *shards;
    size_t nshards;
    cts_manifest_file *files;
    size_t nfiles, cap;
    cts_manifest_waiver *waivers;
    size_t nwaivers, wcap;
} cts_manifest;

void cts_manifest_add_file(cts_manifest *m, const char *role, const char *path,
                           const char *source, const char *sha256);
void cts_manifest_add_waiver(cts_manifest *m, const char *case_id, const char *reason);
void cts_manifest_add_shard(cts_manifest *m, const cts_provenance *p);
void cts_manifest_free(cts_manifest *m);

/* 0, or -1 (errno). */
int cts_manifest_write(FILE *f, const cts_manifest *m);
/* 0, or -1 with a message naming the key or path:line:column in err. */
int cts_manifest_read(const char *path, cts_manifest *m, char *err, size_t errlen);

/* The verdict: CONFORMANT only for a canonical suite set run completely, with some case run and
 * none FAIL, CRASH, TIMEOUT, ERROR or RESOURCE_ERROR. reason (may be NULL) says why not. */
const char *cts_certification_verdict(const size_t counts[CTS_STATUS_COUNT], size_t total,
                                      bool canonical, bool complete, char *reason,
                                      size_t reasonlen);

#endif
