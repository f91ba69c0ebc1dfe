// The ranks of a distributed job (definitions in docs/formats.md, "A job of ranks"). A collective
// ends on every rank at about the same time, when the last rank has joined it: a rank that
// arrived early spends the difference inside the kernel, so its duration less the shortest
// rank's is the time it waited, and the rank with the shortest is the one they waited for.
#include "ranks.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace gpucost::prep::trace {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;

/// The intervals merged into disjoint ones, in order.
std::vector<Interval> merged(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> out;
  for (const Interval& i : intervals) {
    if (!out.empty() && i.first <= out.back().second)
      out.back().second = std::max(out.back().second, i.second);
    else
      out.push_back(i);
  }
  return out;
}

std::int64_t length(const std::vector<Interval>& disjoint) {
  std::int64_t total = 0;
  for (const auto& [s, e] : disjoint) total += e - s;
  return total;
}

/// The intersection of two lists of disjoint, ordered intervals, itself disjoint and ordered.
std::vector<Interval> common(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t from = std::max(a[i].first, b[j].first), to = std::min(a[i].second, b[j].second);
    if (to > from) out.emplace_back(from, to);
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return out;
}

/// `a` less `b`, both disjoint and ordered: disjoint and ordered.
std::vector<Interval> minus(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  std::size_t j = 0;
  for (auto [from, to] : a) {
    while (j < b.size() && b[j].second <= from) ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < to; ++k) {
      if (b[k].first > from) out.emplace_back(from, b[k].first);
      from = std::max(from, b[k].second);
    }
    if (from < to) out.emplace_back(from, to);
  }
  return out;
}

/// The union of several lists of intervals.
std::vector<Interval> joined(const std::vector<const std::vector<Interval>*>& lists) {
  std::vector<Interval> all;
  for (const auto* l : lists) all.insert(all.end(), l->begin(), l->end());
  return merged(std::move(all));
}

/// The step whose CPU span holds `t`; -1 when none does.
std::int64_t step_at(const std::vector<StepMark>& steps, std::int64_t t) {
  for (const StepMark& s : steps)  // a trace holds a handful of steps
    if (t >= s.start_ns && t < s.start_ns + s.dur_ns) return s.number;
  return -1;
}

/// A device's kernels: the unions of its communication and of its compute kernels (any other
/// kernel; memcpy and memset are not computation), and the communication compute overlapped.
struct DeviceKernels {
  std::vector<Interval> comm, compute, overlapped;
};

std::map<int, DeviceKernels> kernels_by_device(const std::vector<const GpuOp*>& ops) {
  std::map<int, DeviceKernels> by_device;
  for (const GpuOp* p : ops) {
    const GpuOp& op = *p;
    if (op.type != OpType::kernel) continue;
    DeviceKernels& d = by_device[op.device];
    (op.cls == OpClass::communication ? d.comm : d.compute).emplace_back(op.start_ns, op.end_ns());
  }
  for (auto& [device, d] : by_device) {
    d.comm = merged(std::move(d.comm));
    d.compute = merged(std::move(d.compute));
    d.overlapped = common(d.comm, d.compute);
  }
  return by_device;
}

/// Communication time and its overlap with compute kernels, device by device.
void add_exposure(const std::map<int, DeviceKernels>& devices, RankSummary& r) {
  for (const auto& [device, d] : devices) {
    r.comm_ns += length(d.comm);
    r.overlap_ns += length(d.overlapped);
  }
}

