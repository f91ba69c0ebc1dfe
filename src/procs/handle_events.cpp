// gpu_handle events from successive scans (handle_events.hpp; fields in docs/formats.md).
#include <gpucost/procs/handle_events.hpp>

#include <gpucost/core/event_kind.hpp>
#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <vector>

namespace gpucost::procs {

namespace {

std::string device_list(const Holder& h) {
  std::vector<std::string> paths;
  paths.reserve(h.devices.size());
  for (const DeviceUse& d : h.devices) paths.push_back(d.path);
  return text::join(paths, ",");
}

}  // namespace

HandleTracker::HandleTracker(std::string host, std::string root, bool machine)
    : m_host(std::move(host)), m_root(std::move(root)), m_machine(machine) {}

void HandleTracker::emit(const Seen& s, std::string_view state, std::int64_t ts_ns, EventSink& sink) {
  const Holder& h = s.holder;
  std::vector<int> gpus = h.gpus();
  std::string gpu_text;
  for (const int g : gpus) gpu_text += gpu_text.empty() ? std::to_string(g) : fmt::format(",{}", g);
  if (gpus.empty()) gpus.push_back(-1);  // one event with no GPU
  Event ev;
  for (const int gpu : gpus) {
    ev.reset();
    ev.ts_ns = ts_ns;
    ev.source = kHandleSource;
    ev.host = m_host;
    ev.gpu = gpu;
    ev.kind = event_kind_name(EventKind::gpu_handle);
    ev.set(Metric::pid, h.pid);
    ev.add_text("state", state);
    ev.add_number("ppid", h.ppid);
    if (h.uid) ev.add_number("uid", *h.uid);
    if (!h.user.empty()) ev.add_text("user", h.user, true);
    ev.add_text("comm", h.comm, true);
    ev.add_text("command", h.command(), true);
    ev.add_text("devices", s.devices, true);
    if (!gpu_text.empty()) ev.add_text("gpus", gpu_text, true);
    ev.add_number("start_ns", h.start_ns);
    if (!h.cgroup.empty()) ev.add_text("cgroup", h.cgroup, true);
    if (!h.container.runtime.empty()) ev.add_text("container_runtime", h.container.runtime, true);
    if (!h.container.id.empty()) ev.add_text("container_id", h.container.id, true);
    if (!h.container.pod_uid.empty()) ev.add_text("pod_uid", h.container.pod_uid, true);
    if (!h.container.slurm_job.empty()) ev.add_text("slurm_job", h.container.slurm_job, true);
    if (h.ns_pid >= 0) ev.add_number("ns_pid", h.ns_pid);
    if (!s.role.empty()) ev.add_text("role", s.role);
    if (h.partial) ev.fields.push_back(Field{"partial", "true", true, false});
    if (state == "released") ev.add_number("last_seen_ns", s.last_seen_ns);
    ev.add_text("proc_root", m_root);
    sink.on_event(ev);
    ++m_events;
  }
}

std::string_view HandleTracker::role_of(const ScanResult& scan, int pid) const {
  if (!m_machine) return {};
  if (m_command_pid > 0 && scan.descends_from(pid, m_command_pid)) return "command";
  if (m_self_pid > 0 && scan.descends_from(pid, m_self_pid)) return "gpucost";
  return "other";
}

void HandleTracker::update(const ScanResult& scan, std::int64_t ts_ns, EventSink& sink) {
  std::map<std::pair<int, std::uint64_t>, bool> present;
  for (const Holder& h : scan.holders) {
    const auto key = std::make_pair(h.pid, h.start_ticks);
    present[key] = true;
    std::string devices = device_list(h);
    auto it = m_seen.find(key);
    const bool changed = it == m_seen.end() || it->second.devices != devices;
    if (it == m_seen.end()) {
      Seen s;
      s.role = role_of(scan, h.pid);  // a process's parents do not change while it lives
      it = m_seen.emplace(key, std::move(s)).first;
    }
    Seen& s = it->second;
    s.holder = h;
    s.devices = std::move(devices);
    s.last_seen_ns = ts_ns;
    if (changed) emit(s, "held", ts_ns, sink);
  }
  for (auto it = m_seen.begin(); it != m_seen.end();) {
    if (present.count(it->first) != 0) {
      ++it;
      continue;
    }
    emit(it->second, "released", ts_ns, sink);
    it = m_seen.erase(it);
  }
}

void HandleTracker::finish(std::int64_t ts_ns, EventSink& sink) {
  for (const auto& [key, s] : m_seen) emit(s, "still_held", ts_ns, sink);
}

}  // namespace gpucost::procs
