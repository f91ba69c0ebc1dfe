#include <gpucost/record/record.hpp>

#include "handles.hpp"
#include "process.hpp"

#include <gpucost/core/time.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/io/json_out.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/pipeline/inputs.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <functional>

namespace gpucost::record {

namespace {

std::string in_dir(const std::string& dir, std::string_view name) { return fmt::format("{}/{}", dir, name); }

/// A file of the run folder, opened for writing (close-on-exec: children get it by dup2 only).
/// The folder is one record made itself, so nothing else can be at the name; O_NOFOLLOW all the same.
int create_file(const std::string& path, mode_t mode = 0644) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
}
/// The same, appended to.
int append_file(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
}

/// Makes the run folder, always a new one (mkdir): an existing folder, even an empty one, may
/// hold links planted by whoever can write to it (docs/security.md). A dated default name that is
/// taken gets -2, -3, ... (another record may be filling it); a --run-dir that exists is refused.
Expected<std::string> make_run_dir(const std::string& dir, bool numbered) {
  constexpr int kMaxSuffix = 999;
  for (int n = 1; n <= kMaxSuffix; ++n) {
    std::string path = n == 1 ? dir : fmt::format("{}-{}", dir, n);
    if (::mkdir(path.c_str(), 0755) == 0) return path;
    const int err = errno;
    if (err == EEXIST && numbered) continue;
    struct stat st {};
    const bool is_dir = err == EEXIST && ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    const bool holds_run = is_dir && ::access(in_dir(path, kMetadataFile).c_str(), F_OK) == 0;
    const char* why = holds_run       ? "it already holds a run (run.json)"
                      : is_dir        ? "it exists, and record writes only into a folder it makes itself"
                      : err == EEXIST ? "a file of that name is in the way"
                                      : std::strerror(err);
    return make_error(ErrorKind::io, fmt::format("{}: cannot make the run folder: {}", path, why),
                      numbered ? "run gpucost record from a folder it can write to, or give --run-dir"
                               : "give another --run-dir, or leave it out for a new dated folder");
  }
  return make_error(ErrorKind::io,
                    fmt::format("{}: cannot make the run folder: {} to {}-{} are taken", dir, dir, dir, kMaxSuffix),
                    "give --run-dir, or move the old run folders away");
}

void write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // a closed terminal or pipe: the log file still gets everything
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

/// Copies the command's stdout and stderr to ours and to the training log until both close,
/// or shortly after the command exits (a background child may keep the pipes open); `tick` is
/// called at every turn (at least every 200 ms) while the command runs.
void tee_output(int out_r, int err_r, int log_fd, pid_t child, int& raw_status, bool& reaped,
                const std::function<void()>& tick) {
  pollfd fds[2] = {{out_r, POLLIN, 0}, {err_r, POLLIN, 0}};
  const int targets[2] = {STDOUT_FILENO, STDERR_FILENO};
  int open_fds = 2;
  std::int64_t drain_until = 0;
  char buf[64 * 1024];
  while (open_fds > 0) {
    const int ready = ::poll(fds, 2, 200);
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      write_all(targets[i], buf, static_cast<std::size_t>(got));
      write_all(log_fd, buf, static_cast<std::size_t>(got));
    }
    if (!reaped && ::waitpid(child, &raw_status, WNOHANG) == child) {
      reaped = true;
      drain_until = wall_clock_ns() + 2'000'000'000;
    }
    if (!reaped) tick();
    if (reaped && ready == 0 && wall_clock_ns() > drain_until) break;
  }
  for (const pollfd& p : fds)
    if (p.fd >= 0) ::close(p.fd);
}

/// How long a one-shot nvidia-smi may take before it is given up (the driver's start-up can take
/// seconds without persistence mode; a GPU that fell off the bus can hang it).
constexpr int kOneShotTimeoutMs = 10'000;
constexpr std::string_view kSmiStderrFile = "nvidia-smi.stderr";

struct Sampler {
  pid_t pid = -1;        ///< the looping nvidia-smi
  pid_t pmon_pid = -1;   ///< nvidia-smi pmon: who computed (breakeven --by)
  std::string path;      ///< nvidia-smi's full path; empty when missing
  bool started = false;  ///< the sample at the start came: there is telemetry, with its header
};

