#include <gpucost/pipeline/trace_job_events.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpucost::pipeline {

using extract::RankRow;
using extract::TraceJob;

namespace {

constexpr std::string_view kSource = "kineto-trace";

void add_real(Event& e, std::string_view key, double v) {
  e.fields.push_back(Field{key, e.own(fmt::format("{}", v)), true, false});
}

double ratio(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

void begin(Event& e, std::string_view kind, std::int64_t ts_ns, std::string_view host, int index) {
  e.reset();
  e.source = kSource;
  e.host = host;
  e.kind = kind;
  e.ts_ns = ts_ns;
  e.gpu = -1;
  e.add_number("job", index);
}

void job_fields(const TraceJob& job, Event& e) {
  e.add_number("ranks", static_cast<std::int64_t>(job.ranks.size()));
  e.add_number("world_size", job.world_size);
  if (!job.backend.empty()) e.add_text("backend", job.backend);
  e.add_number("matched", job.matched);
  e.add_number("unmatched", job.unmatched);
  e.add_number("matched_by_group", job.matched_by_group);
  e.add_number("matched_by_order", job.matched_by_order);
  e.add_number("matched_partial", job.matched_partial);
  e.add_number("unmatched_missing", job.unmatched_missing);
  e.add_number("unmatched_differ", job.unmatched_differ);
  e.add_number("unmatched_apart", job.unmatched_apart);
  e.add_number("steps", job.steps);
  if (job.straggler_rank >= 0) {
    e.add_number("straggler_rank", job.straggler_rank);
    add_real(e, "straggler_step_share", job.straggler_step_share);
  }
  e.add_number("span_ns", job.span_ns);
  e.add_number("wait_ns", job.wait_ns);
  add_real(e, "wait_s", static_cast<double>(job.wait_ns) / 1e9);
  add_real(e, "wait_fraction", job.wait_fraction());
  e.add_number("comm_ns", job.comm_ns);
  e.add_number("exposed_comm_ns", job.exposed_comm_ns);
  add_real(e, "exposed_comm_s", static_cast<double>(job.exposed_comm_ns) / 1e9);
  add_real(e, "exposed_comm_fraction", job.exposed_comm_fraction());
  add_real(e, "overlap_fraction", job.overlap_fraction());
  if (!job.notes.empty()) {
    std::string notes;
    for (const std::string& n : job.notes) notes += (notes.empty() ? "" : "; ") + n;
    e.add_text("notes", notes, true);
  }
}

void rank_fields(const RankRow& r, Event& e) {
  e.add_number("rank", r.rank);
  e.add_text("trace", r.path);
  e.add_number("span_ns", r.span_ns);
  e.add_number("wait_ns", r.wait_ns);
  add_real(e, "wait_fraction", ratio(r.wait_ns, r.span_ns));
  e.add_number("straggler_steps", r.straggler_steps);
  e.add_number("comm_ns", r.comm_ns);
  e.add_number("exposed_comm_ns", r.exposed_comm_ns);
  add_real(e, "exposed_comm_fraction", ratio(r.exposed_comm_ns, r.span_ns));
  add_real(e, "overlap_fraction", r.overlap_fraction());
}

}  // namespace

std::uint64_t write_trace_job_events(const TraceJob& job, int index, std::int64_t ts_ns, std::string_view host,
                                     EventSink& sink) {
  Event e;
  begin(e, "trace_job", ts_ns, host, index);
  job_fields(job, e);
  sink.on_event(e);
  for (const RankRow& r : job.ranks) {
    begin(e, "trace_rank", ts_ns, host, index);
    rank_fields(r, e);
    sink.on_event(e);
  }
  return 1 + job.ranks.size();
}

void TraceJobEvents::on_event(const Event& event) {
  if (event.kind == "trace_job" || event.kind == "trace_rank") return;  // computed again in finish()
  if (event.kind == "trace_comm") {
    for (const Field& f : event.fields)
      if (f.key == "file") m_hosts[std::string(f.value)] = std::string(event.host);
  }
  if (event.kind == "trace_comm" || event.kind == "trace_collective") m_jobs.on_event(event);
  m_sink.on_event(event);
}

std::uint64_t TraceJobEvents::finish() {
  std::uint64_t written = 0;
  int index = 0;
  for (const TraceJob& job : m_jobs.jobs()) {
    if (job.ranks.size() < 2) continue;
    // At the job's first GPU op (the earliest of its ranks' traces), on the host of that trace.
    const RankRow& first = *std::min_element(
        job.ranks.begin(), job.ranks.end(), [](const RankRow& a, const RankRow& b) { return a.start_ns < b.start_ns; });
    const auto host = m_hosts.find(first.path);
    written +=
        write_trace_job_events(job, ++index, first.start_ns,
                               host != m_hosts.end() ? std::string_view(host->second) : std::string_view(), m_sink);
  }
  return written;
}

}  // namespace gpucost::pipeline
