/* The output files of `aclcts run` (cli_run.h): their paths, locks and aliases, --resume's
 * records, and the reports written at the end. */
#include "cli_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void dir_of(const char *file, char *out, size_t len)
{
    snprintf(out, len, "%s", file);
    char *slash = strrchr(out, '/');
    if (slash && slash != out)
        *slash = '\0';
    else
        snprintf(out, len, slash ? "/" : ".");
}

/* A report file the lock created and no report filled: removed, not left empty. */
static void drop_if_empty(int fd, const char *path)
{
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
        unlink(path);
}

void cli_run_outputs_close(outputs *o)
{
    if (o->jsonl_f)
        fclose(o->jsonl_f);
    else if (o->jsonl_fd >= 0)
        close(o->jsonl_fd);
    if (!o->reports_written) {
        drop_if_empty(o->summary_lock, o->summary);
        drop_if_empty(o->junit_lock, o->junit);
    }
    if (o->summary_lock >= 0)
        close(o->summary_lock);
    if (o->junit_lock >= 0)
        close(o->junit_lock);
    o->jsonl_f = NULL;
    o->jsonl_fd = o->summary_lock = o->junit_lock = -1;
}

void cli_run_outputs_paths(const run_args *a, outputs *o)
{
    memset(o, 0, sizeof *o);
    o->summary_lock = o->junit_lock = o->jsonl_fd = -1;
    const char *j = a->resume ? a->resume : a->jsonl;
    if (j)
        snprintf(o->jsonl, sizeof o->jsonl, "%s", j);
    else
        snprintf(o->jsonl, sizeof o->jsonl, "%s/results.jsonl", a->out);
    if (a->junit)
        snprintf(o->junit, sizeof o->junit, "%s", a->junit);
    else
        snprintf(o->junit, sizeof o->junit, "%s/junit.xml", a->out);
    snprintf(o->summary, sizeof o->summary, "%s/summary.md", a->out);
}

/* Two outputs under one name would overwrite each other (the durable JSONL by XML), and an
 * output under a suite's name would overwrite that suite: refused before anything is written. */
int cli_run_check_aliases(const run_args *a, const outputs *o)
{
    const char *const names[] = {"--jsonl", "--junit", "summary"};
    const char *const paths[] = {o->jsonl, o->junit, o->summary};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (cts_out_same_file(paths[i], paths[j])) {
                fprintf(stderr, "aclcts: error: %s %s and %s %s are one file; every output "
                        "needs its own\n", names[i], paths[i], names[j], paths[j]);
                return -1;
            }
    const char *deflt = "suites";
    char **files;
    size_t nfiles;
    cts_suite_files(a->sel.npaths ? a->sel.paths : &deflt, a->sel.npaths ? a->sel.npaths : 1,
                    &files, &nfiles);
    int rc = 0;
    for (size_t k = 0; k < nfiles; k++) {
        for (int i = 0; i < 3 && rc == 0; i++)
            if (cts_out_same_file(paths[i], files[k])) {
                fprintf(stderr, "aclcts: error: %s %s is the suite %s; an output must not "
                        "overwrite an input\n", names[i], paths[i], files[k]);
                rc = -1;
            }
        free(files[k]);
    }
    free(files);
    return rc;
}

