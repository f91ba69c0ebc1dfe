// The scan of <root>/proc for processes holding NVIDIA device files (scan.hpp, docs/procs.md).
#include <gpucost/procs/scan.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>
#include <re2/re2.h>

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <tuple>

namespace gpucost::procs {

namespace {

/// Reads a whole file (files of /proc report size 0: read to the end). Returns 0 or the errno.
int read_file(const std::string& path, std::string& out) {
  out.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  std::array<char, 16384> buf{};
  int err = 0;
  for (;;) {
    const ssize_t got = ::read(fd, buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) err = errno;
    if (got <= 0) break;
    out.append(buf.data(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return err;
}

std::string read_link(const std::string& path) {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size());
  return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : std::string();
}

/// ENOENT and ESRCH: the process ended while it was read.
bool gone(int err) { return err == ENOENT || err == ESRCH; }

bool is_machine_root(const std::string& root) {
  std::error_code ec;
  return std::filesystem::equivalent(root, "/", ec);
}

std::string tree_path(const std::string& root, std::string_view rest) {
  return root == "/" ? fmt::format("/{}", rest) : fmt::format("{}/{}", root, rest);
}

/// The users of a tree's etc/passwd: "name:x:uid:...".
std::map<std::uint32_t, std::string> read_passwd(const std::string& path) {
  std::map<std::uint32_t, std::string> users;
  std::string text;
  if (read_file(path, text) != 0) return users;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = std::min(text.find('\n', pos), text.size());
    const std::string_view line = std::string_view(text).substr(pos, nl - pos);
    pos = nl + 1;
    const std::size_t c1 = line.find(':');
    const std::size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    const std::size_t c3 = c2 == std::string_view::npos ? c2 : line.find(':', c2 + 1);
    if (c3 == std::string_view::npos) continue;
    const auto uid = text::parse_int(line.substr(c2 + 1, c3 - c2 - 1));
    if (uid && *uid >= 0 && *uid <= 0xFFFFFFFFLL) users.emplace(static_cast<std::uint32_t>(*uid), line.substr(0, c1));
  }
  return users;
}

/// An NVIDIA DRM node's card, from sysfs: its PCI address, or nothing when it is another vendor's.
struct DrmCard {
  bool nvidia = false;
  std::string pci;
};

}  // namespace

std::string Holder::command() const { return argv.empty() ? fmt::format("[{}]", comm) : text::join(argv, " "); }

std::vector<int> Holder::gpus() const {
  std::vector<int> out;
  for (const DeviceUse& d : devices)
    if (d.gpu >= 0 && std::find(out.begin(), out.end(), d.gpu) == out.end()) out.push_back(d.gpu);
  std::sort(out.begin(), out.end());
  return out;
}

bool ScanResult::descends_from(int pid, int ancestor) const {
  constexpr int kMaxDepth = 4096;  // a loop in a fixture must not hang the walk
  for (int depth = 0; depth < kMaxDepth && pid > 0; ++depth) {
    if (pid == ancestor) return true;
    const auto it = parents.find(pid);
    if (it == parents.end() || it->second == pid) return false;
    pid = it->second;
  }
  return false;
}

struct Scanner::Impl {
  std::string root, proc;
  bool machine = false;  ///< root is "/": user names from NSS
  std::int64_t btime_s = 0;
  long ticks = 100;
  std::vector<std::unique_ptr<re2::RE2>> patterns;
  mutable std::map<std::uint32_t, std::string> users;  ///< a tree's passwd, or NSS answers cached

