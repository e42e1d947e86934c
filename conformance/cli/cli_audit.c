/* `aclcts audit`: the precision audit of one product or all of them side by side. Runs the
 * suites with the run subcommand (in process), whose workers gather per-element error
 * statistics while they judge, builds the tables from the run's results.jsonl alone (audit.c)
 * and writes audit.md, audit.csv and report.html next to the run's results. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "package/package.h"

static const char audit_help[] =
    "usage: aclcts audit --product ID|all [OPTIONS] [SUITE.yaml|DIR]...\n"
    "\n"
    "Precision audit: runs the suites (default ./suites), then for each op x dtype x numerics\n"
    "key (cube_math_type=N) x computation path reports max and 99th percentile of the element\n"
    "error in units of the `bound` tolerance (the pass criterion), in ULP (against the correctly\n"
    "rounded value) and relative, the share of elements meeting ascend-thousandth, ascend-ten-thousandth\n"
    "and torch-default, and the run-to-run spread of non-deterministic cases. With --product all\n"
    "the products stand side by side, one column each. The numbers come from the element\n"
    "statistics each case records in results.jsonl (p99: upper bound from half-octave\n"
    "histograms, at most sqrt(2) above the true value). audit.csv also carries the means, for\n"
    "tools; the tables leave them out (one far element makes a mean say little).\n"
    "\n"
    "audit.md ends with the waivers the run used or found expired, one column each for the\n"
    "reason, tracking reference, owner, expiry date and the failure waived; waivers.csv has\n"
    "the same columns.\n"
    "\n"
    "Writes OUT/audit.md, OUT/audit.csv, OUT/waivers.csv, OUT/report.html (and the run's\n"
    "results.jsonl, junit.xml, summary.md); prints the Markdown table.\n"
    "\n"
    "  --product ID|all   required\n"
    "  --backend SPEC     emu (default), cann[:DIR], torch\n"
    "  --out DIR          default audit\n"
    "  --jobs N, --seed S, --timeout S, --filter GLOB, --quick, --shard K/N: as for run\n"
    "                     (scheduler variables such as SLURM_ARRAY_TASK_ID are refused: an\n"
    "                     audit shards only when --shard says so)\n"
    "  --keep-dump DIR    --dump the run's tensors there and keep them (the standards below\n"
    "                     read a dump; without this option each case's goes to OUT/dump and\n"
    "                     is judged and removed as the case ends, or with --benchmark torch\n"
    "                     all are removed after the benchmark's run: some 60 bytes an element)\n"
    "  --standard S[,S]   the precision standards to judge by besides the tables above:\n"
    "                     aclcts (the proven bound, the default), atk-single-bm,\n"
    "                     msprobe-benchmark, msprobe-ulp, mixed-tolerance[@EDITION]; each is a\n"
    "                     data file of --standards-dir citing its source (docs/standards.md).\n"
    "                     Adds a section to audit.md and report.html and writes standards.csv\n"
    "                     (per row) and standards_outputs.csv (each output's verdicts)\n"
    "  --benchmark torch|DIR  the benchmark device of msprobe-benchmark (and msprobe-ulp's\n"
    "                     ratio): torch (default: the suites run again on --backend torch,\n"
    "                     results in OUT/benchmark) or DIR, the --dump directory of a recorded\n"
    "                     run of another device on the same suites and seed\n"
    "  --standards-dir DIR  where the standards' files are (default: the source tree's\n"
    "                     standards/)\n"
    "  --golden dtype|exact  what every standard compares the device with, instead of each\n"
    "                     file's `golden`: the reference rounded to the output dtype, or the\n"
    "                     exact value rounded to double (docs/standards.md \"The golden\")\n"
    "\n"
    "Exit 0 when the audit was written (whatever the errors it shows), 2 for usage errors.\n";

typedef struct {
    const cts_audit *au;
    const char *standards;            /* the standards' section, or NULL */
    const cts_waiver_row *waivers;
    size_t nwaivers;
} audit_md;

static void md(FILE *f, const void *arg)
{
    const audit_md *m = arg;
    cts_audit_write_markdown(f, m->au);
    if (m->standards) fputs(m->standards, f);
    cts_waivers_markdown(f, m->waivers, m->nwaivers);
}
static void csv(FILE *f, const void *a) { cts_audit_write_csv(f, a); }
static void waivers_csv(FILE *f, const void *a)
{
    const audit_md *m = a;
    cts_waivers_csv(f, m->waivers, m->nwaivers);
}
static void html(FILE *f, const void *r) { cts_report_html_write(f, r); }

