// The jobs the ranks of a distributed job form (docs/formats.md, "A job of ranks"). A collective
// ends on every rank at about the same time, when the last rank has joined it: a rank that
// arrived early spends the difference inside the kernel, so its duration less the shortest
// rank's is the time it waited, and the rank with the shortest is the one they waited for.
#include <gpucost/extract/trace_jobs.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
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

/// The ranks absent from a job of `world_size`, listed (the first 16).
std::string missing_ranks(const std::vector<RankSummary>& ranks, int world_size) {
  std::vector<int> missing;
  std::size_t i = 0;
  for (int rank = 0; rank < world_size; ++rank) {
    while (i < ranks.size() && ranks[i].rank < rank) ++i;
    if (i >= ranks.size() || ranks[i].rank != rank) missing.push_back(rank);
  }
  std::string list;
  for (std::size_t k = 0; k < missing.size() && k < 16; ++k) list += (k == 0 ? "" : ", ") + std::to_string(missing[k]);
  if (missing.size() > 16) list += fmt::format(" and {} more", missing.size() - 16);
  return list;
}

/// A job whose traces are some of its world's ranks: what its waits mean, or that there are none.
void note_sample(const std::vector<RankSummary>& ranks, TraceJob& job) {
  if (!job.sample()) return;
  const std::string head =
      fmt::format("{} of {} ranks present, a sample of the job (ranks {} of {} are missing)", ranks.size(),
                  job.world_size, missing_ranks(ranks, job.world_size), job.world_size);
  if (ranks.size() < 2)
    job.notes.push_back(head + ": waits not computed (one rank: nobody to wait for)");
  else if (job.matched == 0)
    job.notes.push_back(head + ": waits not computed (no collective matched across the ranks present)");
  else if (job.matched_partial > 0)
    job.notes.push_back(head + fmt::format(": {} of the {} matched collectives have ranks outside the sample, so "
                                           "their waits and the straggler are among the ranks present only (a "
                                           "rank's wait is a lower bound: the last to arrive may be absent)",
                                           job.matched_partial, job.matched));
  else
    job.notes.push_back(head + ": every matched collective's process group is present, so its waits are whole");
}

/// The ranks of a "Process Group Ranks" text ("[0, 1, 2]"); empty when it lists none.
std::vector<int> group_ranks(std::string_view text) {
  std::vector<int> out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] < '0' || text[i] > '9') {
      ++i;
      continue;
    }
    const std::size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (const auto n = text::parse_int(text.substr(from, i - from)); n && *n <= 1'000'000'000)
      out.push_back(static_cast<int>(*n));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// How a collective is told apart across ranks, most exact first: its process group's name and
/// sequence number (Kineto's "Seq"), its order among its group's collectives, else its order on
/// its lane within the step.
enum Basis : int { kGroupSeq = 0, kGroupOrder = 1, kLaneOrder = 2 };
using GroupKey = std::tuple<int, std::string, std::int64_t, std::int64_t, std::int64_t>;
using Member = std::pair<std::size_t, const Collective*>;  // (rank index, collective)

/// Each rank's collectives by key; a collective given twice the same Seq (one per kernel of a
/// coalesced call) keeps its occurrences apart.
std::map<GroupKey, std::vector<Member>> group_collectives(const std::vector<RankSummary>& ranks) {
  std::map<GroupKey, std::vector<Member>> groups;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    std::map<std::pair<std::string, std::int64_t>, std::int64_t> seen;
    for (const Collective& c : ranks[i].collectives) {
      GroupKey key;
      if (!c.pg.empty() && c.pg_seq >= 0)
        key = {kGroupSeq, c.pg, c.pg_seq, seen[{c.pg, c.pg_seq}]++, 0};
      else if (!c.pg.empty() && c.pg_order >= 0)
        key = {kGroupOrder, c.pg, c.pg_order, 0, 0};
      else
        key = {kLaneOrder, std::string(), c.step, c.lane, c.seq};
      groups[key].emplace_back(i, &c);
    }
  }
  return groups;
}

/// The ranks that run a collective: its process group's, else the world's. PyTorch writes a
/// group of more than 30 ranks as its first 30 and ", ...": `truncated`, the rest unknown.
struct RunningRanks {
  std::vector<int> listed;
  bool truncated = false;
};

RunningRanks ranks_of(const Collective& c, int world_size) {
  RunningRanks out{group_ranks(c.pg_ranks), c.pg_ranks.find("...") != std::string::npos};
  if (out.listed.empty()) {
    out.truncated = false;
    for (int r = 0; r < std::max(world_size, 0); ++r) out.listed.push_back(r);
  }
  return out;
}

/// A rank's wait in a step none of whose matched collectives it ran.
constexpr std::int64_t kNotIn = -1;

enum class Verdict : std::uint8_t { matched, missing, differ, apart };

/// Whether a group of collectives is one collective seen on each of its ranks that are present.
Verdict judge(const std::vector<RankSummary>& ranks, const std::vector<Member>& members, Basis basis,
              const std::set<int>& needed) {
  std::set<int> have;
  for (const auto& [i, c] : members) have.insert(ranks[i].rank);
  if (have.size() != members.size() || have != needed || have.size() < 2) return Verdict::missing;
  const Collective& first = *members.front().second;
  for (const auto& [i, c] : members)
    if (c->name != first.name || c->op != first.op) return Verdict::differ;
  if (basis == kGroupSeq) return Verdict::matched;  // the trace's own identity: no clock needed
  // By order only: the same collective holds every rank at once, at least at its end.
  std::int64_t latest_start = first.start_ns, earliest_end = first.start_ns + first.dur_ns;
  for (const auto& [i, c] : members) {
    latest_start = std::max(latest_start, c->start_ns);
    earliest_end = std::min(earliest_end, c->start_ns + c->dur_ns);
  }
  return latest_start < earliest_end ? Verdict::matched : Verdict::apart;
}

