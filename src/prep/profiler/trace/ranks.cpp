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

/// The collective's identity from its kernel's args; its order in its process group counts the
/// rank's collectives of that group by start (`next_in_group`).
void add_identity(const CommArgs& a, std::map<std::string, std::int64_t>& next_in_group, Collective& c) {
  c.pg = a.pg;
  c.pg_desc = a.pg_desc;
  c.pg_ranks = a.pg_ranks;
  c.op = a.op;
  c.pg_seq = a.seq;
  c.in_nelems = a.in_nelems;
  c.out_nelems = a.out_nelems;
  if (!a.pg.empty()) c.pg_order = next_in_group[a.pg]++;
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
  std::map<std::string, std::int64_t> next_in_group;                         // process group -> count
  for (const GpuOp* op : comm) {
    Collective c;
    c.step = step_of(*op, data, launch_start);
    c.lane = static_cast<std::uint32_t>(std::distance(lanes.begin(), lanes.find({op->device, op->stream})));
    c.seq = next_seq[{c.step, c.lane}]++;
    c.device = op->device;
    c.start_ns = data.to_epoch_ns(op->start_ns);
    c.dur_ns = op->dur_ns;
    c.name = data.names[op->name];
    if (op->comm_args >= 0) add_identity(data.comm_args[static_cast<std::size_t>(op->comm_args)], next_in_group, c);
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

}  // namespace gpucost::prep::trace
