/* Internals shared by the three emulated CANN libraries (never included outside kernels/).
 *
 * libascendcl (kernels/runtime) owns every piece of process state: the product profile, the
 * determinism option, the recent error message, device allocations and fault switches.
 * libnnopbase (kernels/nnopbase) owns tensors, arrays and executors.
 * libopapi (kernels/avgpool2d_backward, kernels/grid_sampler2d_backward) owns the operators.
 * The emu_* functions below are exported with default visibility from the library that owns them
 * and are not part of the CANN interface. */
#ifndef ACLCTS_KERNELS_EMU_H_
#define ACLCTS_KERNELS_EMU_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

#define EMU_API __attribute__((visibility("default")))
#define EMU_MAX_DIMS 8

/* ---- product profiles (kernels/runtime/profile.c) ---- */

/* The four product families of the documents' per-product rules. */
typedef enum {
    EMU_FAMILY_TRAINING_INFERENCE, /* ascend910 (Atlas training), ascend310p (Atlas inference) */
    EMU_FAMILY_A2_A3,              /* ascend910b, ascend910_93 */
    EMU_FAMILY_A2_INFER_310B,      /* ascend310b: Atlas 200I/500 A2, supports neither op */
    EMU_FAMILY_950                 /* ascend950 */
} emu_family;

/* Where the vendor code differs from the documents (spec/facts.md §3), one named switch each;
 * the default of every switch is the document's behaviour. */
typedef enum { EMU_EMPTY_INVALID, EMU_EMPTY_SUCCESS } emu_empty_tensor_rule;
typedef enum { EMU_NULL_MASK_NULLPTR, EMU_NULL_MASK_SUCCESS } emu_null_mask_rule;
typedef enum { EMU_EMPTY_STRIDE_INVALID, EMU_EMPTY_STRIDE_KERNEL } emu_empty_stride_rule;
/* The contract the operators' checks follow: the documents (with the single switches above), or
 * a vendor release as its code checks (docs/contract.md "Vendor releases"). */
/* The releases' rules differ where docs/contract.md's per-release tables say; 9.1 and 9.2 have
 * the same first-phase rules (their op_api code differs in formatting only). */
typedef enum {
    EMU_CONTRACT_DOC,
    EMU_CONTRACT_VENDOR_9_0,
    EMU_CONTRACT_VENDOR_8_5,
    EMU_CONTRACT_VENDOR_9_1,
    EMU_CONTRACT_VENDOR_9_2
} emu_contract;

typedef struct {
    const char *id;        /* ascend910b */
    const char *soc_name;  /* what aclrtGetSocName reports: a SoC version, Ascend910B3 */
    const char *product;   /* the documents' wording: Atlas A2 training/inference products */
    emu_family family;
    /* (what each operator accepts on the product: its folder's product.c) */
    int hf32_bits;               /* HF32 significand width incl. hidden bit; default 11 */
    /* switches (env ACLNN_EMU_EMPTY_TENSOR=success|invalid, ACLNN_EMU_NULL_MASK=success|nullptr,
     * ACLNN_EMU_CUBE_MATH_CODE=161001|161002) */
    emu_empty_tensor_rule empty_tensor;
    emu_null_mask_rule null_output_mask;
    aclnnStatus cube_math_type_code; /* status for cubeMathType outside 0..3 */
    emu_empty_stride_rule empty_stride; /* ACLNN_EMU_EMPTY_STRIDE=invalid|kernel */
    /* ACLNN_EMU_NONFINITE_GRID=out|clamp: a NaN or ±inf grid coordinate under border or
     * reflection is out of bounds (default, and the vendor's own rules per release) or clamped
     * into the border as PyTorch's CPU kernel does (the documents allow both) */
    bool nonfinite_grid_clamp;
    emu_contract contract;  /* ACLNN_EMU_SPEC=doc|vendor|vendor-old|vendor@9.2|9.1|9.0|8.5 */
} emu_profile;

EMU_API const emu_profile *emu_profile_current(void);   /* never NULL */
EMU_API const emu_profile *emu_profile_find(const char *id); /* NULL when unknown */

/* ---- error messages (kernels/runtime/errmsg.c) ---- */

/* Records the message aclGetRecentErrMsg returns (thread-local, printf-style). */
EMU_API void emu_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
EMU_API void emu_clear_error(void);

