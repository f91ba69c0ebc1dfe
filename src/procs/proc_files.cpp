// Parsers of the /proc files `gpucost procs` reads (proc_files.hpp; rules in docs/procs.md).
#include <gpucost/procs/proc_files.hpp>

#include <gpucost/core/text.hpp>

#include <array>
#include <charconv>
#include <limits>

namespace gpucost::procs {

namespace {

template <typename T>
bool parse_unsigned(std::string_view s, T& out, int base = 10) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && end == s.data() + s.size();
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// A container id: lowercase hex, 12 digits at least (runtimes print 64).
bool container_hex(std::string_view s) {
  if (s.size() < 12) return false;
  for (const char c : s)
    if (!text::is_digit(c) && (c < 'a' || c > 'f')) return false;
  return true;
}

/// "PREFIX<hex>SUFFIX" → the hex, else empty.
std::string_view hex_between(std::string_view name, std::string_view prefix, std::string_view suffix) {
  if (!starts_with(name, prefix) || !ends_with(name, suffix) || name.size() < prefix.size() + suffix.size()) return {};
  const std::string_view id = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  return container_hex(id) ? id : std::string_view();
}

std::vector<std::string_view> path_components(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (pos < path.size()) {
    const std::size_t slash = std::min(path.find('/', pos), path.size());
    if (slash > pos) parts.push_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  return parts;
}

/// The container runtimes' scope names (systemd cgroup driver) and folders (cgroupfs driver).
void find_container(const std::vector<std::string_view>& parts, CgroupInfo& info) {
  struct Scope {
    std::string_view prefix, suffix, runtime;
  };
  // conmon's own scopes (crio-conmon-, libpod-conmon-) are not containers: their prefixes do not
  // match here because "conmon-..." is no hex.
  constexpr std::array kScopes{
      Scope{"docker-", ".scope", "docker"}, Scope{"cri-containerd-", ".scope", "containerd"},
      Scope{"crio-", ".scope", "cri-o"},    Scope{"libpod-", ".scope", "podman"},
      Scope{"libpod-", "", "podman"},  // cgroupfs: /libpod_parent/libpod-<id>
  };
  bool kubepods = false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string_view name = parts[i];
    kubepods = kubepods || starts_with(name, "kubepods");
    if (info.slurm_job.empty() && starts_with(name, "job_") && text::all_digits(name.substr(4)))
      info.slurm_job = std::string(name.substr(4));
    // A pod: kubepods-burstable-pod<uid with _>.slice (systemd) or kubepods/burstable/pod<uid> (cgroupfs).
    if (info.pod_uid.empty() && kubepods) {
      std::string_view uid;
      if (const std::size_t at = name.find("-pod"); at != std::string_view::npos && ends_with(name, ".slice"))
        uid = name.substr(at + 4, name.size() - at - 4 - 6);
      else if (starts_with(name, "pod") && name.size() > 3)
        uid = name.substr(3);
      if (!uid.empty()) {
        info.pod_uid = std::string(uid);
        for (char& c : info.pod_uid)
          if (c == '_') c = '-';
      }
    }
    if (!info.container.empty()) continue;
    for (const Scope& s : kScopes)
      if (const std::string_view id = hex_between(name, s.prefix, s.suffix); !id.empty()) {
        info.runtime = std::string(s.runtime);
        info.container = std::string(id);
        break;
      }
    if (!info.container.empty() || i == 0 || !container_hex(name)) continue;
    if (parts[i - 1] == "docker") {  // cgroupfs driver: /docker/<id>
      info.runtime = "docker";
      info.container = std::string(name);
    } else if (kubepods && starts_with(parts[i - 1], "pod")) {  // cgroupfs: /kubepods/<qos>/pod<uid>/<id>
      info.runtime = "kubernetes";
      info.container = std::string(name);
    }
  }
}

bool lists_controller(std::string_view controllers, std::string_view wanted) {
  std::size_t pos = 0;
  while (pos <= controllers.size()) {
    const std::size_t comma = std::min(controllers.find(',', pos), controllers.size());
    if (controllers.substr(pos, comma - pos) == wanted) return true;
    pos = comma + 1;
  }
  return false;
}

}  // namespace

std::optional<ProcStat> parse_stat(std::string_view text) {
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcStat st;
  if (!parse_unsigned(text::trim(text.substr(0, open)), st.pid)) return std::nullopt;
  st.comm = std::string(text.substr(open + 1, close - open - 1));
  // Fields from 3 (state) on, after the name.
  const std::string_view rest = text.substr(close + 1);
  std::size_t pos = 0;
  constexpr int kFlagsField = 9, kStartField = 22;
  for (int field = 3; field <= kStartField; ++field) {
    const std::string_view tok = text::next_token(rest, pos);
    if (tok.empty()) return std::nullopt;
    if (field == 3) st.state = tok.front();
    if (field == 4 && !parse_unsigned(tok, st.ppid)) return std::nullopt;
    if (field == kFlagsField && !parse_unsigned(tok, st.flags)) return std::nullopt;
    if (field == kStartField && !parse_unsigned(tok, st.start_ticks)) return std::nullopt;
  }
  return st;
}

std::optional<std::int64_t> parse_btime(std::string_view proc_stat) {
  std::size_t pos = 0;
  while (pos < proc_stat.size()) {
    const std::string_view line = text::next_line(proc_stat, pos);
    std::size_t p = 0;
    if (text::next_token(line, p) != "btime") continue;
    std::int64_t v = 0;
    if (parse_unsigned(text::next_token(line, p), v)) return v;
    return std::nullopt;
  }
  return std::nullopt;
}

std::int64_t start_time_ns(std::int64_t btime_s, std::uint64_t start_ticks, long ticks_per_second) {
  constexpr std::int64_t kNs = 1'000'000'000;
  const auto hz = static_cast<std::uint64_t>(ticks_per_second > 0 ? ticks_per_second : 100);
  const auto whole = static_cast<std::int64_t>(start_ticks / hz);
  const auto frac = static_cast<std::int64_t>((start_ticks % hz) * static_cast<std::uint64_t>(kNs) / hz);
  return (btime_s + whole) * kNs + frac;
}

ProcStatus parse_status(std::string_view text) {
  ProcStatus st;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::string_view line = text::next_line(text, pos);
    std::size_t p = 0;
    const std::string_view key = text::next_token(line, p);
    if (key == "Uid:") {
      text::next_token(line, p);  // the real uid; ps's USER is the effective one
      std::uint32_t euid = 0;
      if (parse_unsigned(text::next_token(line, p), euid)) st.uid = euid;
    } else if (key == "NSpid:") {
      std::string_view last, tok;
      int count = 0;
      while (!(tok = text::next_token(line, p)).empty()) {
        last = tok;
        ++count;
      }
      int ns = -1;
      if (count > 1 && parse_unsigned(last, ns)) st.ns_pid = ns;
    }
  }
  return st;
}

