/* `aclcts import-atk FILE.json...`: the vendor's ATK system-test case files as suites. */
#include "import/import.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char import_help[] =
    "usage: aclcts import-atk [--out DIR] [--seed S] [--product P] [--source TEXT]... "
    "FILE.json...\n"
    "\n"
    "Turns the vendor's ATK case files (JSON lists of system-test cases) into suites, one per\n"
    "file, written as DIR/<op>.yaml (default DIR: .): suite vendor_st.<op>, case idN for ATK id\n"
    "N, shapes, dtypes and attributes as given, data as the distribution given (uniform\n"
    "[lo, hi]; normal with its mean and std drawn from the given ranges; inf/-inf/nan fills).\n"
    "Every drawn parameter is keyed by (S, operator, JSON path) and written with its range.\n"
    "Fields the suite format does not express are printed with their JSON path and listed in\n"
    "the suite's header; a case that cannot be expressed is left out and named.\n"
    "\n"
    "  --out DIR      where the suites go (default .; created if missing)\n"
    "  --seed S       the suites' data seed and the key of the draws (default 0)\n"
    "  --product P    the suites' product line: an id, all, or a list \"[a, b]\" (default\n"
    "                 ascend910b)\n"
    "  --source TEXT  the origin of the k-th FILE (e.g. repo:path@commit) for its header;\n"
    "                 repeatable, in FILE order (default: the path given)\n"
    "\n"
    "Exit 0 when every case was imported, 1 when some were left out, 2 for usage errors or a\n"
    "file that is not an ATK case file (its suite is not written).\n";

/* Writes the suite of one file to DIR/<op>.yaml (DIR created if missing), whole or not at all
 * (cli_out_file; the operator, and so the name, is known once the file is read). */
int cli_import_file(const char *file, const atk_options *o, const char *dir,
                    int (*convert)(const char *, const atk_options *, FILE *, FILE *,
                                   atk_summary *))
{
    char provisional[4096];
    if (cli_make_dirs(dir) != 0) {
        fprintf(stderr, "aclcts: error: --out %s: cannot create it: %s\n", dir, strerror(errno));
        return 2;
    }
    snprintf(provisional, sizeof provisional, "%s/import", dir);
    cli_out_file of;
    FILE *out = cli_out_open(&of, provisional);
    if (!out)
        return 2;
    atk_summary sum;
    int rc = convert(file, o, out, stderr, &sum);
    if (rc == 2) {
        cli_out_discard(&of);
        return rc;
    }
    snprintf(of.final, sizeof of.final, "%s/%s.yaml", dir, sum.op);
    snprintf(of.target, sizeof of.target, "%s", of.final);
    if (cli_out_commit(&of) != 0)
        return 2;
    fprintf(stderr, "%s: %d cases, %d imported, %d kinds of field not expressed -> %s\n", file,
            sum.cases, sum.imported, sum.notes, of.final);
    return rc;
}

int cli_import_main(int argc, char **argv, const cli_import_command *cmd)
{
    const char *dir = ".", *files[CLI_MAX_ARGS], *sources[CLI_MAX_ARGS], *v;
    int nfiles = 0, nsources = 0, r;
    long seed = 0;
    atk_options o = {.product = cmd->product};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(cmd->help, stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_opt_value(argc, argv, &i, "--out", &dir)) ||
            (r = cli_opt_value(argc, argv, &i, "--product", &o.product))) {
            if (r < 0)
                return CLI_EXIT_USAGE;
        } else if ((r = cli_opt_value(argc, argv, &i, "--seed", &v)) != 0) {
            if (r < 0 || cli_parse_long("--seed", v, 0, 0x7fffffffL, &seed))
                return CLI_EXIT_USAGE;
        } else if ((r = cli_opt_value(argc, argv, &i, "--source", &v)) != 0) {
            if (r < 0 || nsources == CLI_MAX_ARGS)
                return CLI_EXIT_USAGE;
            sources[nsources++] = v;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "aclcts: error: %s: unknown option '%s'\n%s", cmd->name, argv[i],
                    cmd->help);
            return CLI_EXIT_USAGE;
        } else if (nfiles < CLI_MAX_ARGS) {
            files[nfiles++] = argv[i];
        }
    }
    if (nfiles == 0 || nsources > nfiles) {
        fprintf(stderr, "aclcts: error: %s needs %s (and at most one --source per file)\n%s",
                cmd->name, cmd->files, cmd->help);
        return CLI_EXIT_USAGE;
    }
    o.seed = (uint64_t)seed;
    int rc = 0;
    for (int k = 0; k < nfiles; k++) {
        o.source = k < nsources ? sources[k] : NULL;
        int one = cli_import_file(files[k], &o, dir, cmd->convert);
        rc = one > rc ? one : rc;
    }
    return rc;
}

int cli_import_atk(int argc, char **argv)
{
    static const cli_import_command cmd = {"import-atk", import_help, "ascend910b", "FILE.json",
                                           atk_import};
    return cli_import_main(argc, argv, &cmd);
}