/// pmon's -d: the interval in whole seconds, 1 to 10 (the range nvidia-smi pmon accepts).
int pmon_delay_s(int interval_ms) { return std::clamp((interval_ms + 500) / 1000, 1, 10); }

/// nvidia-smi pmon beside the telemetry: each process's SM share and memory every cycle, with
/// the date and time on every row (-o DT), into pmon.txt. Under coreutils' stdbuf -oL when there
/// is one: a program writing to a file may hold its lines in a buffer until it exits.
pid_t start_pmon(const std::string& smi, const RecordOptions& o, const std::string& dir) {
  const int out = create_file(in_dir(dir, kPmonFile));
  const int err = append_file(in_dir(dir, kSmiStderrFile));
  std::vector<std::string> argv = {smi,  "pmon", "-s", "um",
                                   "-o", "DT",   "-d", std::to_string(pmon_delay_s(o.interval_ms))};
  if (const std::string stdbuf = find_in_path("stdbuf"); !stdbuf.empty()) argv.insert(argv.begin(), {stdbuf, "-oL"});
  const pid_t pid = spawn(argv, Streams{-1, out, err}, true);
  if (out >= 0) ::close(out);
  if (err >= 0) ::close(err);
  return pid;
}

/// Stops pmon; a pmon that ended on its own with an error (not supported on the GPU, under MIG)
/// is a note, and an empty pmon.txt is removed.
void stop_pmon(pid_t pid, const std::string& dir, std::vector<std::string>& notes) {
  if (pid <= 0) return;
  int status = 0;
  const bool ended_early = ::waitpid(pid, &status, WNOHANG) == pid;
  if (!ended_early) {  // as Ctrl-C stops it, so that it can write what it holds; SIGKILL after 1 s
    ::kill(pid, SIGINT);
    bool timed_out = false;
    status = wait_within(pid, 1000, timed_out);
  }
  if (ended_early && exit_code(status) != 0)
    notes.push_back(
        fmt::format("nvidia-smi pmon stopped early (exit status {}, see {}): the cost cannot be split "
                    "by process (breakeven --by)",
                    exit_code(status), in_dir(dir, kSmiStderrFile)));
  struct stat st {};
  if (::stat(in_dir(dir, kPmonFile).c_str(), &st) == 0 && st.st_size == 0) ::unlink(in_dir(dir, kPmonFile).c_str());
}

/// One nvidia-smi query, its rows appended to the telemetry (with the header when `header`).
/// Returns whether it answered; a note says why not.
bool sample_once(const std::string& smi, const std::string& dir, bool header, std::string_view when,
                 std::vector<std::string>& notes) {
  const int out = append_file(in_dir(dir, kTelemetryFile));
  const int err = append_file(in_dir(dir, kSmiStderrFile));
  const pid_t pid =
      spawn({smi, fmt::format("--query-gpu={}", kQueryFields), header ? "--format=csv" : "--format=csv,noheader"},
            Streams{-1, out, err}, true);
  if (out >= 0) ::close(out);
  if (err >= 0) ::close(err);
  bool timed_out = false;
  const int code = pid > 0 ? exit_code(wait_within(pid, kOneShotTimeoutMs, timed_out)) : 127;
  if (timed_out)
    notes.push_back(
        fmt::format("nvidia-smi did not answer within {} s at the {} and was stopped", kOneShotTimeoutMs / 1000, when));
  else if (code != 0)
    notes.push_back(
        fmt::format("nvidia-smi failed at the {} (exit status {}, see {})", when, code, in_dir(dir, kSmiStderrFile)));
  return !timed_out && code == 0;
}

/// A sample at once (so that even a command shorter than the interval has telemetry), then the
/// looping sampler appending to it.
Sampler start_sampler(const RecordOptions& o, const std::string& dir, std::vector<std::string>& notes) {
  Sampler s;
  s.path = find_in_path("nvidia-smi");
  if (s.path.empty()) {
    notes.emplace_back(
        "nvidia-smi is not on PATH: no GPU telemetry recorded (power, utilisation and clocks "
        "will be missing)");
    return s;
  }
  for (const std::string_view name : {kTelemetryFile, kSmiStderrFile}) {
    const int fd = create_file(in_dir(dir, name));
    if (fd >= 0) ::close(fd);
  }
  if (!sample_once(s.path, dir, true, "start", notes)) {
    notes.back() += ": no GPU telemetry recorded";
    return s;
  }
  s.started = true;
  const int out = append_file(in_dir(dir, kTelemetryFile));
  const int err = append_file(in_dir(dir, kSmiStderrFile));
  s.pid = spawn({s.path, fmt::format("--query-gpu={}", kQueryFields), "--format=csv,noheader",
                 fmt::format("-lms={}", o.interval_ms)},
                Streams{-1, out, err}, true);
  if (out >= 0) ::close(out);
  if (err >= 0) ::close(err);
  s.pmon_pid = start_pmon(s.path, o, dir);
  return s;
}

