// The jobs the ranks of a distributed job form (docs/formats.md, "A job of ranks"). A collective
// ends on every rank at about the same time, when the last rank has joined it: a rank that
// arrived early spends the difference inside the kernel, so its duration less the shortest
// rank's is the time it waited, and the rank with the shortest is the one they waited for.
#include <gpucost/extract/trace_jobs.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace gpucost::extract {

using trace::Collective;
using trace::is_strip;
using trace::RankSummary;

namespace {

/// The traces of one (world size, backend), cut where one ends before the next begins.
std::vector<std::vector<RankSummary>> by_time(std::vector<RankSummary> ranks) {
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const RankSummary& a, const RankSummary& b) { return a.start_ns < b.start_ns; });
  std::vector<std::vector<RankSummary>> out;
  std::int64_t end = 0;
  for (RankSummary& r : ranks) {
    // Traces on their own clocks cannot be told apart in time: they stay together.
    if (out.empty() || (r.absolute && r.start_ns > end)) out.emplace_back();
    end = out.back().empty() ? r.end_ns : std::max(end, r.end_ns);
    out.back().push_back(std::move(r));
  }
  return out;
}

/// Keeps one trace per rank; the others, and traces without a rank, are left out with a note.
std::vector<RankSummary> one_per_rank(std::vector<RankSummary> traces, TraceJob& job) {
  std::map<int, RankSummary> kept;
  for (RankSummary& r : traces) {
    if (r.rank < 0) {
      job.notes.push_back(
          fmt::format("{}: no rank (distributedInfo.rank, or rank-N in its name): left out of the "
                      "job of {} ranks",
                      r.path, job.world_size));
      continue;
    }
    if (const auto it = kept.find(r.rank); it != kept.end()) {
      job.notes.push_back(
          fmt::format("{}: rank {} again (first {}): left out, a rank counts once", r.path, r.rank, it->second.path));
      continue;
    }
    if (r.rank_from_name)
      job.notes.push_back(
          fmt::format("{}: rank {} read from the file name (the trace has no distributedInfo.rank)", r.path, r.rank));
    kept.emplace(r.rank, std::move(r));
  }
  std::vector<RankSummary> out;
  for (auto& [rank, r] : kept) out.push_back(std::move(r));
  return out;
}

void note_missing(const std::vector<RankSummary>& ranks, TraceJob& job) {
  if (job.world_size <= 1) return;
  std::vector<int> missing;
  std::size_t i = 0;
  for (int rank = 0; rank < job.world_size; ++rank) {
    while (i < ranks.size() && ranks[i].rank < rank) ++i;
    if (i >= ranks.size() || ranks[i].rank != rank) missing.push_back(rank);
  }
  if (missing.empty()) return;
  std::string list;
  for (std::size_t k = 0; k < missing.size() && k < 16; ++k) list += (k == 0 ? "" : ", ") + std::to_string(missing[k]);
  if (missing.size() > 16) list += fmt::format(" and {} more", missing.size() - 16);
  job.notes.push_back(fmt::format("ranks {} of {} are missing: waits and the straggler count the {} given", list,
                                  job.world_size, ranks.size()));
}