std::vector<std::string> split_cmdline(std::string_view text) {
  std::vector<std::string> args;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nul = std::min(text.find('\0', pos), text.size());
    args.emplace_back(text.substr(pos, nul - pos));
    pos = nul + 1;
  }
  return args;
}

CgroupInfo parse_cgroup(std::string_view text) {
  struct Line {
    std::string_view id, controllers, path;
  };
  std::vector<Line> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::string_view line = text::next_line(text, pos);
    const std::size_t c1 = line.find(':');
    const std::size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    lines.push_back(Line{line.substr(0, c1), line.substr(c1 + 1, c2 - c1 - 1), line.substr(c2 + 1)});
  }
  CgroupInfo info;
  const Line* chosen = nullptr;
  for (const Line& l : lines)
    if (l.id == "0" && l.controllers.empty() && l.path != "/") chosen = &l;
  for (const Line& l : lines)
    if (chosen == nullptr && lists_controller(l.controllers, "memory")) chosen = &l;
  if (chosen == nullptr && !lines.empty()) chosen = &lines.front();
  if (chosen == nullptr) return info;
  info.path = std::string(chosen->path);
  find_container(path_components(chosen->path), info);
  for (const Line& l : lines)  // hybrid hierarchies: another controller may name the container
    if (&l != chosen && info.container.empty()) find_container(path_components(l.path), info);
  return info;
}

