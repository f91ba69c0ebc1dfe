// The job window (window.hpp).
#include "window.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/extract.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

namespace gpucost::extract::detail {

namespace {

/// ts + span_ns, saturating: an events stream may carry any number (NaN or negative is 0).
std::int64_t span_end(std::int64_t ts_ns, double span_ns) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (!(span_ns > 0)) return ts_ns;
  if (span_ns >= static_cast<double>(kMax) || ts_ns > kMax - static_cast<std::int64_t>(span_ns)) return kMax;
  return ts_ns + static_cast<std::int64_t>(span_ns);
}

/// Without telemetry, the GPU spans of profiler traces give the window (and the GPUs).
void trace_span(const SampleCollector& samples, Window& w) {
  for (const TraceRecord& r : samples.trace_records()) {
    if (r.kind != EventKind::trace_device) continue;
    w.lo = std::min(w.lo, r.ts_ns);
    w.hi = std::max(w.hi, span_end(r.ts_ns, r.get("span_ns")));
    if (std::find(w.trace_gpus.begin(), w.trace_gpus.end(), r.gpu) == w.trace_gpus.end()) w.trace_gpus.push_back(r.gpu);
  }
  std::sort(w.trace_gpus.begin(), w.trace_gpus.end());
}

constexpr std::int64_t kNoMark = std::numeric_limits<std::int64_t>::min();

/// A training log's first start and last end phase; kNoMark where it has none.
std::pair<std::int64_t, std::int64_t> train_marks_span(const SampleCollector& samples) {
  std::int64_t from = kNoMark, to = kNoMark;
  for (const auto& [ts, phase] : samples.train_marks()) {
    if (phase == "start" && (from == kNoMark || ts < from)) from = ts;
    if (phase == "end" && (to == kNoMark || ts > to)) to = ts;
  }
  return {from, to};
}

/// A training log's first start and last end phase bound the job (a flag still wins for its end).
void trainlog_span(const SampleCollector& samples, const ExtractOptions& options, Window& w, Features& f) {
  const auto [train_from, train_to] = train_marks_span(samples);
  if ((train_from != kNoMark || train_to != kNoMark) && !(options.from_ns && options.to_ns)) {
    const std::int64_t a = train_from != kNoMark ? train_from : w.lo, b = train_to != kNoMark ? train_to : w.hi;
    if (b > a) {
      w.lo = a;
      w.hi = b;
      f.chosen_by = options.from_ns || options.to_ns ? "flags and trainlog" : "trainlog";
    }
  }
}

/// Without samples and traces: the training log's first start and last end (or the flags') as
/// the window; false when neither gives both ends.
bool trainlog_bounds(const SampleCollector& samples, const ExtractOptions& options, Window& w) {
  auto [from, to] = train_marks_span(samples);
  if (options.from_ns) from = *options.from_ns;
  if (options.to_ns) to = *options.to_ns;
  if (from == kNoMark || to == kNoMark || to <= from) return false;
  w.lo = from;
  w.hi = to;
  return true;
}

/// "4242, 4243 and 4250": the ids of the jobs, the first ten.
std::string job_ids(const std::vector<JobRecord>& jobs) {
  std::string out;
  for (std::size_t i = 0; i < jobs.size() && i < 10; ++i) out += (i == 0 ? "" : ", ") + jobs[i].id;
  if (jobs.size() > 10) out += fmt::format(" and {} more", jobs.size() - 10);
  return out;
}

/// The job --slurm-job names, else the only one; an error when it is not there or several are.
Expected<const JobRecord*> chosen_job(const std::vector<JobRecord>& jobs, const std::string& wanted) {
  if (wanted.empty()) {
    if (jobs.size() <= 1) return jobs.empty() ? nullptr : &jobs.front();
    return make_error(
        ErrorKind::usage,
        fmt::format("the sacct input holds {} jobs ({}): which one is the window?", jobs.size(), job_ids(jobs)),
        "pick one with --slurm-job ID; for every job, extract each with its --slurm-job and gpucost "
        "merge the documents");
  }
  for (const JobRecord& j : jobs)
    if (j.id == wanted) return &j;
  return make_error(
      ErrorKind::usage, fmt::format("--slurm-job {}: no such job in the sacct input", wanted),
      jobs.empty()
          ? std::string("the inputs hold no job line of sacct (a job not started yet is left out)")
          : fmt::format("it holds {} (array tasks are 4242_7, heterogeneous components 4242+1)", job_ids(jobs)));
}

/// A Slurm job's start and end bound the window (a flag still wins for its end); a job still
/// running ends at the last sample.
Status slurm_span(const SampleCollector& samples, const ExtractOptions& options, Window& w, Features& f) {
  auto job = chosen_job(samples.jobs(), options.slurm_job);
  if (!job) return job.error();
  if (*job == nullptr) return {};
  const JobRecord& j = **job;
  if (j.nodes.empty() && !j.nodelist.empty())
    return make_error(ErrorKind::usage, fmt::format("Slurm job {} never ran ({}): it has no window", j.id, j.state),
                      "give the id of a job that started (sacct -j ID shows its NodeList)");
  f.jobs = {j};
  if (options.from_ns && options.to_ns) return {};
  w.lo = j.start_ns;
  // The job ended at End: a sample stamped there is after it, as one at --to's instant is.
  if (j.end_ns && *j.end_ns >= j.start_ns) {
    w.hi = *j.end_ns;
    w.hi_exclusive = true;
  }
  f.chosen_by = options.from_ns || options.to_ns ? "flags and slurm" : "slurm";
  return {};
}

}  // namespace

