// The table and the gpucost.procs JSON document of a scan (listing.hpp, docs/procs.md).
#include <gpucost/procs/listing.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <vector>

namespace gpucost::procs {

namespace {

constexpr std::int64_t kNsPerS = 1'000'000'000;
constexpr std::size_t kShortId = 12;  // docker ps shows 12 digits of an id

std::string utc_seconds(std::int64_t ns) {
  const std::int64_t s = ns >= 0 ? ns / kNsPerS : (ns - kNsPerS + 1) / kNsPerS;
  std::string t = format_utc(s * kNsPerS);  // "2026-06-12T14:22:18Z"
  t[10] = ' ';
  t.pop_back();
  return t;
}

std::string user_of(const std::optional<std::uint32_t>& uid, const std::string& user) {
  if (!user.empty()) return user;
  return uid ? std::to_string(*uid) : std::string("?");
}

/// "/dev/nvidia0" → "nvidia0", "/dev/dri/renderD128" → "dri/renderD128"; other paths whole.
std::string short_device(const DeviceUse& d) {
  constexpr std::string_view kDev = "/dev/";
  const std::string_view p = d.path;
  return p.substr(0, kDev.size()) == kDev ? std::string(p.substr(kDev.size())) : d.path;
}

std::string gpu_list(const std::vector<int>& gpus) {
  std::string out;
  for (const int g : gpus) out += out.empty() ? std::to_string(g) : fmt::format(",{}", g);
  return out;
}

void json_string_or_null(std::string& out, const std::string& s) {
  if (s.empty())
    out += "null";
  else
    io::append_json_string(out, s);
}

void json_uid(std::string& out, const std::optional<std::uint32_t>& uid) {
  out += uid ? std::to_string(*uid) : std::string("null");
}

void append_device(std::string& out, const DeviceUse& d) {
  out += "{\"path\": ";
  io::append_json_string(out, d.path);
  out += fmt::format(", \"kind\": \"{}\", \"gpu\": {}, \"pci\": ", device_kind_name(d.kind),
                     d.gpu >= 0 ? std::to_string(d.gpu) : std::string("null"));
  json_string_or_null(out, d.pci);
  out += fmt::format(", \"fds\": {}, \"mappings\": {}, \"mapped_bytes\": {}, \"deleted\": {}, \"by_pattern\": {}}}",
                     d.fds, d.mappings, d.mapped_bytes, d.deleted, d.by_pattern);
}

void append_holder(std::string& out, const Holder& h) {
  out += fmt::format("    {{\n      \"pid\": {}, \"ppid\": {}, \"ns_pid\": {}, \"uid\": ", h.pid, h.ppid,
                     h.ns_pid >= 0 ? std::to_string(h.ns_pid) : std::string("null"));
  json_uid(out, h.uid);
  out += ", \"user\": ";
  json_string_or_null(out, h.user);
  out += ",\n      \"comm\": ";
  io::append_json_string(out, h.comm);
  out += ", \"command\": ";
  io::append_json_string(out, h.command());
  out += ",\n      \"argv\": [";
  for (std::size_t i = 0; i < h.argv.size(); ++i) {
    if (i > 0) out += ", ";
    io::append_json_string(out, h.argv[i]);
  }
  out += fmt::format("],\n      \"start\": \"{}\", \"start_ns\": {}, \"start_ticks\": {},\n      \"cgroup\": ",
                     format_utc(h.start_ns), h.start_ns, h.start_ticks);
  json_string_or_null(out, h.cgroup);
  out += ", \"container_runtime\": ";
  json_string_or_null(out, h.container.runtime);
  out += ", \"container_id\": ";
  json_string_or_null(out, h.container.id);
  out += ", \"pod_uid\": ";
  json_string_or_null(out, h.container.pod_uid);
  out += ", \"slurm_job\": ";
  json_string_or_null(out, h.container.slurm_job);
  out += fmt::format(",\n      \"gpus\": [{}], \"partial\": {},\n      \"devices\": [", gpu_list(h.gpus()), h.partial);
  for (std::size_t i = 0; i < h.devices.size(); ++i) {
    out += i == 0 ? "\n        " : ",\n        ";
    append_device(out, h.devices[i]);
  }
  out += h.devices.empty() ? "]\n    }" : "\n      ]\n    }";
}

void append_refused(std::string& out, const Refused& r) {
  out += fmt::format("    {{\"pid\": {}, \"file\": ", r.pid);
  io::append_json_string(out, r.file);
  out += ", \"reason\": ";
  io::append_json_string(out, r.reason);
  out += "}";
}

void append_unreadable(std::string& out, const Unreadable& u) {
  out += fmt::format("    {{\"pid\": {}, \"uid\": ", u.pid);
  json_uid(out, u.uid);
  out += ", \"user\": ";
  json_string_or_null(out, u.user);
  out += ", \"comm\": ";
  io::append_json_string(out, u.comm);
  out += ", \"what\": ";
  io::append_json_string(out, u.what);
  out += ", \"reason\": ";
  io::append_json_string(out, u.reason);
  out += "}";
}

}  // namespace

std::string placement(const Holder& h) {
  const ContainerInfo& c = h.container;
  if (!c.id.empty()) return fmt::format("{}:{}", c.runtime, c.id.substr(0, kShortId));
  if (!c.slurm_job.empty()) return fmt::format("slurm job {}", c.slurm_job);
  if (!c.pod_uid.empty()) return fmt::format("pod {}", c.pod_uid);
  return h.cgroup.empty() ? std::string("-") : h.cgroup;
}

std::string unreadable_summary(const ScanResult& scan) {
  if (scan.unreadable.empty()) return {};
  std::map<std::string, int> by_user, by_reason;
  for (const Unreadable& u : scan.unreadable) {
    ++by_user[user_of(u.uid, u.user)];
    ++by_reason[fmt::format("{}: {}", u.what, u.reason)];
  }
  std::vector<std::string> users, reasons;
  for (const auto& [user, n] : by_user) users.push_back(fmt::format("{} {}", text::printable(user), n));
  for (const auto& [reason, n] : by_reason) reasons.push_back(reason);
  return fmt::format("{} could not be read ({}; users {}): the device files they hold are not known",
                     text::counted(static_cast<long long>(scan.unreadable.size()), "process", "processes"),
                     text::join(reasons, "; "), text::join(users, ", "));
}

std::string refused_summary(const ScanResult& scan) {
  if (scan.refused.empty()) return {};
  constexpr std::size_t kShown = 5;
  std::vector<std::string> files;
  for (std::size_t i = 0; i < scan.refused.size() && i < kShown; ++i) {
    const Refused& r = scan.refused[i];
    files.push_back(fmt::format("{}/{}: {}", r.pid, r.file, r.reason));
  }
  if (scan.refused.size() > kShown) files.push_back(fmt::format("{} more", scan.refused.size() - kShown));
  return fmt::format("{} of the tree left unread or read in part ({}): a real /proc has none",
                     text::counted(static_cast<long long>(scan.refused.size()), "file"), text::join(files, "; "));
}

std::string procs_table(const ScanResult& scan) {
  const std::array<std::string, 7> head{"PID", "USER", "START (UTC)", "GPUS", "DEVICES", "CONTAINER/CGROUP", "COMMAND"};
  std::vector<std::array<std::string, 7>> rows;
  for (const Holder& h : scan.holders) {
    std::vector<std::string> devices;
    for (const DeviceUse& d : h.devices) devices.push_back(short_device(d));
    const std::string gpus = gpu_list(h.gpus());
    // Names, paths and argv are the processes' own text: escaped, so that none moves the cursor,
    // retitles the terminal or starts a row of its own.
    rows.push_back({std::to_string(h.pid), text::printable(user_of(h.uid, h.user)), utc_seconds(h.start_ns),
                    gpus.empty() ? std::string("-") : gpus, text::printable(text::join(devices, ",")),
                    text::printable(placement(h)),
                    text::printable(h.command()) + (h.partial ? "  (partly unreadable)" : "")});
  }
  std::array<std::size_t, 7> width{};
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  std::string out;
  const auto line = [&](const std::array<std::string, 7>& r) {
    std::string l;
    for (std::size_t c = 0; c < r.size(); ++c) l += c + 1 == r.size() ? r[c] : fmt::format("{:<{}}  ", r[c], width[c]);
    out += std::string(text::rtrim(l)) + "\n";
  };
  if (!rows.empty()) {
    line(head);
    for (const auto& r : rows) line(r);
    out += "\n";
  }
  out += fmt::format("holders of NVIDIA device files: {} of {} in {}/proc ({} passed by, {} ended while read)\n",
                     rows.size(), text::counted(scan.processes, "process", "processes"),
                     scan.root == "/" ? std::string() : text::printable(scan.root),
                     text::counted(scan.kernel_threads, "kernel thread"),
                     text::counted(scan.vanished, "process", "processes"));
  if (const std::string u = unreadable_summary(scan); !u.empty()) out += u + "\n";
  if (const std::string r = refused_summary(scan); !r.empty()) out += r + "\n";
  return out;
}

std::string procs_json(const ScanResult& scan) {
  std::string out =
      fmt::format("{{\n  \"schema\": \"{}\",\n  \"version\": {},\n  \"root\": ", kProcsSchema, kProcsVersion);
  io::append_json_string(out, scan.root);
  out += fmt::format(
      ",\n  \"boot\": \"{}\", \"boot_ns\": {}, \"ticks_per_second\": {},\n  \"processes\": {}, \"kernel_threads\": {}, "
      "\"vanished\": {}, \"holder_count\": {}, \"unreadable_count\": {},\n  \"holders\": [",
      format_utc(scan.boot_ns), scan.boot_ns, scan.ticks_per_second, scan.processes, scan.kernel_threads, scan.vanished,
      scan.holders.size(), scan.unreadable.size());
  for (std::size_t i = 0; i < scan.holders.size(); ++i) {
    out += i == 0 ? "\n" : ",\n";
    append_holder(out, scan.holders[i]);
  }
  out += scan.holders.empty() ? "],\n  \"unreadable\": [" : "\n  ],\n  \"unreadable\": [";
  for (std::size_t i = 0; i < scan.unreadable.size(); ++i) {
    out += i == 0 ? "\n" : ",\n";
    append_unreadable(out, scan.unreadable[i]);
  }
  out += scan.unreadable.empty() ? "],\n  \"refused\": [" : "\n  ],\n  \"refused\": [";
  for (std::size_t i = 0; i < scan.refused.size(); ++i) {
    out += i == 0 ? "\n" : ",\n";
    append_refused(out, scan.refused[i]);
  }
  out += scan.refused.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace gpucost::procs