/* ---- context options (kernels/runtime/context.c) ---- */

EMU_API bool emu_deterministic(void);      /* ACL_OPT_DETERMINISTIC == 1 and not faulted */
EMU_API bool emu_stream_valid(aclrtStream stream); /* NULL (default stream) or live */
/* ACLNN_EMU_SHUFFLE=<seed>: non-zero forces a seeded order change of non-deterministic
 * scatter-adds on every call (the call counter is mixed in), 0 when unset. */
EMU_API uint64_t emu_shuffle_seed(void);

/* ---- device memory (kernels/runtime/memory.c) ---- */

/* True when [p, p+bytes) lies inside one live aclrtMalloc allocation. */
EMU_API bool emu_is_device_range(const void *p, size_t bytes);
/* Number of live allocations whose guard zones were overwritten; each one is described by
 * emu_set_error. */
EMU_API int emu_check_guards(void);
/* Bytes held by live aclrtMalloc allocations (leak checks). */
EMU_API size_t emu_live_device_bytes(void);
/* Writes the fresh-memory pattern (0xcd) wherever an allocation still owes it: before anything
 * but an aclrtMemcpy reads device memory (a kernel launch). */
EMU_API void emu_device_memory_settle(void);

/* ---- fault injection (kernels/runtime/fault.c) ---- */

typedef enum {
    EMU_FAULT_STATUS,            /* success where an error is due; 161001/161002 swapped */
    EMU_FAULT_SKIP_CHECK,        /* one documented validation skipped */
    EMU_FAULT_WINDOW_OFF_BY_ONE, /* avg-pool window end one too far */
    EMU_FAULT_ULP,               /* some outputs moved by N ULPs (ulp:N) */
    EMU_FAULT_ROUND_TRUNCATE,    /* truncation instead of round-to-nearest-even */
    EMU_FAULT_IGNORE_DETERMINISTIC,
    EMU_FAULT_OOB_WRITE,         /* one element written past an output tensor's last byte */
    EMU_FAULT_MUTATE_INPUT,      /* an input changed in device memory */
    EMU_FAULT_CRASH,             /* SIGSEGV in the second phase */
    EMU_FAULT_HANG,              /* the second phase never returns */
    EMU_FAULT_LEAK,              /* the executor and a device buffer are never freed */
    EMU_FAULT_DENSE_BATCH,       /* a view dense but for a padded batch stride taken as contiguous */
    EMU_FAULT_COUNT
} emu_fault;

EMU_API bool emu_fault_on(emu_fault f);  /* from ACLNN_EMU_FAULT=name[,name...] */
EMU_API int emu_fault_ulps(void);        /* N of ulp:N, 0 when off */
EMU_API const char *emu_fault_name(emu_fault f);

/* ---- tensors, arrays, executors (kernels/nnopbase) ---- */

#define EMU_MAGIC_TENSOR 0x54454e53u   /* "TENS" */
#define EMU_MAGIC_INTARRAY 0x494e5441u /* "INTA" */
#define EMU_MAGIC_BOOLARRAY 0x424f4f4cu
#define EMU_MAGIC_EXECUTOR 0x45584543u
#define EMU_MAGIC_DEAD 0xdeaddeadu

struct aclTensor {
    uint32_t magic;
    uint64_t ndim;
    int64_t dims[EMU_MAX_DIMS];
    int64_t strides[EMU_MAX_DIMS]; /* elements */
    int64_t offset;                /* elements */
    aclDataType dtype;
    aclFormat format;
    uint64_t storage_ndim;
    int64_t storage_dims[EMU_MAX_DIMS];
    void *data;                    /* base of storage (device memory) */
};

struct aclIntArray {
    uint32_t magic;
    uint64_t size;
    int64_t *values;
};

struct aclBoolArray {
    uint32_t magic;
    uint64_t size;
    bool *values;
};

/* An executor is single-use: the second phase runs it once and frees it. The operator's
 * parameters live in `params` (owned, freed with the executor). */
struct aclOpExecutor {
    uint32_t magic;
    const char *op_name;
    uint64_t workspace_size;
    aclnnStatus (*run)(struct aclOpExecutor *self, void *workspace);
    void (*free_params)(void *params);
    void *params;
    /* The tensors the run reads and writes (NULL entries allowed): the generic faults of
     * emu_executor_launch (ulp, oob-write, mutate-input) act on them after the run. */
    const aclTensor *inputs[4];
    aclTensor *outputs[2];
};

