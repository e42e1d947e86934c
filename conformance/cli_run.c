/* `aclcts run`: load and select cases, run each in a forked worker, record every verdict as it
 * arrives (JSONL, fsync'd), then write JUnit and the summary and print the table. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "progress.h"
#include "results.h"
#include "worker.h"

#define DEFAULT_TIMEOUT 60.0

static const char run_help[] =
    "usage: aclcts run [OPTIONS] [SUITE.yaml|DIR]...\n"
    "\n"
    "Runs the cases of the suites (default ./suites; a directory means its *.yaml files) on a\n"
    "device, each in a forked worker, and writes results.jsonl, junit.xml and summary.md.\n"
    "Exit 0 when no case is FAIL, CRASH, TIMEOUT or ERROR; 1 otherwise; 2 for usage or suite\n"
    "errors (then nothing runs and nothing is written).\n"
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
    "                     new ones to it (F need not exist yet); the reports then cover all of F\n"
    "\n"
    "Running:\n"
    "  --jobs N           N workers at once, also the thread count of determinism checks;\n"
    "                     default: the number of online CPUs\n"
    "  --timeout S        seconds per case before the worker is killed (TIMEOUT); default 60\n"
    "  --repeat R         device runs per case for determinism and spread (default: the case's)\n"
    "  --dump DIR         write DIR/<case id>/case.json and .npy inputs, outputs and references\n"
    "\n"
    "Results:\n"
    "  --out DIR          directory of results.jsonl, junit.xml, summary.md; default results\n"
    "  --jsonl F          JSONL here instead (one record per case, appended and fsync'd)\n"
    "  --junit F          JUnit XML here instead\n"
    "  --quiet            no progress and no table: failing cases and the final count only\n";

typedef struct {
    cli_selection sel;
    const char *backend, *out, *jsonl, *junit, *dump, *resume;
    long jobs, repeat;
    double timeout;
    bool timeout_given, quiet;
} run_args;

static int parse_args(int argc, char **argv, run_args *a)
{
    memset(a, 0, sizeof *a);
    a->backend = "emu";
    a->out = "results";
    a->timeout = DEFAULT_TIMEOUT;
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
            char *end;
            if (r < 0)
                return -1;
            errno = 0;
            a->timeout = strtod(v, &end);
            if (errno || end == v || *end || !(a->timeout > 0) || a->timeout > 1e6) {
                fprintf(stderr, "aclcts: error: --timeout %s: expected seconds > 0\n", v);
                return -1;
            }
            a->timeout_given = true;
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            a->quiet = true;
        } else {
            fprintf(stderr, "aclcts: error: run: unknown option %s (see aclcts run --help)\n",
                    argv[i]);
            return -1;
        }
    }
    if (a->resume && a->jsonl && strcmp(a->resume, a->jsonl) != 0) {
        fprintf(stderr, "aclcts: error: --resume %s appends to that file; --jsonl %s differs\n",
                a->resume, a->jsonl);
        return -1;
    }
    return 0;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
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

typedef struct {
    const run_args *a;
    const cts_case *const *cases;
    FILE *jsonl;
    const char *jsonl_path;
    int write_errors;
    cts_result_list results;
    cts_progress progress;
    char repro_out[PATH_MAX];
} run_ctx;

static void on_done(void *vctx, size_t index, const cts_verdict *v, const char *log)
{
    run_ctx *ctx = vctx;
    const cts_case *c = ctx->cases[index];
    cts_result r;
    char file[PATH_MAX];
    cli_display_path(c->mark.file ? c->mark.file : "", file, sizeof file);
    cts_result_from_case(&r, c, file, ctx->a->backend);
    r.v = *v;
    if (v->status != CTS_PASS) {
        cli_repro_args ra = {.backend = ctx->a->backend, .product = r.product, .seed = c->seed,
                             .id = c->id, .suite_file = file, .repeat = (int)ctx->a->repeat,
                             .timeout = ctx->a->timeout_given ? ctx->a->timeout : 0,
                             .quick = ctx->a->sel.quick, .out = ctx->repro_out};
        cli_repro_format(r.repro, sizeof r.repro, &ra);
        snprintf(r.log, sizeof r.log, "%s", log);
    }
    if (cts_jsonl_append(ctx->jsonl, &r) != 0 && ctx->write_errors++ == 0)
        fprintf(stderr, "aclcts: error: writing %s: %s\n", ctx->jsonl_path, strerror(errno));
    cts_result_list_push(&ctx->results, &r);
    cts_progress_case(&ctx->progress, &r);
}

/* Reads --resume F: the ids already done (into `done`) and their records (into `prev`); cuts a
 * record a kill left half-written. 0, or -1 (message printed). */
