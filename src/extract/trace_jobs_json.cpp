// The jobs of the traces' ranks as the features document keeps them: every figure breakeven
// prices (the ranks' spans, waits and exposed communication) and the notes that qualify them.
#include "trace_jobs_json.hpp"

#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

namespace gpucost::extract::detail {

namespace {

void write_rank(std::string& b, const extract::RankRow& r) {
  b.append(fmt::format("{{\"rank\": {}, \"trace\": ", r.rank));
  io::append_json_string(b, r.path);
  b.append(
      fmt::format(", \"span_ns\": {}, \"wait_ns\": {}, \"straggler_steps\": {}, \"comm_ns\": {}, "
                  "\"exposed_comm_ns\": {}, \"start_ns\": {}",
                  r.span_ns, r.wait_ns, r.straggler_steps, r.comm_ns, r.exposed_comm_ns, r.start_ns));
  if (!r.strip.empty()) {
    b.append(", \"strip\": ");
    io::append_json_string(b, r.strip);
  }
  b.append("}");
}

void write_job(std::string& b, const extract::TraceJob& j) {
  b.append(fmt::format("    {{\"world_size\": {}, \"backend\": ", j.world_size));
  io::append_json_string(b, j.backend);
  b.append(fmt::format(", \"matched\": {}, \"unmatched\": {}, \"steps\": {}, \"straggler_rank\": ", j.matched,
                       j.unmatched, j.steps));
  b.append(j.straggler_rank >= 0 ? std::to_string(j.straggler_rank) : std::string("null"));
  b.append(", \"straggler_step_share\": ");
  io::append_json_number(b, j.straggler_step_share);
  b.append(fmt::format(
      ", \"span_ns\": {}, \"wait_ns\": {}, \"comm_ns\": {}, \"exposed_comm_ns\": {}, \"wait_fraction\": ", j.span_ns,
      j.wait_ns, j.comm_ns, j.exposed_comm_ns));
  io::append_json_number(b, j.wait_fraction());
  b.append(", \"exposed_comm_fraction\": ");
  io::append_json_number(b, j.exposed_comm_fraction());
  b.append(", \"overlap_fraction\": ");
  io::append_json_number(b, j.overlap_fraction());
  b.append(",\n     \"ranks\": [");
  for (std::size_t i = 0; i < j.ranks.size(); ++i) {
    b.append(i == 0 ? "\n      " : ",\n      ");
    write_rank(b, j.ranks[i]);
  }
  b.append("],\n     \"notes\": [");
  for (std::size_t i = 0; i < j.notes.size(); ++i) {
    if (i > 0) b.append(", ");
    io::append_json_string(b, j.notes[i]);
  }
  b.append("]}");
}

std::int64_t int_of(simdjson::dom::element e, const char* key) {
  std::int64_t v = 0;
  return e[key].get_int64().get(v) == simdjson::SUCCESS ? v : 0;
}

}  // namespace

void write_trace_jobs(std::string& b, const std::vector<extract::TraceJob>& jobs) {
  if (jobs.empty()) return;
  b.append(",\n  \"trace_jobs\": [");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    b.append(i == 0 ? "\n" : ",\n");
    write_job(b, jobs[i]);
  }
  b.append("\n  ]");
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
