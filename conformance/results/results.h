/* The results stage: the record of each verdict and the files a run writes (JSONL, JUnit XML,
 * summary, console progress), the run sessions' provenance, and the helpers they share (buffered
 * output, SHA-256, JSON). */
#ifndef ACLCTS_CONFORMANCE_RESULTS_RESULTS_H_
#define ACLCTS_CONFORMANCE_RESULTS_RESULTS_H_

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "suite/suite.h"
#include "check/check.h"
#include "backend/backend.h"

/* One finished case as the reports see it: the worker's verdict plus what the case was (suite,
 * op, dtype, the op's numerics key, product, seed) and how to rerun it. Written to JSONL by a
 * run, read back by --resume and merge, so JUnit and the summary are made from the same
 * records. */

typedef struct {
    cts_verdict v;
    char suite[128];
    char file[512];          /* suite file, repo-relative or absolute */
    char op[32];             /* "avgpool2d_backward", "grid_sampler2d_backward" */
    char dtype[16];          /* suite names: float32, float16, bfloat16, float64 */
    char numerics[64];       /* the op's numerics key: "cube_math_type=1"; "" when it has none */
    char product[24];
    uint64_t seed;
    bool deterministic;      /* the case asked for a deterministic computation */
    char backend[64];
    char contract[16];       /* the contract the run judged against ("doc" unless told) */
    char aclcts_version[32]; /* the aclcts that wrote the record */
    char repro[2048];        /* non-pass only: the command line that reruns just this case */
    char log[2048];          /* non-pass only: tail of the worker's stdout and stderr */
    int line;                /* its line in the JSONL file it was read from (not written) */
} cts_result;

typedef struct {
    cts_result *r;
    size_t count, cap;
} cts_result_list;

void cts_result_list_push(cts_result_list *l, const cts_result *r);
/* The array p of *cap elements of size bytes with room for element n: doubled (from 16) when
 * full; aborts when memory runs out. */
void *cts_grow(void *p, size_t *cap, size_t n, size_t size);
void cts_result_list_free(cts_result_list *l);
/* The contract a record names; a record written before results carried one names
 * CTS_DEFAULT_CONTRACT. */
const char *cts_result_contract(const cts_result *r);
/* The first record of l that names a contract other than want, or NULL. */
const cts_result *cts_results_other_contract(const cts_result_list *l, const char *want);

/* The contract a run judges against when it is not told another; a run with --contract sets
 * cts_result.contract and cts_provenance.contract (the two places certify compares). */
#define CTS_DEFAULT_CONTRACT "doc"

/* The case part of a result (everything but the verdict, repro and log); contract
 * CTS_DEFAULT_CONTRACT and this build's version. */
void cts_result_from_case(cts_result *r, const cts_case *c, const char *file,
                          const char *backend);
/* Order of numerics keys: as text, numbers by value ("x=2" before "x=10"). */
int cts_numerics_cmp(const char *a, const char *b);

/* FAIL, CRASH, TIMEOUT, ERROR, RESOURCE_ERROR: the statuses that make the exit code 1. */
bool cts_status_fails(cts_status s);

/* ---- JSONL (results_jsonl.c): one flat JSON object per line ----
 * Every number reads back bit for bit: finite doubles as %.17g, +-inf as +-1e999, NaN as null
 * (sign and payload not kept), integers exactly (uint64 included). Duplicate keys, arrays and
 * values of the wrong type are errors; unknown keys are ignored (newer writers). */

/* Writes one record and a newline in one write(2) (after flushing f), so a kill -9 of the
 * writer leaves whole records only and loses no finished case. Returns 0 or -1 (errno set).
 * Durability against a power cut is cts_jsonl_sync's. */
int cts_jsonl_append(FILE *f, const cts_result *r);
/* fflush and fsync(2) of f (a pipe or terminal is not an error). 0 or -1 (errno set). A run
 * syncs at most once a second and at its end: an fsync per record (0.3-1 ms here) paced a run
 * of small cases, and a power cut then loses at most the last second's records. */
