// Internals of the torch backend's libopapi: PyTorch's CPU kernels behind the CANN ABI.
// The runtime and nnopbase are the emulated device's own (kernels/runtime, kernels/nnopbase);
// only the operators differ. See README.md for the contract this backend keeps.
#ifndef ACLCTS_KERNELS_TORCH_ADAPTER_H_
#define ACLCTS_KERNELS_TORCH_ADAPTER_H_

#include <array>
#include <functional>
#include <string>

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

// The first line of an exception's message (a c10::Error's without its C++ backtrace).
std::string torch_message(const std::exception &e);

// 161002 with torch's message msg in aclGetRecentErrMsg.
aclnnStatus torch_error_message(const char *api, const std::string &msg);

// A torch computation of up to two results (undefined tensors where there is none).
using TorchKernel = std::function<std::array<at::Tensor, 2>()>;

// Runs kernel and gives its results to the caller; with `isolate` (the caller's inputs are of a
// kind torch's own code is known to crash on) in a forked child, one-threaded: a crash there
// (torch 1.13's grid sampler on a NaN coordinate, pytorch/pytorch#24823) becomes 561000 with
// how the child ended ("died of SIGSEGV (Segmentation fault)") in aclGetRecentErrMsg, and a
// torch exception there 161002 with torch's words, as torch_call makes it. kernel_name names the
// torch function in those messages. Without `isolate` a torch exception propagates.
aclnnStatus torch_compute(const char *api, const char *kernel_name, bool isolate,
                          const TorchKernel &kernel, at::Tensor results[2]);

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
