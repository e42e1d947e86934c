/* `aclcts list`: the ids of the selected cases, one per line (what --filter and --shard see). */
#include "cli.h"

#include <string.h>

static const char list_help[] =
    "usage: aclcts list [OPTIONS] [SUITE.yaml|DIR]...\n"
    "\n"
    "Prints the id of every selected case, one per line, in suite order (default ./suites).\n"
    "Exit 1 when no case is selected (said on stderr; an empty shard of several is no error),\n"
    "2 for usage or suite errors.\n"
    "\n"
    "%s"
    "  --long             also print where each case is defined (FILE:LINE:COL)\n"
    "  --count            print only the number of selected cases\n";

int cli_list(int argc, char **argv)
{
    cts_selection s = {0};
    bool lng = false, count = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf(list_help, cli_selection_help);
            return CLI_EXIT_OK;
        }
        int r = cli_selection_arg(&s, argc, argv, &i);
        if (r < 0)
            return CLI_EXIT_USAGE;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--long") == 0) {
            lng = true;
        } else if (strcmp(argv[i], "--count") == 0) {
            count = true;
        } else {
            fprintf(stderr, "aclcts: error: list: unknown option %s (see aclcts list --help)\n",
                    argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    cts_loaded l;
    int rc = cts_selection_load(&s, &l) ? CLI_EXIT_USAGE : 0;
    if (rc == 0 && l.nsel == 0 && l.shard.count <= 1) {
        fprintf(stderr, "aclcts: list: no case selected (%zu cases in the suites; check "
                "--filter, --product, --quick)\n", l.all.ncases);
        rc = CLI_EXIT_FAIL;
    }
    if (rc != CLI_EXIT_USAGE) {
        if (count || rc == CLI_EXIT_FAIL) /* it explains a count, or why nothing matched */
            cli_print_other_contract(stderr, &l, s.contract);
        if (count)
            printf("%zu\n", l.nsel);
        for (size_t k = 0; !count && k < l.nsel; k++) {
            const cts_case *c = l.sel[k];
            if (lng)
                printf("%s\t%s:%d:%d\n", c->id, c->mark.file ? c->mark.file : "?", c->mark.line,
                       c->mark.column);
            else
                printf("%s\n", c->id);
        }
    }
    cts_loaded_free(&l);
    return rc;
}