static int write_to(const char *dir, const char *name, void (*fn)(FILE *, const void *),
                    const void *arg)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "aclcts: error: writing %s: %s\n", path, strerror(errno));
        return -1;
    }
    fn(f, arg);
    return fclose(f);
}

/* The audit page's header table, from the records: what was run, where and by which aclcts
 * (a package's page has the manifest's; an audit's had none). */
typedef struct {
    const char *keys[5], *vals[5];
    char products[160], backends[160], contracts[64], versions[96], cases[32];
} audit_facts;

/* Appends v to the comma-separated list (of distinct values) in buf. */
static void add_distinct(char *buf, size_t len, const char *v)
{
    size_t n = strlen(v), at = 0, l = strlen(buf);
    for (const char *p = buf; *p; p += at + (p[at] == ',' ? 2 : 0)) {
        at = strcspn(p, ",");
        if (at == n && !strncmp(p, v, n)) return;
    }
    snprintf(buf + l, len - l, "%s%s", l ? ", " : "", v);
}

static void facts_of(const cts_result_list *res, audit_facts *f)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < res->count; i++) {
        add_distinct(f->products, sizeof f->products, res->r[i].product);
        add_distinct(f->backends, sizeof f->backends, res->r[i].backend);
        add_distinct(f->contracts, sizeof f->contracts, res->r[i].contract);
        add_distinct(f->versions, sizeof f->versions, res->r[i].aclcts_version);
    }
    snprintf(f->cases, sizeof f->cases, "%zu", res->count);
    const char *keys[5] = {"products", "backend", "contract", "cases", "aclcts version"};
    const char *vals[5] = {f->products, f->backends, f->contracts, f->cases, f->versions};
    memcpy(f->keys, keys, sizeof keys);
    memcpy(f->vals, vals, sizeof vals);
}

