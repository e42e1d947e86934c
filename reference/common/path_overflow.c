/* ref_operand_overflows and ref_path_overflow_at: where the formats a path computes in overflow. */
#include <math.h>
#include <string.h>

#include "ref_internal.h"

/* The least magnitude nearest-even rounds to infinity in f, (2 − 2^-p)·2^emax, half an ULP above
 * the largest finite value; DOUBLE cannot hold that, so its largest finite value stands for it. */
static double overflow_from(const ref_prec *f)
{
    return f->bits == 53 ? f->max_finite : ldexp(2.0 - f->unit_roundoff, f->emax);
}

bool ref_operand_overflows(const ref_path *path, double x)
{
    bool divide_fp16 = path->kind == REF_PATH_VECTOR && path->operand == REF_DT_FLOAT16;
    if ((path->kind != REF_PATH_CUBE && !divide_fp16) || !isfinite(x))
        return false;
    ref_prec f = ref_operand_prec(path);
    return fabs(x) >= overflow_from(&f);
}

double ref_path_overflow_at(const ref_path *path)
{
    if (path->result_fp16) /* the sum is rounded to FP16 before the output dtype */
        return overflow_from(ref_dtype_prec(REF_DT_FLOAT16));
    bool dbl = path->kind == REF_PATH_VECTOR && path->name && strstr(path->name, "double");
    return overflow_from(ref_dtype_prec(dbl ? REF_DT_DOUBLE : REF_DT_FLOAT));
}
