/* The package stage: the certification package (manifest, rendered files, SHA256SUMS, archive),
 * its verification, and the canonical suite set it is compared with. */
#ifndef ACLCTS_CONFORMANCE_PACKAGE_PACKAGE_H_
#define ACLCTS_CONFORMANCE_PACKAGE_PACKAGE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "results/results.h"
#include "check/check.h"
#include "report/report.h"

/* The canonical suite set: the suite files this aclcts release ships (those a run of suites/
 * reads at build time: its operators' folders; vendor_st/ is an optional extra), each named by
 * its path below suites/ (cts_suite_key) with its SHA-256, and the set digest: the SHA-256 of
 * the sorted `sha256sum`-style listing "HEX  NAME\n". A certification is CONFORMANT only when
 * it ran exactly this set. */

typedef struct {
    const char *name;   /* path below suites/, e.g. "avgpool2d_backward/errors.yaml" */
    const char *sha256; /* 64 hex digits */
} cts_suite_hash;

/* Generated (suite_set_data.c.in); the table ends with {NULL, NULL}. */
extern const cts_suite_hash cts_canonical_suites[];
extern const size_t cts_canonical_nsuites;
extern const char cts_canonical_digest[];

/* The set digest of n suites (any order). */
void cts_suite_set_digest(const cts_suite_hash *s, size_t n, char digest[65]);
/* Names each difference from the canonical set on out, one line each prefixed by prefix
 * (a suite missing, one not in the set, one whose content differs); returns their number. */
int cts_suite_set_differences(const cts_suite_hash *s, size_t n, const char *prefix, FILE *out);

/* manifest.json of a certification package: what ran (each shard's provenance: host, SoC,
 * backend and its libraries' SHA-256, contract, aclcts version, times, command), the suite set
 * and whether it is the canonical one of this release, completeness, the verdict and counts,
 * waivers, and every packaged file with its SHA-256. Read and written with jansson; a key
 * twice, a key the format does not define or a value of the wrong type is an error. */

#define CTS_MANIFEST_FORMAT "aclcts-certification-package/2"

typedef struct {
    char role[16];          /* "suite", "result", "report" */
    char path[512];         /* path inside the package */
    char source[1024];      /* where it came from (suite: the path given to certify) */
    char sha256[65];
} cts_manifest_file;

/* A waiver the run used or found expired: the record's message (reason) and the waiver's own
 * fields, each its own key in manifest.json (empty when the suite gave none). */
typedef struct {
    char case_id[256];
    char reason[1024];          /* the record's message */
    char waiver_reason[512], tracking[128], owner[128], expires[16];
    bool expired;               /* the record is the FAIL of an expired waiver */
} cts_manifest_waiver;

