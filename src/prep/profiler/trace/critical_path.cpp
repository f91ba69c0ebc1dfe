// Critical path of a trace window, after HTA's CPGraph (hta/analyzers/critical_path_analysis.py
// at f4d0062): the same nodes, edges, weights and attribution, computed over the reader's kept
// records (TraceData::cpu_records, in file order: a record's index there is HTA's event index,
// which breaks ties of equal timestamps). docs/formats.md "Critical path" lists what differs.
#include "critical_path.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace gpucost::prep::trace {

namespace {

constexpr std::int64_t kKernelKernelDelayNs = 1'500'000;  // HTA: a longer gap is an unknown dependency
constexpr std::int64_t kNoQueue = std::numeric_limits<std::int64_t>::min();
constexpr std::int32_t kNone = -1;

enum class EdgeType : std::uint8_t { op, dependency, launch, kernel_kernel, sync };

/// What HTA recognises by name.
struct NameFlags {
  bool lock = false;      // takes the CUDA runtime lock: cudaHostAlloc, cudaLaunchKernel, cudaMemcpyAsync
  bool blocking = false;  // a blocking call: its own span is not CPU work (weight 0)
  bool launch = false;    // HTA's kernel / memory launch calls (queue length, event record, stream wait)
  bool event_record = false, stream_wait_call = false;
  bool event_sync = false, context_sync = false, stream_sync = false, stream_wait_event = false;
  bool forward = false, autograd = false;  // names a forward pass / a backward-pass (autograd) op
};

NameFlags flags_of(std::string_view n) {
  NameFlags f;
  f.lock = n == "cudaHostAlloc" || n == "cudaLaunchKernel" || n == "cudaMemcpyAsync";
  f.blocking = n == "cudaDeviceSynchronize" || n == "cudaStreamSynchronize" || n == "cudaEventQuery" ||
               n == "cudaEventSynchronize" || n == "cudaMemcpy" || n == "cudaMemcpyAsync";
  static constexpr std::array<std::string_view, 12> kLaunch = {
      "cudaMemsetAsync", "cudaMemcpyAsync",  "cudaLaunchKernel",    "cudaLaunchKernelExC",
      "cuLaunchKernel",  "cuLaunchKernelEx", "hipLaunchKernel",     "hipExtModuleLaunchKernel",
      "hipMemsetAsync",  "hipMemcpyAsync",   "hipMemcpyWithStream", "runFunction - job_prep_and_submit_for_execution"};
  f.launch = std::find(kLaunch.begin(), kLaunch.end(), n) != kLaunch.end();
  f.event_record = n == "cudaEventRecord";
  f.stream_wait_call = n == "cudaStreamWaitEvent";
  f.event_sync = n == "Event Sync";
  f.context_sync = n == "Context Sync";
  f.stream_sync = n == "Stream Sync";
  f.stream_wait_event = n == "Stream Wait Event";
  f.forward = n.find("forward") != std::string_view::npos;
  f.autograd = n.find("autograd") != std::string_view::npos;
  return f;
}

struct Node {
  std::int64_t ts = 0;
  std::int32_t ev = 0;
  bool is_start = false;
};

struct Edge {
  std::int32_t u = 0, v = 0;
  EdgeType type = EdgeType::op;
  std::int64_t weight = 0;
  std::int32_t attr = kNone;  // the record the edge's time is attributed to
};

std::uint64_t stream_key(std::int64_t device, std::int64_t stream) {
  return (static_cast<std::uint64_t>(device) << 32) ^ static_cast<std::uint64_t>(stream & 0xffffffff);
}

class Builder {
 public:
  explicit Builder(const TraceData& d) : m_d(d), m_recs(d.cpu_records) { prepare(); }

