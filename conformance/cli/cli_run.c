/* `aclcts run`: load and select cases, run each in a forked worker, record every verdict as it
 * arrives (JSONL; fsync'd once a second), then write JUnit and the summary and print the
 * table. One run writes an output at a time (locks), a write error or a SIGINT/SIGTERM stops
 * it at once and says how to --resume. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "results/results.h"
#include "run/run.h"

#define DEFAULT_TIMEOUT 60.0
#define MAX_TIMEOUT 1e6

static const char run_help[] =
    "usage: aclcts run [OPTIONS] [SUITE.yaml|DIR]...\n"
    "\n"
    "Runs the cases of the suites (default ./suites; a directory means its *.yaml and *.yml\n"
    "files) on a device, each in a forked worker, and writes results.jsonl, junit.xml and\n"
    "summary.md. Exit 0 when no case is FAIL, CRASH, TIMEOUT, ERROR or RESOURCE_ERROR; 1\n"
    "otherwise; 2 for usage or suite errors (then nothing runs and nothing is written) and when\n"
    "a result cannot be written (the run stops at once); 130 after SIGINT, 143 after SIGTERM\n"
    "(what finished is reported; the message says how to --resume).\n"
    "\n"
    "Device:\n"
    "  --backend emu      the emulated device (build/ascend-emu/lib64 or $ACLCTS_EMU_DIR); default\n"
    "  --backend cann[:DIR]  a CANN install: libascendcl.so, libnnopbase.so, libopapi.so from DIR\n"
    "                     or $ASCEND_HOME_PATH/lib64 (source set_env.sh first)\n"
    "  --backend torch    the PyTorch-backed device (build/ascend-torch/lib64)\n"
    "\n"
    "Choosing cases:\n"
    "%s"
    "  --resume F         skip the case ids already recorded in the JSONL file F and append the\n"
    "                     new ones to it (F need not exist yet); the reports then cover all of F.\n"
    "                     F must hold cases of this selection only (same suites, seed, shard)\n"
    "                     judged by this run's --contract\n"
    "\n"
    "Running:\n"
    "  --jobs N           N workers at once, also the thread count of determinism checks;\n"
    "                     default: the number of online CPUs\n"
    "  --timeout S        seconds per case before the worker is killed (TIMEOUT); default 60\n"
    "  --max-memory SIZE  host memory one case may need (bytes, or with K, M, G, T); a case\n"
    "                     estimated above it is RESOURCE_ERROR without running; default half of\n"
    "                     the physical memory\n"
    "  --repeat R         device runs per case for determinism and spread (default: the case's)\n"
    "  --dump DIR         write DIR/<case id>/case.json and .npy inputs, outputs and references\n"
    "\n"
    "Results:\n"
    "  --out DIR          directory of results.jsonl, junit.xml, summary.md; default results\n"
    "  --jsonl F          JSONL here instead (one record per case, appended; fsync'd each second)\n"
    "  --junit F          JUnit XML here instead\n"
    "  --quiet            no progress and no table: failing cases and the final count only\n"
    "One run writes an output directory and a JSONL file at a time: a second one is refused.\n";

typedef struct {
    cts_selection sel;
    const char *backend, *out, *jsonl, *junit, *dump, *resume;
    const char *package;   /* inside certify: the package's path; repro lines relative to it */
    long jobs, repeat;
    double timeout;
    uint64_t max_memory;
    bool timeout_given, quiet;
} run_args;

static int parse_timeout(const char *v, run_args *a)
{
    char *end;
    errno = 0;
    a->timeout = strtod(v, &end);
    if (errno || end == v || *end || !(a->timeout > 0) || a->timeout > MAX_TIMEOUT) {
        fprintf(stderr, "aclcts: error: --timeout %s: expected seconds in (0, %g]\n", v,
                MAX_TIMEOUT);
        return -1;
    }
    a->timeout_given = true;
    return 0;
}

