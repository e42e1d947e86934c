/* ref_grid_path: the grid sampler computes on the vector unit, in FP32 (in double for DOUBLE),
 * as docs/contract.md "Path" reads the document. */
#include "grid_internal.h"

ref_path ref_grid_path(ref_dtype dtype)
{
    ref_path p = {.kind = REF_PATH_VECTOR, .operand = REF_DT_UNDEFINED, .name = "vector-fp32"};
    if (dtype == REF_DT_DOUBLE)
        p.name = "vector-double";
    return p;
}
