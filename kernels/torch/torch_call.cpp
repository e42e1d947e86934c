// How every torch call is made: determinism and threads from the CANN context, errors mapped.
#include <cstdlib>
#include <string>

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include "torch_adapter.h"

namespace aclcts_torch {

TorchCallSettings::TorchCallSettings()
{
    at::Context &ctx = at::globalContext();
    saved_deterministic_ = ctx.deterministicAlgorithms();
    saved_warn_only_ = ctx.deterministicAlgorithmsWarnOnly();
    int64_t deterministic = 0;
    if (aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &deterministic) != ACL_SUCCESS)
        deterministic = 0;
    ctx.setDeterministicAlgorithms(deterministic == 1, /*warn_only=*/false);
    // torch sizes its pool once; honour a later OMP_NUM_THREADS as the emulated device does.
    const char *env = std::getenv("OMP_NUM_THREADS");
    int threads = env ? std::atoi(env) : 0;
    if (threads > 0 && at::get_num_threads() != threads)
        at::set_num_threads(threads);
}

TorchCallSettings::~TorchCallSettings()
{
    at::globalContext().setDeterministicAlgorithms(saved_deterministic_, saved_warn_only_);
}

std::string torch_message(const std::exception &e)
{
    // c10::Error's what() carries a C++ backtrace after the message; keep torch's words only.
    const c10::Error *ce = dynamic_cast<const c10::Error *>(&e);
    std::string msg = ce ? ce->what_without_backtrace() : e.what();
    return msg.substr(0, msg.find('\n'));
}

aclnnStatus torch_error_message(const char *api, const std::string &msg)
{
    emu_set_error("%s: torch: %s", api, msg.empty() ? "unknown error" : msg.c_str());
    return ACLNN_ERR_PARAM_INVALID;
}

aclnnStatus torch_error(const char *api, const std::exception &e)
{
    return torch_error_message(api, torch_message(e));
}

aclnnStatus torch_check_out_pointers(const char *api, uint64_t *workspace_size,
                                     aclOpExecutor **executor)
{
    if (!workspace_size || !executor) {
        emu_set_error("%s: %s is a null pointer", api, !workspace_size ? "workspaceSize" : "executor");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return ACLNN_SUCCESS;
}

} // namespace aclcts_torch
