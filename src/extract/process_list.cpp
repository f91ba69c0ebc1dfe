// Who used each GPU, process by process. pmon prints one row per (GPU, process) each cycle with
// the process's SM share of the cycle (sm %), so sm / 100 x the cycle is the time its kernels
// ran (within the window: a row reports the cycle before it); gpucost record's scan says who the process is (user, cgroup, container). The two are
// joined on the pid while the scan saw the process hold a device file.
#include "process_list.hpp"

#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

namespace gpucost::extract::detail {

namespace {

/// pmon's rows of one process on one GPU in the window.
struct PmonTally {
  std::int64_t first_ns = 0, last_ns = 0, rows = 0;
  double busy_s = 0;  // Σ sm / 100 x the cycle's time in the window
  std::optional<double> fb_max;
};

/// (gpu, pid, name): pids are reused, so a new command under an old pid is another process.
using PmonKey = std::tuple<int, std::int64_t, std::uint32_t>;

/// The times of each GPU's pmon cycles in the window (a cycle: rows of one time).
std::map<int, std::vector<std::int64_t>> cycle_times(const SampleCollector& c, const Features& f) {
  std::map<int, std::vector<std::int64_t>> out;
  for (const ProcessRow& r : c.process_rows()) {
    if (!f.contains(r.ts_ns)) continue;
    std::vector<std::int64_t>& times = out[r.gpu];
    if (times.empty() || times.back() != r.ts_ns) times.push_back(r.ts_ns);
  }
  return out;
}

/// The share of a row's cycle inside the window: pmon's row at t reports (t - cycle, t], so the
/// window's first row counts for none of it and a longer cycle than the window for part.
double in_window(std::int64_t ts_ns, double cycle_s, const Features& f) {
  const double from = std::max(static_cast<double>(ts_ns) - cycle_s * 1e9, static_cast<double>(f.from_ns));
  const double to = std::min(static_cast<double>(ts_ns), static_cast<double>(f.last_ns()));
  return to > from ? (to - from) / (cycle_s * 1e9) : 0.0;
}

std::map<PmonKey, PmonTally> tally_pmon(const SampleCollector& c, const Features& f,
                                        const std::map<int, double>& cycle_s) {
  std::map<PmonKey, PmonTally> out;
  for (const ProcessRow& r : c.process_rows()) {
    if (!f.contains(r.ts_ns)) continue;
    const auto [it, fresh] = out.try_emplace({r.gpu, r.pid, r.name});
    PmonTally& t = it->second;
    if (fresh) t.first_ns = r.ts_ns;
    t.first_ns = std::min(t.first_ns, r.ts_ns);
    t.last_ns = std::max(t.last_ns, r.ts_ns);
    ++t.rows;
    const auto sm = static_cast<double>(r.sm_pct), fb = static_cast<double>(r.fb_mib);
    if (!std::isnan(sm) && sm > 0)
      t.busy_s += sm / 100.0 * cycle_s.at(r.gpu) * in_window(r.ts_ns, cycle_s.at(r.gpu), f);
    if (!std::isnan(fb) && (!t.fb_max || fb > *t.fb_max)) t.fb_max = fb;
  }
  return out;
}

/// The scan's span of a holder, clipped to the window; none when they do not meet.
std::optional<std::pair<std::int64_t, std::int64_t>> held_span(const HandleHolding& h, const Features& f) {
  const std::int64_t to = h.to_end ? f.last_ns() : h.last_ns;
  if (h.first_ns > f.last_ns() || to < f.from_ns) return std::nullopt;
  return std::pair{std::max(h.first_ns, f.from_ns), std::min(to, f.last_ns())};
}

/// The scan's holder of `pid` whose span overlaps [from, to] most, on `gpu` first, else on any
/// device (the identity is the process's whatever it holds); null when the scan never saw it.
const std::pair<const HandleKey, HandleHolding>* holder_of(const SampleCollector& c, const Features& f, int gpu,
                                                           std::int64_t pid, std::int64_t from, std::int64_t to,
                                                           bool same_gpu) {
  const std::pair<const HandleKey, HandleHolding>* best = nullptr;
  std::int64_t best_overlap = -1;
  for (const auto& entry : c.handle_holdings()) {
    const auto& [g, p, start] = entry.first;
    if (p != pid || (same_gpu && g != gpu)) continue;
    const auto span = held_span(entry.second, f);
    if (!span) continue;
    const std::int64_t overlap = std::min(to, span->second) - std::max(from, span->first);
    if (overlap >= 0 && overlap > best_overlap) {
      best = &entry;
      best_overlap = overlap;
    }
  }
  return best;
}

void take_identity(const HandleKey& key, const HandleHolding& h, ProcessUse& p) {
  p.start_ns = std::get<2>(key);
  if (!h.command.empty()) p.command = h.command;
  p.user = h.user;
  p.uid = h.uid;
  p.role = h.role;
  p.cgroup = h.cgroup;
  p.container_runtime = h.container_runtime;
  p.container_id = h.container_id;
  p.pod_uid = h.pod_uid;
  p.slurm_job = h.slurm_job;
}

bool process_order(const ProcessUse& a, const ProcessUse& b) {
  const auto key = [](const ProcessUse& p) {
    return std::tuple(p.host, p.gpu < 0 ? 1 << 30 : p.gpu, p.pid, p.start_ns.value_or(0), p.command);
  };
  return key(a) < key(b);
}

}  // namespace

double pmon_cycle_s(const std::vector<std::int64_t>& cycle_times) {
  std::vector<std::int64_t> gaps;
  for (std::size_t i = 1; i < cycle_times.size(); ++i)
    if (cycle_times[i] > cycle_times[i - 1]) gaps.push_back(cycle_times[i] - cycle_times[i - 1]);
  if (gaps.empty()) return 1.0;
  const auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return static_cast<double>(*mid) / 1e9;
}

std::vector<ProcessUse> process_list(const SampleCollector& c, const Features& f) {
  std::map<int, double> cycle_s;
  for (const auto& [gpu, times] : cycle_times(c, f)) cycle_s[gpu] = pmon_cycle_s(times);
  const auto pmon = tally_pmon(c, f, cycle_s);

  std::vector<ProcessUse> out;
  std::map<HandleKey, bool> matched;  // the scan's holders a pmon process was joined with
  for (const auto& [key, t] : pmon) {
    const auto& [gpu, pid, name] = key;
    ProcessUse p;
    p.host = f.host;
    p.gpu = gpu;
    p.pid = pid;
    p.command = c.process_names()[name].command;
    p.type = c.process_names()[name].type;
    p.first_ns = t.first_ns;
    p.last_ns = t.last_ns;
    p.rows = t.rows;
    p.busy_s = t.busy_s;
    p.fb_max_mib = t.fb_max;
    const auto* own = holder_of(c, f, gpu, pid, t.first_ns, t.last_ns, true);
    const auto* any = own != nullptr ? own : holder_of(c, f, gpu, pid, t.first_ns, t.last_ns, false);
    if (any != nullptr) take_identity(any->first, any->second, p);
    if (own != nullptr) {
      p.held = true;
      matched[own->first] = true;
    }
    out.push_back(std::move(p));
  }
  // Holders pmon did not list on that GPU: they had no context there, or no pmon was read.
  for (const auto& [key, h] : c.handle_holdings()) {
    if (matched.count(key) != 0) continue;
    const auto span = held_span(h, f);
    if (!span) continue;
    ProcessUse p;
    p.host = f.host;
    p.gpu = std::get<0>(key);
    p.pid = std::get<1>(key);
    p.first_ns = span->first;
    p.last_ns = span->second;
    p.held = true;
    if (c.has_pmon() && p.gpu >= 0) p.busy_s = 0.0;
    take_identity(key, h, p);
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), process_order);
  return out;
}

