/* `aclcts run`: load and select cases, run each in a forked worker, record every verdict as it
 * arrives (JSONL; fsync'd once a second), then write JUnit and the summary and print the
 * table. One run writes an output at a time (locks), a write error or a SIGINT/SIGTERM stops
 * it at once and says how to --resume. */
#include "cli_run.h"

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

static void (*record_hook)(void *, const cts_result *); /* cli_run_on_record */
static void *record_hook_ctx;

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
    if (record_hook) record_hook(record_hook_ctx, &r);
    cts_progress_case_work(&ctx->progress, &r, case_work(c));
}

void cli_run_on_record(void (*fn)(void *ctx, const cts_result *r), void *ctx)
{
    record_hook = fn;
    record_hook_ctx = ctx;
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
    if (rc == 0 && (probe_device_env(backend) != 0 || cli_run_check_aliases(a, o) != 0))
        rc = CLI_EXIT_USAGE;
    if (rc == 0 && cli_run_open_outputs(a, l, o, done, prev) != 0)
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
                                     .dump_dir = a->dump, .evidence_dir = a->evidence,
                                     .max_memory = a->max_memory},
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
        wr = cli_run_write_reports(o->junit, o->summary, prev);
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
        printf(cli_run_help, cli_selection_help);
        return CLI_EXIT_OK;
    }
    if (cli_run_parse_args(argc, argv, &a) != 0)
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
    cli_run_outputs_paths(&a, &o); /* closed below whatever happens */
    int rc = !given && cts_selection_load(&a.sel, &own) ? CLI_EXIT_USAGE : 0;
    if (rc == 0)
        rc = open_run(&a, &backend, l, &o, &done, &prev);
    if (rc == 0)
        rc = run_selected(argc, argv, &a, &backend, l, &o, &done, &prev, records);
    cli_run_outputs_close(&o);
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
