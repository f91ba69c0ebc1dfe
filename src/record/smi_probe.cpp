#include <gpucost/record/smi_probe.hpp>

#include "process.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace gpucost::record {

std::string nvidia_smi_on_path() { return find_in_path("nvidia-smi"); }

Expected<breakeven::MachineFacts> probe_nvidia_smi(const std::string& executable, int timeout_ms) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return make_error(ErrorKind::io, fmt::format("nvidia-smi: cannot make a pipe: {}", std::strerror(errno)));
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t pid = spawn({executable, "--query-gpu=name,memory.total,power.limit", "--format=csv,noheader"},
                          Streams{devnull, fds[1], fds[1]}, true);
  ::close(fds[1]);
  if (devnull >= 0) ::close(devnull);
  if (pid < 0) {
    ::close(fds[0]);
    return make_error(ErrorKind::io, fmt::format("nvidia-smi: cannot start it: {}", std::strerror(errno)));
  }
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool timed_out = false, stuck = false;  // stuck: poll failed, the output cannot be waited for
  char buf[4096];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      stuck = ready < 0;
      break;
    }
    const ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (output.size() < (1U << 20)) output.append(buf, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  // Its output is closed; it still has until the deadline to exit. A probe past the deadline (or
  // whose output could not be waited for) is killed at once, with its process group.
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  bool killed = false;
  const int status =
      wait_within(pid, timed_out || stuck ? 0 : static_cast<int>(std::max<std::int64_t>(0, left.count())), killed);
  timed_out = timed_out || (killed && !stuck);
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