/// The time of [origin, origin + span) cut into kStripBins bins, each bin's time in each state.
/// Exact: times are scaled by kStripBins, so each bin is `span` scaled units wide.
class StripBins {
 public:
  StripBins(std::int64_t origin, std::int64_t span) : m_origin(origin) {
    // A span beyond ~2 years (a trace with a stray stamp) is coarsened until it fits in 64 bits.
    while ((span >> m_shift) > std::numeric_limits<std::int64_t>::max() / kBins) ++m_shift;
    m_width = span >> m_shift;
  }
  /// Adds disjoint intervals inside the span to the time of state `s`.
  void add(const std::vector<Interval>& intervals, std::size_t s) {
    for (const auto& [start, end] : intervals) {
      std::int64_t from = scaled(start);
      const std::int64_t to = scaled(end);
      while (from < to) {  // from < to <= kBins x width: bin < kBins
        const std::int64_t bin = from / m_width, upto = std::min(to, (bin + 1) * m_width);
        m_time[static_cast<std::size_t>(bin)][s] += upto - from;
        from = upto;
      }
    }
  }
  /// Each bin's dominant state; of equal times the first of kStates wins (exposed, overlapped,
  /// compute, idle).
  [[nodiscard]] std::string strip() const {
    std::string out;
    for (const auto& t : m_time) {
      const std::array<std::int64_t, 4> time = {t[0], t[1], t[2], m_width - t[0] - t[1] - t[2]};
      out += kStates[static_cast<std::size_t>(std::max_element(time.begin(), time.end()) - time.begin())];
    }
    return out;
  }
  static constexpr char kStates[4] = {kStripExposed, kStripOverlapped, kStripCompute, kStripIdle};

 private:
  static constexpr std::int64_t kBins = static_cast<std::int64_t>(kStripBins);
  [[nodiscard]] std::int64_t scaled(std::int64_t t) const { return ((t - m_origin) >> m_shift) * kBins; }
  std::int64_t m_origin = 0, m_width = 0;
  int m_shift = 0;
  std::array<std::array<std::int64_t, 3>, kStripBins> m_time{};  // exposed, overlapped, compute
};

/// The rank's span [first, last] as a strip (docs/formats.md, "A job of ranks"): at each moment
/// the state is exposed communication when some device's communication runs without compute on
/// that device, else overlapped communication, else compute (a compute kernel on any device),
/// else idle (memcpy and memset included); each bin takes the state of most of its time.
std::string strip_of(const std::map<int, DeviceKernels>& devices, std::int64_t first, std::int64_t last) {
  if (last <= first) return {};
  std::vector<std::vector<Interval>> exposed_by_device;
  std::vector<const std::vector<Interval>*> exposed, overlapped, compute;
  exposed_by_device.reserve(devices.size());
  for (const auto& [device, d] : devices) {
    exposed_by_device.push_back(minus(d.comm, d.compute));
    overlapped.push_back(&d.overlapped);
    compute.push_back(&d.compute);
  }
  for (const auto& e : exposed_by_device) exposed.push_back(&e);
  const std::vector<Interval> x = joined(exposed), o = minus(joined(overlapped), x);
  const std::vector<Interval> c = minus(joined(compute), joined({&x, &o}));
  StripBins bins(first, last - first);
  bins.add(x, 0);
  bins.add(o, 1);
  bins.add(c, 2);
  return bins.strip();
}

using LaunchStarts = std::unordered_map<std::int64_t, std::int64_t>;  // correlation -> launch call start

/// The step an op belongs to: the one its launch call (else the op itself) starts in.
std::int64_t step_of(const GpuOp& op, const TraceData& data, const LaunchStarts& launch_start) {
  const auto launch = launch_start.find(op.correlation);
  return step_at(data.steps, launch != launch_start.end() ? launch->second : op.start_ns);
}

/// --steps: the op's launch call (else the op) starts inside one of the chosen steps, as the
/// trace's other analyses select (ProfilerStep spans may overlap: any of them counts).
bool launched_in(const GpuOp& op, StepRange range, const TraceData& data, const LaunchStarts& launch_start) {
  const auto launch = launch_start.find(op.correlation);
  const std::int64_t t = launch != launch_start.end() ? launch->second : op.start_ns;
  return std::any_of(data.steps.begin(), data.steps.end(), [&](const StepMark& s) {
    return s.number >= range.first && s.number <= range.last && t >= s.start_ns && t < s.start_ns + s.dur_ns;
  });
}

