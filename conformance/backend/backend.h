/* The backend stage: a CANN toolkit reached through its ABI (dlopen), and the tensors of a case
 * on its device with guard zones and poison. */
#ifndef ACLCTS_CONFORMANCE_BACKEND_BACKEND_H_
#define ACLCTS_CONFORMANCE_BACKEND_BACKEND_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "suite/suite.h"

/* A device reached only through the CANN binary interface: dlopen of libascendcl.so,
 * libnnopbase.so and libopapi.so and a table of function pointers. The emulated device is just
 * the default directory. */

#define CTS_BACKEND_MAX_LIBS 16
#define CTS_BACKEND_MAX_OPS 16

typedef struct {
    char dir[1024];          /* lib64 directory the libraries came from */
    char name[32];           /* "emu", "cann", "torch" */
    bool emulated;           /* product selectable per case with ACLCTS_SOC */
    /* ascendcl, nnopbase, then the operator libraries in op-plugin's lookup order: every
     * libopapi_*.so (sorted), libopapi.so, the older libaclnn_ops_infer/_train/libaclnn_math */
    void *handles[CTS_BACKEND_MAX_LIBS];
    aclError (*aclInit)(const char *);
    aclError (*aclFinalize)(void);
    aclError (*aclrtSetDevice)(int32_t);
    aclError (*aclrtResetDevice)(int32_t);
    aclError (*aclrtCreateStream)(aclrtStream *);
    aclError (*aclrtDestroyStream)(aclrtStream);
    aclError (*aclrtSynchronizeStream)(aclrtStream);
    aclError (*aclrtMalloc)(void **, size_t, aclrtMemMallocPolicy);
    aclError (*aclrtFree)(void *);
    aclError (*aclrtMemcpy)(void *, size_t, const void *, size_t, aclrtMemcpyKind);
    aclError (*aclrtCtxSetSysParamOpt)(aclSysParamOpt, int64_t);
    aclError (*aclrtCtxGetSysParamOpt)(aclSysParamOpt, int64_t *);
    const char *(*aclrtGetSocName)(void);
    const char *(*aclGetRecentErrMsg)(void);
    aclTensor *(*aclCreateTensor)(const int64_t *, uint64_t, aclDataType, const int64_t *, int64_t,
                                  aclFormat, const int64_t *, uint64_t, void *);
    aclnnStatus (*aclDestroyTensor)(const aclTensor *);
    aclIntArray *(*aclCreateIntArray)(const int64_t *, uint64_t);
    aclnnStatus (*aclDestroyIntArray)(const aclIntArray *);
    aclBoolArray *(*aclCreateBoolArray)(const bool *, uint64_t);
    aclnnStatus (*aclDestroyBoolArray)(const aclBoolArray *);
    /* Each operator's two phases, by its index in the driver table (conformance/ops/ops.c);
     * its driver casts the first to the operator's prototype. NULL: the device has no such
     * operator. */
    void *op_first[CTS_BACKEND_MAX_OPS];
    void *op_second[CTS_BACKEND_MAX_OPS];
    /* Optional, not CANN: the emulated runtime's count of live device bytes (leak check).
     * NULL on a real install. */
    size_t (*emu_live_device_bytes)(void);
} cts_backend;

/* spec: "emu" (build/ascend-emu/lib64 next to the aclcts binary, or $ACLCTS_EMU_DIR),
 * "cann" ($ASCEND_HOME_PATH/lib64), "cann:DIR", "torch" (build/ascend-torch/lib64).
 * Returns 0, or -1 with a message naming the library or symbol in err. */
int cts_backend_open(const char *spec, cts_backend *b, char *err, size_t errlen);
void cts_backend_close(cts_backend *b);

/* Device tensors of one run: storage sized for the case's view (strides, offset) between two
 * harness guard zones, a poison pattern everywhere the device should not write, and the host
 * images of what was sent and what came back. Only aclrtMalloc/aclrtMemcpy are used, so the
 * same checks hold on a real device. */

/* What prepare and upload return when host or device memory ran out: a resource failure of the
 * host, not a defect of the device. */
#define CTS_OUT_OF_MEMORY (-2)

/* Values first .. first + n - 1 of a tensor's logical elements into out (a fill that needs
 * not hold the whole tensor). */