int cli_audit(int argc, char **argv)
{
    const char *backend = "emu", *out = "audit", *keep = NULL, *stds = "aclcts";
    const char *bench = "torch", *std_dir = ACLCTS_SOURCE_DIR "/standards", *golden = NULL;
    const char *pass[CLI_MAX_ARGS];
    int npass = 0;
    cts_selection sel;
    memset(&sel, 0, sizeof sel);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(audit_help, stdout);
            return CLI_EXIT_OK;
        }
        int start = i, r = cli_selection_arg(&sel, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) { /* selection options go to run unchanged */
            for (int k = start; k <= i && npass < CLI_MAX_ARGS - 1; k++) pass[npass++] = argv[k];
            continue;
        }
        const char *v;
        if ((r = cli_opt_value(argc, argv, &i, "--backend", &backend)) ||
            (r = cli_opt_value(argc, argv, &i, "--out", &out)) ||
            (r = cli_opt_value(argc, argv, &i, "--keep-dump", &keep)) ||
            (r = cli_opt_value(argc, argv, &i, "--standard", &stds)) ||
            (r = cli_opt_value(argc, argv, &i, "--benchmark", &bench)) ||
            (r = cli_opt_value(argc, argv, &i, "--standards-dir", &std_dir)) ||
            (r = cli_opt_value(argc, argv, &i, "--golden", &golden))) {
            if (r < 0) return CLI_EXIT_USAGE;
        } else if ((r = cli_opt_value(argc, argv, &i, "--jobs", &v))) {
            if (r < 0) return CLI_EXIT_USAGE;
            pass[npass++] = "--jobs";
            pass[npass++] = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--timeout", &v))) {
            if (r < 0) return CLI_EXIT_USAGE;
            pass[npass++] = "--timeout";
            pass[npass++] = v;
        } else {
            fprintf(stderr, "aclcts: error: audit: unknown option %s (see aclcts audit "
                    "--help)\n", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (!sel.product) {
        fprintf(stderr, "aclcts: error: audit needs --product ID or --product all\n");
        return CLI_EXIT_USAGE;
    }
    const char *var = sel.shard ? NULL : cts_scheduler_shard_variable();
    if (var) { /* an audit of a quarter of the cases must be asked for, never inherited */
        fprintf(stderr, "aclcts: error: audit: %s is set: an audit covers every case unless "
                "--shard K/N is given\n", var);
        return CLI_EXIT_USAGE;
    }
    cli_standards stds_loaded;
    if (cli_standards_load(stds, std_dir, golden, &stds_loaded)) return CLI_EXIT_USAGE;
    bool standards = stds_loaded.need_dump; /* more than the bound alone */
    char dump[PATH_MAX], bench_dir[PATH_MAX] = "";
    snprintf(dump, sizeof dump, "%s", keep ? keep : "");
    if (!keep && standards) snprintf(dump, sizeof dump, "%s/dump", out);
    char *rargv[CLI_MAX_ARGS + 16];
    int rn = 0;
    rargv[rn++] = "run";
    rargv[rn++] = "--backend";
    rargv[rn++] = (char *)backend;
    rargv[rn++] = "--out";
    rargv[rn++] = (char *)out;
    if (dump[0]) {
        rargv[rn++] = "--dump";
        rargv[rn++] = dump;
    }
    rargv[rn++] = "--quiet";
    for (int k = 0; k < npass; k++) rargv[rn++] = (char *)pass[k];
    rargv[rn] = NULL;
    /* A dump the audit removes afterwards is judged case by case as the run goes and each
     * case's removed: a whole run's dump (some 60 bytes an element) would not fit on a disk
     * for large suites. Not when the benchmark is the torch backend's run of the suites: that
     * run follows this one, and every case of this one waits for it. */
    bool bench_after = stds_loaded.need_bench && !strcmp(bench, "torch");
    bool stream = standards && !keep && !bench_after;
    cts_std_audit sa;
    cli_standards_stream st = {.a = &sa, .dump = dump};
    if (standards) cli_standards_audit_init(&stds_loaded, &sa, bench_dir);
    if (stream && stds_loaded.need_bench &&
        cli_standards_benchmark(bench, out, (char **)pass, npass, bench_dir, sizeof bench_dir))
        return CLI_EXIT_USAGE;
    if (stream) cli_run_on_record(cli_standards_stream_case, &st);
    int rc = cli_run(rn, rargv);
    cli_run_on_record(NULL, NULL);
    if (stream && st.total_bytes)
        fprintf(stderr, "aclcts: audit: the standards judged each case's dump as the case "
                "ended, then removed it: at most %.1f MB on disk at once, %.1f MB in all\n",
                st.peak_bytes / 1e6, st.total_bytes / 1e6);
    if (rc == CLI_EXIT_USAGE) {
        if (standards) cts_std_audit_free(&sa);
        return rc;
    }
    if (bench_after &&
        cli_standards_benchmark(bench, out, (char **)pass, npass, bench_dir, sizeof bench_dir)) {
        cts_std_audit_free(&sa);
        return CLI_EXIT_USAGE;
    }

    cts_result_list res = {0};
    cts_loaded loaded = {0};
    cts_waiver_row *waivers = NULL;
    cts_audit au;
    memset(&au, 0, sizeof au);
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/results.jsonl", out);
    rc = cts_jsonl_read(path, &res, NULL, stderr) != 0 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    if (rc == 0) {
        cts_audit_results(&au, &res, stderr);
        char title[96];
        snprintf(title, sizeof title, "aclcts precision audit: %s", sel.product);
        char *std_md = standards ? cli_standards_audit(&sa, stream, &res, dump, out) : NULL;
        if (standards && !std_md) rc = CLI_EXIT_USAGE;
        audit_facts facts;
        facts_of(&res, &facts);
        audit_md m = {&au, std_md, NULL, 0};
        if (cli_waiver_rows(&sel, &res, &loaded, &waivers, &m.nwaivers) != 0)
            rc = CLI_EXIT_USAGE;
        m.waivers = waivers;
        cts_report rep = {.title = title, .results = res.r, .nresults = res.count,
                          .audit = &au, .standards_md = std_md, .info_keys = facts.keys,
                          .info_values = facts.vals, .ninfo = 5, .waivers = waivers,
                          .nwaivers = m.nwaivers};
        if (write_to(out, "audit.md", md, &m) || write_to(out, "audit.csv", csv, &au) ||
            write_to(out, "waivers.csv", waivers_csv, &m) ||
            write_to(out, "report.html", html, &rep))
            rc = CLI_EXIT_USAGE;
        printf("\n");
        md(stdout, &m);
        printf("\naudit: %s/audit.md  %s/audit.csv  %s/waivers.csv  %s/report.html", out, out,
               out, out);
        if (std_md) printf("  %s/standards.csv  %s/standards_outputs.csv", out, out);
        printf(" (%zu cases judged, %zu without statistics)\n", au.ncases, au.nerrors);
        free(std_md);
    }
    cts_audit_free(&au);
    if (standards) cts_std_audit_free(&sa); /* when the results could not be read */
    free(waivers);
    cts_loaded_free(&loaded);
    if (standards && !keep) { /* the dumps were the standards' input only */
        cts_remove_tree(dump);
        if (stds_loaded.need_bench && !strcmp(bench, "torch")) cts_remove_tree(bench_dir);
    }
    cts_result_list_free(&res);
    return rc;
}