  /// The path of one window; what prepare() found over the whole trace is shared by all.
  CriticalPath run(std::int64_t w0, std::int64_t w1, std::size_t top_ops) {
    m_w0 = w0;
    m_w1 = w1;
    m_nodes.clear();
    m_edges.clear();
    m_edge_at.clear();
    m_kernel_sync.clear();
    m_last_on_stream.clear();
    CriticalPath out;
    out.window_start_ns = m_w0;
    out.window_end_ns = m_w1;
    out.has_sync_events = m_has_sync;
    make_nodes();
    runtime_lock_edges();
    call_stack_edges();
    kernel_edges();
    out.graph_nodes = m_nodes.size();
    out.graph_edges = m_edges.size();
    for (const Edge& e : m_edges) out.sync_edges += e.type == EdgeType::sync ? 1 : 0;
    if (m_nodes.empty()) {
      out.error = "no CPU operator, runtime call or GPU op in the window";
      return out;
    }
    longest_path(out, top_ops);
    return out;
  }

 private:
  const HostRecord& rec(std::int32_t i) const { return m_recs[static_cast<std::size_t>(i)]; }
  const NameFlags& fl(std::int32_t i) const { return m_flags[rec(i).name]; }
  std::int64_t stream_of(std::int32_t i) const {
    const HostRecord& h = rec(i);
    return h.kind == HostKind::gpu_op || h.kind == HostKind::sync ? h.stream : -1;
  }
  /// HTA's GPU side: ops and sync events with a stream and a correlation, and the device-wide
  /// Event Sync / Context Sync.
  bool gpu_side(std::int32_t i) const {
    const HostRecord& h = rec(i);
    if (h.kind == HostKind::gpu_op) return h.correlation >= 0 && h.stream >= 0;
    if (h.kind != HostKind::sync) return false;
    return (h.stream >= 0 && h.correlation >= 0) || fl(i).event_sync || fl(i).context_sync;
  }
  bool in_window(std::int32_t i) const { return rec(i).ts_ns >= m_w0 && rec(i).ts_ns <= m_w1 && rec(i).dur_ns > 0; }
  bool has_nodes(std::int32_t i) const { return i >= 0 && m_start[static_cast<std::size_t>(i)] != kNone; }
  std::int32_t start_node(std::int32_t i) const { return m_start[static_cast<std::size_t>(i)]; }
  std::int32_t end_node(std::int32_t i) const { return m_end[static_cast<std::size_t>(i)]; }
  std::int32_t partner(std::int32_t i) const { return i < 0 ? kNone : m_partner[static_cast<std::size_t>(i)]; }

  // ---- the whole trace: correlation, queue length, event records, stream waits ---------------

  void prepare() {
    m_flags.reserve(m_d.names.size());
    for (const std::string& n : m_d.names) m_flags.push_back(flags_of(n));
    const auto n = static_cast<std::int32_t>(m_recs.size());
    m_partner.assign(m_recs.size(), kNone);
    m_qlen.assign(m_recs.size(), kNoQueue);
    std::unordered_map<std::int64_t, std::int32_t> cpu_by_corr;
    for (std::int32_t i = 0; i < n; ++i) {
      m_has_sync = m_has_sync || rec(i).kind == HostKind::sync;
      if (!gpu_side(i) && rec(i).correlation != -1 && rec(i).kind == HostKind::runtime)
        cpu_by_corr.emplace(rec(i).correlation, i);
    }
    for (std::int32_t i = 0; i < n; ++i) {
      if (!gpu_side(i)) continue;
      auto it = cpu_by_corr.find(rec(i).correlation);
      if (it == cpu_by_corr.end() || m_partner[static_cast<std::size_t>(it->second)] != kNone) continue;
      m_partner[static_cast<std::size_t>(i)] = it->second;
      m_partner[static_cast<std::size_t>(it->second)] = i;
    }
    collect_launches();
    queue_lengths();
    event_record_sources();
    stream_wait_targets();
  }

  /// Launch calls joined to a GPU op with a stream, by start time (HTA's launch_id order).
  void collect_launches() {
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(m_recs.size()); ++i) {
      const std::int32_t k = partner(i);
      if (rec(i).kind == HostKind::runtime && fl(i).launch && k >= 0 && stream_of(k) >= 0) m_launches.push_back(i);
    }
    std::stable_sort(m_launches.begin(), m_launches.end(),
                     [&](std::int32_t a, std::int32_t b) { return rec(a).ts_ns < rec(b).ts_ns; });
  }