std::string_view strip_deleted(std::string_view path, bool& deleted) {
  constexpr std::string_view kDeleted = " (deleted)";
  deleted = ends_with(path, kDeleted);
  return deleted ? path.substr(0, path.size() - kDeleted.size()) : path;
}

std::optional<MapsLine> parse_maps_line(std::string_view line) {
  std::size_t pos = 0;
  const std::string_view range = text::next_token(line, pos);
  const std::size_t dash = range.find('-');
  MapsLine m;
  if (dash == std::string_view::npos || !parse_unsigned(range.substr(0, dash), m.start, 16) ||
      !parse_unsigned(range.substr(dash + 1), m.end, 16) || m.end < m.start)
    return std::nullopt;
  for (int field = 0; field < 4; ++field)  // perms, offset, dev, inode
    if (text::next_token(line, pos).empty()) return std::nullopt;
  while (pos < line.size() && text::is_space(line[pos])) ++pos;
  m.path = strip_deleted(line.substr(pos), m.deleted);
  return m;
}

std::string_view device_kind_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::gpu: return "gpu";
    case DeviceKind::control: return "control";
    case DeviceKind::uvm: return "uvm";
    case DeviceKind::uvm_tools: return "uvm_tools";
    case DeviceKind::modeset: return "modeset";
    case DeviceKind::caps: return "caps";
    case DeviceKind::nvswitch: return "nvswitch";
    case DeviceKind::nvidia_other: return "nvidia_other";
    case DeviceKind::drm_card: return "drm_card";
    case DeviceKind::drm_render: return "drm_render";
    case DeviceKind::pattern: return "pattern";
  }
  return "pattern";
}

namespace {

/// The kind of a name in /dev ("nvidia0", "nvidiactl"), without the DRM nodes.
std::optional<DeviceClass> classify_nvidia_name(std::string_view name) {
  if (!starts_with(name, "nvidia")) return std::nullopt;
  const std::string_view rest = name.substr(6);
  if (text::all_digits(rest)) {
    int n = 0;
    if (rest.size() <= 6 && parse_unsigned(rest, n)) return DeviceClass{DeviceKind::gpu, n};
    return DeviceClass{DeviceKind::nvidia_other, -1};
  }
  if (rest == "ctl") return DeviceClass{DeviceKind::control, -1};
  if (rest == "-uvm") return DeviceClass{DeviceKind::uvm, -1};
  if (rest == "-uvm-tools") return DeviceClass{DeviceKind::uvm_tools, -1};
  if (rest == "-modeset") return DeviceClass{DeviceKind::modeset, -1};
  if (starts_with(rest, "-nvswitch")) return DeviceClass{DeviceKind::nvswitch, -1};
  return DeviceClass{DeviceKind::nvidia_other, -1};
}

std::string_view file_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::optional<DeviceClass> classify_device_path(std::string_view path) {
  constexpr std::string_view kDev = "/dev/", kDri = "/dev/dri/", kCaps = "/dev/nvidia-caps/";
  if (!starts_with(path, kDev)) return std::nullopt;
  if (starts_with(path, kCaps) && path.size() > kCaps.size()) return DeviceClass{DeviceKind::caps, -1};
  if (starts_with(path, kDri)) {
    const std::string_view name = path.substr(kDri.size());
    if (starts_with(name, "card") && text::all_digits(name.substr(4))) return DeviceClass{DeviceKind::drm_card, -1};
    if (starts_with(name, "renderD") && text::all_digits(name.substr(7)))
      return DeviceClass{DeviceKind::drm_render, -1};
    return std::nullopt;
  }
  const std::string_view name = path.substr(kDev.size());
  if (name.find('/') != std::string_view::npos)  // e.g. /dev/nvidia-caps-imex-channels/channel0
    return starts_with(name, "nvidia") ? std::optional(DeviceClass{DeviceKind::nvidia_other, -1}) : std::nullopt;
  return classify_nvidia_name(name);
}

DeviceClass classify_pattern_path(std::string_view path) {
  if (const auto c = classify_nvidia_name(file_name(path))) return *c;
  return DeviceClass{DeviceKind::pattern, -1};
}

}  // namespace gpucost::procs
