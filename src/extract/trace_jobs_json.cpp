// The jobs of the traces' ranks as the features document keeps them: every figure breakeven
// prices (the ranks' spans, waits and exposed communication) and the notes that qualify them.
#include "trace_jobs_json.hpp"

#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

namespace gpucost::extract::detail {

namespace {

void write_rank(io::JsonWriter& w, const extract::RankRow& r) {
  w.object().key("rank").integer(r.rank).key("trace").str(r.path);
  w.key("span_ns").integer(r.span_ns).key("wait_ns").integer(r.wait_ns);
  w.key("straggler_steps").integer(r.straggler_steps).key("comm_ns").integer(r.comm_ns);
  w.key("exposed_comm_ns").integer(r.exposed_comm_ns).key("start_ns").integer(r.start_ns);
  w.text_if("strip", r.strip).close();
}

void write_job(io::JsonWriter& w, const extract::TraceJob& j) {
  w.object().key("world_size").integer(j.world_size).key("backend").str(j.backend);
  w.key("matched").integer(j.matched).key("unmatched").integer(j.unmatched).key("steps").integer(j.steps);
  w.key("straggler_rank");
  if (j.straggler_rank >= 0)
    w.integer(j.straggler_rank);
  else
    w.null();
  w.key("straggler_step_share").num(j.straggler_step_share);
  w.key("span_ns").integer(j.span_ns).key("wait_ns").integer(j.wait_ns).key("comm_ns").integer(j.comm_ns);
  w.key("exposed_comm_ns").integer(j.exposed_comm_ns).key("wait_fraction").num(j.wait_fraction());
  w.key("exposed_comm_fraction").num(j.exposed_comm_fraction()).key("overlap_fraction").num(j.overlap_fraction());
  w.line("     ").key("ranks").array();
  for (const extract::RankRow& r : j.ranks) write_rank(w.line("      ").item(), r);
  w.close();
  w.line("     ").key("notes").array();
  for (const std::string& n : j.notes) w.item().str(n);
  w.close().close();
}

std::int64_t int_of(simdjson::dom::element e, const char* key) {
  std::int64_t v = 0;
  return e[key].get_int64().get(v) == simdjson::SUCCESS ? v : 0;
}

}  // namespace

void write_trace_jobs(std::string& b, const std::vector<extract::TraceJob>& jobs) {
  if (jobs.empty()) return;
  b.append(",\n  \"trace_jobs\": ");
  io::JsonWriter w(b);
  w.array();
  for (const extract::TraceJob& j : jobs) write_job(w.line("    ").item(), j);
  w.close("\n  ");
}

Status read_trace_jobs(simdjson::dom::element doc, std::vector<extract::TraceJob>& out, const std::string& path) {
  simdjson::dom::array list;
  if (doc["trace_jobs"].get_array().get(list) != simdjson::SUCCESS) return {};
  for (simdjson::dom::element e : list) {
    extract::TraceJob j;
    simdjson::dom::array ranks;
    if (e["ranks"].get_array().get(ranks) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: a trace_jobs[] entry lacks ranks", path));
    j.world_size = static_cast<int>(int_of(e, "world_size"));
    std::string_view text;
    if (e["backend"].get_string().get(text) == simdjson::SUCCESS) j.backend = std::string(text);
    j.matched = int_of(e, "matched");
    j.unmatched = int_of(e, "unmatched");
    j.steps = int_of(e, "steps");
    std::int64_t straggler = 0;
    j.straggler_rank =
        e["straggler_rank"].get_int64().get(straggler) == simdjson::SUCCESS ? static_cast<int>(straggler) : -1;
    double share = 0;
    if (e["straggler_step_share"].get_double().get(share) == simdjson::SUCCESS) j.straggler_step_share = share;
    j.span_ns = int_of(e, "span_ns");
    j.wait_ns = int_of(e, "wait_ns");
    j.comm_ns = int_of(e, "comm_ns");
    j.exposed_comm_ns = int_of(e, "exposed_comm_ns");
    for (simdjson::dom::element r : ranks) {
      extract::RankRow row;
      row.rank = static_cast<int>(int_of(r, "rank"));
      if (r["trace"].get_string().get(text) == simdjson::SUCCESS) row.path = std::string(text);
      row.span_ns = int_of(r, "span_ns");
      row.wait_ns = int_of(r, "wait_ns");
      row.straggler_steps = int_of(r, "straggler_steps");
      row.comm_ns = int_of(r, "comm_ns");
      row.exposed_comm_ns = int_of(r, "exposed_comm_ns");
      row.start_ns = int_of(r, "start_ns");  // both added within version 2: absent in older documents
      if (r["strip"].get_string().get(text) == simdjson::SUCCESS && trace::is_strip(text))
        row.strip = std::string(text);
      j.ranks.push_back(std::move(row));
    }
    simdjson::dom::array notes;
    if (e["notes"].get_array().get(notes) == simdjson::SUCCESS)
      for (simdjson::dom::element n : notes)
        if (n.get_string().get(text) == simdjson::SUCCESS) j.notes.emplace_back(text);
    out.push_back(std::move(j));
  }
  return {};
}

}  // namespace gpucost::extract::detail