int cts_jsonl_sync(FILE *f);
/* Formats one record (no newline) into buf; returns the length it needed. */
size_t cts_jsonl_format(char *buf, size_t len, const cts_result *r);
/* Parses one line; 0 or -1 with a message in err. */
int cts_jsonl_parse(const char *line, cts_result *r, char *err, size_t errlen);
/* Reads every record of a file. A last line without a newline (a write cut by kill -9) is
 * ignored and its offset returned in *complete_len so the caller can truncate before appending.
 * Returns the number of bad lines (each reported to err as FILE:LINE: error: ...), or -1 when
 * the file cannot be opened. */
int cts_jsonl_read(const char *path, cts_result_list *out, long *complete_len, FILE *err);

/* ---- JUnit XML (results_junit.c) ---- */

/* One <testsuite> per suite, one <testcase> per result; FAIL is <failure>, CRASH/TIMEOUT/ERROR
 * are <error>, NOT_SUPPORTED and WAIVED are <skipped>. Returns 0 or -1. */
int cts_junit_write(FILE *f, const cts_result *r, size_t n);
/* Writes s with the five XML entities escaped and characters XML 1.0 forbids replaced by '?'. */
void cts_xml_escape(FILE *f, const char *s);

/* ---- summary (results_summary.c) ---- */

/* Status counts over all results, and the exit code they imply (0 or 1). */
typedef struct {
    size_t count[CTS_STATUS_COUNT];
    size_t total;
} cts_tally;

void cts_tally_results(const cts_result *r, size_t n, cts_tally *t);
int cts_tally_exit_code(const cts_tally *t);

/* Markdown: a table op x dtype x numerics key x product with the count per status, the worst
 * error in ULP and in bound units, then one repro line per failing case (at most max_repro,
 * 0 = all). */
void cts_summary_write(FILE *f, const cts_result *r, size_t n, size_t max_repro);
/* The console form: one line per op x dtype x product with the non-zero status counts and the
 * worst bound units, then the same totals and failing cases as summary.md. */
void cts_summary_console(FILE *f, const cts_result *r, size_t n, size_t max_repro);

/* A bounded text sink: printf-style appends into a caller's buffer that never overflow and
 * remember how long the text needed to be (pos > len: truncated). */

typedef struct cts_sink {
    char *buf;
    size_t len, pos; /* pos may exceed len: the length that was needed */
} cts_sink;