typedef struct {
    char version[32], commit[64];   /* the aclcts that packaged */
    char product[24], contract[16], backend[64], seed[32];
    char suite_set[65];             /* digest of the packaged suites (package.h) */
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
/* Adds a copy of w. */
void cts_manifest_add_waiver_of(cts_manifest *m, const cts_manifest_waiver *w);
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

/* The certification package on disk: a directory whose every file is listed with its SHA-256 in
 * SHA256SUMS (coreutils `sha256sum -c` format, so a third party can check it without aclcts),
 * its .tar.gz (libarchive), the human-facing files rendered from results.jsonl and the manifest,
 * and every check of verify-package. */

/* First line of a shell command's output (popen), "" when it fails. */
void cts_command_line_output(const char *cmd, char *out, size_t len);
/* The same in two halves: the command starts (NULL if it cannot) and runs beside the caller
 * until its first line is read (and the command closed) by cts_command_finish, which takes
 * NULL as a command that failed. */
FILE *cts_command_start(const char *cmd);
void cts_command_finish(FILE *p, char *out, size_t len);

/* The files a package shows people, each rendered from results.jsonl and manifest.json alone
 * (so verify-package can re-derive and compare them): summary.md, junit.xml, audit.md,
 * audit.csv, report.html. NULL-terminated. */
extern const char *const cts_package_rendered[];
/* Renders one of them to f; au is the audit of the results. 0, or -1 on a write error. */
int cts_package_render(const char *name, FILE *f, const cts_manifest *m,
                       const cts_result_list *res, const cts_audit *au);

/* Writes DIR/SHA256SUMS over every regular file below DIR (sorted, relative paths) and puts the
 * SHA-256 of SHA256SUMS itself, the package digest, in digest. 0, or -1 with a message. */
int cts_package_seal(const char *dir, char digest[65], char *err, size_t errlen);
/* Writes tar_path (gzip'd tar of DIR under its base name, sorted, owner 0, regular files and
 * directories only) through a temporary name, so it appears whole or not at all. 0, or -1. */
int cts_package_tar(const char *dir, const char *tar_path, char *err, size_t errlen);
/* Extracts a package archive into a new temporary directory; only regular files and
 * directories below one top-level directory are accepted (no links, devices, FIFOs, absolute
 * paths or '..'). pkg_dir is that directory. On error the temporary directory is removed.
 * 0, or -1 with a message. */
int cts_package_extract(const char *tar, char *tmp_dir, size_t tmplen, char *pkg_dir,
                        size_t pkglen, char *err, size_t errlen);
/* rm -r of a directory tree (no symlink is followed). */
void cts_remove_tree(const char *path);

/* Every check of verify-package (see its --help), one line per problem on out, naming the file.
 * Returns the number of problems. digest: the SHA-256 of SHA256SUMS ("unknown" if absent). m
 * is filled as far as it could be read (free it). */
int cts_package_verify(const char *dir, bool check_backend, FILE *out, cts_manifest *m,
                       char digest[65]);


/* The scheduler variable that would shard a run implicitly (SLURM_ARRAY_TASK_ID,
 * JOB_COMPLETION_INDEX, GTEST_SHARD_INDEX) when set, else NULL: certify and audit refuse them. */
const char *cts_scheduler_shard_variable(void);

/* Sorted name lists and the package's file listing, shared by package.c and
 * package_verify.c. */

typedef struct {
    char **v;
    size_t n, cap;
} cts_names;

void cts_names_push(cts_names *l, const char *s);
void cts_names_free(cts_names *l);
void cts_names_sort(cts_names *l);
bool cts_names_has(const cts_names *l, const char *s); /* l sorted */

/* The regular files below root/rel (relative to root) into files; every other entry (symbolic
 * link, FIFO, socket, device) as a message into bad. No link is followed. 0, or -1 (errno)
 * when a directory cannot be read. */
int cts_package_list(const char *root, const char *rel, int depth, cts_names *files,
                     cts_names *bad);

/* A closed package (closed.c): nothing is opened before lstat has shown it a regular file. */

/* The detached signature of the package digest a signed package holds besides its files. */
#define CTS_PACKAGE_SIGNATURE "SHA256SUMS.sig"
/* Every entry below dir by lstat, nothing opened: the regular files (relative paths, sorted)
 * into files; each other entry (symbolic link, FIFO, socket, device, a directory holding no
 * file) named on out, one line each. Returns their number. */
int cts_package_entries(const char *dir, cts_names *files, FILE *out);
/* A package file opened for reading with O_NONBLOCK | O_NOFOLLOW, regular files only: NULL
 * (errno) for anything else, so no read can block. */
FILE *cts_package_fopen(const char *path);
/* The closed set: the manifest lists only files a package holds (results.jsonl, the rendered
 * files, suites/...yaml), each once and all of the first two; SHA256SUMS's names (summed,
 * sorted) are exactly those and manifest.json. One line per problem; their number. */
int cts_package_check_closed(const cts_names *summed, const cts_manifest *m, FILE *out);

/* The signature (signature.c): Ed25519 (OpenSSL) over SHA256SUMS, whose SHA-256 is the package
 * digest, stored raw in DIR/SHA256SUMS.sig. It binds every file SHA256SUMS lists to the holder
 * of the private key; it says nothing of how the results were obtained. */

/* key_path holds an Ed25519 private key (PEM). 0, or -1 with a message. */
int cts_signing_key_check(const char *key_path, char *err, size_t errlen);
/* Signs dir/SHA256SUMS with the key into dir/SHA256SUMS.sig. 0, or -1 with a message. */
int cts_package_sign(const char *dir, const char *key_path, char *err, size_t errlen);
/* Checks dir/SHA256SUMS.sig against the Ed25519 public key (PEM) at pub_path; one line on out
 * either way. 0 when it verifies, else 1. */
int cts_package_check_signature(const char *dir, const char *pub_path, FILE *out);

/* Checks shared by certify and verify-package; each prints one line per problem on out,
 * prefixed by `what` (a file name), and returns the number of problems. */

/* results hold every selected case of l exactly once and nothing else. */
int cts_check_case_set(const cts_loaded *l, const cts_result_list *res, const char *what,
                       FILE *out);
/* Each record agrees with its own figures and its case (records_check.c): a PASS names no
 * failing check, got the expected status, says no element is out of tolerance and, under a
 * `bound` or `ulp` policy, has its worst error within it (histogram too); a WAIVED case has a
 * waiver; a NOT_SUPPORTED one judged nothing. */
int cts_check_records(const cts_loaded *l, const cts_result_list *res, const char *what,
                      FILE *out);
/* The records and the run sessions agree on one product, backend, contract and aclcts version
 * (the first seen is put in backend/contract/version); sessions' backend libraries agree. */
int cts_check_one_origin(const cts_result_list *res, const cts_provenance *shards,
                         size_t nshards, const char *product, char backend[64],
                         char contract[16], char version[32], const char *what, FILE *out);
/* The suite files paths name (cts_suite_files), by cts_suite_key with their SHA-256 and, in
 * files (may be NULL), their paths (malloc'd; free with cts_suite_hashes_free). Two different
 * files with one key: -1 with a message. */
int cts_suite_hashes(const char *const *paths, int npaths, cts_suite_hash **out, size_t *n,
                     cts_names *files, char *err, size_t errlen);
void cts_suite_hashes_free(cts_suite_hash *s, size_t n);

#endif