// ---- JSON ---------------------------------------------------------------------------------

namespace {

void write_process(io::JsonWriter& w, const ProcessUse& p) {
  w.object().key("host").str(p.host).key("gpu");
  if (p.gpu < 0)
    w.null();
  else
    w.integer(p.gpu);
  w.key("pid").integer(p.pid);
  if (p.start_ns) w.key("start_ns").integer(*p.start_ns);
  w.key("command").str(p.command).text_if("type", p.type);
  w.key("first_ns").integer(p.first_ns).key("last_ns").integer(p.last_ns).key("rows").integer(p.rows);
  w.key("busy_s").num(p.busy_s).key("fb_max_mib").num(p.fb_max_mib).key("held").boolean(p.held);
  w.text_if("user", p.user);
  if (p.uid) w.key("uid").integer(*p.uid);
  w.text_if("role", p.role).text_if("cgroup", p.cgroup).text_if("container_runtime", p.container_runtime);
  w.text_if("container_id", p.container_id).text_if("pod_uid", p.pod_uid).text_if("slurm_job", p.slurm_job);
  w.close();
}

}  // namespace

void write_processes(std::string& b, const std::vector<ProcessUse>& processes) {
  if (processes.empty()) return;
  b.append(",\n  \"processes\": ");
  io::JsonWriter w(b);
  w.array();
  for (const ProcessUse& p : processes) write_process(w.line("    ").item(), p);
  w.close("\n  ");
}