void cts_sink_put(cts_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends n bytes of p as they are (what cts_sink_put(s, "%.*s", n, p) does, without printf). */
void cts_sink_putn(cts_sink *s, const char *p, size_t n);

/* Console reporting while a run goes: on a terminal one live line (done/total, failures, ETA)
 * redrawn with \r at most 4 times a second; otherwise plain lines, one per failing case and a
 * progress line every `period` seconds. Failing-case lines never mix with the live line. */

typedef struct {
    FILE *out;
    bool tty, quiet;
    double period;           /* seconds between plain progress lines */
    double redraw_period;    /* seconds between redraws of the live line (0.25) */
    size_t total, done, failing, skipped_before;
    double work_total, work_done; /* the ETA's measure when work_total > 0, else cases */
    double t_start, t_last, t_drawn;
    bool line_shown;         /* a live line is on screen */
} cts_progress;

void cts_progress_start(cts_progress *p, FILE *out, bool quiet, size_t total);
/* A failing case as the log, the end-of-run list and summary.md show it: "STATUS ID [check]:
 * message", then its repro line alone on the next line, indented by four spaces, which pastes
 * whole into a shell or into `aclcts repro '...'`. */
void cts_failing_case_print(FILE *f, const cts_result *r);
/* One finished case: prints it if it fails (with its repro line), updates the line. */
void cts_progress_case(cts_progress *p, const cts_result *r);
/* The same for a case of `work` units (set work_total, their sum over the run, after start):
 * the ETA is then the time per unit done times the units left, so a few large cases at the
 * end are not "ETA 0s". */
void cts_progress_case_work(cts_progress *p, const cts_result *r, double work);
/* Clears the live line; the summary follows. */
void cts_progress_end(cts_progress *p);
double cts_now(void);         /* monotonic seconds */

/* Where and how a run happened, one record per `aclcts run` session (a shard, or a resumed part
 * of one): host, SoC the backend reports, backend and the SHA-256 of its libraries, contract,
 * aclcts version, start and end (UTC), command line, shard, cases run. `run` appends it to
 * RESULTS.provenance.jsonl beside its JSONL file (results.jsonl -> results.provenance.jsonl);
 * certify copies the records of every shard into the package manifest. */

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

/* The files a run or a merge writes: one writer at a time, and no two names for one file.
 * Locks are POSIX record locks (fcntl F_SETLK) on the file itself, so they vanish with the
 * process that held them (kill -9 included) and another aclcts can name the holder's pid. */

/* Opens path (creating it, never truncating) with `flags` (O_WRONLY, O_APPEND ...) and takes an
 * exclusive lock without waiting. The fd, or -1 with a message in err ("WHAT is in use by
 * another aclcts run (pid N)", what being the file or the directory it stands for, or the open
 * error). Closing any descriptor of the file drops the lock. An output directory is locked
 * through its summary.md, which every run and merge writes. */
int cts_out_lock(const char *path, const char *what, int flags, char *err, size_t errlen);

/* True when a and b name one file: the same device and inode when both exist, else the same
 * real directory and the same last component. */
bool cts_out_same_file(const char *a, const char *b);

/* SHA-256 of byte strings and files, for the certification package's manifest and SHA256SUMS:
 * OpenSSL's libcrypto (EVP) behind a small interface. */

typedef struct {
    void *ctx; /* EVP_MD_CTX; freed by cts_sha256_final */
} cts_sha256;

/* init aborts when libcrypto cannot allocate a digest context (out of memory). */
void cts_sha256_init(cts_sha256 *s);
void cts_sha256_update(cts_sha256 *s, const void *data, size_t n);
void cts_sha256_final(cts_sha256 *s, unsigned char digest[32]);
/* 64 lowercase hex digits and a NUL. */
void cts_sha256_hex(const unsigned char digest[32], char hex[65]);
/* Hex digest of a whole file; 0, or -1 with errno set. */
int cts_sha256_file(const char *path, char hex[65]);
/* Hex digest of what is left of an open stream (the caller closes it); 0, or -1 on a read
 * error (errno EIO). */
int cts_sha256_stream(FILE *f, char hex[65]);
/* Hex digest of a byte string. */
void cts_sha256_bytes(const void *data, size_t n, char hex[65]);

/* Strict reading of JSON objects aclcts wrote (jansson): required keys of the right type and
 * size, and no key the format does not define, each failure named in err. */

/* The string at key into out (size bytes with the NUL); 0, or -1 naming where.key. */
int cts_json_str(const json_t *o, const char *where, const char *key, char *out, size_t size,
                 char *err, size_t errlen);
/* A whole number >= 0 at key. */
int cts_json_count(const json_t *o, const char *where, const char *key, long long *out,
                   char *err, size_t errlen);
int cts_json_bool(const json_t *o, const char *where, const char *key, bool *out, char *err,
                  size_t errlen);
/* -1 naming the first key of o that is not one of keys (NULL-terminated). */
int cts_json_only_keys(const json_t *o, const char *where, const char *const *keys, char *err,
                       size_t errlen);
/* Loads a JSON file as jansson reads it with duplicate keys refused; NULL with a message
 * naming path:line:column. */
json_t *cts_json_load_file(const char *path, char *err, size_t errlen);
/* Writes v (2-space indent, keys in insertion order) and a newline; 0, or -1 (errno). */
int cts_json_dump_file(const json_t *v, FILE *f);

#endif
