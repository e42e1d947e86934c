/* The common body of the operator targets (fuzz_call.h). */
#include <stdlib.h>

#include "fuzz_call.h"

int fuzz_one_input(fuzz_decoder decode, const uint8_t *data, size_t size)
{
    fdp p;
    fdp_init(&p, data, size);
    fuzz_call fc;
    decode(&p, &fc);
    const char *describe = getenv("ACLCTS_FUZZ_DESCRIBE");
    if (describe && *describe == '1') fuzz_describe_call(&fc, stdout);
    else fuzz_run_call(&fc);
    return 0;
}