  /// HTA's queue length: per stream, +1 at each launch call, -1 at each op's start.
  void queue_lengths() {
    struct Step {
      std::int64_t ts;
      std::int32_t idx;
      int delta;
    };
    std::map<std::uint64_t, std::vector<Step>> per_stream;
    for (std::int32_t l : m_launches) {
      const std::int32_t k = partner(l);
      const std::uint64_t key = stream_key(rec(k).pid, rec(k).stream);
      per_stream[key].push_back(Step{rec(l).ts_ns, l, +1});
      per_stream[key].push_back(Step{rec(k).ts_ns, k, -1});
    }
    for (auto& [key, steps] : per_stream) {
      std::sort(steps.begin(), steps.end(),
                [](const Step& a, const Step& b) { return a.ts != b.ts ? a.ts < b.ts : a.idx < b.idx; });
      std::int64_t q = 0;
      for (const Step& s : steps) m_qlen[static_cast<std::size_t>(s.idx)] = q += s.delta;
    }
  }

  /// For each cudaEventRecord a sync event waits on: the GPU op of the last launch on the
  /// recorded stream before it (HTA's index_previous_launch).
  void event_record_sources() {
    std::unordered_map<std::int64_t, std::pair<std::int64_t, std::int64_t>> recorded;  // corr -> (device, stream)
    for (const HostRecord& h : m_recs)
      if (h.kind == HostKind::sync && h.wait_on_stream > -1)
        recorded.emplace(h.wait_on_record, std::pair{h.pid, h.wait_on_stream});
    if (recorded.empty()) return;
    std::map<std::uint64_t, std::vector<std::int32_t>> launches;  // by device and stream, in launch order
    for (std::int32_t l : m_launches) launches[stream_key(rec(partner(l)).pid, rec(partner(l)).stream)].push_back(l);
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(m_recs.size()); ++i) {
      if (rec(i).kind != HostKind::runtime || !fl(i).event_record) continue;
      auto r = recorded.find(rec(i).correlation);
      if (r == recorded.end()) continue;
      auto ls = launches.find(stream_key(r->second.first, r->second.second));
      if (ls == launches.end()) continue;
      const std::int64_t ts = rec(i).ts_ns;
      auto it = std::upper_bound(ls->second.begin(), ls->second.end(), ts,
                                 [&](std::int64_t t, std::int32_t l) { return t < rec(l).ts_ns; });
      if (it != ls->second.begin()) m_record_source.emplace(rec(i).correlation, partner(*std::prev(it)));
    }
  }

  /// For each cudaStreamWaitEvent call: the GPU op of the next launch on the same thread onto
  /// the waiting stream (HTA's index_next_launch).
  void stream_wait_targets() {
    // Launches by thread and target stream, in launch order: a binary search per wait.
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<std::int32_t>> by_thread;
    for (std::int32_t l : m_launches) by_thread[{rec(l).pid, rec(l).tid, rec(partner(l)).stream}].push_back(l);
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(m_recs.size()); ++i) {
      if (rec(i).kind != HostKind::sync || !fl(i).stream_wait_event) continue;
      const std::int32_t call = partner(i);
      if (call < 0 || !fl(call).stream_wait_call) continue;
      std::int32_t next = kNone;  // the first launch at or after the call
      if (auto it = by_thread.find({rec(call).pid, rec(call).tid, rec(i).stream}); it != by_thread.end()) {
        auto l = std::lower_bound(it->second.begin(), it->second.end(), rec(call).ts_ns,
                                  [&](std::int32_t a, std::int64_t t) { return rec(a).ts_ns < t; });
        if (l != it->second.end()) next = partner(*l);
      }
      m_wait_target.emplace(call, next);
    }
  }

  // ---- nodes -------------------------------------------------------------------------------

  /// HTA's clipping: CPU events starting in the window (dur > 0), device-wide sync events
  /// likewise, and GPU-side events whose launch call starts in the window.
  bool selected(std::int32_t i) const {
    if (!gpu_side(i) || stream_of(i) < 0) return in_window(i);
    if (rec(i).kind == HostKind::sync && fl(i).stream_wait_event) return true;
    const std::int32_t p = partner(i);
    return p >= 0 && in_window(p);
  }

  void make_nodes() {
    const auto n = static_cast<std::int32_t>(m_recs.size());
    m_selected.assign(m_recs.size(), false);
    m_start.assign(m_recs.size(), kNone);
    m_end.assign(m_recs.size(), kNone);
    for (std::int32_t i = 0; i < n; ++i) {
      if (!selected(i)) continue;
      m_selected[static_cast<std::size_t>(i)] = true;
      const HostRecord& h = rec(i);
      const bool node =
          h.kind == HostKind::cpu_op || h.kind == HostKind::runtime || (h.kind == HostKind::gpu_op && partner(i) >= 0);
      if (!node || gpu_side(i) != (h.kind == HostKind::gpu_op)) continue;
      m_nodes.push_back(Node{h.ts_ns, i, true});
      m_nodes.push_back(Node{h.end_ns(), i, false});
    }
    std::stable_sort(m_nodes.begin(), m_nodes.end(), [](const Node& a, const Node& b) {
      return a.ts != b.ts ? a.ts < b.ts : a.ev != b.ev ? a.ev < b.ev : a.is_start && !b.is_start;
    });
    for (std::int32_t k = 0; k < static_cast<std::int32_t>(m_nodes.size()); ++k) {
      const Node& nd = m_nodes[static_cast<std::size_t>(k)];
      (nd.is_start ? m_start : m_end)[static_cast<std::size_t>(nd.ev)] = k;
    }
  }

  // ---- edges -------------------------------------------------------------------------------

  const Node& node(std::int32_t k) const { return m_nodes[static_cast<std::size_t>(k)]; }

  /// Adds u -> v; a second edge between the same nodes replaces the first (networkx's add_edge).
  std::size_t add_edge(std::int32_t u, std::int32_t v, EdgeType type, bool zero_weight = false) {
    const bool weightless = type == EdgeType::dependency || type == EdgeType::sync || zero_weight;
    Edge e{u, v, type, weightless ? 0 : node(v).ts - node(u).ts, kNone};
    const std::uint64_t key = (static_cast<std::uint64_t>(u) << 32) | static_cast<std::uint32_t>(v);
    if (auto it = m_edge_at.find(key); it != m_edge_at.end()) {
      m_edges[it->second] = e;
      return it->second;
    }
    m_edge_at.emplace(key, m_edges.size());
    m_edges.push_back(e);
    return m_edges.size() - 1;
  }

  /// HTA's _attribute_edge: the span of an operator or kernel, or a gap, is charged to the
  /// start's event, the end's event when unwinding, or the parent between two siblings.
  void attribute(std::size_t ei, std::int32_t src_parent) {
    Edge& e = m_edges[ei];
    if (e.type != EdgeType::op && e.type != EdgeType::kernel_kernel) return;
    const Node& src = node(e.u);
    const Node& dst = node(e.v);
    e.attr = e.type == EdgeType::kernel_kernel || src.is_start ? src.ev : !dst.is_start ? dst.ev : src_parent;
  }

  bool lock_node(std::int32_t k) const { return fl(node(k).ev).lock; }
  bool shares_lock(std::int32_t a, std::int32_t b) const {
    return lock_node(a) && lock_node(b) && (node(a).is_start || !node(b).is_start);
  }

  /// Calls holding the CUDA runtime lock: each end follows the previous end, and every start
  /// still open leads to it (HTA's _construct_graph_from_cuda_runtime_events).
  void runtime_lock_edges() {
    std::vector<std::int32_t> open;
    std::int32_t last = kNone;
    for (std::int32_t k = 0; k < static_cast<std::int32_t>(m_nodes.size()); ++k) {
      if (!lock_node(k)) continue;
      if (node(k).is_start) {
        open.push_back(k);
      } else {
        while (!open.empty()) {
          const std::int32_t s = open.back();
          open.pop_back();
          if (node(s).ev == node(k).ev)
            attribute(add_edge(s, k, EdgeType::op), node(k).ev);
          else
            add_edge(s, k, EdgeType::dependency);
        }
        if (last != kNone && !node(last).is_start) add_edge(last, k, EdgeType::dependency);
      }
      last = k;
    }
  }

  struct Endpoint {
    std::int64_t time, dur;
    std::int32_t idx;
    bool start;
  };

  /// HTA's compare_events for one thread's events (all with dur > 0 here): by time, ends before
  /// starts, the longer start first, the shorter end first, then by index.
  static bool endpoint_less(const Endpoint& x, const Endpoint& y) {
    if (x.idx == y.idx) return x.start && !y.start;
    if (x.time != y.time) return x.time < y.time;
    if (x.start != y.start) return !x.start;
    if (x.start) return x.dur != y.dur ? x.dur > y.dur : x.idx < y.idx;
    return x.dur != y.dur ? x.dur < y.dur : x.idx > y.idx;
  }

  /// The one thread of the window's ops and annotations whose names match `pick`; empty when
  /// none or several do (HTA's _get_tid_for_event).
  template <class Pick>
  std::optional<std::int64_t> only_thread(Pick pick) const {
    std::optional<std::int64_t> tid;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(m_recs.size()); ++i) {
      const HostRecord& h = rec(i);
      if (!m_selected[static_cast<std::size_t>(i)] || (h.kind != HostKind::cpu_op && h.kind != HostKind::annotation) ||
          !pick(fl(i)))
        continue;
      if (tid && *tid != h.tid) return std::nullopt;
      tid = h.tid;
    }
    return tid;
  }

  /// Nesting and order of each CPU thread's events (HTA's _construct_graph_from_call_stacks).
  /// As HTA does, a backward-pass thread (the one thread with "autograd" ops) is merged into the
  /// forward thread (the one with "forward" ops), so the path runs through both passes.
  void call_stack_edges() {
    const auto fwd = only_thread([](const NameFlags& f) { return f.forward; });
    const auto bwd = only_thread([](const NameFlags& f) { return f.autograd; });
    const bool merge = fwd && bwd && *fwd != 0 && *bwd != 0 && *fwd != *bwd;  // HTA: a tid of 0 reads as none
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Endpoint>> threads;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(m_recs.size()); ++i) {
      if (!m_selected[static_cast<std::size_t>(i)] || (gpu_side(i) && stream_of(i) >= 0)) continue;
      const HostRecord& h = rec(i);
      if (h.kind == HostKind::gpu_op) continue;
      auto& eps = threads[{h.pid, merge && h.tid == *bwd ? *fwd : h.tid}];
      eps.push_back(Endpoint{h.ts_ns, h.dur_ns, i, true});
      eps.push_back(Endpoint{h.end_ns(), h.dur_ns, i, false});
    }
    for (auto& [thread, eps] : threads) {
      std::sort(eps.begin(), eps.end(), endpoint_less);
      std::unordered_map<std::int32_t, std::vector<std::int32_t>> children;
      std::unordered_map<std::int32_t, std::int32_t> parent;
      std::vector<std::int32_t> stack;
      for (const Endpoint& e : eps) {
        if (e.start) {
          const std::int32_t p = stack.empty() ? kNone : stack.back();
          children[p].push_back(e.idx);
          parent[e.idx] = p;
          stack.push_back(e.idx);
        } else if (!stack.empty()) {
          stack.pop_back();
        }
      }
      walk_thread(children, parent);
    }
  }

  void walk_thread(const std::unordered_map<std::int32_t, std::vector<std::int32_t>>& children,
                   const std::unordered_map<std::int32_t, std::int32_t>& parent) {
    std::int32_t last = kNone, last_parent = kNone;
    int depth = 0;
    const auto visit = [&](std::int32_t ev, bool enter) {
      if (!has_nodes(ev)) return;
      const std::int32_t here = enter ? start_node(ev) : end_node(ev);
      if (last != kNone && !shares_lock(last, here)) {
        const EdgeType type = !enter || depth > 0 ? EdgeType::op : EdgeType::dependency;
        attribute(add_edge(last, here, type, !enter && fl(ev).blocking), last_parent);
      }
      last = here;
      last_parent = parent.at(ev);
      depth += enter ? 1 : -1;
    };
    // Depth first, children in start order; an explicit stack (deep nesting must not overflow).
    struct Frame {
      std::int32_t ev;
      std::size_t next;
    };
    std::vector<Frame> frames{{kNone, 0}};
    while (!frames.empty()) {
      Frame& f = frames.back();
      auto it = children.find(f.ev);
      if (it != children.end() && f.next < it->second.size()) {
        const std::int32_t child = it->second[f.next++];
        visit(child, true);
        frames.push_back(Frame{child, 0});
        continue;
      }
      if (f.ev != kNone) visit(f.ev, false);
      frames.pop_back();
    }
  }

  void sync_to_cpu(std::int32_t gpu_node, std::int32_t runtime) {
    if (!has_nodes(runtime) || gpu_node == kNone) return;
    add_edge(gpu_node, end_node(runtime), EdgeType::sync);
  }

  /// A cuda_sync event met in the kernel order (HTA's handle_cuda_sync).
  void on_sync(std::int32_t i) {
    const NameFlags& f = fl(i);
    if (f.stream_wait_event || f.event_sync) {
      auto src = m_record_source.find(rec(i).wait_on_record);
      if (rec(i).wait_on_record < 0 || src == m_record_source.end() || src->second < 0) return;
      if (f.stream_wait_event) {
        auto dst = m_wait_target.find(partner(i));
        if (dst == m_wait_target.end() || dst->second < 0) return;
        m_kernel_sync[dst->second] = src->second;
      } else if (has_nodes(src->second)) {
        sync_to_cpu(end_node(src->second), partner(i));
      }
      return;
    }
    if (f.context_sync) {
      for (const auto& [key, k] : m_last_on_stream) sync_to_cpu(k, partner(i));
    } else if (f.stream_sync) {
      auto it = m_last_on_stream.find(stream_key(rec(i).pid, rec(i).stream));
      if (it != m_last_on_stream.end()) sync_to_cpu(it->second, partner(i));
    }
  }

  /// Kernels in start order (sync events at their end): launch, kernel-kernel and sync edges
  /// (HTA's _construct_graph_from_kernels).
  void kernel_edges() {
    std::vector<std::int32_t> order;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(m_recs.size()); ++i) {
      if (!m_selected[static_cast<std::size_t>(i)] || !gpu_side(i) || partner(i) < 0) continue;
      if (rec(i).kind == HostKind::gpu_op || stream_of(i) >= 0 || fl(i).event_sync || fl(i).context_sync)
        order.push_back(i);
    }
    const auto key = [&](std::int32_t i) { return rec(i).kind == HostKind::sync ? rec(i).end_ns() : rec(i).ts_ns; };
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return key(a) < key(b); });
    for (std::int32_t i : order) {
      if (rec(i).kind == HostKind::sync)
        on_sync(i);
      else if (has_nodes(i))
        on_kernel(i);
    }
  }

  void on_kernel(std::int32_t i) {
    const std::int32_t s = start_node(i), e = end_node(i);
    attribute(add_edge(s, e, EdgeType::op), kNone);
    const std::uint64_t skey = stream_key(rec(i).pid, rec(i).stream);
    const auto last_it = m_last_on_stream.find(skey);
    const std::int32_t last = last_it == m_last_on_stream.end() ? kNone : last_it->second;
    std::int32_t sync_end = kNone;
    bool has_sync = false;
    if (auto ks = m_kernel_sync.find(i); ks != m_kernel_sync.end() && ks->second != kNone) {
      if (has_nodes(ks->second)) {
        sync_end = end_node(ks->second);
        has_sync = true;
        add_edge(sync_end, s, EdgeType::sync);
      }
      ks->second = kNone;
    }
    const std::int32_t runtime = partner(i);
    const std::int64_t runtime_ts = rec(runtime).ts_ns;
    const std::int64_t q_runtime = m_qlen[static_cast<std::size_t>(runtime)];
    const std::int64_t q_kernel = m_qlen[static_cast<std::size_t>(i)];
    if (q_runtime == 1 && q_kernel == 0 && (last == kNone || node(last).ts < runtime_ts) &&
        (!has_sync || node(sync_end).ts < runtime_ts)) {
      if (has_nodes(runtime)) add_edge(start_node(runtime), s, EdgeType::launch);
    } else if (last != kNone && node(s).ts - node(last).ts < kKernelKernelDelayNs &&
               (!has_sync || node(sync_end).ts < node(last).ts)) {
      attribute(add_edge(last, s, EdgeType::kernel_kernel), kNone);
    }
    m_last_on_stream[skey] = e;
  }

  // ---- the longest path --------------------------------------------------------------------

  CpBound bound_of(const Edge& e) const {
    if (e.type == EdgeType::kernel_kernel) return CpBound::kernel_kernel;
    if (e.type == EdgeType::launch) return CpBound::launch_overhead;
    if (e.type != EdgeType::op) return CpBound::none;
    if (e.attr < 0 || rec(e.attr).kind != HostKind::gpu_op) return CpBound::cpu;
    const GpuOp& op = m_d.ops[rec(e.attr).op];
    return op.cls == OpClass::communication ? CpBound::gpu_comm : CpBound::gpu_compute;
  }

  void longest_path(CriticalPath& out, std::size_t top_ops) {
    const std::size_t n = m_nodes.size();
    std::vector<std::vector<std::size_t>> preds(n);
    std::vector<std::size_t> indegree(n, 0);
    std::vector<std::vector<std::int32_t>> succ(n);
    for (std::size_t k = 0; k < m_edges.size(); ++k) {
      Edge& e = m_edges[k];
      e.weight = std::max<std::int64_t>(e.weight, 0);  // HTA zeroes negative weights (clock rounding)
      preds[static_cast<std::size_t>(e.v)].push_back(k);
      succ[static_cast<std::size_t>(e.u)].push_back(e.v);
      ++indegree[static_cast<std::size_t>(e.v)];
    }
    std::deque<std::int32_t> ready;
    for (std::size_t v = 0; v < n; ++v)
      if (indegree[v] == 0) ready.push_back(static_cast<std::int32_t>(v));
    std::vector<std::int32_t> topo;
    topo.reserve(n);
    while (!ready.empty()) {
      const std::int32_t u = ready.front();
      ready.pop_front();
      topo.push_back(u);
      for (std::int32_t v : succ[static_cast<std::size_t>(u)])
        if (--indegree[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
    }
    if (topo.size() != n) {
      out.error = "the dependency graph has a cycle (timestamps contradict the nesting): no path";
      return;
    }
    std::vector<std::int64_t> dist(n, 0);
    std::vector<std::int64_t> via(n, -1);  // the edge the best path arrives by
    for (std::int32_t v : topo) {
      for (std::size_t k : preds[static_cast<std::size_t>(v)]) {
        const Edge& e = m_edges[k];
        const std::int64_t d = dist[static_cast<std::size_t>(e.u)] + e.weight;
        if (via[static_cast<std::size_t>(v)] < 0 || d > dist[static_cast<std::size_t>(v)]) {
          dist[static_cast<std::size_t>(v)] = d;
          via[static_cast<std::size_t>(v)] = static_cast<std::int64_t>(k);
        }
      }
    }
    // Of the nodes the longest path reaches, the earliest: no trailing 0-weight sync edges.
    std::int32_t end = 0;
    for (std::int32_t v = 1; v < static_cast<std::int32_t>(n); ++v)
      if (dist[static_cast<std::size_t>(v)] > dist[static_cast<std::size_t>(end)]) end = v;
    out.length_ns = dist[static_cast<std::size_t>(end)];
    out.end_ns = node(end).ts;
    std::map<std::pair<std::string_view, CpBound>, std::int64_t> by_name;
    std::int32_t v = end;
    out.path_nodes = 1;
    while (via[static_cast<std::size_t>(v)] >= 0) {
      const Edge& e = m_edges[static_cast<std::size_t>(via[static_cast<std::size_t>(v)])];
      const CpBound b = bound_of(e);
      out.bound_ns[static_cast<int>(b)] += e.weight;
      if ((b == CpBound::cpu || b == CpBound::gpu_compute || b == CpBound::gpu_comm) && e.weight > 0) {
        const std::string_view name = e.attr >= 0 ? std::string_view(m_d.names[rec(e.attr).name]) : "(top level)";
        by_name[{name, b}] += e.weight;
        if (b == CpBound::cpu && e.attr >= 0 && is_launch_api(name)) out.launch_calls_ns += e.weight;
      }
      v = e.u;
      ++out.path_nodes;
    }
    out.start_ns = node(v).ts;
    for (const auto& [key, ns] : by_name) out.top_ops.push_back(CpOpRow{std::string(key.first), key.second, ns});
    std::stable_sort(out.top_ops.begin(), out.top_ops.end(),
                     [](const CpOpRow& a, const CpOpRow& b) { return a.ns > b.ns; });
    if (out.top_ops.size() > top_ops) out.top_ops.resize(top_ops);
  }

  const TraceData& m_d;
  const std::vector<HostRecord>& m_recs;
  std::int64_t m_w0 = 0, m_w1 = 0;
  bool m_has_sync = false;
  std::vector<NameFlags> m_flags;
  std::vector<std::int32_t> m_partner;
  std::vector<std::int64_t> m_qlen;
  std::vector<std::int32_t> m_launches;
  std::unordered_map<std::int64_t, std::int32_t> m_record_source;  // cudaEventRecord corr -> GPU op
  std::unordered_map<std::int32_t, std::int32_t> m_wait_target;    // cudaStreamWaitEvent call -> GPU op
  std::vector<bool> m_selected;
  std::vector<std::int32_t> m_start, m_end;
  std::vector<Node> m_nodes;
  std::vector<Edge> m_edges;
  std::unordered_map<std::uint64_t, std::size_t> m_edge_at;
  std::unordered_map<std::int32_t, std::int32_t> m_kernel_sync;  // GPU op -> the op it waits for
  std::map<std::uint64_t, std::int32_t> m_last_on_stream;        // the last op's end node per stream
};

}  // namespace

