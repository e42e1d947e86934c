// Torch's kernel, in a forked child where torch 1.13's own CPU kernels are known to crash (the
// grid sampler's bilinear backward dies of SIGSEGV on a NaN coordinate under border or
// reflection padding, pytorch/pytorch#24823): a crash must cost the call, not the process that
// made it. The child computes and streams its results (or torch's error message) through a
// pipe; the parent rebuilds them and learns from waitpid how the child ended. Only such inputs
// go to a child: a fork of a process holding libtorch costs tens of milliseconds.
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include <ATen/Parallel.h>
#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "torch_adapter.h"

namespace aclcts_torch {

namespace {

enum : int8_t { kResults = 0, kTorchError = 1 };

bool write_all(int fd, const void *p, size_t n)
{
    const char *c = static_cast<const char *>(p);
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

// false at end of file (the child ended early) or on an error.
bool read_all(int fd, void *p, size_t n)
{
    char *c = static_cast<char *>(p);
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}

// One result: defined flag, then dtype, rank, sizes and the contiguous data.
bool send_result(int fd, const at::Tensor &r)
{
    int8_t defined = r.defined();
    if (!write_all(fd, &defined, 1))
        return false;
    if (!defined)
        return true;
    at::Tensor c = r.contiguous();
    int8_t type = (int8_t)c.scalar_type(), ndim = (int8_t)c.dim();
    return write_all(fd, &type, 1) && write_all(fd, &ndim, 1) &&
           write_all(fd, c.sizes().data(), sizeof(int64_t) * (size_t)ndim) &&
           write_all(fd, c.data_ptr(), c.nbytes());
}

bool receive_result(int fd, at::Tensor *r)
{
    int8_t defined, type, ndim;
    if (!read_all(fd, &defined, 1))
        return false;
    if (!defined) {
        *r = at::Tensor();
        return true;
    }
    if (!read_all(fd, &type, 1) || !read_all(fd, &ndim, 1) || ndim < 0 || ndim > 16 ||
        type < 0 || type >= (int8_t)at::ScalarType::NumOptions)
        return false;
    std::vector<int64_t> sizes((size_t)ndim);
    if (!read_all(fd, sizes.data(), sizeof(int64_t) * (size_t)ndim))
        return false;
    *r = at::empty(sizes, at::TensorOptions().dtype((at::ScalarType)type).device(at::kCPU));
    return read_all(fd, r->data_ptr(), r->nbytes());
}

[[noreturn]] void child_main(int fd, pid_t parent, const TorchKernel &kernel)
{
    // Dies with its caller (a harness timeout kills the caller); one thread, as libgomp's pool
    // does not survive fork (torch's CPU kernels of both operators write each batch's own slice,
    // so their results do not depend on the thread count).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    // A crash ends the child with its signal, whatever handler the caller installed.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
        signal(sig, SIG_DFL);
    at::set_num_threads(1);
    bool ok;
    try {
        std::array<at::Tensor, 2> r = kernel();
        int8_t kind = kResults;
        ok = write_all(fd, &kind, 1) && send_result(fd, r[0]) && send_result(fd, r[1]);
    } catch (const std::exception &e) {
        std::string msg = torch_message(e);
        int8_t kind = kTorchError;
        uint32_t len = (uint32_t)msg.size();
        ok = write_all(fd, &kind, 1) && write_all(fd, &len, sizeof len) &&
             write_all(fd, msg.data(), len);
    }
    _exit(ok ? 0 : 1);
}

// How the child ended, for the message of a call without a result.
std::string child_end(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *abbrev = sigabbrev_np(sig);
        return std::string("died of ") + (abbrev ? std::string("SIG") + abbrev : "a signal") +
               " (" + strsignal(sig) + ")";
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status)) + " without a result";
}

// The parent's side: the child's message or results, then its end.
aclnnStatus receive(const char *api, const char *kernel_name, int fd, pid_t pid,
                    at::Tensor results[2])
{
    int8_t kind = -1;
    bool complete = read_all(fd, &kind, 1);
    std::string torch_msg;
    if (complete && kind == kTorchError) {
        uint32_t len = 0;
        complete = read_all(fd, &len, sizeof len) && len < (1u << 20);
        if (complete) {
            torch_msg.resize(len);
            complete = read_all(fd, &torch_msg[0], len);
        }
    } else if (complete) {
        try {
            complete = kind == kResults && receive_result(fd, &results[0]) &&
                       receive_result(fd, &results[1]);
        } catch (const std::exception &) { // at::empty of the sizes received failed
            complete = false;
        }
    }
    close(fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (complete && exited_ok && kind == kTorchError)
        return torch_error_message(api, torch_msg);
    if (complete && exited_ok)
        return ACLNN_SUCCESS;
    results[0] = results[1] = at::Tensor();
    emu_set_error("%s: torch: %s %s in the child process that ran it; no result", api,
                  kernel_name, child_end(status).c_str());
    return ACLNN_ERR_INNER;
}

} // namespace

aclnnStatus torch_compute(const char *api, const char *kernel_name, bool isolate,
                          const TorchKernel &kernel, at::Tensor results[2])
{
    if (!isolate) {
        std::array<at::Tensor, 2> r = kernel();
        results[0] = r[0];
        results[1] = r[1];
        return ACLNN_SUCCESS;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        emu_set_error("%s: pipe: %s", api, strerror(errno));
        return ACLNN_ERR_INNER;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        emu_set_error("%s: fork: %s", api, strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return ACLNN_ERR_INNER;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1], parent, kernel);
    }
    close(fds[1]);
    return receive(api, kernel_name, fds[0], pid, results);
}

} // namespace aclcts_torch