/// Stops the looping nvidia-smi with SIGTERM (noting when it had stopped on its own with an
/// error), then takes the sample at the exit.
void stop_sampler(const Sampler& s, const std::string& dir, std::vector<std::string>& notes) {
  stop_pmon(s.pmon_pid, dir, notes);
  if (s.pid > 0) {
    int status = 0;
    const bool ended_early = ::waitpid(s.pid, &status, WNOHANG) == s.pid;
    if (!ended_early) {
      ::kill(s.pid, SIGTERM);
      status = wait_for(s.pid);
    }
    if (ended_early && exit_code(status) != 0)
      notes.push_back(fmt::format("nvidia-smi stopped early (exit status {}): see {}", exit_code(status),
                                  in_dir(dir, kSmiStderrFile)));
  }
  if (s.started) sample_once(s.path, dir, false, "exit", notes);
  struct stat st {};
  if (!s.path.empty() && ::stat(in_dir(dir, kSmiStderrFile).c_str(), &st) == 0 && st.st_size == 0)
    ::unlink(in_dir(dir, kSmiStderrFile).c_str());
}

/// The kernel messages of the run window, as journalctl exports them.
bool collect_journal(const std::string& dir, std::int64_t start_ns, std::int64_t end_ns,
                     std::vector<std::string>& notes) {
  const std::string journalctl = find_in_path("journalctl");
  if (journalctl.empty()) {
    notes.emplace_back("journalctl is not on PATH: no kernel messages recorded (Xid, AER, thermal events)");
    return false;
  }
  const std::string path = in_dir(dir, kJournalFile);
  const int out = create_file(path);
  const int err = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  const pid_t pid =
      spawn({journalctl, "-k", "-o", "json", "--no-pager", fmt::format("--since=@{}", start_ns / 1'000'000'000),
             fmt::format("--until=@{}", end_ns / 1'000'000'000 + 1)},
            Streams{-1, out, err}, true);
  ::close(out);
  if (err >= 0) ::close(err);
  const int code = pid > 0 ? exit_code(wait_for(pid)) : 127;
  struct stat st {};
  const bool empty = ::stat(path.c_str(), &st) != 0 || st.st_size == 0;
  if (code != 0 || empty) {
    notes.push_back(code != 0 ? fmt::format("journalctl failed (exit status {}): no kernel messages recorded", code)
                              : "journalctl exported no kernel messages for the run (reading the journal may need "
                                "the systemd-journal or adm group)");
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

/// run.json's members, each on a line of its own.
std::string metadata_json(const RecordOptions& o, const RecordResult& r, const std::string& smi) {
  std::string out;
  io::JsonWriter w(out);
  const auto member = [&w](std::string_view key) -> io::JsonWriter& { return w.line("  ").key(key); };
  w.object();
  member("schema").str(kRunSchema);
  member("version").integer(kRunVersion);
  member("command").array();
  for (const std::string& arg : o.command) w.item().str(arg);
  w.close();
  member("host").str(o.host);
  member("start").str(format_utc(r.start_ns));
  member("end").str(format_utc(r.end_ns));
  member("start_ns").integer(r.start_ns);
  member("end_ns").integer(r.end_ns);
  member("exit_status").integer(r.exit_status);
  member("signal").integer(r.signal);
  member("interval_ms").integer(o.interval_ms);
  member("nvidia_smi").str_or_null(smi);  // its path; null when it is missing
  member("gpucost_version").str(o.version);
  member("notes").array();
  for (const std::string& note : r.notes) w.line("    ").item().str(note);
  w.close(r.notes.empty() ? "" : "\n  ").close("\n");
  out.push_back('\n');
  return out;
}

/// run.json: it holds the wrapped command's argv and the cost configuration, so 0600 (docs/security.md).
Status write_private_text(const std::string& path, const std::string& text) {
  const int fd = create_file(path, 0600);
  if (fd < 0) return make_error(ErrorKind::io, fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  write_all(fd, text.data(), text.size());
  ::close(fd);
  return {};
}

}  // namespace

std::string default_run_dir(std::int64_t now) {
  const std::time_t t = static_cast<std::time_t>(now / 1'000'000'000);
  std::tm local{};
  ::localtime_r(&t, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, "gpucost-run-%Y%m%d-%H%M%S", &local);
  return buf;
}

Expected<RecordResult> record_run(const RecordOptions& o) {
  if (o.command.empty())
    return make_error(ErrorKind::usage, "record: no command", "e.g. gpucost record -- python train.py");
  RecordResult r;
  auto dir = make_run_dir(o.run_dir, o.numbered_run_dir);
  if (!dir) return dir.error();
  r.run_dir = std::move(*dir);
  const int log_fd = create_file(in_dir(r.run_dir, kTrainLogFile));
  if (log_fd < 0)
    return make_error(ErrorKind::io,
                      fmt::format("{}: cannot write: {}", in_dir(r.run_dir, kTrainLogFile), std::strerror(errno)));
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int err = errno;
    for (const int fd : {log_fd, out_pipe[0], out_pipe[1]})
      if (fd >= 0) ::close(fd);
    return make_error(ErrorKind::io, fmt::format("record: cannot make a pipe: {}", std::strerror(err)));
  }
  r.from_ns = wall_clock_ns();
  const Sampler sampler = start_sampler(o, r.run_dir, r.notes);
  r.sampled = sampler.started;
  HandleRecorder handles(o, r.run_dir, r.notes);
  handles.tick(true);  // who held the GPU before the command started
  r.start_ns = wall_clock_ns();
  const pid_t child = spawn(o.command, Streams{-1, out_pipe[1], err_pipe[1]}, false);
  handles.set_command_pid(child);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  int raw = 0;
  bool reaped = false;
  {
    const SignalForwarder forwarder(child);
    const auto old_pipe = std::signal(SIGPIPE, SIG_IGN);  // a closed terminal must not end the recording
    if (child > 0) tee_output(out_pipe[0], err_pipe[0], log_fd, child, raw, reaped, [&handles] { handles.tick(); });
    if (child > 0 && !reaped) raw = wait_for(child);
    std::signal(SIGPIPE, old_pipe);
  }
  r.end_ns = wall_clock_ns();
  ::close(log_fd);
  r.exit_status = child > 0 ? exit_code(raw) : 127;
  r.signal = child > 0 && raw >= 0 && WIFSIGNALED(raw) ? WTERMSIG(raw) : 0;
  stop_sampler(sampler, r.run_dir, r.notes);
  r.handles = handles.finish(r.notes);
  r.to_ns = wall_clock_ns();
  if (!r.sampled) {
    r.from_ns = r.start_ns;
    r.to_ns = r.end_ns;
  }
  r.journal = collect_journal(r.run_dir, r.start_ns, r.end_ns, r.notes);
  // The command has run: a metadata file that cannot be written is a note, its status is kept.
  if (auto st = write_private_text(in_dir(r.run_dir, kMetadataFile), metadata_json(o, r, sampler.path)); !st)
    r.notes.push_back(st.error().message);
  return r;
}

std::vector<std::string> priceable_files(const RecordResult& result, std::vector<std::string>& notes) {
  std::vector<std::string> files;
  // The handles' stream last, and only beside something priceable: alone it prices nothing.
  for (const std::string_view name : {kTelemetryFile, kPmonFile, kJournalFile, kTrainLogFile, kHandlesFile}) {
    const std::string path = in_dir(result.run_dir, name);
    auto reader = io::LineReader::open(path);
    if (!reader) continue;
    const std::string_view head = (*reader)->peek(64 * 1024);
    if (head.empty()) continue;
    if (name == kHandlesFile) {  // an events stream: read as one, its gpu_handle events beside the samples
      if (result.handles && !files.empty() && io::is_event_stream(head)) files.push_back(path);
      continue;
    }
    if (!pipeline::is_readable_input(head)) {
      notes.push_back(fmt::format("{}: no format gpucost reads (kept in the run folder, not priced)", path));
      continue;
    }
    files.push_back(path);
  }
  return files;
}

}  // namespace gpucost::record
