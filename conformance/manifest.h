/* manifest.json of a certification package: what ran (aclcts commit, suites and backend
 * libraries with their SHA-256, SoC, host, seed, times, command line) and the verdict it gave.
 * Written one field or one file entry per line so the reader (for verify-package) stays small. */
#ifndef ACLCTS_CONFORMANCE_MANIFEST_H_
#define ACLCTS_CONFORMANCE_MANIFEST_H_

#include <stddef.h>
#include <stdio.h>

#include "verdict.h"

typedef struct {
    char role[16];          /* "suite", "result", "report", "backend" */
    char path[512];         /* path inside the package (backend: absolute path on the host) */
    char source[1024];      /* where it came from (suite: the path given to certify) */
    char sha256[65];
} cts_manifest_file;

typedef struct {
    char case_id[256];
    char reason[1024];
} cts_manifest_waiver;

typedef struct {
    char version[64], commit[64];
    char product[24], backend[64], backend_dir[1024], soc[64], host[256], seed[32];
    char start[40], end[40];
    char command[4096];
    char verdict[32];               /* "CONFORMANT" / "NOT CONFORMANT" */
    size_t counts[CTS_STATUS_COUNT], total;
    cts_manifest_file *files;
    size_t nfiles, cap;
    cts_manifest_waiver *waivers;
    size_t nwaivers, wcap;
} cts_manifest;

void cts_manifest_add_file(cts_manifest *m, const char *role, const char *path,
                           const char *source, const char *sha256);
void cts_manifest_add_waiver(cts_manifest *m, const char *case_id, const char *reason);
void cts_manifest_free(cts_manifest *m);

/* 0, or -1 (errno). */
int cts_manifest_write(FILE *f, const cts_manifest *m);
/* 0, or -1 with a message naming the line in err. */
int cts_manifest_read(const char *path, cts_manifest *m, char *err, size_t errlen);

/* The verdict a set of counts implies: CONFORMANT when some case ran and none is FAIL, CRASH,
 * TIMEOUT or ERROR. */
const char *cts_certification_verdict(const size_t counts[CTS_STATUS_COUNT], size_t total);

#endif
