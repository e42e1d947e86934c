/* Private to the reference: the rules every part of it reads, each stated once. The floating
 * formats' precision (round_to.c, ulp_distance.c, bound.c, path_overflow.c, the documented
 * path), the product families the documents group their rules by (the paths and the status
 * models). */
#ifndef ACLCTS_REFERENCE_RULES_H_
#define ACLCTS_REFERENCE_RULES_H_

#include "reference.h"

/* HF32's significant bits: FP32's exponent range with an FP16-wide significand (facts §5,
 * derived); the default of ref_path.hf32_bits. */
#define REF_HF32_BITS 11

/* A binary floating format: p significant bits, exponents emin (smallest normal) .. emax
 * (largest finite). unit_roundoff = 2^-p; max_finite = (2 − 2^(1−p))·2^emax; eta is half the
 * smallest subnormal 2^(emin−p), the absolute error of a rounding below the normal range. */
typedef struct {
    int bits, emin, emax;
    double unit_roundoff, max_finite, eta;
} ref_prec;

/* Significant bits, smallest and largest normal exponent of the narrow formats: the table of
 * dtype_prec.c, and constants where a hot path folds them (round_to.c). */
#define REF_FP16_FORMAT 11, -14, 15
#define REF_BF16_FORMAT 8, -126, 127
#define REF_FP32_FORMAT 24, -126, 127

/* FLOAT16, BF16, FLOAT, DOUBLE; NULL for any other dtype. */
const ref_prec *ref_dtype_prec(ref_dtype dt);
/* The format a cube path rounds its operands to: HF32 (ref_path.hf32_bits, REF_HF32_BITS when
 * unset, FP32's exponents) or the operand dtype (FP32 when that is not a floating dtype). */
ref_prec ref_operand_prec(const ref_path *path);

/* The product families the documents word their rules for. */
typedef enum {
    REF_FAMILY_TRAIN_INFER, /* "Atlas training products" (910), "Atlas inference products" (310P) */
    REF_FAMILY_A2A3,        /* "Atlas A2 / A3 training/inference products" (910B, 910_93) */
    REF_FAMILY_950,         /* "Ascend 950PR / 950DT" (the vendor's regbase SoC) */
    REF_FAMILY_200I_500A2,  /* "Atlas 200I/500 A2 inference products" (310B) */
    REF_FAMILY_UNKNOWN      /* not a product of reference.h */
} ref_family;

ref_family ref_product_family(ref_product p);

#endif
