/* `aclcts merge OUT IN...`: joins the JSONL files of shards (or of resumed runs) into one set of
 * results. A case recorded twice must agree (status, failing check, output hash); the merged
 * records are sorted by case id. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/results.h"

static const char merge_help[] =
    "usage: aclcts merge OUT IN.jsonl...\n"
    "\n"
    "Joins the results.jsonl files of several runs (shards of one run, a run and its --resume)\n"
    "into OUT/results.jsonl, OUT/junit.xml and OUT/summary.md, and prints the summary. A case\n"
    "present in several inputs is kept once; if its status, failing check or output hash\n"
    "differ between inputs that is an error (exit 2, nothing written), and so is a record\n"
    "judged by another contract than the first input's first record. An input whose last\n"
    "record is cut short (a run killed or still writing) is merged without it, with a warning\n"
    "and exit 1. Otherwise exit 0 when no case is FAIL, CRASH, TIMEOUT, ERROR or\n"
    "RESOURCE_ERROR, else 1. OUT is written by one merge or run at a time. Each output is\n"
    "written whole or not at all: a file that cannot be written (a full disk) is exit 2, named,\n"
    "and leaves the previous version, if any. An output that is also an input is refused.\n";

typedef struct {
    const cts_result *r;
    int input;
} entry;

static int by_id(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->r->v.case_id, y->r->v.case_id);
    return c ? c : (x->input > y->input) - (x->input < y->input);
}

static bool agree(const cts_result *a, const cts_result *b)
{
    return a->v.status == b->v.status && strcmp(a->v.check, b->v.check) == 0 &&
           a->v.output_hash == b->v.output_hash;
}

/* One input: its records; a last line without its newline is left out and counted in *cut. */
static int read_input(const char *path, cts_result_list *out, int *cut)
{
    long complete = 0;
    struct stat st;
    int r = cts_jsonl_read(path, out, &complete, stderr);
    if (r < 0) {
        fprintf(stderr, "%s: error: cannot read: %s\n", path, strerror(errno));
        return r;
    }
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && complete < st.st_size) {
        fprintf(stderr, "%s: warning: the last record is cut short (%ld bytes without a "
                "newline: a run was killed or is still writing); merged without it\n", path,
                (long)(st.st_size - complete));
        (*cut)++;
    }
    return r;
}

/* Every record names the contract of the first one: results judged by two contracts are not
 * one set of results. Returns the number of inputs holding another contract's records. */
static int check_one_contract(const cts_result_list *in, int nin, char **paths)
{
    const cts_result *first = NULL;
    int first_in = 0, bad = 0;
    for (int k = 0; k < nin && !first; k++)
        if (in[k].count) {
            first = &in[k].r[0];
            first_in = k;
        }
    for (int k = first_in; first && k < nin; k++) {
        const char *want = cts_result_contract(first);
        const cts_result *r = cts_results_other_contract(&in[k], want);
        if (r) {
            fprintf(stderr, "aclcts: error: %s:%d: %s was judged by contract %s, but %s:%d by "
                    "%s: merge the results of one contract only\n", paths[k], r->line,
                    r->v.case_id, cts_result_contract(r), paths[first_in], first->line, want);
            bad++;
        }
    }
    return bad;
}

/* Creates OUT and locks it (through OUT/summary.md, as a run does): one writer at a time. */
static int lock_out(const char *out)
{
    char path[PATH_MAX], err[PATH_MAX + 128];
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "aclcts: error: creating %s: %s\n", out, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/summary.md", out);
    int fd = cts_out_lock(path, out, O_WRONLY, err, sizeof err);
    if (fd < 0)
        fprintf(stderr, "aclcts: error: %s\n", err);
    return fd;
}

/* The records of every input, one per case id in id order, into merged; a case recorded twice
 * with another outcome is an error (printed, counted in *bad). paths: the inputs' names. */
static void merge_records(const cts_result_list *in, int nin, char **paths, size_t total,
                          cts_result_list *merged, int *bad)
{
    entry *e = malloc((total ? total : 1) * sizeof *e);
    size_t n = 0;
    if (!e)
        abort();
    for (int k = 0; k < nin; k++)
        for (size_t j = 0; j < in[k].count; j++)
            e[n++] = (entry){&in[k].r[j], k};
    qsort(e, n, sizeof *e, by_id);
    for (size_t j = 0; j < n; j++) {
        if (j > 0 && strcmp(e[j].r->v.case_id, e[j - 1].r->v.case_id) == 0) {
            const cts_result *a = e[j - 1].r, *b = e[j].r;
            if (!agree(a, b)) {
                fprintf(stderr, "aclcts: error: %s: %s [%s] hash %016llx in %s, but %s [%s] "
                        "hash %016llx in %s\n", b->v.case_id, cts_status_name(a->v.status),
                        a->v.check, (unsigned long long)a->v.output_hash, paths[e[j - 1].input],
                        cts_status_name(b->v.status), b->v.check,
                        (unsigned long long)b->v.output_hash, paths[e[j].input]);
                (*bad)++;
            }
            continue;
        }
        cts_result_list_push(merged, e[j].r);
    }
    free(e);
}