void add_collectives(const TraceData& data, const std::vector<const GpuOp*>& ops, const LaunchStarts& launch_start,
                     RankSummary& r) {
  std::vector<const GpuOp*> comm;
  std::set<std::pair<int, std::int64_t>> lanes;  // (device, stream)
  for (const GpuOp* op : ops)
    if (op->type == OpType::kernel && op->cls == OpClass::communication) {
      comm.push_back(op);
      lanes.emplace(op->device, op->stream);
    }
  std::stable_sort(comm.begin(), comm.end(), [](const GpuOp* a, const GpuOp* b) { return a->start_ns < b->start_ns; });
  std::map<std::pair<std::int64_t, std::uint32_t>, std::uint32_t> next_seq;  // (step, lane) -> count
  for (const GpuOp* op : comm) {
    Collective c;
    c.step = step_of(*op, data, launch_start);
    c.lane = static_cast<std::uint32_t>(std::distance(lanes.begin(), lanes.find({op->device, op->stream})));
    c.seq = next_seq[{c.step, c.lane}]++;
    c.device = op->device;
    c.start_ns = data.to_epoch_ns(op->start_ns);
    c.dur_ns = op->dur_ns;
    c.name = data.names[op->name];
    r.collectives.push_back(std::move(c));
  }
  std::sort(r.collectives.begin(), r.collectives.end(), [](const Collective& a, const Collective& b) {
    return std::tie(a.step, a.lane, a.seq) < std::tie(b.step, b.lane, b.seq);
  });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

int rank_from_file_name(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string name = lower(slash == std::string_view::npos ? path : path.substr(slash + 1));
  int rank = -1;
  for (std::size_t at = name.find("rank"); at != std::string::npos; at = name.find("rank", at + 1)) {
    std::size_t i = at + 4;
    if (i >= name.size() || (name[i] != '-' && name[i] != '_')) continue;
    ++i;
    if (i >= name.size() || std::isdigit(static_cast<unsigned char>(name[i])) == 0) continue;
    int n = 0;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) != 0 && n < 1'000'000)
      n = n * 10 + (name[i++] - '0');
    rank = n;
  }
  return rank;
}

RankSummary summarise_rank(const TraceData& data, std::string path, std::optional<StepRange> steps) {
  RankSummary r;
  r.path = std::move(path);
  r.world_size = data.world_size;
  r.backend = data.backend;
  r.absolute = data.absolute();
  r.rank = data.rank;
  if (r.rank < 0) {
    r.rank = rank_from_file_name(r.path);
    r.rank_from_name = r.rank >= 0;
  }
  LaunchStarts launch_start;
  for (const LaunchCall& c : data.launches) launch_start.emplace(c.correlation, c.start_ns);
  std::vector<const GpuOp*> ops;
  ops.reserve(steps ? 0 : data.ops.size());
  for (const GpuOp& op : data.ops) {
    if (steps && !launched_in(op, *steps, data, launch_start)) continue;
    ops.push_back(&op);
  }
  if (ops.empty()) return r;
  std::int64_t first = ops.front()->start_ns, last = ops.front()->end_ns();
  bool communicates = false;  // most traces are of one GPU without it: no second pass over their kernels
  for (const GpuOp* op : ops) {
    first = std::min(first, op->start_ns);
    last = std::max(last, op->end_ns());
    communicates = communicates || (op->type == OpType::kernel && op->cls == OpClass::communication);
  }
  r.start_ns = data.to_epoch_ns(first);
  r.end_ns = data.to_epoch_ns(last);
  if (!communicates && r.world_size <= 1) return r;  // prep writes no trace_comm for it
  const std::map<int, DeviceKernels> devices = kernels_by_device(ops);
  add_exposure(devices, r);
  r.strip = strip_of(devices, first, last);
  if (communicates) add_collectives(data, ops, launch_start, r);
  return r;
}

// ---- jobs -----------------------------------------------------------------------------------

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

}  // namespace gpucost::prep::trace

// ---- from events --------------------------------------------------------------------------

namespace gpucost::prep {

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
  std::vector<TraceJob> out = trace::analyse_jobs(std::move(ranks));
  std::stable_sort(out.begin(), out.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.ranks.size() > b.ranks.size(); });
  return out;
}

}  // namespace gpucost::prep