typedef void (*cts_fill_fn)(void *ctx, int64_t first, int64_t n, double *out);

/* x into one element of dt (little-endian host). Floats are rounded to dt first. */
void cts_encode(ref_dtype dt, double x, void *dst);
double cts_decode(ref_dtype dt, const void *src);
/* The poison byte at position i of a buffer: position dependent so shifted copies show. */
unsigned char cts_poison_byte(size_t i);

typedef struct {
    const cts_tensor *t;
    int slot;
    int64_t numel;          /* view elements (0 when a dim is <= 0) */
    int64_t strides[CTS_MAX_DIMS];
    int64_t storage;        /* storage elements the view spans, offset included */
    int64_t acl_storage;    /* storage told to the device when it differs (dataless runs) */
    size_t esize;
    size_t bytes;           /* guard + storage + guard */
    void *dev;              /* aclrtMalloc result; tensor data starts CTS_GUARD_BYTES later */
    unsigned char *sent;    /* host image written before the call (poison + inputs); NULL:
                               poison alone (an output prepared by prepare_fill) */
    unsigned char *back;    /* host image read back after the call; NULL with back_same: it
                               was read and found identical to `sent` */
    bool back_same;
    double *values;         /* logical row-major view values: inputs as the device saw them
                               (NULL when prepared by prepare_fill) */
    cts_fill_fn fill;       /* prepare_fill's fill and its ctx: the sent image can be made */
    void *fill_ctx;         /* again, so upload drops it (ctx must outlive the download) */
    uint64_t *sent_hash;    /* while dropped (sent NULL): a hash of each piece of the image */
    uint64_t *made_hash;    /* the pieces' hashes taken as the image was made (NULL: none),
                               which the drop keeps instead of hashing the image again */
    aclTensor *acl;
} cts_dev_tensor;


/* Sizes, strides and storage of t only (no host images, no device memory): what prepare starts
 * with, for a caller that places the tensor in memory of its own (the fuzz targets' arena).
 * 0, or -1 when the tensor cannot exist (cts_tensor_extent_of). */
int cts_dev_tensor_layout(cts_dev_tensor *d, const cts_tensor *t, int slot);
/* Host side: sizes, strides, the sent image (poison, then `values` at the view positions for
 * inputs, reread so overlapping views give what the device really sees). values: numel doubles
 * for inputs (ownership taken), NULL for outputs. 0, CTS_OUT_OF_MEMORY, or -1 (a tensor that
 * cannot exist). */
int cts_dev_tensor_prepare(cts_dev_tensor *d, const cts_tensor *t, int slot, double *values);
/* Host side as prepare, holding only what the checks need: an input's sent image, encoded
 * piece by piece from fill (values already of the tensor's dtype, as cts_fill_range gives them;
 * called from several threads at once for a view without overlap; no values kept; cts_dev_tensor_decode reads them back from it); an
 * output, or a tensor without fill (fill NULL: a NULL tensor), nothing (its sent image is the
 * poison, a function of the position). 0,
 * CTS_OUT_OF_MEMORY, or -1 (a tensor that cannot exist). */
int cts_dev_tensor_prepare_fill(cts_dev_tensor *d, const cts_tensor *t, int slot,
                                cts_fill_fn fill, void *ctx);
/* Host side as prepare_fill, the sent image a copy of like's (the same tensor prepared by an
 * earlier run of the case): what a later run sends is the first run's image, byte for byte,
 * without generating it again. 0, CTS_OUT_OF_MEMORY, or -1 (a tensor that cannot exist). */
int cts_dev_tensor_prepare_like(cts_dev_tensor *d, const cts_tensor *t, int slot,
                                const cts_dev_tensor *like);
/* Device side: aclrtMalloc, copy `sent` (or the poison), aclCreateTensor (unless the case asks
 * for NULL). An image prepare_fill made is then dropped, a hash of each piece kept instead
 * (the device copy and the image would hold the tensor twice through the call);
 * download_input restores it.
 * 0, or CTS_OUT_OF_MEMORY (aclrtMalloc: ACL_ERROR_BAD_ALLOC) or -1, with a message in err. */
int cts_dev_tensor_upload(const cts_backend *b, cts_dev_tensor *d, char *err, size_t errlen);
/* aclCreateTensor of d's view over device data `data` (nothing when the case asks for NULL);
 * upload does this at its buffer's data start. 0, or -1 with a message in err. */