Expected<Window> choose_window(const SampleCollector& samples, const ExtractOptions& options, Features& f) {
  Window w;
  w.lo = samples.store().min_ts();
  w.hi = samples.store().max_ts();
  const bool from_trace = w.lo > w.hi;
  if (from_trace) trace_span(samples, w);
  // Without either, the kernel and system logs alone: the host's event indicators, over the
  // flags' window or from the first to the last incident; no GPU.
  w.host_only = w.lo > w.hi && (samples.has_host_logs() || !samples.incidents().empty()) &&
                ((options.from_ns && options.to_ns) || !samples.incidents().empty());
  if (w.host_only) {
    w.lo = samples.incidents().empty() ? *options.from_ns : samples.incidents().min_ts();
    w.hi = samples.incidents().empty() ? *options.to_ns : samples.incidents().max_ts();
  }
  // A training log alone (its start and end, or the flags): the job's window with no GPU;
  // breakeven estimates the energy from the GPU model (docs/cost-model.md, "Estimated energy").
  if (w.lo > w.hi && !w.host_only) w.trainlog_only = trainlog_bounds(samples, options, w);
  if (w.lo > w.hi)
    return make_error(ErrorKind::format, "no telemetry samples and no profiler trace with GPU ops in the input",
                      samples.has_host_logs()
                          ? "the kernel or system logs have no incident to set a window: give --from and --to, or "
                            "nvidia-smi dmon or --query-gpu output beside them"
                          : "give nvidia-smi dmon or --query-gpu output, a Kineto trace (or a gpucost.events stream "
                            "with their events)");
  f.host = samples.host().empty() && w.host_only ? samples.incident_host() : samples.host();
  f.host_basis = samples.host_basis();
  f.logs_tz = samples.logs_tz();
  f.input_gpus = samples.input_gpus();
  // host_only implies from_trace (no samples), so it is asked first.
  f.chosen_by = options.from_ns || options.to_ns ? "flags"
                : w.host_only                    ? "events"
                : w.trainlog_only                ? "trainlog"
                : from_trace                     ? "trace"
                                                 : "samples";
  trainlog_span(samples, options, w, f);
  GPUCOST_TRY(slurm_span(samples, options, w, f));
  f.from_ns = options.from_ns.value_or(w.lo);
  f.to_ns = options.to_ns.value_or(w.hi);
  f.to_exclusive = options.to_ns.has_value() || w.hi_exclusive;
  if (f.last_ns() < f.from_ns) {
    if (options.from_ns && options.to_ns)
      return make_error(ErrorKind::usage, "--from/--to: the window ends before it starts",
                        "give --from earlier than --to (ISO 8601, e.g. 2024-06-12T14:22:18Z)");
    // Only one end was given and it lies beyond the samples.
    return make_error(ErrorKind::usage, "--from/--to: no sample falls inside the window",
                      fmt::format("the samples run from {} to {}", format_utc(w.lo), format_utc(w.hi)));
  }
  return w;
}

}  // namespace gpucost::extract::detail

namespace gpucost::extract {

namespace {

/// A host name up to its first dot: Slurm names nodes by their short name, a telemetry label
/// (dcgm-exporter's Hostname) or a machine may give the full one.
std::string_view short_name(std::string_view host) { return host.substr(0, host.find('.')); }

}  // namespace

std::string slurm_host_warning(const Features& f) {
  if (f.jobs.size() != 1 || f.host.empty()) return {};
  const JobRecord& j = f.jobs.front();
  if (j.nodes.empty()) return {};
  const auto among_nodes = [&j](std::string_view host) {
    return std::any_of(j.nodes.begin(), j.nodes.end(), [host](const std::string& node) {
      return node == host || short_name(node) == short_name(host);
    });
  };
  std::vector<std::string> strangers;  // a document of several hosts names them comma-separated
  for (std::string_view rest = f.host; !rest.empty();) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    if (!among_nodes(rest.substr(0, comma))) strangers.emplace_back(rest.substr(0, comma));
    rest.remove_prefix(std::min(comma + 1, rest.size()));
  }
  if (strangers.empty()) return {};
  return fmt::format(
      "the telemetry's host{} {} {} not among the nodes of Slurm job {} ({}): the job's window is applied to "
      "another machine's telemetry; {}",
      strangers.size() > 1 ? "s" : "", text::join(strangers, ","), strangers.size() > 1 ? "are" : "is", j.id,
      j.nodelist.empty() ? text::join(j.nodes, ",") : j.nodelist,
      f.host_basis == "machine" ? "no input names its host (this machine's name is taken): give --host NODE"
                                : "give the telemetry of the job's nodes (or --host NODE when it is theirs)");
}

}  // namespace gpucost::extract
