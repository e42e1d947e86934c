/* libFuzzer target of one operator, built once per operator folder with that folder's
 * decoder (fuzz/ops/<op>/decode.c): any bytes → one call of it with every oracle (run_call.c). */
#include "fuzz_call.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_input(fuzz_decode_op, data, size);
}
