// The events prep writes for the jobs that profiler traces of several ranks form (docs/formats.md,
// "A job of ranks"): a job's figures need every rank, so they are written once all inputs are
// read, as one `trace_job` event per job and one `trace_rank` event per rank.
#pragma once

#include <gpucost/core/event.hpp>
#include <gpucost/core/event_sink.hpp>
#include <gpucost/extract/trace_jobs.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace gpucost::pipeline {

/// Hands every event on to `sink` and gathers the ranks' trace_comm and trace_collective events;
/// finish() then writes the jobs of two ranks or more to `sink`. trace_job and trace_rank events
/// read from a stream are left out: they are computed again from the collectives, which the
/// stream also holds. Forkable when `sink` is: chunks parsed side by side are line logs, never
/// traces (a trace is parsed whole), so forks are handed straight on.
class TraceJobEvents final : public EventSink, public ForkableSink {
 public:
  explicit TraceJobEvents(EventSink& sink) : m_sink(sink) {}
  void on_event(const Event& event) override;
  ForkableSink* forkable() override { return m_sink.forkable() != nullptr ? this : nullptr; }
  [[nodiscard]] std::unique_ptr<EventSink> fork() override { return m_sink.forkable()->fork(); }
  void join(EventSink& forked) override { m_sink.forkable()->join(forked); }
  void discard(EventSink& forked) override { m_sink.forkable()->discard(forked); }
  /// Writes the jobs' events; returns how many.
  std::uint64_t finish();

 private:
  EventSink& m_sink;
  extract::TraceJobCollector m_jobs;
  std::map<std::string, std::string> m_hosts;  // a trace's file name -> the host of its trace_comm
};

/// The events of one job (`index` numbers the jobs of a stream from 1), handed to `sink`.
std::uint64_t write_trace_job_events(const extract::TraceJob& job, int index, std::int64_t ts_ns, std::string_view host,
                                     EventSink& sink);

}  // namespace gpucost::pipeline