/* "2G", "512M", "1048576": bytes, 1024-based suffixes. */
static int parse_size(const char *name, const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    static const char suffixes[] = "KMGT";
    const char *s = *end ? strchr(suffixes, *end) : NULL;
    bool ok = !errno && end != v && *v != '-' && (!*end || (s && !end[1]));
    for (int shift = s ? 10 * (int)(s - suffixes + 1) : 0; ok && shift > 0; shift -= 10)
        ok = !__builtin_mul_overflow(n, 1024ull, &n);
    if (!ok || n == 0) {
        fprintf(stderr, "aclcts: error: %s %s: expected a size in bytes > 0, optionally with K, "
                "M, G or T\n", name, v);
        return -1;
    }
    *out = n;
    return 0;
}

static uint64_t default_max_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : UINT64_MAX;
}

static int parse_args(int argc, char **argv, run_args *a)
{
    memset(a, 0, sizeof *a);
    a->backend = "emu";
    a->out = "results";
    a->timeout = DEFAULT_TIMEOUT;
    a->max_memory = default_max_memory();
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = ncpu > 0 ? ncpu : 1;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r = cli_selection_arg(&a->sel, argc, argv, &i);
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        const char **str_opts[] = {&a->backend, &a->out, &a->jsonl, &a->junit, &a->dump,
                                   &a->resume};
        static const char *const str_names[] = {"--backend", "--out", "--jsonl", "--junit",
                                                "--dump", "--resume"};
        bool matched = false;
        for (size_t k = 0; k < sizeof str_names / sizeof str_names[0] && !matched; k++) {
            r = cli_opt_value(argc, argv, &i, str_names[k], str_opts[k]);
            if (r < 0)
                return -1;
            matched = r > 0;
        }
        if (matched)
            continue;
        if ((r = cli_opt_value(argc, argv, &i, "--jobs", &v)) != 0) {
            if (r < 0 || cli_parse_long("--jobs", v, 1, 1024, &a->jobs))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--repeat", &v)) != 0) {
            if (r < 0 || cli_parse_long("--repeat", v, 1, 1000000, &a->repeat))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--timeout", &v)) != 0) {
            if (r < 0 || parse_timeout(v, a))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--max-memory", &v)) != 0) {
            if (r < 0 || parse_size("--max-memory", v, &a->max_memory))
                return -1;
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            a->quiet = true;
        } else {
            fprintf(stderr, "aclcts: error: run: unknown option %s (see aclcts run --help)\n",
                    argv[i]);
            return -1;
        }
    }
    if (a->resume && a->jsonl && !cts_out_same_file(a->resume, a->jsonl)) {
        fprintf(stderr, "aclcts: error: --resume %s appends to that file; --jsonl %s differs\n",
                a->resume, a->jsonl);
        return -1;
    }
    return 0;
}

static void dir_of(const char *file, char *out, size_t len)
{
    snprintf(out, len, "%s", file);
    char *slash = strrchr(out, '/');
    if (slash && slash != out)
        *slash = '\0';
    else
        snprintf(out, len, slash ? "/" : ".");
}

/* ---- stopping: SIGINT/SIGTERM from the user or the scheduler, or a write error ---- */

static volatile sig_atomic_t stop_request; /* 0, a signal number, or -1 (write error) */

static void on_stop_signal(int sig)
{
    stop_request = sig;
}

static void catch_stop_signals(struct sigaction old[2])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal; /* no SA_RESTART: the worker's poll returns at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    /* A file size limit (ulimit -f) must be a write error we report, not a silent death. */
    signal(SIGXFSZ, SIG_IGN);
}

static void restore_stop_signals(const struct sigaction old[2])
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
}

/* ---- the output files ---- */

/* The three outputs, each locked for the whole run (summary.md stands for the directory). */
typedef struct {
    char jsonl[PATH_MAX], junit[PATH_MAX], summary[PATH_MAX];
    int summary_lock, junit_lock, jsonl_fd;
    FILE *jsonl_f;
    bool reports_written;
} outputs;

/* A report file the lock created and no report filled: removed, not left empty. */
static void drop_if_empty(int fd, const char *path)
{
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
        unlink(path);
}

static void outputs_close(outputs *o)
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

