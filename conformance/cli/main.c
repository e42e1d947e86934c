/* aclcts: conformance test suite for the CANN operators of its driver table (ops/ops.c). */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "package/package.h" /* cts_command_line_output */

static const char help[] =
    "usage: aclcts COMMAND [OPTIONS] [ARGS]\n"
    "\n"
    "Conformance suite for %s, reaching the\n"
    "device only through the CANN ABI (the emulated device by default).\n"
    "\n"
    "commands:\n"
    "  run [SUITES]       run the cases, write results/ (results.jsonl, junit.xml, summary.md)\n"
    "  list [SUITES]      print the ids of the selected cases\n"
    "  show CASE [SUITES] print every parameter of a case\n"
    "  coverage [SUITES]  which pairs of the coverage model the cases hit and miss\n"
    "  repro 'LINE'       rerun the case of a repro line printed by run\n"
    "  merge OUT IN...    join the results.jsonl of shards into one set of reports\n"
    "  certify --product ID   certification run and package (see docs/certification.md)\n"
    "  verify-package DIR|TAR re-check a certification package\n"
    "  audit --product ID|all precision audit tables and report.html\n"
    "  import-atk FILE.json...  the vendor's ATK case files as suites\n"
    "  import-ttk FILE.csv...   the vendor's TTK kernel case files as suites\n"
    "  compare A B              what changed between two runs (results dirs or packages)\n"
    "  detect-contract    which contract (doc, vendor@9.0, vendor@8.5) the device follows\n"
    "\n"
    "  help COMMAND       the options of one command (the same as COMMAND --help)\n"
    "\n"
    "`aclcts --version` prints the version.\n"
    "\n"
    "exit status:\n"
    "  0    no case FAIL, CRASH, TIMEOUT, ERROR or RESOURCE_ERROR (verify-package: accepted)\n"
    "  1    some case FAIL, CRASH, TIMEOUT, ERROR or RESOURCE_ERROR (verify-package: refused)\n"
    "  2    usage or suite errors, and an output that could not be written (stdout too)\n"
    "  130  interrupted by SIGINT, 143 by SIGTERM\n";

/* The usage text, naming the operators of the table ("aclnnA and aclnnB"). */
static void print_help(FILE *f)
{
    char ops[512] = "";
    for (int i = 0; i < cts_nops; i++) {
        size_t l = strlen(ops);
        snprintf(ops + l, sizeof ops - l, "%s%s", i == 0 ? "" : i + 1 == cts_nops ? " and " : ", ",
                 cts_ops[i]->api);
    }
    fprintf(f, help, ops);
}

/* The release version, and the source tree's git state when that tree is still there. */
static int version(void)
{
    char cmd[sizeof ACLCTS_SOURCE_DIR + 96], describe[128] = "";
    snprintf(cmd, sizeof cmd, "git -C '%s' describe --tags --always --dirty 2>/dev/null",
             ACLCTS_SOURCE_DIR);
    cts_command_line_output(cmd, describe, sizeof describe);
    printf("aclcts %s", ACLCTS_VERSION);
    if (*describe)
        printf(" (source %s, git %s)", ACLCTS_SOURCE_DIR, describe);
    printf("\n");
    return CLI_EXIT_OK;
}

/* OpenMP threads that wait by spinning (libgomp's default) take the CPU from the other workers
 * and from whatever else shares the cores, and the reference and the emulated device wait at
 * many barriers: on 2 shared cores a vendor_st case's reference took 7 to 10 times longer
 * (tools/bench-vendor-st). libgomp reads OMP_WAIT_POLICY when it loads, so unless the user chose
 * a policy it is set here and the program executed again, once; if that fails the run goes on
 * with the default. */
static void openmp_waits_passively(char **argv)
{
    if (getenv("OMP_WAIT_POLICY")) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv);
}

/* A command's output that did not reach stdout (a full disk, a closed pipe's EPIPE with SIGPIPE
 * ignored, /dev/full) is a lost result: exit 2, as any other failed write, not the command's
 * own status. */
static int stdout_checked(int rc)
{
    errno = 0;
    bool flushed = fflush(stdout) == 0;
    if (flushed && !ferror(stdout))
        return rc;
    if (flushed)
        fprintf(stderr, "aclcts: error: writing standard output: a write failed, the output is "
                "incomplete\n");
    else
        fprintf(stderr, "aclcts: error: writing standard output: %s\n", strerror(errno));
    return rc == CLI_EXIT_OK || rc == CLI_EXIT_FAIL ? CLI_EXIT_USAGE : rc;
}

static int run_command(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {{"run", cli_run}, {"list", cli_list}, {"show", cli_show},
                    {"coverage", cli_coverage},
                    {"repro", cli_repro}, {"merge", cli_merge},
                    {"certify", cli_certify},
                    {"verify-package", cli_verify_package},
                    {"audit", cli_audit}, {"import-atk", cli_import_atk},
                    {"compare", cli_compare}, {"import-ttk", cli_import_ttk},
                    {"detect-contract", cli_detect_contract}};
    if (argc < 2) {
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
        return version();
    /* `help COMMAND` is `COMMAND --help`; `help` alone is this text. */
    bool help_of = strcmp(argv[1], "help") == 0 && argc >= 3;
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        (strcmp(argv[1], "help") == 0 && !help_of)) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    const char *name = help_of ? argv[2] : argv[1];
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        if (strcmp(name, commands[k].name) != 0)
            continue;
        char *help_argv[] = {argv[2], "--help", NULL};
        return help_of ? commands[k].fn(2, help_argv) : commands[k].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "aclcts: error: unknown command '%s'\n\n", name);
    print_help(stderr);
    return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    openmp_waits_passively(argv);
    /* A file size limit (ulimit -f) is a write error every command reports, not a death. */
    signal(SIGXFSZ, SIG_IGN);
    return stdout_checked(run_command(argc, argv));
}