/// The largest gap between two ranks' ends of the group's kernels.
std::int64_t ends_apart(const std::vector<Member>& members) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
  for (const auto& [i, c] : members) {
    first = std::min(first, c->start_ns + c->dur_ns);
    last = std::max(last, c->start_ns + c->dur_ns);
  }
  return last - first;
}

/// Counts a group that is not matched under its reason.
void count_unmatched(Verdict v, const std::vector<Member>& members, TraceJob& job) {
  ++job.unmatched;
  if (v == Verdict::missing) ++job.unmatched_missing;
  if (v == Verdict::differ) ++job.unmatched_differ;
  if (v == Verdict::apart) {
    ++job.unmatched_apart;
    job.unmatched_apart_max_ns = std::max(job.unmatched_apart_max_ns, ends_apart(members));
  }
}

std::string gap_text(std::int64_t ns) {
  if (ns >= 1'000'000) return fmt::format("{:.1f} ms", static_cast<double>(ns) / 1e6);
  return fmt::format("{:.1f} µs", static_cast<double>(ns) / 1e3);
}

/// `paired_by_order`: the groups paired by order whose time was checked, matched or apart.
void note_unmatched(const TraceJob& job, std::int64_t paired_by_order, std::vector<std::string>& notes) {
  if (job.unmatched_missing > 0)
    notes.push_back(
        fmt::format("{} collectives could not be matched across the ranks (a rank here that runs them "
                    "lacks them, or only one of their ranks is here): their waits are not counted",
                    job.unmatched_missing));
  if (job.unmatched_differ > 0)
    notes.push_back(
        fmt::format("{} collectives could not be matched across the ranks (the ranks ran different "
                    "kernels in their place): their waits are not counted",
                    job.unmatched_differ));
  if (job.unmatched_apart > 0)
    notes.push_back(
        fmt::format("{} of the {} collectives paired by order did not overlap in time across the ranks "
                    "(kernel ends up to {} apart): not the same collective, their waits are not counted",
                    job.unmatched_apart, paired_by_order, gap_text(job.unmatched_apart_max_ns)));
}

/// Matches the collectives of the ranks and counts the waits and the stragglers.
void match_collectives(const std::vector<RankSummary>& ranks, TraceJob& job) {
  std::set<int> present;
  for (const RankSummary& r : ranks) present.insert(r.rank);
  std::map<std::int64_t, std::vector<std::int64_t>> step_waits;  // step -> wait per rank index
  std::int64_t lone = 0;                                         // steps of collectives without step marks
  std::int64_t paired_by_order = 0;
  for (const auto& [key, members] : group_collectives(ranks)) {
    const auto basis = static_cast<Basis>(std::get<0>(key));
    const RunningRanks running = ranks_of(*members.front().second, job.world_size);
    std::set<int> needed;  // its ranks that are among the job's traces
    for (int r : running.listed)
      if (present.count(r) > 0) needed.insert(r);
    if (running.truncated)  // past the list, the ranks that ran it are its own
      for (const auto& m : members) needed.insert(ranks[m.first].rank);
    if (running.listed.empty()) needed = present;  // a job of unknown world size: every trace
    const Verdict v = judge(ranks, members, basis, needed);
    if (basis != kGroupSeq && (v == Verdict::matched || v == Verdict::apart)) ++paired_by_order;
    if (v != Verdict::matched) {
      count_unmatched(v, members, job);
      continue;
    }
    ++job.matched;
    ++(basis == kLaneOrder ? job.matched_by_order : job.matched_by_group);
    // Some of its ranks are not among the traces (with a cut list, unless the whole world is here).
    const bool partial = running.truncated ? job.sample() : needed.size() < running.listed.size();
    if (partial) ++job.matched_partial;
    std::int64_t shortest = members.front().second->dur_ns;
    for (const auto& m : members) shortest = std::min(shortest, m.second->dur_ns);
    const std::int64_t marked = members.front().second->step;
    const std::int64_t step = marked >= 0 ? marked : -1 - lone++;
    std::vector<std::int64_t>& waits = step_waits[step];
    waits.resize(ranks.size(), kNotIn);
    for (const auto& [i, c] : members) {
      waits[i] = std::max<std::int64_t>(waits[i], 0) + c->dur_ns - shortest;
      job.ranks[i].wait_ns += c->dur_ns - shortest;
    }
  }
  for (const auto& [step, waits] : step_waits) {
    if (*std::max_element(waits.begin(), waits.end()) <= 0) continue;  // nobody waited: no straggler
    // Among the ranks that ran the step's matched collectives (a process group may leave some out),
    // the first of the least: the lower rank among equals.
    std::size_t least = waits.size();
    for (std::size_t i = 0; i < waits.size(); ++i)
      if (waits[i] != kNotIn && (least == waits.size() || waits[i] < waits[least])) least = i;
    ++job.ranks[least].straggler_steps;
    ++job.steps;
  }
  note_unmatched(job, paired_by_order, job.notes);
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
  note_sample(ranks, job);
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
  // Its identity, where the trace carried it (streams written before it have none).
  c.pg = std::string(text_field(e, "pg"));
  c.pg_desc = std::string(text_field(e, "pg_desc"));
  c.pg_ranks = std::string(text_field(e, "pg_ranks"));
  c.op = std::string(text_field(e, "collective"));
  c.pg_seq = int_field(e, "pg_seq", -1);
  c.pg_order = int_field(e, "pg_order", -1);
  c.in_nelems = int_field(e, "in_nelems", -1);
  c.out_nelems = int_field(e, "out_nelems", -1);
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
