// Internals of the torch backend's libopapi: PyTorch's CPU kernels behind the CANN ABI.
// The runtime and nnopbase are the emulated device's own (kernels/runtime, kernels/nnopbase);
// only the operators differ. See README.md for the contract this backend keeps.
#ifndef ACLCTS_KERNELS_TORCH_ADAPTER_H_
#define ACLCTS_KERNELS_TORCH_ADAPTER_H_

#include <ATen/core/Tensor.h>

extern "C" {
#include "emu.h"
}

namespace aclcts_torch {

// A torch view of an aclTensor's device memory: sizes, strides and storage offset kept, dtype
// mapped (FLOAT, FLOAT16, BF16, DOUBLE). NULL → 161001; a stale handle or another dtype → 161002;
// data outside one device allocation → 361001. May throw c10::Error (torch rejects the
// geometry, e.g. a negative dim or stride); call it inside torch_call.
aclnnStatus torch_view(const char *api, const char *name, const aclTensor *t, at::Tensor *out);

// Runs fn (a torch computation returning aclnnStatus) with ACL_OPT_DETERMINISTIC applied through
// at::globalContext().setDeterministicAlgorithms and torch threads from OMP_NUM_THREADS; a
// torch exception becomes 161002 with the first line of torch's message in aclGetRecentErrMsg.
template <typename Fn> aclnnStatus torch_call(const char *api, Fn fn);

// Turns a caught exception into 161002 with the first line of its message.
aclnnStatus torch_error(const char *api, const std::exception &e);

// RAII: determinism and thread count for one torch call, previous determinism restored after.
class TorchCallSettings {
  public:
    TorchCallSettings();
    ~TorchCallSettings();
    TorchCallSettings(const TorchCallSettings &) = delete;
    TorchCallSettings &operator=(const TorchCallSettings &) = delete;

  private:
    bool saved_deterministic_;
    bool saved_warn_only_;
};

template <typename Fn> aclnnStatus torch_call(const char *api, Fn fn)
{
    try {
        TorchCallSettings settings;
        return fn();
    } catch (const std::exception &e) {
        return torch_error(api, e);
    }
}

// Up to two results computed in the first phase, copied into the output views by the second.
// Checks in the first phase that each defined result fits its output as torch's out= would:
// same dtype, same sizes, and no output element written twice (internal overlap).
// On success *executor is a new executor whose run copies (outputs[i] may be NULL when
// results[i] is undefined); op_name is the second phase's API. Returns 161002 with a message when a result does not fit.
aclnnStatus torch_deferred_executor(const char *api, const char *op_name,
                                    const char *const names[2],
                                    const at::Tensor results[2], aclTensor *const outputs[2],
                                    const aclTensor *const inputs[4], aclOpExecutor **executor);

// The first phase's null checks of workspaceSize and executor (161001).
aclnnStatus torch_check_out_pointers(const char *api, uint64_t *workspace_size,
                                     aclOpExecutor **executor);

} // namespace aclcts_torch

#endif