  [[nodiscard]] std::string user_name(std::uint32_t uid) const;
  [[nodiscard]] bool matches_pattern(std::string_view path) const;
  void scan_process(int pid, ScanResult& out, std::map<std::string, DrmCard>& cards) const;
  [[nodiscard]] DrmCard drm_card(const std::string& node) const;
  /// Counts `path` (" (deleted)" already taken off) when it names a device file.
  void add_handle(std::string_view path, bool deleted, bool from_fd, std::uint64_t bytes,
                  std::map<std::string, DeviceUse>& found, std::map<std::string, DrmCard>& cards) const;
};

std::string Scanner::Impl::user_name(std::uint32_t uid) const {
  if (const auto it = users.find(uid); it != users.end()) return it->second;
  if (!machine) return {};
  std::array<char, 4096> buf{};
  passwd pw{};
  passwd* found = nullptr;
  std::string name;
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) name = found->pw_name;
  users.emplace(uid, name);
  return name;
}

bool Scanner::Impl::matches_pattern(std::string_view path) const {
  return std::any_of(patterns.begin(), patterns.end(), [&](const auto& re) {
    return re2::RE2::PartialMatch(re2::StringPiece(path.data(), path.size()), *re);
  });
}

DrmCard Scanner::Impl::drm_card(const std::string& node) const {
  DrmCard card;
  const std::string device = tree_path(root, fmt::format("sys/class/drm/{}/device", node));
  std::string vendor;
  if (read_file(device + "/vendor", vendor) != 0) return card;
  card.nvidia = text::trim(vendor) == "0x10de";
  const std::string link = read_link(device);
  card.pci = link.substr(link.rfind('/') + 1);
  return card;
}

void Scanner::Impl::add_handle(std::string_view path, bool deleted, bool from_fd, std::uint64_t bytes,
                               std::map<std::string, DeviceUse>& found, std::map<std::string, DrmCard>& cards) const {
  if (path.empty() || path.front() != '/') return;  // sockets, pipes, anon_inode:...
  DeviceUse use;
  const auto cls = classify_device_path(path);
  bool is_handle = cls.has_value();
  if (cls && (cls->kind == DeviceKind::drm_card || cls->kind == DeviceKind::drm_render)) {
    const std::string node(path.substr(path.rfind('/') + 1));
    auto it = cards.find(node);
    if (it == cards.end()) it = cards.emplace(node, drm_card(node)).first;
    is_handle = it->second.nvidia;
    use.pci = it->second.pci;
  }
  if (cls && is_handle) {
    use.kind = cls->kind;
    use.gpu = cls->gpu;
  } else if (matches_pattern(path)) {
    const DeviceClass pc = classify_pattern_path(path);
    use.kind = pc.kind;
    use.gpu = pc.gpu;
    use.by_pattern = true;
    use.pci.clear();
  } else {
    return;
  }
  auto [it, fresh] = found.try_emplace(std::string(path), std::move(use));
  DeviceUse& d = it->second;
  if (fresh) d.path = std::string(path);
  d.deleted = d.deleted || deleted;
  if (from_fd) {
    ++d.fds;
  } else {
    ++d.mappings;
    d.mapped_bytes += bytes;
  }
}

void Scanner::Impl::scan_process(int pid, ScanResult& out, std::map<std::string, DrmCard>& cards) const {
  const std::string dir = fmt::format("{}/{}", proc, pid);
  std::string text;
  int err = read_file(dir + "/stat", text);
  std::optional<ProcStat> st;
  if (err == 0) st = parse_stat(text);
  if (gone(err)) {
    ++out.vanished;
    return;
  }
  if (!st) {
    out.unreadable.push_back(
        Unreadable{pid, std::nullopt, {}, {}, "stat", err != 0 ? std::strerror(err) : "not a stat line"});
    return;
  }
  out.parents[pid] = st->ppid;
  if ((st->flags & kPfKthread) != 0) {
    ++out.kernel_threads;
    return;
  }
  std::map<std::string, DeviceUse> found;
  std::string what, reason;
  const auto unreadable = [&](std::string_view part, int e) {
    what += what.empty() ? std::string(part) : fmt::format(", {}", part);
    if (reason.empty()) reason = std::strerror(e);
  };
  if (DIR* d = ::opendir((dir + "/fd").c_str()); d != nullptr) {
    const std::string fd_dir = dir + "/fd/";
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      const std::string target = read_link(fd_dir + e->d_name);  // empty: closed meanwhile
      bool deleted = false;
      const std::string_view path = strip_deleted(target, deleted);
      add_handle(path, deleted, true, 0, found, cards);
    }
    ::closedir(d);
  } else {
    err = errno;
    if (gone(err) && ::access(dir.c_str(), F_OK) != 0) {
      ++out.vanished;
      return;
    }
    unreadable("fd", err);
  }
  err = read_file(dir + "/maps", text);
  if (err == 0) {
    std::size_t pos = 0;
    while (pos < text.size()) {
      const std::size_t nl = std::min(text.find('\n', pos), text.size());
      if (const auto m = parse_maps_line(std::string_view(text).substr(pos, nl - pos)); m && !m->path.empty())
        add_handle(m->path, m->deleted, false, m->end - m->start, found, cards);
      pos = nl + 1;
    }
  } else if (gone(err) && ::access(dir.c_str(), F_OK) != 0) {
    ++out.vanished;
    return;
  } else {
    unreadable("maps", err);
  }
  ProcStatus status;
  if (!what.empty() || !found.empty()) {
    err = read_file(dir + "/status", text);
    if (gone(err)) {
      ++out.vanished;
      return;
    }
    if (err == 0) status = parse_status(text);
  }
  if (!what.empty())
    out.unreadable.push_back(
        Unreadable{pid, status.uid, status.uid ? user_name(*status.uid) : std::string(), st->comm, what, reason});
  if (found.empty()) return;
  Holder h;
  h.pid = pid;
  h.ppid = st->ppid;
  h.ns_pid = status.ns_pid;
  h.uid = status.uid;
  if (h.uid) h.user = user_name(*h.uid);
  h.comm = st->comm;
  h.start_ticks = st->start_ticks;
  h.start_ns = start_time_ns(btime_s, st->start_ticks, ticks);
  h.partial = !what.empty();
  if (read_file(dir + "/cmdline", text) == 0) h.argv = split_cmdline(text);
  if (read_file(dir + "/cgroup", text) == 0) {
    CgroupInfo cg = parse_cgroup(text);
    h.cgroup = std::move(cg.path);
    h.container =
        ContainerInfo{std::move(cg.runtime), std::move(cg.container), std::move(cg.pod_uid), std::move(cg.slurm_job)};
  }
  for (auto& [path, use] : found) h.devices.push_back(std::move(use));
  std::sort(h.devices.begin(), h.devices.end(), [](const DeviceUse& a, const DeviceUse& b) {
    return std::tie(a.kind, a.gpu, a.path) < std::tie(b.kind, b.gpu, b.path);
  });
  out.holders.push_back(std::move(h));
}

