// `gpucost trace --json`: the analyses of the trace_* events as one JSON document, the fields
// named as in the events (docs/formats.md), grouped per trace and per GPU as the table is.
#include <gpucost/io/json_out.hpp>
#include <gpucost/report/trace_report.hpp>

#include <fmt/format.h>

namespace gpucost::report {

namespace {

/// The event's fields as JSON members `"key": value` (numbers unquoted), each followed by a comma.
void fields(std::string& b, const TraceEventCopy& e) {
  for (const auto& [key, value] : e.fields) {
    io::append_json_string(b, key);
    b.push_back(':');
    const auto n = e.numeric.find(key);
    if (n != e.numeric.end() && n->second)
      b += value;  // the event's own text of a valid JSON number
    else
      io::append_json_string(b, value);
    b.push_back(',');
  }
}

/// Ends the object `fields` wrote into: its last comma becomes the closing brace.
void close_object(std::string& b) {
  if (b.back() == ',')
    b.back() = '}';
  else
    b.push_back('}');
}

/// `"key":[{...},...],` of the events of `kind` on GPU `gpu` in [from, to).
void event_list(std::string& b, std::string_view key, const std::vector<TraceEventCopy>& events, std::size_t from,
                std::size_t to, std::string_view kind, int gpu) {
  io::append_json_string(b, key);
  b += ":[";
  bool any = false;
  for (std::size_t i = from; i < to; ++i) {
    if (events[i].kind != kind || events[i].gpu != gpu) continue;
    b.push_back('{');
    fields(b, events[i]);
    close_object(b);
    b.push_back(',');
    any = true;
  }
  if (any) b.pop_back();
  b += "],";
}

/// One trace: its trace_info, its GPUs and its communication (null when it has none).
void trace_object(std::string& b, const std::vector<TraceEventCopy>& events, std::size_t info, std::size_t end) {
  b += "{\"info\":{";
  fields(b, events[info]);
  close_object(b);
  b += ",\"gpus\":[";
  bool any = false;
  for (std::size_t j = info + 1; j < end; ++j) {
    if (events[j].kind != "trace_device") continue;
    b += fmt::format("{{\"gpu\":{},", events[j].gpu);
    fields(b, events[j]);
    event_list(b, "memory", events, info + 1, end, "trace_memory", events[j].gpu);
    event_list(b, "top_kernels", events, info + 1, end, "trace_kernel", events[j].gpu);
    close_object(b);
    b.push_back(',');
    any = true;
  }
  if (any) b.pop_back();
  b += "],\"communication\":";
  std::size_t comm = end;  // the trace's trace_comm, if any
  for (std::size_t j = info + 1; j < end; ++j)
    if (events[j].kind == "trace_comm") comm = j;
  if (comm == end) {
    b += "null}";
    return;
  }
  b.push_back('{');
  fields(b, events[comm]);
  close_object(b);
  b.push_back('}');
}

void rank_object(std::string& b, const extract::RankRow& r) {
  b += fmt::format("{{\"rank\":{},\"trace\":", r.rank);
  io::append_json_string(b, r.path);
  b += fmt::format(",\"span_ns\":{},\"wait_ns\":{},\"straggler_steps\":{},\"comm_ns\":{},\"exposed_comm_ns\":{}",
                   r.span_ns, r.wait_ns, r.straggler_steps, r.comm_ns, r.exposed_comm_ns);
  io::append_json_number_field(b, "overlap_fraction", r.overlap_fraction());
  b.push_back('}');
}

void job_object(std::string& b, const extract::TraceJob& job) {
  b += fmt::format("{{\"world_size\":{},\"backend\":", job.world_size);
  io::append_json_string(b, job.backend);
  b += fmt::format(",\"collectives_matched\":{},\"collectives_unmatched\":{},\"steps\":{},\"straggler_rank\":{}",
                   job.matched, job.unmatched, job.steps,
                   job.straggler_rank >= 0 ? std::to_string(job.straggler_rank) : std::string("null"));
  io::append_json_number_field(b, "straggler_step_share", job.straggler_step_share);
  b += fmt::format(",\"span_ns\":{},\"wait_ns\":{},\"comm_ns\":{},\"exposed_comm_ns\":{}", job.span_ns, job.wait_ns,
                   job.comm_ns, job.exposed_comm_ns);
  io::append_json_number_field(b, "wait_fraction", job.wait_fraction());
  io::append_json_number_field(b, "exposed_comm_fraction", job.exposed_comm_fraction());
  io::append_json_number_field(b, "overlap_fraction", job.overlap_fraction());
  b += ",\"ranks\":[";
  for (std::size_t i = 0; i < job.ranks.size(); ++i) {
    if (i > 0) b.push_back(',');
    rank_object(b, job.ranks[i]);
  }
  b += "],\"notes\":[";
  for (std::size_t i = 0; i < job.notes.size(); ++i) {
    if (i > 0) b.push_back(',');
    io::append_json_string(b, job.notes[i]);
  }
  b += "]}";
}

}  // namespace

std::string trace_json(const std::vector<TraceEventCopy>& events, const std::vector<extract::TraceJob>& jobs) {
  std::string b = "{\"traces\":[";
  bool first = true;
  // Each trace_info starts one trace; its events follow until the next trace_info.
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind != "trace_info") continue;
    std::size_t end = i + 1;
    while (end < events.size() && events[end].kind != "trace_info") ++end;
    if (!first) b.push_back(',');
    first = false;
    trace_object(b, events, i, end);
  }
  b += "],\"jobs\":[";
  first = true;
  for (const extract::TraceJob& job : jobs) {
    if (job.ranks.size() < 2) continue;  // as the table: a job is several ranks
    if (!first) b.push_back(',');
    first = false;
    job_object(b, job);
  }
  return b + "]}\n";
}

}  // namespace gpucost::report
