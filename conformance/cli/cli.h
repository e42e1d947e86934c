/* The `aclcts` subcommands (one file each) and what they share: the options that choose cases
 * (cli_select.c) and the repro line (cli_repro_line.c). Each returns the process exit code:
 * 0 nothing failing, 1 a FAIL/CRASH/TIMEOUT/ERROR, 2 usage or suite errors. */
#ifndef ACLCTS_CONFORMANCE_CLI_H_
#define ACLCTS_CONFORMANCE_CLI_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "import/import.h"
#include "package/package.h"
#include "report/report.h"
#include "results/results.h"
#include "suite/suite.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2
#define CLI_MAX_ARGS CTS_SELECTION_MAX /* argv words a command keeps */

int cli_run(int argc, char **argv);
/* `aclcts run` inside another command (certify): on the cases loaded already (loaded: the
 * selection its arguments make), handing its records (every one in the JSONL) to records
 * instead of writing junit.xml and summary.md, which the caller makes from them. The repro
 * lines are those of the package at path `package`: run from its directory, they take its copy
 * of each suite (suites/OP/FILE) and write to ../NAME.repro beside it. */
int cli_run_loaded(int argc, char **argv, const cts_loaded *loaded, cts_result_list *records,
                   const char *package);
/* fn(ctx, record) for each record the runs that follow write, as its case ends (NULL: none). */
void cli_run_on_record(void (*fn)(void *ctx, const cts_result *r), void *ctx);
int cli_list(int argc, char **argv);
int cli_show(int argc, char **argv);
int cli_coverage(int argc, char **argv);
int cli_repro(int argc, char **argv);
int cli_merge(int argc, char **argv);
int cli_detect_contract(int argc, char **argv);
int cli_import_atk(int argc, char **argv);
int cli_import_ttk(int argc, char **argv);
/* Writes the suite convert makes of one file to DIR/<op>.yaml through a temporary file (an
 * import-atk or import-ttk converter, import/import.h); its exit status (0, 1, 2). */
int cli_import_file(const char *file, const atk_options *o, const char *dir,
                    int (*convert)(const char *, const atk_options *, FILE *, FILE *,
                                   atk_summary *));
/* An import command: its name, help, default product, what its files are, its converter. */
typedef struct {
    const char *name, *help, *product, *files;
    int (*convert)(const char *, const atk_options *, FILE *, FILE *, atk_summary *);
} cli_import_command;
/* The options and files of an import command, each file through cli_import_file. */
int cli_import_main(int argc, char **argv, const cli_import_command *cmd);
/* The certification workflow (docs/certification.md). */
int cli_certify(int argc, char **argv);
int cli_verify_package(int argc, char **argv);
/* verify-package --rejudge of the package in dir (cli_rejudge.c): one line per case whose
 * record differs from what its evidence gives; returns their number. */
int cli_rejudge(const char *dir, const cts_manifest *m, FILE *out);
int cli_audit(int argc, char **argv);
int cli_compare(int argc, char **argv);

/* ---- choosing cases (cli_select.c: options into a cts_selection), shared by run, list and
 * show ---- */

/* Options text of the selection, for the --help of run, list and show. */
extern const char cli_selection_help[];

/* "--name VALUE" or "--name=VALUE" at argv[*i]: 1 (value set, *i advanced past it),
 * 0 (another option), -1 (value missing; message printed). */
int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **value);
/* A whole number in [lo, hi] for option `name`; 0, or -1 with a message printed. */
int cli_parse_long(const char *name, const char *text, long lo, long hi, long *out);

/* Consumes a selection option or a positional suite path at argv[*i]: 1 consumed, 0 not a
 * selection option (the caller's own or unknown), -1 usage error (printed). */
int cli_selection_arg(cts_selection *s, int argc, char **argv, int *i);

/* The contract named by --contract's value: doc, vendor (= vendor@9.0), vendor@9.0, vendor@8.5
 * (= vendor-old). 0, or -1 with a message printed. */
int cli_parse_contract(const char *text, ref_spec *out);
/* "N cases written for another contract than C are not selected" on f, when N > 0: printed once
 * per command, where it explains a count (run's plan, an empty selection). */
void cli_print_other_contract(FILE *f, const cts_loaded *l, ref_spec contract);

/* A path as a person should see it in a repro line: relative to the working directory when it
 * lies below it, else absolute. */
void cli_display_path(const char *path, char *out, size_t len);

/* ---- the repro line (cli_repro_line.c; read back by cli_repro.c) ---- */

