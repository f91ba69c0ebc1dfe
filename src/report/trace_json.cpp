// `gpucost trace --json`: the analyses of the trace_* events as one JSON document, the fields
// named as in the events (docs/formats.md), grouped per trace and per GPU as the table is.
#include <gpucost/io/json_out.hpp>
#include <gpucost/report/critical_path_report.hpp>
#include <gpucost/report/trace_price.hpp>
#include <gpucost/report/trace_regions.hpp>
#include <gpucost/report/trace_report.hpp>

namespace gpucost::report {

namespace {

using io::JsonWriter;

/// The event's fields as members `"key":value`, numbers unquoted, a list over time (a stream's
/// queue, a GPU's memory) as an array.
void fields(JsonWriter& w, const TraceEventCopy& e) {
  for (const auto& [key, value] : e.fields) {
    w.key(key);
    if (key.ends_with("_by_bin")) {  // queue_max_by_bin, mem_allocated_max_by_bin, mem_reserved_max_by_bin
      w.array();
      for (const std::int64_t bin : number_list(value)) w.item().integer(bin);
      w.close();
      continue;
    }
    const auto n = e.numeric.find(key);
    if (n != e.numeric.end() && n->second)
      w.number_text(value);  // the event's own text of a valid JSON number
    else
      w.str(value);
  }
}

void event_object(JsonWriter& w, const TraceEventCopy& e) {
  w.object();
  fields(w, e);
  w.close();
}

/// `"key":[{...},...]` of the events of `kind` on GPU `gpu` in [from, to).
void event_list(JsonWriter& w, std::string_view key, const std::vector<TraceEventCopy>& events, std::size_t from,
                std::size_t to, std::string_view kind, int gpu) {
  w.key(key).array();
  for (std::size_t i = from; i < to; ++i)
    if (events[i].kind == kind && events[i].gpu == gpu) event_object(w.item(), events[i]);
  w.close();
}

/// --critical-path: `"critical_path":[{...,"top_ops":[...]},...]`, one per window; absent without it.
void critical_path_list(JsonWriter& w, const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to,
                        const TracePrice* price) {
  bool any = false;
  for (std::size_t i = from; i < to; ++i) {
    if (events[i].kind != "trace_critical_path") continue;
    if (!any) w.key("critical_path").array();
    any = true;
    w.item().object();
    fields(w, events[i]);
    w.key("top_ops").array();
    for (std::size_t j = from; j < to; ++j)
      if (events[j].kind == "trace_critical_op" && events[j].text("step") == events[i].text("step"))
        event_object(w.item(), events[j]);
    w.close();
    if (price != nullptr && price->config != nullptr && !events[i].has("error"))
      critical_path_cost_json(w, events[i], *price);
    w.close();
  }
  if (any) w.close();
}

/// One trace: its trace_info, its GPUs and its communication (null when it has none).
void trace_object(JsonWriter& w, const std::vector<TraceEventCopy>& events, std::size_t info, std::size_t end,
                  const TracePrice* price) {
  w.object().key("info");
  event_object(w, events[info]);
  w.key("gpus").array();
  for (std::size_t j = info + 1; j < end; ++j) {
    if (events[j].kind != "trace_device") continue;
    w.item().object().key("gpu").integer(events[j].gpu);
    fields(w, events[j]);
    event_list(w, "memory", events, info + 1, end, "trace_memory", events[j].gpu);
    event_list(w, "top_kernels", events, info + 1, end, "trace_kernel", events[j].gpu);
    event_list(w, "streams", events, info + 1, end, "trace_stream", events[j].gpu);
    event_list(w, "step_memory", events, info + 1, end, "trace_step_memory", events[j].gpu);
    w.close();
  }
  w.close().key("communication");
  std::size_t comm = end;  // the trace's trace_comm, if any
  for (std::size_t j = info + 1; j < end; ++j)
    if (events[j].kind == "trace_comm") comm = j;
  if (comm == end)
    w.null();
  else
    event_object(w, events[comm]);
  trace_regions_json(w, events, info + 1, end, price);
  critical_path_list(w, events, info + 1, end, price);
  w.close();
}

/// A fraction of a rank or a job. These members have always been written `, "key": value` among
/// the compact ones; kept so, since the output is compared byte for byte.
void spaced_fraction(JsonWriter& w, std::string_view key, double value) {
  w.layout(JsonWriter::Layout::spaced).key(key).num(value).layout(JsonWriter::Layout::compact);
}

void rank_object(JsonWriter& w, const extract::RankRow& r) {
  w.object().key("rank").integer(r.rank).key("trace").str(r.path).key("span_ns").integer(r.span_ns);
  w.key("wait_ns").integer(r.wait_ns).key("straggler_steps").integer(r.straggler_steps);
  w.key("comm_ns").integer(r.comm_ns).key("exposed_comm_ns").integer(r.exposed_comm_ns);
  spaced_fraction(w, "overlap_fraction", r.overlap_fraction());
  w.close();
}

void job_object(JsonWriter& w, const extract::TraceJob& job) {
  w.object().key("world_size").integer(job.world_size).key("backend").str(job.backend);
  w.key("collectives_matched").integer(job.matched).key("collectives_unmatched").integer(job.unmatched);
  w.key("matched_by_group").integer(job.matched_by_group).key("matched_by_order").integer(job.matched_by_order);
  w.key("matched_partial").integer(job.matched_partial).key("unmatched_missing").integer(job.unmatched_missing);
  w.key("unmatched_differ").integer(job.unmatched_differ).key("unmatched_apart").integer(job.unmatched_apart);
  w.key("sample").boolean(job.sample());
  w.key("steps").integer(job.steps).key("straggler_rank");
  if (job.straggler_rank >= 0)
    w.integer(job.straggler_rank);
  else
    w.null();  // fewer than two ranks
  spaced_fraction(w, "straggler_step_share", job.straggler_step_share);
  w.key("span_ns").integer(job.span_ns).key("wait_ns").integer(job.wait_ns).key("comm_ns").integer(job.comm_ns);
  w.key("exposed_comm_ns").integer(job.exposed_comm_ns);
  spaced_fraction(w, "wait_fraction", job.wait_fraction());
  spaced_fraction(w, "exposed_comm_fraction", job.exposed_comm_fraction());
  spaced_fraction(w, "overlap_fraction", job.overlap_fraction());
  w.key("ranks").array();
  for (const extract::RankRow& r : job.ranks) rank_object(w.item(), r);
  w.close().key("notes").array();
  for (const std::string& note : job.notes) w.item().str(note);
  w.close().close();
}

}  // namespace

std::string trace_json(const std::vector<TraceEventCopy>& events, const std::vector<extract::TraceJob>& jobs,
                       const TracePrice* price) {
  std::string b;
  JsonWriter w(b, JsonWriter::Layout::compact);
  w.object().key("traces").array();
  // Each trace_info starts one trace; its events follow until the next trace_info.
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind != "trace_info") continue;
    std::size_t end = i + 1;
    while (end < events.size() && events[end].kind != "trace_info") ++end;
    trace_object(w.item(), events, i, end, price);
  }
  w.close().key("jobs").array();
  for (const extract::TraceJob& job : jobs)
    if (job.ranks.size() >= 2) job_object(w.item(), job);  // as the table: a job is several ranks
  w.close();
  if (price != nullptr) trace_price_json(w, *price);
  w.close();
  b.push_back('\n');
  return b;
}

}  // namespace gpucost::report
