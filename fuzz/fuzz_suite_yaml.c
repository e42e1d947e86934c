/* libFuzzer target: the suite loader on arbitrary bytes returns (cases or errors) without a
 * crash, a leak (LeakSanitizer in the fuzz build) or a hang (libFuzzer -timeout). The loader
 * takes paths, so the bytes go through an anonymous memory file named by /proc/self/fd. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "memfile.h"
#include "suite/suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile("suite.yaml", data, size, path, sizeof path);
    if (fd < 0) return 0;
    const char *paths[1] = {path};
    cts_load_options opt = {0};
    cts_case_list list = {0};
    FILE *err = fopen("/dev/null", "w");
    cts_load_suites(paths, 1, &opt, &list, err);
    if (err) fclose(err);
    cts_case_list_free(&list);
    close(fd);
    return 0;
}