static int make_output_dirs(const run_args *a, const outputs *o)
{
    char dir[PATH_MAX];
    const char *files[] = {o->jsonl, o->junit};
    if (cli_make_dirs(a->out) != 0) {
        fprintf(stderr, "aclcts: error: creating %s: %s\n", a->out, strerror(errno));
        return -1;
    }
    if (a->evidence && cli_make_dirs(a->evidence) != 0) {
        fprintf(stderr, "aclcts: error: creating %s: %s\n", a->evidence, strerror(errno));
        return -1;
    }
    for (int k = 0; k < 2; k++) {
        dir_of(files[k], dir, sizeof dir);
        if (cli_make_dirs(dir) != 0) {
            fprintf(stderr, "aclcts: error: creating %s: %s\n", dir, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Reads --resume F: its records (into prev), the length of its complete lines (*complete).
 * 0, or -1 (message printed). */
static int read_resume(const char *path, cts_result_list *prev, long *complete)
{
    *complete = 0;
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    int bad = cts_jsonl_read(path, prev, complete, stderr);
    if (bad < 0) {
        fprintf(stderr, "aclcts: error: --resume %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (bad > 0) {
        fprintf(stderr, "aclcts: error: --resume %s: %d unreadable records\n", path, bad);
        return -1;
    }
    return 0;
}

static int case_by_id(const void *a, const void *b)
{
    return strcmp((*(const cts_case *const *)a)->id, (*(const cts_case *const *)b)->id);
}

/* --resume F must hold cases of this selection only: records of another suite, seed or shard
 * would be reported as if this run had made them. Fills done with the ids of F. */
static int check_resume_ids(const char *path, const cts_result_list *prev, const cts_loaded *l,
                            cts_id_set *done)
{
    const cts_case **by_id = malloc((l->nsel ? l->nsel : 1) * sizeof *by_id);
    if (!by_id)
        abort();
    memcpy(by_id, l->sel, l->nsel * sizeof *by_id);
    qsort(by_id, l->nsel, sizeof *by_id, case_by_id);
    size_t foreign = 0, dup = 0;
    const cts_result *first = NULL;
    for (size_t k = 0; k < prev->count; k++) {
        const cts_result *r = &prev->r[k];
        cts_case key;
        const cts_case *kp = &key, *const *hit;
        snprintf(key.id, sizeof key.id, "%s", r->v.case_id);
        hit = bsearch(&kp, by_id, l->nsel, sizeof *by_id, case_by_id);
        if (!hit || (*hit)->seed != r->seed) {
            if (!foreign++)
                first = r;
        } else if (!cts_id_set_add(done, r->v.case_id)) {
            dup++;
        }
    }
    free(by_id);
    if (foreign) {
        fprintf(stderr, "aclcts: error: --resume %s: %zu of its %zu records are not cases of "
                "this selection (e.g. %s, seed %llu); it belongs to another run: give that "
                "run's suites, --seed, --product, --filter and shard, or another file\n", path,
                foreign, prev->count, first->v.case_id, (unsigned long long)first->seed);
        return -1;
    }
    if (dup) {
        fprintf(stderr, "aclcts: error: --resume %s: %zu cases are recorded twice; it was "
                "written by two runs at once (merge it first: aclcts merge)\n", path, dup);
        return -1;
    }
    return 0;
}

/* --resume F must hold records of this run's contract: the reports and a certification would
 * otherwise mix verdicts judged by two contracts. */
static int check_resume_contract(const char *path, const cts_result_list *prev, ref_spec contract)
{
    const char *want = ref_spec_contract(contract);
    const cts_result *r = cts_results_other_contract(prev, want);
    if (!r)
        return 0;
    fprintf(stderr, "aclcts: error: --resume %s:%d: %s was judged by contract %s; this run "
            "judges by %s: resume with --contract %s, or give another file\n", path, r->line,
            r->v.case_id, cts_result_contract(r), want, cts_result_contract(r));
    return -1;
}

/* Creates the directories, takes the locks, reads and trims --resume F, and opens the JSONL
 * for appending. 0, or -1 (message printed). */
int cli_run_open_outputs(const run_args *a, const cts_loaded *l, outputs *o, cts_id_set *done,
                         cts_result_list *prev)
{
    char err[PATH_MAX + 128];
    if (make_output_dirs(a, o) != 0)
        return -1;
    if ((o->summary_lock = cts_out_lock(o->summary, a->out, O_WRONLY, err, sizeof err)) < 0 ||
        (o->junit_lock = cts_out_lock(o->junit, o->junit, O_WRONLY, err, sizeof err)) < 0 ||
        (o->jsonl_fd = cts_out_lock(o->jsonl, o->jsonl, O_WRONLY | O_APPEND, err,
                                    sizeof err)) < 0) {
        fprintf(stderr, "aclcts: error: %s\n", err);
        return -1;
    }
    /* Read under the lock; the read closes its own descriptor, which drops a POSIX lock, so
     * take it again and make sure nobody appended in between. */
    long complete = 0;
    struct stat before, after;
    fstat(o->jsonl_fd, &before);
    if (a->resume && read_resume(o->jsonl, prev, &complete) != 0)
        return -1;
    close(o->jsonl_fd);
    if ((o->jsonl_fd = cts_out_lock(o->jsonl, o->jsonl, O_WRONLY | O_APPEND, err,
                                    sizeof err)) < 0) {
        fprintf(stderr, "aclcts: error: %s\n", err);
        return -1;
    }
    fstat(o->jsonl_fd, &after);
    if (after.st_size != before.st_size) {
        fprintf(stderr, "aclcts: error: %s changed while it was read; another run writes it\n",
                o->jsonl);
        return -1;
    }
    if (a->resume && (check_resume_contract(o->jsonl, prev, a->sel.contract) != 0 ||
                      check_resume_ids(o->jsonl, prev, l, done) != 0))
        return -1;
    if (S_ISREG(after.st_mode) && complete < after.st_size) {
        if (a->resume)
            fprintf(stderr, "aclcts: warning: %s: dropping a half-written last record (%ld "
                    "bytes)\n", o->jsonl, (long)(after.st_size - complete));
        if (ftruncate(o->jsonl_fd, complete) != 0) {
            fprintf(stderr, "aclcts: error: truncating %s: %s\n", o->jsonl, strerror(errno));
            return -1;
        }
    }
    if (!(o->jsonl_f = fdopen(o->jsonl_fd, "a"))) {
        fprintf(stderr, "aclcts: error: opening %s: %s\n", o->jsonl, strerror(errno));
        return -1;
    }
    return 0;
}

/* junit.xml and summary.md, each whole or not at all (cli_out_file). */
int cli_run_write_reports(const char *junit, const char *summary, const cts_result_list *all)
{
    cli_out_file of;
    FILE *f = cli_out_open(&of, junit);
    if (!f)
        return -1;
    cts_junit_write(f, all->r, all->count);
    if (cli_out_commit(&of) != 0)
        return -1;
    if (!(f = cli_out_open(&of, summary)))
        return -1;
    fprintf(f, "# aclcts summary\n\n");
    cts_summary_write(f, all->r, all->count, 0);
    return cli_out_commit(&of);
}