static void outputs_paths(const run_args *a, outputs *o)
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
static int check_aliases(const run_args *a, const outputs *o)
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
static int open_outputs(const run_args *a, const cts_loaded *l, outputs *o, cts_id_set *done,
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

/* ---- the device's environment ---- */

/* The emulated device reads its switches (ACLCTS_SOC, ACLNN_EMU_*) at aclInit and refuses
 * unknown values there; ask it once, in a child (the parent never calls the device), so a typo
 * is one clear error before anything runs instead of an ERROR in every case. */
static int probe_device_env(const cts_backend *b)
{
    if (!b->emulated)
        return 0;
    int p[2];
    if (pipe(p) != 0)
        return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        aclError e = b->aclInit(NULL);
        const char *m = e != ACL_SUCCESS ? b->aclGetRecentErrMsg() : NULL;
        if (e != ACL_SUCCESS)
            dprintf(p[1], "aclInit failed with %d: %s", e, m ? m : "no message");
        else
            b->aclFinalize();
        _exit(0);
    }
    close(p[1]);
    char msg[1024];
    ssize_t n = 0, r;
    while (pid > 0 && (r = read(p[0], msg + n, sizeof msg - 1 - (size_t)n)) > 0)
        n += r;
    close(p[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    msg[n > 0 ? n : 0] = '\0';
    if (n <= 0)
        return 0;
    fprintf(stderr, "aclcts: error: the device refuses its environment: %s\n", msg);
    return -1;
}

/* ---- the run ---- */

/* A case's share of the run's work for the ETA: its tensors' elements (data generation, device,
 * reference and checks all go over them) plus a fixed cost per case (worker hand-over, setup,
 * records), counted as 4096 elements. */
static double case_work(const cts_case *c)
{
    double w = 4096;
    for (int s = 0; s < c->ntensors; s++) {
        cts_tensor_extent e;
        if (cts_tensor_extent_of(&c->t[s], &e))
            w += (double)e.numel;
    }
    return w;
}

typedef struct {
    const run_args *a;
    const cts_case *const *cases;
    outputs *o;
    size_t recorded;
    const char *unrecorded;     /* the case whose record could not be written */
    int write_errno;
    double synced;              /* monotonic seconds of the JSONL's last fsync */
    cts_result_list results;
    cts_result_list *records;   /* every record goes here at the end (cli_run_loaded) */
    char file[PATH_MAX], shown[PATH_MAX]; /* the last suite file and its display path */
    cts_progress progress;
    char repro_out[PATH_MAX];
} run_ctx;

/* Appends one record, synced at most once a second (cts_jsonl_sync); on failure cuts what the
 * failed write left and stops the run. */
static void record(run_ctx *ctx, const cts_result *r)
{
    int fd = fileno(ctx->o->jsonl_f);
    struct stat st;
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    double t = cli_mono();
    bool sync_due = t - ctx->synced >= 1.0;
    if (cts_jsonl_append(ctx->o->jsonl_f, r) == 0 &&
        (!sync_due || cts_jsonl_sync(ctx->o->jsonl_f) == 0)) {
        if (sync_due)
            ctx->synced = t;
        ctx->recorded++;
        return;
    }
    ctx->write_errno = errno ? errno : EIO;
    ctx->unrecorded = r->v.case_id;
    if (regular) /* the file keeps whole records only; if even this fails, --resume cuts it */
        (void)!ftruncate(fd, st.st_size);
    stop_request = -1;
}

static void on_done(void *vctx, size_t index, const cts_verdict *v, const char *log)
{
    run_ctx *ctx = vctx;
    const cts_case *c = ctx->cases[index];
    if (ctx->write_errno)
        return; /* stopped: this verdict has no record and is not reported */
    cts_result r;
    const char *file = c->mark.file ? c->mark.file : "";
    if (strcmp(file, ctx->file) != 0) { /* cases come grouped by file: resolve each once */
        snprintf(ctx->file, sizeof ctx->file, "%s", file);
        cli_display_path(file, ctx->shown, sizeof ctx->shown);
    }
    cts_result_from_case(&r, c, ctx->shown, ctx->a->backend);
    r.v = *v;
    if (v->status != CTS_PASS) {
        cli_repro_args ra = {.backend = ctx->a->backend, .product = r.product, .seed = c->seed,
                             .id = c->id, .suite_file = ctx->shown,
                             .repeat = (int)ctx->a->repeat,
                             .timeout = ctx->a->timeout_given ? ctx->a->timeout : 0,
                             .quick = ctx->a->sel.quick, .out = ctx->repro_out,
                             .contract = r.contract};
        char key[PATH_MAX], packaged[PATH_MAX + 8];
        if (ctx->a->package) { /* run from the package: its copy of the suite, output beside */
            cts_suite_key(file, key, sizeof key);
            snprintf(packaged, sizeof packaged, "suites/%s", key);
            ra.suite_file = packaged;
            ra.relative = true;
        }
        cli_repro_format(r.repro, sizeof r.repro, &ra);
        snprintf(r.log, sizeof r.log, "%s", log);
    }
    record(ctx, &r);
    if (ctx->write_errno)
        return;
    cts_result_list_push(&ctx->results, &r);
    cts_progress_case_work(&ctx->progress, &r, case_work(c));
}

/* junit.xml and summary.md, each whole or not at all (cli_out_file). */
static int write_reports(const char *junit, const char *summary, const cts_result_list *all)
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

/* The command that continues this run: the same arguments, appending to its JSONL. */
static void print_resume_line(int argc, char **argv, const char *jsonl)
{
    char buf[8192], exe[PATH_MAX];
    cts_sink s = {buf, sizeof buf, 0};
    cli_display_path("/proc/self/exe", exe, sizeof exe);
    cli_shell_word(&s, exe);
    cts_sink_put(&s, " run --resume ");
    cli_shell_word(&s, jsonl);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--resume") || !strcmp(argv[i], "--jsonl")) {
            i++;
            continue;
        }
        if (!strncmp(argv[i], "--resume=", 9) || !strncmp(argv[i], "--jsonl=", 8))
            continue;
        cts_sink_put(&s, " ");
        cli_shell_word(&s, argv[i]);
    }
    fprintf(stderr, "aclcts: to continue: %s\n", buf);
}

