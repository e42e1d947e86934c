/* libFuzzer target: the importers of the vendor's case files on arbitrary bytes write a suite
 * or refuse, without a crash, a leak or a hang: an input starting with '[' or '{' goes to the
 * ATK JSON importer, any other to the TTK CSV one (its CSV of Python literals). The importers
 * take paths, so the bytes go through an anonymous memory file named by /proc/self/fd. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "import/import.h"
#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile("cases", data, size, path, sizeof path);
    if (fd < 0) return 0;
    FILE *sink = fopen("/dev/null", "w");
    atk_options o = {.seed = 1, .product = "ascend950", .source = "fuzz"};
    atk_summary sum;
    if (sink) {
        if (size && (data[0] == '[' || data[0] == '{'))
            atk_import(path, &o, sink, sink, &sum);
        else
            ttk_import(path, &o, sink, sink, &sum);
        fclose(sink);
    }
    close(fd);
    return 0;
}