std::string_view to_string(CpBound b) {
  switch (b) {
    case CpBound::cpu: return "cpu_bound";
    case CpBound::gpu_compute: return "gpu_compute_bound";
    case CpBound::gpu_comm: return "gpu_communication_bound";
    case CpBound::launch_overhead: return "gpu_kernel_launch_overhead";
    case CpBound::kernel_kernel: return "gpu_kernel_kernel_overhead";
    case CpBound::none: return "dependency";
  }
  return "dependency";
}

CriticalPath critical_path(const TraceData& data, std::int64_t window_start_ns, std::int64_t window_end_ns,
                           std::size_t top_ops) {
  return Builder(data).run(window_start_ns, window_end_ns, top_ops);
}

std::vector<CriticalPath> critical_paths(const TraceData& data,
                                         const std::vector<std::pair<std::int64_t, std::int64_t>>& windows,
                                         std::size_t top_ops) {
  std::vector<CriticalPath> out;
  if (windows.empty()) return out;
  Builder b(data);
  for (const auto& [w0, w1] : windows) out.push_back(b.run(w0, w1, top_ops));
  return out;
}

std::pair<std::int64_t, std::int64_t> whole_trace_window(const TraceData& data) {
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  for (const HostRecord& h : data.cpu_records) {
    lo = std::min(lo, h.ts_ns);
    hi = std::max(hi, h.end_ns());
  }
  return lo > hi ? std::pair<std::int64_t, std::int64_t>{0, 0} : std::pair{lo, hi};
}

}  // namespace gpucost::prep::trace
