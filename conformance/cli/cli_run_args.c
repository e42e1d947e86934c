/* The arguments of `aclcts run` (cli_run.h): its help, the options and their checks. */
#include "cli_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_TIMEOUT 60.0
#define MAX_TIMEOUT 1e6

const char cli_run_help[] =
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
    "  --evidence DIR     write DIR/<case id>.gz: the outputs of each case whose outputs were\n"
    "                     judged, for verify-package --rejudge (docs/certification.md)\n"
    "\n"
    "Results:\n"
    "  --out DIR          directory of results.jsonl, junit.xml, summary.md; default results\n"
    "  --jsonl F          JSONL here instead (one record per case, appended; fsync'd each second)\n"
    "  --junit F          JUnit XML here instead\n"
    "  --quiet            no progress and no table: failing cases and the final count only\n"
    "One run writes an output directory and a JSONL file at a time: a second one is refused.\n";

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

int cli_run_parse_args(int argc, char **argv, run_args *a)
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
                                   &a->resume, &a->evidence};
        static const char *const str_names[] = {"--backend", "--out", "--jsonl", "--junit",
                                                "--dump", "--resume", "--evidence"};
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