Scanner::Scanner(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Scanner::~Scanner() = default;
Scanner::Scanner(Scanner&&) noexcept = default;
Scanner& Scanner::operator=(Scanner&&) noexcept = default;

Expected<Scanner> Scanner::create(const ScanOptions& options) {
  auto impl = std::make_unique<Impl>();
  std::string root = options.root.empty() ? std::string("/") : options.root;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  impl->machine = is_machine_root(root);
  impl->root = impl->machine ? std::string(1, '/') : std::move(root);
  const std::string& root_dir = impl->root;
  impl->proc = tree_path(root_dir, "proc");
  struct stat sb {};
  if (::stat(impl->proc.c_str(), &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    const bool is_proc = ::access(tree_path(root_dir, "self").c_str(), F_OK) == 0 ||
                         ::access(tree_path(root_dir, "stat").c_str(), F_OK) == 0;
    return make_error(ErrorKind::usage, fmt::format("--proc-root {}: no proc folder in it", root_dir),
                      is_proc ? fmt::format("{} looks like a /proc itself: give the folder that holds it", root_dir)
                              : "give the root of a tree that holds proc/ (and sys/), e.g. / or /host");
  }
  std::string stat_text;
  const std::string stat_path = tree_path(root_dir, "proc/stat");
  const int err = read_file(stat_path, stat_text);
  const auto btime = err == 0 ? parse_btime(stat_text) : std::nullopt;
  if (!btime)
    return make_error(ErrorKind::io,
                      fmt::format("{}: {}", stat_path, err != 0 ? std::strerror(err) : "no btime line (boot time)"),
                      "the start times of processes count from the boot time this file gives");
  impl->btime_s = *btime;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  impl->ticks = ticks > 0 ? ticks : 100;
  for (const std::string& p : options.device_patterns) {
    re2::RE2::Options opts;
    opts.set_log_errors(false);
    auto re = std::make_unique<re2::RE2>(p, opts);
    if (!re->ok())
      return make_error(ErrorKind::usage, fmt::format("--device-pattern '{}': {}", p, re->error()),
                        "RE2 syntax (no backreferences or lookaround), matched anywhere in the path");
    impl->patterns.push_back(std::move(re));
  }
  if (!impl->machine) impl->users = read_passwd(tree_path(root_dir, "etc/passwd"));
  return Scanner(std::move(impl));
}

Expected<ScanResult> Scanner::scan() const {
  const Impl& s = *m_impl;
  DIR* d = ::opendir(s.proc.c_str());
  if (d == nullptr) return make_error(ErrorKind::io, fmt::format("{}: cannot list: {}", s.proc, std::strerror(errno)));
  std::vector<int> pids;
  while (const dirent* e = ::readdir(d)) {
    const auto pid = text::parse_int(e->d_name);
    if (pid && *pid > 0 && *pid <= 0x7FFFFFFF) pids.push_back(static_cast<int>(*pid));
  }
  ::closedir(d);
  std::sort(pids.begin(), pids.end());
  ScanResult out;
  out.root = s.root;
  out.boot_ns = s.btime_s * 1'000'000'000;
  out.ticks_per_second = s.ticks;
  out.processes = static_cast<int>(pids.size());
  std::map<std::string, DrmCard> cards;  // sysfs asked once per DRM node and scan
  for (const int pid : pids) s.scan_process(pid, out, cards);
  return out;
}

}  // namespace gpucost::procs