static void print_counts(const cts_tally *t)
{
    printf("aclcts: %zu cases:", t->total);
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        if (t->count[s])
            printf(" %zu %s", t->count[s], cts_status_name((cts_status)s));
    printf("\n");
}

/* A write error: nothing more is claimed than what the file holds. Exit 2. */
static int report_write_error(int argc, char **argv, const run_ctx *ctx, size_t ntodo,
                              size_t nprev)
{
    const outputs *o = ctx->o;
    fflush(stdout);
    fprintf(stderr, "aclcts: error: writing %s: %s\n", o->jsonl, strerror(ctx->write_errno));
    if (ctx->records) /* inside certify: its records go with its temporary directory */
        return CLI_EXIT_USAGE;
    fprintf(stderr, "aclcts: stopped at once: %zu records are saved in %s (%zu of this run's %zu "
            "cases; the record of %s was not written, the cases still running were "
            "abandoned); %s and %s were not written\n", nprev + ctx->recorded, o->jsonl,
            ctx->recorded, ntodo, ctx->unrecorded, o->junit, o->summary);
    print_resume_line(argc, argv, o->jsonl);
    return CLI_EXIT_USAGE;
}

static bool asks_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

/* The output files (with the records of --resume) for the selected cases: nothing is created
 * unless cases are selected and the device accepted its environment. 0 or CLI_EXIT_USAGE. */
static int open_run(const run_args *a, const cts_backend *backend, const cts_loaded *l,
                    outputs *o, cts_id_set *done, cts_result_list *prev)
{
    int rc = 0;
    if (l->nsel == 0 && l->shard.count <= 1) {
        fprintf(stderr, "aclcts: error: no case selected (%zu cases in the suites; check "
                "--filter, --product, --quick)\n", l->all.ncases);
        cli_print_other_contract(stderr, l, a->sel.contract); /* perhaps why */
        rc = CLI_EXIT_USAGE;
    }
    if (rc == 0 && (probe_device_env(backend) != 0 || check_aliases(a, o) != 0))
        rc = CLI_EXIT_USAGE;
    if (rc == 0 && open_outputs(a, l, o, done, prev) != 0)
        rc = CLI_EXIT_USAGE;
    return rc;
}

