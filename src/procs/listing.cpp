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

using io::JsonWriter;

/// A pid or a GPU index; negative: not known, null.
void index_or_null(JsonWriter& w, int v) {
  if (v >= 0)
    w.integer(v);
  else
    w.null();
}

void uid_or_null(JsonWriter& w, const std::optional<std::uint32_t>& uid) {
  if (uid)
    w.count(*uid);
  else
    w.null();
}

void write_device(JsonWriter& w, const DeviceUse& d) {
  w.object().key("path").str(d.path).key("kind").str(device_kind_name(d.kind)).key("gpu");
  index_or_null(w, d.gpu);
  w.key("pci").str_or_null(d.pci).key("fds").integer(d.fds).key("mappings").integer(d.mappings);
  w.key("mapped_bytes").count(d.mapped_bytes).key("deleted").boolean(d.deleted);
  w.key("by_pattern").boolean(d.by_pattern).close();
}

/// The GPUs as a list without spaces, `[0,1]`, as the document has always had it.
void write_gpus(JsonWriter& w, const std::vector<int>& gpus) {
  w.layout(JsonWriter::Layout::compact).array();
  for (const int g : gpus) w.item().integer(g);
  w.close().layout(JsonWriter::Layout::spaced);
}

/// A holder over several lines at `kMember`: who, what it runs, since when, where, its devices.
void write_holder(JsonWriter& w, const Holder& h) {
  constexpr std::string_view kMember = "      ";
  w.object().line(kMember).key("pid").integer(h.pid).key("ppid").integer(h.ppid).key("ns_pid");
  index_or_null(w, h.ns_pid);
  uid_or_null(w.key("uid"), h.uid);
  w.key("user").str_or_null(h.user);
  w.line(kMember).key("comm").str(h.comm).key("command").str(h.command());
  w.line(kMember).key("argv").array();
  for (const std::string& arg : h.argv) w.item().str(arg);
  w.close();
  w.line(kMember).key("start").str(format_utc(h.start_ns)).key("start_ns").integer(h.start_ns);
  w.key("start_ticks").count(h.start_ticks);
  w.line(kMember).key("cgroup").str_or_null(h.cgroup);
  w.key("container_runtime").str_or_null(h.container.runtime).key("container_id").str_or_null(h.container.id);
  w.key("pod_uid").str_or_null(h.container.pod_uid).key("slurm_job").str_or_null(h.container.slurm_job);
  write_gpus(w.line(kMember).key("gpus"), h.gpus());
  w.key("partial").boolean(h.partial);
  w.line(kMember).key("devices").array();
  for (const DeviceUse& d : h.devices) write_device(w.line("        ").item(), d);
  w.close(h.devices.empty() ? "" : "\n      ").close("\n    ");
}

void write_refused(JsonWriter& w, const Refused& r) {
  w.object().key("pid").integer(r.pid).key("file").str(r.file).key("reason").str(r.reason).close();
}

void write_unreadable(JsonWriter& w, const Unreadable& u) {
  w.object().key("pid").integer(u.pid);
  uid_or_null(w.key("uid"), u.uid);
  w.key("user").str_or_null(u.user).key("comm").str(u.comm).key("what").str(u.what);
  w.key("reason").str(u.reason).close();
}

/// `"key": [...]` of a top-level list, each element on a line of its own.
template <typename T>
void write_list(JsonWriter& w, std::string_view key, const std::vector<T>& list, void (*write)(JsonWriter&, const T&)) {
  w.line("  ").key(key).array();
  for (const T& element : list) write(w.line("    ").item(), element);
  w.close(list.empty() ? "" : "\n  ");
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
  std::string out;
  JsonWriter w(out);
  w.object().line("  ").key("schema").str(kProcsSchema).line("  ").key("version").integer(kProcsVersion);
  w.line("  ").key("root").str(scan.root);
  w.line("  ").key("boot").str(format_utc(scan.boot_ns)).key("boot_ns").integer(scan.boot_ns);
  w.key("ticks_per_second").integer(scan.ticks_per_second);
  w.line("  ").key("processes").integer(scan.processes).key("kernel_threads").integer(scan.kernel_threads);
  w.key("vanished").integer(scan.vanished).key("holder_count").count(scan.holders.size());
  w.key("unreadable_count").count(scan.unreadable.size());
  write_list(w, "holders", scan.holders, write_holder);
  write_list(w, "unreadable", scan.unreadable, write_unreadable);
  write_list(w, "refused", scan.refused, write_refused);
  w.close("\n");
  out.push_back('\n');
  return out;
}

}  // namespace gpucost::procs