/// Matches the collectives of the ranks and counts the waits and the stragglers.
void match_collectives(const std::vector<RankSummary>& ranks, TraceJob& job) {
  using Key = std::tuple<std::int64_t, std::uint32_t, std::uint32_t>;
  std::map<Key, std::vector<std::pair<std::size_t, const Collective*>>> groups;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    for (const Collective& c : ranks[i].collectives) groups[{c.step, c.lane, c.seq}].emplace_back(i, &c);
  std::map<std::int64_t, std::vector<std::int64_t>> step_waits;  // step -> wait per rank index
  std::int64_t lone = 0;                                         // steps of collectives without step marks
  for (const auto& group : groups) {
    const auto& members = group.second;  // a lambda cannot capture a structured binding (clang 14)
    const bool same_name = std::all_of(members.begin(), members.end(),
                                       [&](const auto& m) { return m.second->name == members.front().second->name; });
    if (members.size() != ranks.size() || !same_name) {
      ++job.unmatched;
      continue;
    }
    ++job.matched;
    std::int64_t shortest = members.front().second->dur_ns;
    for (const auto& m : members) shortest = std::min(shortest, m.second->dur_ns);
    const std::int64_t step = std::get<0>(group.first) >= 0 ? std::get<0>(group.first) : -1 - lone++;
    std::vector<std::int64_t>& waits = step_waits[step];
    waits.resize(ranks.size(), 0);
    for (const auto& [i, c] : members) {
      waits[i] += c->dur_ns - shortest;
      job.ranks[i].wait_ns += c->dur_ns - shortest;
    }
  }
  for (const auto& [step, waits] : step_waits) {
    if (*std::max_element(waits.begin(), waits.end()) == 0) continue;  // nobody waited: no straggler
    const auto least = std::min_element(waits.begin(), waits.end());   // the first of equals: the lower rank
    ++job.ranks[static_cast<std::size_t>(least - waits.begin())].straggler_steps;
    ++job.steps;
  }
  if (job.unmatched > 0)
    job.notes.push_back(
        fmt::format("{} collectives could not be matched across the ranks (a rank lacks them, or runs "
                    "another kernel in their place): their waits are not counted",
                    job.unmatched));
}

/// The rank most often the straggler; none when two or more share the most steps (a note says so).
void name_straggler(TraceJob& job) {
  std::int64_t most = 0;
  for (const RankRow& r : job.ranks) most = std::max(most, r.straggler_steps);
  std::vector<int> top;
  for (const RankRow& r : job.ranks)
    if (r.straggler_steps == most) top.push_back(r.rank);
  job.straggler_step_share = static_cast<double>(most) / static_cast<double>(job.steps);
  if (top.size() == 1) {
    job.straggler_rank = top.front();
    return;
  }
  std::string list;
  for (std::size_t i = 0; i < top.size(); ++i) list += (i == 0 ? "" : ", ") + std::to_string(top[i]);
  job.notes.push_back(
      fmt::format("no single straggler: ranks {} were the last to arrive equally often ({} of {} steps "
                  "each)",
                  list, most, job.steps));
}

TraceJob analyse_job(std::vector<RankSummary> traces, int world_size, const std::string& backend) {
  TraceJob job;
  job.world_size = world_size;
  job.backend = backend;
  std::vector<RankSummary> ranks;
  if (world_size > 1)
    ranks = one_per_rank(std::move(traces), job);
  else
    ranks = std::move(traces);
  note_missing(ranks, job);
  for (const RankSummary& r : ranks) {
    RankRow row;
    row.rank = r.rank;
    row.path = r.path;
    row.span_ns = r.span_ns();
    row.comm_ns = r.comm_ns;
    row.exposed_comm_ns = r.exposed_comm_ns();
    row.start_ns = r.start_ns;
    row.strip = r.strip;
    job.ranks.push_back(std::move(row));
  }
  if (ranks.size() > 1) match_collectives(ranks, job);
  for (const RankRow& row : job.ranks) {
    job.span_ns += row.span_ns;
    job.wait_ns += row.wait_ns;
    job.comm_ns += row.comm_ns;
    job.exposed_comm_ns += row.exposed_comm_ns;
  }
  if (job.steps > 0) name_straggler(job);
  return job;
}

}  // namespace

std::vector<TraceJob> analyse_jobs(std::vector<RankSummary> ranks) {
  std::map<std::pair<int, std::string>, std::vector<RankSummary>> by_kind;
  std::vector<TraceJob> jobs;
  for (RankSummary& r : ranks) {
    if (r.world_size > 1)
      by_kind[{r.world_size, r.backend}].push_back(std::move(r));
    else {  // a trace without distributedInfo, or of a single rank: a job of its own
      const int world_size = r.world_size;
      const std::string backend = r.backend;
      jobs.push_back(analyse_job({std::move(r)}, world_size, backend));
    }
  }
  for (auto& [kind, traces] : by_kind)
    for (auto& group : by_time(std::move(traces)))
      jobs.push_back(analyse_job(std::move(group), kind.first, kind.second));
  return jobs;
}