/* The selected cases not yet recorded (--resume), in selection order. */
static const cts_case **cases_to_run(const cts_loaded *l, const cts_id_set *done, size_t *n)
{
    const cts_case **todo = malloc((l->nsel ? l->nsel : 1) * sizeof *todo);
    if (!todo)
        abort();
    *n = 0;
    for (size_t k = 0; k < l->nsel; k++)
        if (!cts_id_set_has(done, l->sel[k]->id))
            todo[(*n)++] = l->sel[k];
    return todo;
}

static void print_plan(const run_args *a, const cts_backend *backend, const cts_loaded *l,
                       const outputs *o, size_t ntodo)
{
    printf("aclcts: %zu cases to run", ntodo);
    if (l->nsel != ntodo)
        printf(" (%zu already in %s)", l->nsel - ntodo, o->jsonl);
    if (l->shard.count > 1)
        printf(", shard %d/%d", l->shard.index, l->shard.count);
    printf(", backend %s (%s), contract %s, %ld jobs, timeout %g s\n", a->backend, backend->dir,
           ref_spec_contract(a->sel.contract), a->jobs, a->timeout);
    cli_print_other_contract(stdout, l, a->sel.contract);
}

/* The cases of ctx in the workers, each record written as it comes back, the session on record
 * from its start (docs/certification.md). *stopped_by: the signal that stopped the run, or 0.
 * Non-zero when the session record could not be written. */
static int run_cases(int argc, char **argv, const cts_backend *backend, const cts_loaded *l,
                     run_ctx *ctx, size_t ntodo, int *stopped_by)
{
    const run_args *a = ctx->a;
    cts_provenance prov;
    int prov_err = cts_provenance_begin(&prov, backend, a->backend, a->sel.product,
                                        ref_spec_contract(a->sel.contract), l->shard.index,
                                        l->shard.count, argc, argv, ctx->o->jsonl);
    if (a->package) { /* ../NAME.repro: beside the package, which stays as sealed */
        const char *slash = strrchr(a->package, '/');
        snprintf(ctx->repro_out, sizeof ctx->repro_out, "../%s.repro",
                 slash ? slash + 1 : a->package);
    } else {
        cli_repro_out(a->out, ctx->repro_out, sizeof ctx->repro_out);
    }
    struct sigaction old[2];
    stop_request = 0;
    catch_stop_signals(old);
    cts_progress_start(&ctx->progress, stdout, a->quiet, ntodo);
    for (size_t k = 0; k < ntodo; k++)
        ctx->progress.work_total += case_work(ctx->cases[k]);
    cts_worker_options wo = {.backend = backend,
                             .run = {.repeat = (int)a->repeat, .threads = (int)a->jobs,
                                     .dump_dir = a->dump, .max_memory = a->max_memory},
                             .jobs = (int)a->jobs,
                             .timeout = a->timeout,
                             .stop = &stop_request};
    ctx->synced = cli_mono();
    cts_worker_run(ctx->cases, ntodo, &wo, on_done, ctx);
    if (!ctx->write_errno && cts_jsonl_sync(ctx->o->jsonl_f) != 0) {
        ctx->write_errno = errno ? errno : EIO;
        ctx->unrecorded = "(none: the last fsync failed, so the last second's records may "
                          "not survive a power cut)";
    }
    cts_progress_end(&ctx->progress);
    restore_stop_signals(old);
    *stopped_by = stop_request;
    if (prov_err || cts_provenance_finish(&prov, (long long)ctx->recorded) != 0) {
        fprintf(stderr, "aclcts: error: writing %s: %s\n", prov.file, strerror(errno));
        prov_err = -1;
    }
    return prov_err;
}

/* JUnit and the summary over the whole JSONL file (the records of --resume in prev, then this
 * run's), the console summary, and the exit code. */
