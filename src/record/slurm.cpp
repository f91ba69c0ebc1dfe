// --slurm-job: sacct asked for one job (record/slurm.hpp).
#include <gpucost/record/slurm.hpp>

#include "process.hpp"

#include <gpucost/core/event_sink.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/extract/sample_collector.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/pipeline/inputs.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

namespace gpucost::record {

namespace {

/// 4242, 4242_7, 4242+1: what --slurm-job takes (sacct -j would also take lists and steps).
bool valid_job_id(std::string_view id) {
  std::size_t i = 0;
  while (i < id.size() && text::is_digit(id[i])) ++i;
  if (i == 0 || i > 20) return false;
  if (i == id.size()) return true;
  if (id[i] != '_' && id[i] != '+') return false;
  const std::string_view rest = id.substr(i + 1);
  if (rest.empty() || rest.size() > 10) return false;
  for (const char c : rest)
    if (!text::is_digit(c)) return false;
  return true;
}

/// The job part of a sacct line's first field ("4242_7.batch" -> "4242_7").
std::string_view line_job(std::string_view line) {
  const std::string_view first = line.substr(0, line.find('|'));
  return first.substr(0, first.find('.'));
}

/// True when `job` is `wanted`, or one of its array tasks or heterogeneous components.
bool belongs_to(std::string_view job, std::string_view wanted) {
  if (job == wanted) return true;
  return job.size() > wanted.size() && job.starts_with(wanted) &&
         (job[wanted.size()] == '_' || job[wanted.size()] == '+');
}

/// The first lines of sacct's stderr, on one line.
std::string first_lines(const std::string& err) {
  std::string out;
  std::size_t pos = 0;
  for (int n = 0; n < 3 && pos < err.size(); ++n) {
    const std::string_view line = text::trim(text::next_line(err, pos));
    if (!line.empty()) out += (out.empty() ? "" : "; ") + text::printable(line);
  }
  return out;
}

std::string tmp_dir() {
  const char* env = std::getenv("TMPDIR");
  return env != nullptr && *env != '\0' ? env : "/tmp";
}

class JobSink final : public EventSink {
 public:
  void on_event(const Event& ev) override {
    if (event_kind_from_name(ev.kind) == EventKind::job) jobs.push_back(extract::job_record_of(ev));
  }
  std::vector<extract::JobRecord> jobs;
};

}  // namespace

std::vector<std::string> sacct_command(const std::string& job_id) {
  return {
      "env", "TZ=UTC", "SLURM_TIME_FORMAT=%s", "sacct", "-j", job_id, "-P", fmt::format("--format={}", kSacctFormat)};
}

SacctFile::~SacctFile() {
  ::unlink(m_path.c_str());
  ::rmdir(m_dir.c_str());
}

Expected<std::unique_ptr<SacctFile>> query_sacct(const std::string& job_id, int timeout_ms) {
  if (!valid_job_id(job_id))
    return make_error(ErrorKind::usage, fmt::format("--slurm-job: '{}' is not a Slurm job id", job_id),
                      "give a job id as squeue and sacct print it: 4242, an array task 4242_7 or a heterogeneous "
                      "component 4242+1");
  std::vector<std::string> argv = sacct_command(job_id);
  const std::string sacct = find_in_path("sacct"), env = find_in_path("env");
  if (sacct.empty())
    return make_error(ErrorKind::io, "--slurm-job: sacct is not on PATH",
                      "run gpucost where Slurm's client commands are (Debian: slurm-client), or save the job's "
                      "record there (sacct -j ID -P --format=" +
                          std::string(kSacctFormat) + " > job.txt) and give the file instead of --slurm-job");
  argv[0] = env.empty() ? "/usr/bin/env" : env;
  argv[3] = sacct;
  std::string dir = tmp_dir() + "/gpucost-sacct-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr)
    return make_error(ErrorKind::io,
                      fmt::format("--slurm-job: cannot make a folder in {}: {}", tmp_dir(), std::strerror(errno)));
  auto file = std::make_unique<SacctFile>(dir, dir + "/sacct-job-" + job_id + ".txt");
  const int out = ::open(file->path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err_pipe[2] = {-1, -1};
  if (out < 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int e = errno;
    if (out >= 0) ::close(out);
    return make_error(ErrorKind::io, fmt::format("--slurm-job: cannot write {}: {}", file->path(), std::strerror(e)));
  }
  const pid_t pid = spawn_without_input(argv, out, err_pipe[1]);
  if (pid < 0) {
    ::close(err_pipe[0]);
    return make_error(ErrorKind::io, fmt::format("--slurm-job: cannot start sacct: {}", std::strerror(errno)));
  }
  std::string err;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  // A failed poll() ends the reading too: sacct still has until the deadline to exit.
  const bool ended = read_until(err_pipe[0], deadline, 64U << 10, err) != PipeEnd::deadline;
  ::close(err_pipe[0]);
  bool killed = false;
  const int status = wait_within(pid, ended ? ms_left(deadline) : 0, killed);
  if (!ended || killed)
    return make_error(ErrorKind::io, fmt::format("--slurm-job: sacct did not answer within {:g} s", timeout_ms / 1e3),
                      "is slurmdbd up and reachable? (sacctmgr show cluster)");
  if (exit_code(status) != 0)
    return make_error(ErrorKind::io,
                      fmt::format("--slurm-job: sacct -j {} failed (exit status {}){}{}", job_id, exit_code(status),
                                  err.empty() ? "" : ": ", first_lines(err)),
                      "sacct must reach slurmdbd: check SLURM_CONF, munged and slurmdbd (sacctmgr show cluster)");
  std::ifstream in(file->path());
  std::stringstream text;
  text << in.rdbuf();
  const std::string body = text.str();
  bool found = false;
  for (std::size_t pos = body.find('\n'); pos != std::string::npos && pos + 1 < body.size() && !found;
       pos = body.find('\n', pos + 1))
    found = belongs_to(line_job(std::string_view(body).substr(pos + 1)), job_id);
  if (!found)
    return make_error(ErrorKind::usage,
                      fmt::format("--slurm-job {}: sacct knows no such job{}{}", job_id, err.empty() ? "" : " (",
                                  err.empty() ? "" : first_lines(err) + ")"),
                      "check the id (sacct -X -S now-7days lists recent jobs); sacct shows the jobs of the cluster "
                      "its slurm.conf names");
  return file;
}

Expected<std::vector<extract::JobRecord>> read_sacct_jobs(const std::string& text, LocalClock& clock) {
  auto reader = io::LineReader::from_string(text);
  JobSink sink;
  InputStats stats;
  stats.path = "sacct";
  GPUCOST_TRY(pipeline::read_input_as(*reader, Format::sacct, clock, sink, stats));
  return std::move(sink.jobs);
}

Expected<extract::JobRecord> pick_slurm_job(const std::string& sacct_text, const std::string& job_id,
                                            LocalClock& clock) {
  auto jobs = read_sacct_jobs(sacct_text, clock);
  if (!jobs) return jobs.error();
  std::vector<std::string> ids;
  for (const extract::JobRecord& j : *jobs) {
    if (j.id == job_id) {
      if (j.nodes.empty())
        return make_error(ErrorKind::usage, fmt::format("Slurm job {} never ran ({}): it has no window", j.id, j.state),
                          "give the id of a job that started");
      return j;
    }
    if (belongs_to(j.id, job_id)) ids.push_back(j.id);
  }
  return make_error(
      ErrorKind::usage,
      ids.empty() ? fmt::format("Slurm job {} has not started: it has no window", job_id)
                  : fmt::format("--slurm-job {} names {} allocations: {}", job_id, ids.size(), text::join(ids, ", ")),
      "give one of them (an array task 4242_7, a heterogeneous component 4242+1)");
}

Expected<extract::JobRecord> slurm_job(const std::string& job_id, int timeout_ms) {
  auto file = query_sacct(job_id, timeout_ms);
  if (!file) return file.error();
  std::ifstream in((*file)->path());
  std::stringstream text;
  text << in.rdbuf();
  LocalClock utc = LocalClock::utc();  // epoch seconds; TZ=UTC for any other time
  return pick_slurm_job(text.str(), job_id, utc);
}

}  // namespace gpucost::record