// ---- from events --------------------------------------------------------------------------

namespace {

std::int64_t int_field(const Event& e, std::string_view key, std::int64_t fallback) {
  for (const Field& f : e.fields)
    if (f.key == key) return text::parse_int(f.value).value_or(fallback);
  return fallback;
}

std::string_view text_field(const Event& e, std::string_view key) {
  for (const Field& f : e.fields)
    if (f.key == key) return f.value;
  return {};
}

}  // namespace

TraceJobCollector::TraceJobCollector() = default;
TraceJobCollector::~TraceJobCollector() = default;

void TraceJobCollector::on_event(const Event& e) {
  if (e.kind == "trace_comm") {
    auto r = std::make_unique<trace::RankSummary>();
    r->rank = static_cast<int>(int_field(e, "rank", -1));
    r->rank_from_name = text_field(e, "rank_source") == "file name";
    r->world_size = static_cast<int>(int_field(e, "world_size", -1));
    r->backend = std::string(text_field(e, "backend"));
    r->absolute = true;  // the events' clock
    r->start_ns = e.ts_ns;
    r->end_ns = e.ts_ns + int_field(e, "span_ns", 0);
    r->comm_ns = int_field(e, "comm_ns", 0);
    r->overlap_ns = int_field(e, "comm_overlap_ns", 0);
    if (const std::string_view strip = text_field(e, "strip"); is_strip(strip)) r->strip = std::string(strip);
    const std::string_view file = text_field(e, "file");
    r->path = file.empty() ? fmt::format("{} rank {}", e.host, r->rank) : std::string(file);
    m_current[{std::string(e.host), r->rank, std::string(file)}] = m_ranks.size();
    m_current[{std::string(e.host), r->rank, std::string()}] = m_ranks.size();
    m_ranks.push_back(std::move(r));
    return;
  }
  if (e.kind != "trace_collective") return;
  // Its trace by host, rank and file (a stream written before collectives named their file:
  // the latest trace of the host and rank).
  const auto it = m_current.find(
      {std::string(e.host), static_cast<int>(int_field(e, "rank", -1)), std::string(text_field(e, "file"))});
  if (it == m_current.end()) return;  // no trace_comm before it: a stream cut or filtered
  trace::Collective c;
  c.step = int_field(e, "step", -1);
  c.lane = static_cast<std::uint32_t>(int_field(e, "lane", 0));
  c.seq = static_cast<std::uint32_t>(int_field(e, "seq", 0));
  c.device = e.gpu < 0 ? 0 : e.gpu;
  c.start_ns = e.ts_ns;
  c.dur_ns = int_field(e, "dur_ns", 0);
  c.name = std::string(text_field(e, "name"));
  m_ranks[it->second]->collectives.push_back(std::move(c));
}

std::vector<TraceJob> TraceJobCollector::jobs() const {
  std::vector<trace::RankSummary> ranks;
  ranks.reserve(m_ranks.size());
  for (const auto& r : m_ranks) {
    ranks.push_back(*r);
    auto& cs = ranks.back().collectives;
    std::stable_sort(cs.begin(), cs.end(), [](const trace::Collective& a, const trace::Collective& b) {
      return std::tie(a.step, a.lane, a.seq) < std::tie(b.step, b.lane, b.seq);
    });
  }
  std::vector<TraceJob> out = analyse_jobs(std::move(ranks));
  std::stable_sort(out.begin(), out.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.ranks.size() > b.ranks.size(); });
  return out;
}

}  // namespace gpucost::extract