typedef struct {
    const char *backend;      /* --backend spec */
    const char *product;
    uint64_t seed;
    const char *id;
    const char *suite_file;
    int repeat;               /* 0: not given */
    double timeout;           /* 0: default */
    bool quick;
    const char *out;          /* --out for the rerun (so it never overwrites the full run's) */
                              /* binary, out and suite file are written as absolute paths */
    const char *contract;     /* --contract (NULL or "doc": not printed) */
    bool relative;            /* out and suite file as given: relative to a package, whose
                                 lines are run from its directory */
} cli_repro_args;

/* The --out of a repro line for a run writing to OUT: OUT/repro, or OUT itself when it already
 * is a repro directory (rerunning a repro line writes beside it, never into repro/repro). */
void cli_repro_out(const char *out, char *buf, size_t len);
/* `[ACLNN_EMU_*=... ]BINARY run --backend B --product P --seed S [--out D] --filter 'ID' FILE`, with the
 * id's glob characters escaped so the filter matches that id only. Returns the needed length. */
size_t cli_repro_format(char *buf, size_t len, const cli_repro_args *a);
/* w as one sh word: bare when made of safe characters, else single-quoted. */
struct cts_sink;
void cli_shell_word(struct cts_sink *s, const char *w);
/* Splits a shell command line (quotes and backslashes as sh does, no expansions) into words.
 * 0, or -1 with a message. The words are malloc'd; free each and the array. */
int cli_split_words(const char *line, char ***words, int *nwords, char *err, size_t errlen);

/* ---- output files (cli_files.c) ---- */

/* mkdir -p DIR: 0, or -1 with errno. */
int cli_make_dirs(const char *dir);
/* The process's umask (read without changing it for long). */
mode_t cli_umask(void);

/* A file written whole or not at all: written as a temporary file in the final name's
 * directory, then fsync'd and renamed over it. A final name that is no regular file
 * (/dev/stdout, a FIFO) is written in place; a symbolic link's target is replaced. */
typedef struct {
    char final[4096], target[4096], tmp[4096 + 16]; /* tmp "": written in place */
    FILE *f;
} cli_out_file;
/* The temporary file's stream, or NULL (message printed). */
FILE *cli_out_open(cli_out_file *o, const char *final);
/* Checks every write (the stream's error flag, fflush, fsync, fclose) and renames the file to its
 * final name: 0, or -1 with "writing FINAL: reason" printed, the temporary file removed, the
 * final name untouched, errno set. */
int cli_out_commit(cli_out_file *o);
/* Drops the temporary file (a run that stops before its outputs are complete). */
void cli_out_discard(cli_out_file *o);

/* Seconds on the monotonic clock (phase times, the JSONL's sync interval). */
static inline double cli_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The loaded case of id, or NULL (cli_waivers.c). */
const cts_case *cli_case_by_id(const cts_loaded *l, const char *id);
/* The waivers among res's records (cts_is_waiver_record), each with its case's waiver fields:
 * the suites sel selects are loaded into l (free it with cts_loaded_free) only when there is
 * one. *rows is malloc'd (NULL when none). 0, or -1 when the suites do not load (printed). */
int cli_waiver_rows(const cts_selection *sel, const cts_result_list *res, cts_loaded *l,
                    cts_waiver_row **rows, size_t *nrows);

/* ---- audit --standard (cli_audit_standards.c) ---- */
typedef struct {
    cts_standard std[CTS_STD_MAX];
    int n;
    bool need_dump, need_bench;   /* a standard reads a dump; one compares with a benchmark */
} cli_standards;

/* The comma-separated standards of list from dir; golden ("dtype", "exact"), when not NULL,
 * overrides each file's golden. 0, or -1 (printed). */
int cli_standards_load(const char *list, const char *dir, const char *golden, cli_standards *s);
/* The benchmark device's --dump directory into dir: bench itself, or (bench "torch") the
 * suites run on --backend torch into OUT/benchmark with pass's options. 0, or -1. */
int cli_standards_benchmark(const char *bench, const char *out, char **pass, int npass,
                            char *dir, size_t len);
/* The audit a of the standards s, whose benchmark dump will be in bench_dir (if one is needed). */
void cli_standards_audit_init(const cli_standards *s, cts_std_audit *a, const char *bench_dir);
/* A streamed audit: each case judged as it ends (a cli_run_on_record hook on a
 * cli_standards_stream), then its dump removed, so the disk holds a few cases' dumps, not the
 * run's. */
typedef struct {
    cts_std_audit *a;
    const char *dump;
    uint64_t peak_bytes, total_bytes; /* the dump's most at once, and every case's summed */
} cli_standards_stream;
void cli_standards_stream_case(void *stream, const cts_result *r);
/* The standards' audit of the run (its cases from dump_dir, or streamed already): OUT/
 * standards.csv and standards_outputs.csv written, a freed, the Markdown returned (free it;
 * NULL on error). */
char *cli_standards_audit(cts_std_audit *a, bool streamed, const cts_result_list *res,
                          const char *dump_dir, const char *out);

#endif
