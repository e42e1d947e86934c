/* `aclcts import-ttk FILE.csv...`: the vendor's TTK kernel case files as suites. */
#include "cli.h"


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
    static const cli_import_command cmd = {"import-ttk", import_help, "ascend950", "FILE.csv",
                                           ttk_import};
    return cli_import_main(argc, argv, &cmd);
}
