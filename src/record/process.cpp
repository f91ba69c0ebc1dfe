#include "process.hpp"

#include <gpucost/core/time.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace gpucost::record {

std::string find_in_path(std::string_view name) {
  if (name.find('/') != std::string_view::npos)
    return ::access(std::string(name).c_str(), X_OK) == 0 ? std::string(name) : "";
  const char* env = std::getenv("PATH");
  const std::string_view path = env != nullptr ? env : "/usr/bin:/bin";
  std::size_t at = 0;
  while (at <= path.size()) {
    const std::size_t colon = std::min(path.find(':', at), path.size());
    const std::string dir(path.substr(at, colon - at));
    const std::string full = (dir.empty() ? std::string(".") : dir) + "/" + std::string(name);
    struct stat st {};
    if (::stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(full.c_str(), X_OK) == 0) return full;
    at = colon + 1;
  }
  return {};
}

pid_t spawn(const std::vector<std::string>& argv, Streams streams, bool own_group) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  // The child: only async-signal-safe calls until exec.
  if (own_group) ::setpgid(0, 0);
  if (streams.in >= 0) ::dup2(streams.in, STDIN_FILENO);
  if (streams.out >= 0) ::dup2(streams.out, STDOUT_FILENO);
  if (streams.err >= 0) ::dup2(streams.err, STDERR_FILENO);
  for (const int sig : {SIGPIPE, SIGINT, SIGTERM}) std::signal(sig, SIG_DFL);  // ignored ones survive exec
  ::execvp(args[0], args.data());
  const int err = errno;
  const char* what = std::strerror(err);
  const char* prefix = "gpucost: record: cannot run ";
  (void)!::write(STDERR_FILENO, prefix, std::strlen(prefix));
  (void)!::write(STDERR_FILENO, args[0], std::strlen(args[0]));
  (void)!::write(STDERR_FILENO, ": ", 2);
  (void)!::write(STDERR_FILENO, what, std::strlen(what));
  (void)!::write(STDERR_FILENO, "\n", 1);
  ::_exit(127);
}

pid_t spawn_without_input(const std::vector<std::string>& argv, int out, int err) {
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t pid = spawn(argv, Streams{devnull, out, err}, true);
  ::close(out);
  if (err != out) ::close(err);
  if (devnull >= 0) ::close(devnull);
  return pid;
}

PipeEnd read_until(int fd, std::chrono::steady_clock::time_point deadline, std::size_t cap, std::string& out) {
  char buf[4096];
  for (;;) {
    const int left = ms_left(deadline);
    if (left <= 0) return PipeEnd::deadline;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return PipeEnd::poll_failed;
    if (ready == 0) return PipeEnd::deadline;
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return PipeEnd::closed;
    if (out.size() < cap) out.append(buf, static_cast<std::size_t>(got));
  }
}

int ms_left(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<std::int64_t>(0, left.count()));
}

namespace {

std::atomic<pid_t> g_forward_to{-1};
struct sigaction g_old_int {
}, g_old_term{};

void forward(int sig, siginfo_t* info, void* /*context*/) {
  const pid_t pid = g_forward_to.load();
  // SI_USER / SI_QUEUE: sent by kill() to gpucost alone. The terminal's Ctrl-C (SI_KERNEL)
  // went to the whole foreground process group, the command included.
  if (pid > 0 && info != nullptr && (info->si_code == SI_USER || info->si_code == SI_QUEUE)) ::kill(pid, sig);
}

}  // namespace

SignalForwarder::SignalForwarder(pid_t pid) {
  g_forward_to.store(pid);
  struct sigaction sa {};
  sa.sa_sigaction = forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &g_old_int);
  ::sigaction(SIGTERM, &sa, &g_old_term);
}

SignalForwarder::~SignalForwarder() {
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  g_forward_to.store(-1);
}

int wait_for(pid_t pid) {
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, 0) == pid) return status;
    if (errno != EINTR) return -1;
  }
}

namespace {

/// waitpid(WNOHANG) every 10 ms until `deadline_ns`: the raw status, or -1.
int poll_exit(pid_t pid, std::int64_t deadline_ns) {
  for (;;) {
    int status = 0;
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) return status;
    if (got < 0 && errno != EINTR) return -1;
    if (wall_clock_ns() >= deadline_ns) return -1;
    const timespec pause{0, 10'000'000};
    ::nanosleep(&pause, nullptr);
  }
}

}  // namespace

int wait_within(pid_t pid, int timeout_ms, bool& timed_out) {
  timed_out = false;
  const int status = poll_exit(pid, wall_clock_ns() + std::int64_t{timeout_ms} * 1'000'000);
  if (status >= 0 || ::kill(pid, 0) != 0) return status;
  timed_out = true;
  ::kill(-pid, SIGKILL);  // its group when it leads one (spawn's own_group): a script's children too
  ::kill(pid, SIGKILL);
  (void)poll_exit(pid, wall_clock_ns() + 1'000'000'000);
  return -1;
}

int exit_code(int raw_status) {
  if (raw_status < 0) return 127;
  if (WIFEXITED(raw_status)) return WEXITSTATUS(raw_status);
  if (WIFSIGNALED(raw_status)) return 128 + WTERMSIG(raw_status);
  return 127;
}

}  // namespace gpucost::record
