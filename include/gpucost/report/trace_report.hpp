// `gpucost trace`: the analyses of profiler traces as a table for people. Built from the trace_*
// events of the gpucost.events stream, so raw traces and a prep'd stream give the same table.
#pragma once

#include <gpucost/core/event.hpp>
#include <gpucost/core/event_sink.hpp>
#include <gpucost/extract/trace_jobs.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::report {

struct TracePrice;  // trace_price.hpp

/// One trace_* event with its fields copied.
struct TraceEventCopy {
  std::int64_t ts_ns = 0;
  int gpu = -1;
  std::string kind;
  std::map<std::string, std::string> fields;
  std::map<std::string, bool> numeric;  ///< per field: written as a JSON number
  [[nodiscard]] std::string text(const std::string& key) const;
  /// The field as a number; `fallback` when absent or not a number.
  [[nodiscard]] double number(const std::string& key, double fallback = 0) const;
  [[nodiscard]] bool has(const std::string& key) const { return fields.count(key) > 0; }
};

/// Keeps the trace_* events it is given (in order), but for trace_collective: those go to the
/// job analysis of the ranks (jobs()) only. Everything else is dropped.
class TraceEventCollector final : public EventSink {
 public:
  void on_event(const Event& event) override;
  [[nodiscard]] const std::vector<TraceEventCopy>& events() const { return m_events; }
  /// The jobs the traces' ranks form (docs/formats.md, "A job of ranks").
  [[nodiscard]] std::vector<extract::TraceJob> jobs() const { return m_jobs.jobs(); }

 private:
  std::vector<TraceEventCopy> m_events;
  extract::TraceJobCollector m_jobs;
};

/// The width a kernel name is cut to in the tables unless --wide.
constexpr std::size_t kKernelNameWidth = 56;

/// Kernel names for a table column of `width` characters (0: not cut). A longer name is cut in
/// the middle ("void at::native::vectoriz...FillFunctor<float>>(...)") so that names that share
/// a long template prefix keep the end that tells them apart; where two cut names would still
/// read the same, the cut moves until every name of the list reads differently.
std::vector<std::string> fit_kernel_names(const std::vector<std::string>& names, std::size_t width);

/// The table: per trace its rank and steps, per GPU the temporal and idle breakdown, launch
/// delays, kernels, memory copies and the top kernels. Empty input gives a one-line note.
/// `wide`: kernel names are not cut. `price` (gpucost trace -c/--cloud): the step priced after
/// the traces.
std::string trace_table(const std::vector<TraceEventCopy>& events, bool wide = false,
                        const TracePrice* price = nullptr);

/// The same analyses as JSON (docs/formats.md, "gpucost trace --json"): per trace its
/// trace_info, per GPU its trace_device with its memory copies and top kernels, its
/// communication; and the jobs of several ranks. `price`: a `cost_per_step` member.
std::string trace_json(const std::vector<TraceEventCopy>& events, const std::vector<extract::TraceJob>& jobs,
                       const TracePrice* price = nullptr);

/// The jobs of several ranks: waits, the straggler and exposed communication per rank; empty
/// when no job has two ranks or more.
std::string ranks_table(const std::vector<extract::TraceJob>& jobs);

/// A number list of bins (a queue's or memory's max per bin) as one character per 3 bins: ' ' for
/// 0, then '.:-=+*#%' by eighths of `top`; a bin of `mark_at` or more (0: none) draws '@'.
std::string level_sparkline(std::string_view bins, std::int64_t top, std::int64_t mark_at = 0);

/// ns as a short human duration: "812 ns", "34.0 us", "1.250 ms", "2.500 s".
std::string human_ns(double ns);

/// A list of numbers written as one event field ("0,3,12": a stream's queue_max_by_bin); what is
/// not a number reads as 0.
std::vector<std::int64_t> number_list(std::string_view list);

}  // namespace gpucost::report