static int read_resume(const char *path, cts_id_set *done, cts_result_list *prev)
{
    long complete = 0;
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    int bad = cts_jsonl_read(path, prev, &complete, stderr);
    if (bad < 0) {
        fprintf(stderr, "aclcts: error: --resume %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (bad > 0) {
        fprintf(stderr, "aclcts: error: --resume %s: %d unreadable records\n", path, bad);
        return -1;
    }
    if (complete < st.st_size) {
        fprintf(stderr, "aclcts: warning: %s: dropping a half-written last record (%ld bytes)\n",
                path, (long)(st.st_size - complete));
        if (truncate(path, complete) != 0) {
            fprintf(stderr, "aclcts: error: truncating %s: %s\n", path, strerror(errno));
            return -1;
        }
    }
    for (size_t k = 0; k < prev->count; k++)
        cts_id_set_add(done, prev->r[k].v.case_id);
    return 0;
}

static int write_reports(const char *junit, const char *summary, const cts_result_list *all)
{
    int rc = 0;
    FILE *f = fopen(junit, "w");
    if (!f || cts_junit_write(f, all->r, all->count) != 0 || fclose(f) != 0) {
        fprintf(stderr, "aclcts: error: writing %s: %s\n", junit, strerror(errno));
        rc = -1;
    }
    f = fopen(summary, "w");
    if (f) {
        fprintf(f, "# aclcts summary\n\n");
        cts_summary_write(f, all->r, all->count, 0);
    }
    if (!f || fclose(f) != 0) {
        fprintf(stderr, "aclcts: error: writing %s: %s\n", summary, strerror(errno));
        rc = -1;
    }
    return rc;
}

int cli_run(int argc, char **argv)
{
    run_args a;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf(run_help, cli_selection_help);
            return CLI_EXIT_OK;
        }
    if (parse_args(argc, argv, &a) != 0)
        return CLI_EXIT_USAGE;

    cts_backend backend;
    char err[1024];
    memset(&backend, 0, sizeof backend);
    if (cts_backend_open(a.backend, &backend, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: --backend %s: %s\n", a.backend, err);
        return CLI_EXIT_USAGE;
    }
    cli_loaded l;
    int rc = cli_selection_load(&a.sel, &l);
    if (rc != 0) {
        cli_loaded_free(&l);
        cts_backend_close(&backend);
        return rc;
    }
    if (l.nsel == 0 && l.shard.count <= 1) {
        fprintf(stderr, "aclcts: error: no case selected (%zu cases in the suites; check "
                "--filter, --product, --quick)\n", l.all.ncases);
        cli_loaded_free(&l);
        cts_backend_close(&backend);
        return CLI_EXIT_USAGE;
    }

    /* Output paths; nothing is created before the suites loaded without error. */
    char jsonl[PATH_MAX], junit[PATH_MAX], summary[PATH_MAX], dir[PATH_MAX];
    snprintf(jsonl, sizeof jsonl, "%s", a.resume ? a.resume : a.jsonl ? a.jsonl : "");
    if (!*jsonl)
        snprintf(jsonl, sizeof jsonl, "%s/results.jsonl", a.out);
    if (a.junit)
        snprintf(junit, sizeof junit, "%s", a.junit);
    else
        snprintf(junit, sizeof junit, "%s/junit.xml", a.out);
    snprintf(summary, sizeof summary, "%s/summary.md", a.out);

    cts_id_set done = {0};
    cts_result_list prev = {0};
    run_ctx ctx = {.a = &a, .jsonl_path = jsonl};
    snprintf(ctx.repro_out, sizeof ctx.repro_out, "%s/repro", a.out);
    const cts_case **todo = malloc((l.nsel ? l.nsel : 1) * sizeof *todo);
    size_t ntodo = 0;
    if (!todo)
        abort();
    rc = a.resume ? read_resume(a.resume, &done, &prev) : 0;
    const char *paths[] = {a.out, jsonl, junit};
    for (int k = 0; rc == 0 && k < 3; k++) {
        dir_of(paths[k], dir, sizeof dir);
        if (make_dirs(k == 0 ? a.out : dir) != 0) {
            fprintf(stderr, "aclcts: error: creating %s: %s\n", k == 0 ? a.out : dir,
                    strerror(errno));
            rc = -1;
        }
    }
    if (rc == 0 && !(ctx.jsonl = fopen(jsonl, a.resume ? "a" : "w"))) {
        fprintf(stderr, "aclcts: error: opening %s: %s\n", jsonl, strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        free(todo);
        cts_id_set_free(&done);
        cts_result_list_free(&prev);
        cli_loaded_free(&l);
        cts_backend_close(&backend);
        return CLI_EXIT_USAGE;
    }
    for (size_t k = 0; k < l.nsel; k++)
        if (!cts_id_set_has(&done, l.sel[k]->id))
            todo[ntodo++] = l.sel[k];

    if (!a.quiet) {
        printf("aclcts: %zu cases to run", ntodo);
        if (l.nsel != ntodo)
            printf(" (%zu already in %s)", l.nsel - ntodo, jsonl);
        if (l.shard.count > 1)
            printf(", shard %d/%d", l.shard.index, l.shard.count);
        printf(", backend %s (%s), %ld jobs, timeout %g s\n", a.backend, backend.dir, a.jobs,
               a.timeout);
    }
    ctx.cases = todo;
    cts_progress_start(&ctx.progress, stdout, a.quiet, ntodo);
    cts_worker_options wo = {.backend = &backend,
                             .run = {.repeat = (int)a.repeat, .threads = (int)a.jobs,
                                     .dump_dir = a.dump},
                             .jobs = (int)a.jobs,
                             .timeout = a.timeout};
    cts_worker_run(todo, ntodo, &wo, on_done, &ctx);
    cts_progress_end(&ctx.progress);
    fclose(ctx.jsonl);

    /* The reports cover the whole JSONL file: earlier records (--resume) and this run's. */
    for (size_t k = 0; k < ctx.results.count; k++)
        cts_result_list_push(&prev, &ctx.results.r[k]);
    int wr = write_reports(junit, summary, &prev);
    cts_tally t;
    cts_tally_results(prev.r, prev.count, &t);
    if (a.quiet) {
        printf("aclcts: %zu cases:", t.total);
        for (int s = 0; s < CTS_STATUS_COUNT; s++)
            if (t.count[s])
                printf(" %zu %s", t.count[s], cts_status_name((cts_status)s));
        printf("\n");
    } else {
        printf("\n");
        cts_summary_write(stdout, prev.r, prev.count, 20);
        printf("\nresults: %s  %s  %s\n", jsonl, junit, summary);
    }
    rc = cts_tally_exit_code(&t);
    if (ctx.write_errors || wr != 0)
        rc = CLI_EXIT_FAIL;

    free(todo);
    cts_id_set_free(&done);
    cts_result_list_free(&prev);
    cts_result_list_free(&ctx.results);
    cli_loaded_free(&l);
    cts_backend_close(&backend);
    return rc;
}