EMU_API bool emu_tensor_valid(const aclTensor *t);
EMU_API int64_t emu_tensor_numel(const aclTensor *t);
EMU_API size_t emu_dtype_size(aclDataType dt); /* 0 for types without a fixed size */
EMU_API const char *emu_dtype_name(aclDataType dt); /* "FLOAT16", "FLOAT", ... */
EMU_API const char *emu_format_name(aclFormat f);
/* Writes "[1, 16, 4, 4]" into buf. */
EMU_API const char *emu_shape_str(const aclTensor *t, char *buf, size_t len);
EMU_API aclOpExecutor *emu_executor_new(const char *op_name, uint64_t workspace_size,
                                        aclnnStatus (*run)(aclOpExecutor *, void *),
                                        void (*free_params)(void *), void *params);
/* The common second phase: validates executor, workspace and stream, runs, applies the
 * generic faults (crash, hang, leak, ulp:N, oob-write, mutate-input), frees the executor. */
EMU_API aclnnStatus emu_executor_launch(const char *api, void *workspace, uint64_t workspace_size,
                                        aclOpExecutor *executor, aclrtStream stream);

/* First-phase status after the `status` fault: 161001 -> 161002, 161002 -> 0 (success with an
 * executor that computes nothing); identity when the fault is off. Ops call it on every
 * validation result. */
EMU_API aclnnStatus emu_fault_status(aclnnStatus status);

/* Element access through view dims/strides/offset. Index is the row-major linear index over
 * the view; values are converted to and from double exactly (every supported dtype fits). */
EMU_API double emu_load(const aclTensor *t, int64_t linear_index);
EMU_API void emu_store(const aclTensor *t, int64_t linear_index, double value);
/* Address of an element of the view (row-major linear index). */
EMU_API void *emu_element_ptr(const aclTensor *t, int64_t linear_index);
/* True when the view is row-major contiguous (fast paths). */
EMU_API bool emu_tensor_contiguous(const aclTensor *t);
/* The batch (first) stride a kernel uses: t's own, or under the dense-batch fault, when the
 * dims after the first are dense in order, the stride a contiguous tensor would have. */
EMU_API int64_t emu_batch_stride(const aclTensor *t);

/* ---- seeded orders (kernels/common/permutation.c, built into libopapi, not exported) ---- */

/* A pseudo-random permutation of 0..count-1 from seed (Fisher-Yates on splitmix64; the caller
 * frees); NULL when out of memory. */
int64_t *emu_permutation(int64_t count, uint64_t seed);

/* ---- number formats (kernels/common/fp.c, built into libnnopbase and exported) ---- */

/* Round-to-nearest-even with subnormals, infinities and NaN, in portable C. The truncate flag
 * (fault round-truncate) rounds toward zero instead; emu_store passes
 * emu_fault_on(EMU_FAULT_ROUND_TRUNCATE), and so must an op's own fast store path. */
EMU_API uint16_t emu_f32_to_f16(float x, bool truncate);
EMU_API float emu_f16_to_f32(uint16_t h);
EMU_API uint16_t emu_f32_to_bf16(float x, bool truncate);
EMU_API float emu_bf16_to_f32(uint16_t h);
/* The same on n contiguous elements (one call, not one per element; F16C where the processor
 * has it, identical bits). Inside libopapi a single element is converted by emu_fp.h's inline
 * fp_* functions rather than across the library boundary. */
EMU_API void emu_f16_to_f32_n(const uint16_t *src, float *dst, int64_t n);
EMU_API void emu_f32_to_f16_n(const float *src, uint16_t *dst, int64_t n, bool truncate);
EMU_API void emu_bf16_to_f32_n(const uint16_t *src, float *dst, int64_t n);
EMU_API void emu_f32_to_bf16_n(const float *src, uint16_t *dst, int64_t n, bool truncate);
/* Rounds an FP32 value to `bits` significant bits (FP32 range): HF32 operands of the cube. */
EMU_API float emu_round_to_bits(float x, int bits);
EMU_API float emu_round_f16(float x);  /* x rounded through FP16 and back */
EMU_API float emu_round_bf16(float x);
/* x moved by n ULPs of dtype (ulp fault). */
EMU_API double emu_nudge_ulps(double x, aclDataType dt, int n);

#endif