/* OUT/results.jsonl, junit.xml and summary.md of the merged records, each whole or not at all
 * (summary.md, the lock's name, last). 0, or -1 (printed). */
static int write_merged(const char *out, const cts_result_list *merged)
{
    static const char *const names[] = {"results.jsonl", "junit.xml", "summary.md"};
    for (int k = 0; k < 3; k++) {
        char path[PATH_MAX];
        cli_out_file of;
        snprintf(path, sizeof path, "%s/%s", out, names[k]);
        FILE *f = cli_out_open(&of, path);
        if (!f)
            return -1;
        if (k == 0) {
            for (size_t j = 0; j < merged->count; j++)
                if (cts_jsonl_append(f, &merged->r[j]) != 0) { /* write(2), not the stream */
                    fprintf(stderr, "aclcts: error: writing %s: %s\n", path, strerror(errno));
                    cli_out_discard(&of);
                    return -1;
                }
        } else if (k == 1)
            cts_junit_write(f, merged->r, merged->count);
        else {
            fprintf(f, "# aclcts summary\n\n");
            cts_summary_write(f, merged->r, merged->count, 0);
        }
        if (cli_out_commit(&of) != 0)
            return -1;
    }
    return 0;
}

/* An output that is also an input would be overwritten by the merge of itself: refused before
 * anything is written. 0, or -1 (printed). */
static int check_outputs_not_inputs(const char *out, int nin, char **paths)
{
    static const char *const names[] = {"results.jsonl", "junit.xml", "summary.md"};
    for (int k = 0; k < 3; k++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", out, names[k]);
        for (int j = 0; j < nin; j++)
            if (cts_out_same_file(path, paths[j])) {
                fprintf(stderr, "aclcts: error: the output %s is the input %s; merge into "
                        "another directory\n", path, paths[j]);
                return -1;
            }
    }
    return 0;
}

/* The console summary of the merge and its exit code (1 also when an input was cut short). */
static int report_merged(const cts_result_list *merged, size_t total, int nin, int cut)
{
    printf("aclcts: merged %zu records of %d files into %zu cases\n\n", total, nin,
           merged->count);
    cts_summary_console(stdout, merged->r, merged->count, 20);
    cts_tally t;
    cts_tally_results(merged->r, merged->count, &t);
    int rc = cts_tally_exit_code(&t);
    if (cut && rc == 0) {
        fprintf(stderr, "aclcts: warning: %d input%s had a record cut short; exit 1\n", cut,
                cut > 1 ? "s" : "");
        rc = CLI_EXIT_FAIL;
    }
    return rc;
}

int cli_merge(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(merge_help, stdout);
            return CLI_EXIT_OK;
        }
    if (argc < 3) {
        fprintf(stderr, "aclcts: error: merge needs OUT and at least one input\n%s", merge_help);
        return CLI_EXIT_USAGE;
    }
    const char *out = argv[1];
    int nin = argc - 2, bad = 0, cut = 0;
    cts_result_list *in = calloc((size_t)nin, sizeof *in);
    size_t total = 0;
    if (!in)
        abort();
    for (int k = 0; k < nin; k++) {
        bad += read_input(argv[k + 2], &in[k], &cut) != 0;
        total += in[k].count;
    }
    bad += check_one_contract(in, nin, argv + 2);
    cts_result_list merged = {0};
    merge_records(in, nin, argv + 2, total, &merged, &bad);
    int rc = CLI_EXIT_USAGE;
    bad += check_outputs_not_inputs(out, nin, argv + 2) != 0;
    int lock = bad ? -1 : lock_out(out);
    if (!bad && lock >= 0)
        rc = write_merged(out, &merged) != 0 ? CLI_EXIT_USAGE
                                             : report_merged(&merged, total, nin, cut);
    if (lock >= 0)
        close(lock);
    cts_result_list_free(&merged);
    for (int k = 0; k < nin; k++)
        cts_result_list_free(&in[k]);
    free(in);
    return rc;
}
