#include <gpucost/record/smi_probe.hpp>

#include "process.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace gpucost::record {

std::string nvidia_smi_on_path() { return find_in_path("nvidia-smi"); }

Expected<breakeven::MachineFacts> probe_nvidia_smi(const std::string& executable, int timeout_ms) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return make_error(ErrorKind::io, fmt::format("nvidia-smi: cannot make a pipe: {}", std::strerror(errno)));
  const pid_t pid = spawn_without_input(
      {executable, "--query-gpu=name,memory.total,power.limit", "--format=csv,noheader"}, fds[1], fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return make_error(ErrorKind::io, fmt::format("nvidia-smi: cannot start it: {}", std::strerror(errno)));
  }
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  const PipeEnd end = read_until(fds[0], deadline, 1U << 20, output);
  ::close(fds[0]);
  // Its output is closed; it still has until the deadline to exit. A probe past the deadline (or
  // whose output could not be waited for) is killed at once, with its process group.
  bool killed = false;
  const int status = wait_within(pid, end == PipeEnd::closed ? ms_left(deadline) : 0, killed);
  const bool timed_out = end == PipeEnd::deadline || (killed && end != PipeEnd::poll_failed);
  if (timed_out)
    return make_error(ErrorKind::io, fmt::format("nvidia-smi did not answer within {:g} s", timeout_ms / 1000.0));
  if (exit_code(status) != 0) {
    const std::string_view first = text::trim(std::string_view(output).substr(0, output.find('\n')));
    return make_error(ErrorKind::io, fmt::format("nvidia-smi failed (exit status {}){}{}", exit_code(status),
                                                 first.empty() ? "" : ": ", text::printable(first)));
  }
  return breakeven::parse_smi_gpu_list(output);
}

}  // namespace gpucost::record