static int report_run(int argc, char **argv, run_ctx *ctx, cts_result_list *prev, size_t ntodo,
                      int stopped_by)
{
    const run_args *a = ctx->a;
    outputs *o = ctx->o;
    if (prev->count == 0) { /* no --resume records before them: take the list as it is */
        cts_result_list_free(prev);
        *prev = ctx->results;
        memset(&ctx->results, 0, sizeof ctx->results);
    }
    for (size_t k = 0; k < ctx->results.count; k++)
        cts_result_list_push(prev, &ctx->results.r[k]);
    int wr = 0;
    if (!ctx->records) {
        wr = write_reports(o->junit, o->summary, prev);
        o->reports_written = wr == 0;
    }
    cts_tally t;
    cts_tally_results(prev->r, prev->count, &t);
    if (a->quiet) {
        print_counts(&t);
    } else {
        printf("\n");
        cts_summary_console(stdout, prev->r, prev->count, 20);
        printf("\nresults: %s  %s  %s\n", o->jsonl, o->junit, o->summary);
    }
    int rc = cts_tally_exit_code(&t);
    if (wr != 0)
        rc = CLI_EXIT_USAGE;
    if (ctx->records) { /* the caller's now */
        *ctx->records = *prev;
        memset(prev, 0, sizeof *prev);
    }
    if (stopped_by > 0 && ctx->records) { /* inside certify, which says what it keeps */
        rc = 128 + stopped_by;
    } else if (stopped_by > 0) {
        fflush(stdout);
        fprintf(stderr, "aclcts: interrupted by %s: %zu of %zu cases finished and are "
                "recorded in %s; the reports cover those\n",
                stopped_by == SIGINT ? "SIGINT" : "SIGTERM", ctx->recorded, ntodo, o->jsonl);
        print_resume_line(argc, argv, o->jsonl);
        rc = 128 + stopped_by;
    }
    return rc;
}

/* Runs the selected cases not yet recorded and writes the reports: the exit code. */
static int run_selected(int argc, char **argv, const run_args *a, const cts_backend *backend,
                        const cts_loaded *l, outputs *o, const cts_id_set *done,
                        cts_result_list *prev, cts_result_list *records)
{
    size_t ntodo;
    const cts_case **todo = cases_to_run(l, done, &ntodo);
    if (!a->quiet)
        print_plan(a, backend, l, o, ntodo);
    run_ctx ctx = {.a = a, .cases = todo, .o = o, .records = records};
    int stopped_by;
    int prov_err = run_cases(argc, argv, backend, l, &ctx, ntodo, &stopped_by);
    int rc = ctx.write_errno ? report_write_error(argc, argv, &ctx, ntodo, prev->count)
                             : report_run(argc, argv, &ctx, prev, ntodo, stopped_by);
    if (prov_err && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_FAIL;
    free(todo);
    cts_result_list_free(&ctx.results);
    return rc;
}

/* cli_run, or cli_run_loaded with the cases given (then not loaded here). */
static int run_command(int argc, char **argv, const cts_loaded *given, cts_result_list *records,
                       const char *package)
{
    run_args a;
    if (asks_help(argc, argv)) {
        printf(run_help, cli_selection_help);
        return CLI_EXIT_OK;
    }
    if (parse_args(argc, argv, &a) != 0)
        return CLI_EXIT_USAGE;
    a.package = package;
    cts_backend backend;
    char err[1024];
    memset(&backend, 0, sizeof backend);
    if (cts_backend_open(a.backend, &backend, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: --backend %s: %s\n", a.backend, err);
        return CLI_EXIT_USAGE;
    }
    cts_loaded own;
    const cts_loaded *l = given ? given : &own;
    outputs o;
    cts_id_set done = {0};
    cts_result_list prev = {0};
    outputs_paths(&a, &o); /* closed below whatever happens */
    int rc = !given && cts_selection_load(&a.sel, &own) ? CLI_EXIT_USAGE : 0;
    if (rc == 0)
        rc = open_run(&a, &backend, l, &o, &done, &prev);
    if (rc == 0)
        rc = run_selected(argc, argv, &a, &backend, l, &o, &done, &prev, records);
    outputs_close(&o);
    cts_id_set_free(&done);
    cts_result_list_free(&prev);
    if (!given)
        cts_loaded_free(&own);
    cts_backend_close(&backend);
    return rc;
}

int cli_run(int argc, char **argv)
{
    return run_command(argc, argv, NULL, NULL, NULL);
}

int cli_run_loaded(int argc, char **argv, const cts_loaded *loaded, cts_result_list *records,
                   const char *package)
{
    return run_command(argc, argv, loaded, records, package);
}