int cts_dev_tensor_attach(const cts_backend *b, cts_dev_tensor *d, void *data, char *err,
                          size_t errlen);
/* Copy the device buffer into `back` (allocated when NULL). 0, CTS_OUT_OF_MEMORY or -1. */
int cts_dev_tensor_download(const cts_backend *b, cts_dev_tensor *d, char *err, size_t errlen);
/* An input's device buffer read back piece by piece and compared with `sent`: when identical no
 * `back` is kept (back_same), else it is downloaded whole for the checks to name the change.
 * A dropped image comes back whole and is compared piece by piece with the hashes: identical,
 * it is `sent` again; else it is `back` and `sent` is made again from the fill.
 * 0, CTS_OUT_OF_MEMORY or -1. */
int cts_dev_tensor_download_input(const cts_backend *b, cts_dev_tensor *d, char *err,
                                  size_t errlen);
/* Byte i of the sent image (the poison where none is kept) and of the image read back. */
unsigned char cts_dev_tensor_sent_byte(const cts_dev_tensor *d, size_t i);
unsigned char cts_dev_tensor_back_byte(const cts_dev_tensor *d, size_t i);
/* True when logical element k is storage element k (no offset, no strides): no gaps, no
 * overlap. */
bool cts_dev_tensor_plain(const cts_dev_tensor *d);
/* Storage element (from the data start) of logical element k. */
int64_t cts_dev_tensor_pos(const cts_dev_tensor *d, int64_t k);
/* Decode the view of `back` into out (numel doubles). */
void cts_dev_tensor_read_back(const cts_dev_tensor *d, double *out);
/* malloc for a buffer of `bytes` that is written whole next (an image, decoded values): from
 * 1 MiB on, its pages made present at once where the kernel can (MADV_POPULATE_WRITE), in
 * 2 MiB pages inside it (MADV_HUGEPAGE), not faulted in one at a time by the writes
 * (tools/bench-fresh-pages). NULL when memory ran out. */
void *cts_malloc_written(size_t bytes);
/* A hash of bytes p[0 .. n-1] (a sent image's piece, compared with the same piece read back):
 * four 64-bit lanes, word j of each 32 bytes into lane j by h = (h ^ word) · 0x9e3779b97f4a7c15
 * (a bijection of the lane for each word: a changed word always changes its lane), the bytes
 * after the last 32 into lane 0 one at a time, then r = n and r = (r ^ h ^ (h >> 29)) · the same
 * constant for each lane in order. At memory speed. */
uint64_t cts_piece_hash(const unsigned char *p, size_t n);
/* Decode FP16 images without the CPU's F16C conversion (the portable loop alone), for the
 * tests and tools/bench-decode: the same values either way. */
extern bool cts_decode_no_f16c;
/* Decode logical elements first .. first + n - 1 of host image img (sent or back) into out. */
void cts_dev_tensor_decode(const cts_dev_tensor *d, const unsigned char *img, int64_t first,
                           int64_t n, double *out);
/* Destroy the aclTensor and free device memory (keeps host images). */
void cts_dev_tensor_release(const cts_backend *b, cts_dev_tensor *d);
void cts_dev_tensor_free(const cts_backend *b, cts_dev_tensor *d);

/* "[0,3,1,2]": multi-index of logical element k of dims. */
const char *cts_multi_index(int rank, const int64_t *dims, int64_t k, char *buf, size_t size);

/* The ABI call of a case's operator (op_call.c, through its driver, op_driver.h):
 * a->array[i] for every list parameter of a->c (NULL when null), in parameter order. */
void cts_call_arrays_create(const cts_backend *b, cts_call_args *a);
void cts_call_arrays_destroy(const cts_backend *b, cts_call_args *a);
/* The first phase, GetWorkspaceSize, with a's tensors, arrays and out-pointers. */
aclnnStatus cts_call_first_phase(const cts_backend *b, const cts_call_args *a);
/* The second phase of c's operator. */
aclnnStatus cts_call_second_phase(const cts_backend *b, const cts_case *c, void *workspace,
                                  uint64_t workspace_size, aclOpExecutor *executor,
                                  aclrtStream stream);

#endif
