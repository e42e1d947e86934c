/* What the files of `aclcts run` share (private to cli/): its arguments (cli_run_args.c) and
 * its output files (cli_run_outputs.c); the run itself is cli_run.c. */
#ifndef ACLCTS_CONFORMANCE_CLI_RUN_H_
#define ACLCTS_CONFORMANCE_CLI_RUN_H_

#include <limits.h>

#include "cli.h"

typedef struct {
    cts_selection sel;
    const char *backend, *out, *jsonl, *junit, *dump, *resume, *evidence;
    const char *package;   /* inside certify: the package's path; repro lines relative to it */
    long jobs, repeat;
    double timeout;
    uint64_t max_memory;
    bool timeout_given, quiet;
} run_args;

extern const char cli_run_help[]; /* printf format: the selection's help (cli_selection_help) */
/* The arguments of run into a (defaults first): 0, or -1 with a message printed. */
int cli_run_parse_args(int argc, char **argv, run_args *a);

/* The three outputs, each locked for the whole run (summary.md stands for the directory). */
typedef struct {
    char jsonl[PATH_MAX], junit[PATH_MAX], summary[PATH_MAX];
    int summary_lock, junit_lock, jsonl_fd;
    FILE *jsonl_f;
    bool reports_written;
} outputs;

/* The outputs' paths from the arguments (nothing opened yet). */
void cli_run_outputs_paths(const run_args *a, outputs *o);
/* Closes the outputs; a report file only the lock created is removed. */
void cli_run_outputs_close(outputs *o);
/* Two outputs under one name, or an output under a suite's name: refused (printed), -1. */
int cli_run_check_aliases(const run_args *a, const outputs *o);
/* Creates the directories, takes the locks, reads and trims --resume F, and opens the JSONL
 * for appending. 0, or -1 (message printed). */
int cli_run_open_outputs(const run_args *a, const cts_loaded *l, outputs *o, cts_id_set *done,
                         cts_result_list *prev);
/* junit.xml and summary.md, each whole or not at all: 0, or -1 (printed). */
int cli_run_write_reports(const char *junit, const char *summary, const cts_result_list *all);

#endif
