// Process helpers of `gpucost record`: PATH lookup, spawning with execvp, signal forwarding.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace gpucost::record {

/// The full path of `name` on PATH, or empty when it is not there (or not executable).
std::string find_in_path(std::string_view name);

/// Where a spawned process's standard streams go: file descriptors, -1 = inherit.
struct Streams {
  int in = -1, out = -1, err = -1;
};

/// fork + execvp(argv). `own_group`: the child leads a new process group, so a Ctrl-C on the
/// terminal does not reach it (the sampler is stopped by record, cleanly). Returns the pid, or
/// -1 when fork failed. A child whose exec fails prints why and exits 127.
pid_t spawn(const std::vector<std::string>& argv, Streams streams, bool own_group);

/// spawn() of a command that reads nothing (stdin from /dev/null) in its own group, writing to
/// `out` and `err` (may be one descriptor). The parent's copies of them are closed, so that a
/// pipe ends when the child exits. -1 when fork failed, with errno set.
pid_t spawn_without_input(const std::vector<std::string>& argv, int out, int err);

/// How reading a child's output ended: its writers closed the pipe, the deadline passed, or
/// poll() failed (the output cannot be waited for).
enum class PipeEnd { closed, deadline, poll_failed };
/// Reads `fd` until it ends or `deadline`, appending to `out` while it holds less than `cap` bytes.
PipeEnd read_until(int fd, std::chrono::steady_clock::time_point deadline, std::size_t cap, std::string& out);
/// The whole milliseconds left until `deadline`, 0 once it has passed.
int ms_left(std::chrono::steady_clock::time_point deadline);

/// While alive, SIGINT and SIGTERM sent to gpucost with kill() are forwarded to `pid`. Signals
/// from the terminal (Ctrl-C) already reach the whole foreground group, the command too, and
/// are not sent a second time.
class SignalForwarder {
 public:
  explicit SignalForwarder(pid_t pid);
  ~SignalForwarder();
  SignalForwarder(const SignalForwarder&) = delete;
  SignalForwarder& operator=(const SignalForwarder&) = delete;
};

/// waitpid() that retries on EINTR; returns the raw status, or -1.
int wait_for(pid_t pid);
/// wait_for() for at most `timeout_ms`; then SIGKILL (to its process group too, when spawned with
/// own_group) and up to a second more (a process stuck in the driver may not die: it is left
/// behind). Returns the raw status, or -1 with `timed_out` set.
int wait_within(pid_t pid, int timeout_ms, bool& timed_out);
/// The shell's convention: the exit code, or 128 + N for a process ended by signal N.
int exit_code(int raw_status);

}  // namespace gpucost::record