Status read_processes(simdjson::dom::element doc, std::vector<ProcessUse>& out, const std::string& path) {
  simdjson::dom::array list;
  if (doc["processes"].get_array().get(list) != simdjson::SUCCESS) return {};
  for (simdjson::dom::element e : list) {
    ProcessUse p;
    std::string_view host;
    if (e["host"].get_string().get(host) != simdjson::SUCCESS || e["pid"].get_int64().get(p.pid) != simdjson::SUCCESS ||
        e["first_ns"].get_int64().get(p.first_ns) != simdjson::SUCCESS ||
        e["last_ns"].get_int64().get(p.last_ns) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema,
                        fmt::format("{}: a processes[] entry lacks host, pid, first_ns or last_ns", path));
    p.host = std::string(host);
    std::int64_t number = 0;
    p.gpu = e["gpu"].get_int64().get(number) == simdjson::SUCCESS ? static_cast<int>(number) : -1;
    if (e["start_ns"].get_int64().get(number) == simdjson::SUCCESS) p.start_ns = number;
    if (e["uid"].get_int64().get(number) == simdjson::SUCCESS) p.uid = number;
    if (e["rows"].get_int64().get(number) == simdjson::SUCCESS) p.rows = number;
    double value = 0;
    if (e["busy_s"].get_double().get(value) == simdjson::SUCCESS) p.busy_s = value;
    if (e["fb_max_mib"].get_double().get(value) == simdjson::SUCCESS) p.fb_max_mib = value;
    bool held = false;
    if (e["held"].get_bool().get(held) == simdjson::SUCCESS) p.held = held;
    const std::pair<const char*, std::string*> texts[] = {
        {"command", &p.command},    {"type", &p.type},
        {"user", &p.user},          {"role", &p.role},
        {"cgroup", &p.cgroup},      {"container_runtime", &p.container_runtime},
        {"pod_uid", &p.pod_uid},    {"container_id", &p.container_id},
        {"slurm_job", &p.slurm_job}};
    for (const auto& [key, text] : texts) {
      std::string_view v;
      if (e[key].get_string().get(v) == simdjson::SUCCESS) *text = std::string(v);
    }
    out.push_back(std::move(p));
  }
  return {};
}

std::vector<ProcessUse> merge_processes(const std::vector<const std::vector<ProcessUse>*>& lists) {
  std::map<std::tuple<std::string, int, std::int64_t, std::int64_t, std::string>, ProcessUse> by_key;
  for (const auto* list : lists)
    for (const ProcessUse& p : *list) {
      const auto [it, fresh] = by_key.try_emplace({p.host, p.gpu, p.pid, p.start_ns.value_or(-1), p.command}, p);
      if (fresh) continue;
      ProcessUse& m = it->second;
      m.first_ns = std::min(m.first_ns, p.first_ns);
      m.last_ns = std::max(m.last_ns, p.last_ns);
      m.rows += p.rows;
      if (p.busy_s) m.busy_s = m.busy_s.value_or(0.0) + *p.busy_s;
      if (p.fb_max_mib && (!m.fb_max_mib || *p.fb_max_mib > *m.fb_max_mib)) m.fb_max_mib = p.fb_max_mib;
      m.held = m.held || p.held;
      if (m.type.empty()) m.type = p.type;
    }
  std::vector<ProcessUse> out;
  out.reserve(by_key.size());
  for (auto& [key, p] : by_key) out.push_back(std::move(p));
  std::sort(out.begin(), out.end(), process_order);
  return out;
}

}  // namespace gpucost::extract::detail
