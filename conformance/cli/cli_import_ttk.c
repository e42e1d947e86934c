/* `aclcts import-ttk FILE.csv...`: the vendor's TTK kernel case files as suites. */
#include "cli.h"

#include <string.h>

static const char import_help[] =
    "usage: aclcts import-ttk [--out DIR] [--seed S] [--product P] [--source TEXT]... "
    "FILE.csv...\n"
    "\n"
    "Turns the vendor's TTK kernel case files (CSV: one case a row, cells as Python literals)\n"
    "of avg_pool_v2_grad, the kernel aclnnAvgPool2dBackward lowers to on ascend950, into\n"
    "suites of avgpool2d_backward cases, one per file, written as DIR/avgpool2d_backward.yaml:\n"
    "suite vendor_ttk.avgpool2d_backward, cases named by testcase_name, the window, stride,\n"
    "padding, count and divisor read as the vendor's golden reads the row (global_pooling,\n"
    "padding_mode SAME/VALID/CALCULATED, ksize clipped to the input, NHWC as NCHW), the\n"
    "gradient's data uniform over input_data_ranges. Every column the suite cannot express\n"
    "(precision_tolerances, absolute_precision, soc_series, any unknown column) is printed with\n"
    "its name and value and listed in the suite's header; a row no aclnnAvgPool2dBackward call\n"
    "can express is left out and named with the reason.\n"
    "\n"
    "  --out DIR      where the suites go (default .)\n"
    "  --seed S       the suites' data seed (default 0)\n"
    "  --product P    the suites' product line (default ascend950)\n"
    "  --source TEXT  the origin of the k-th FILE (e.g. repo:path@commit) for its header;\n"
    "                 repeatable, in FILE order (default: the path given)\n"
    "\n"
    "Exit 0 when every row was imported, 1 when some were left out, 2 for usage errors, a\n"
    "file that is not a TTK case file or one of which no row imports (no suite written).\n";

int cli_import_ttk(int argc, char **argv)
{
    const char *dir = ".", *files[CLI_MAX_ARGS], *sources[CLI_MAX_ARGS], *v;
    int nfiles = 0, nsources = 0, r;
    long seed = 0;
    atk_options o = {.product = "ascend950"};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(import_help, stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_opt_value(argc, argv, &i, "--out", &dir)) ||
            (r = cli_opt_value(argc, argv, &i, "--product", &o.product))) {
            if (r < 0) return CLI_EXIT_USAGE;
        } else if ((r = cli_opt_value(argc, argv, &i, "--seed", &v)) != 0) {
            if (r < 0 || cli_parse_long("--seed", v, 0, 0x7fffffffL, &seed)) return CLI_EXIT_USAGE;
        } else if ((r = cli_opt_value(argc, argv, &i, "--source", &v)) != 0) {
            if (r < 0 || nsources == CLI_MAX_ARGS) return CLI_EXIT_USAGE;
            sources[nsources++] = v;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "aclcts: error: import-ttk: unknown option '%s'\n%s", argv[i],
                    import_help);
            return CLI_EXIT_USAGE;
        } else if (nfiles < CLI_MAX_ARGS) {
            files[nfiles++] = argv[i];
        }
    }
    if (nfiles == 0 || nsources > nfiles) {
        fprintf(stderr, "aclcts: error: import-ttk needs FILE.csv (and at most one --source "
                "per file)\n%s", import_help);
        return CLI_EXIT_USAGE;
    }
    o.seed = (uint64_t)seed;
    int rc = 0;
    for (int k = 0; k < nfiles; k++) {
        o.source = k < nsources ? sources[k] : NULL;
        int one = cli_import_file(files[k], &o, dir, ttk_import);
        rc = one > rc ? one : rc;
    }
    return rc;
}
