// The scan of <root>/proc for processes holding NVIDIA device files (scan.hpp, docs/procs.md).
#include <gpucost/procs/scan.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/procs/tree_file.hpp>

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

/// The target of a symbolic link (fd/N, sysfs' device), relative to `dir_fd`; empty when none.
std::string read_link(int dir_fd, const char* name) {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlinkat(dir_fd, name, buf.data(), buf.size());
  return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : std::string();
}

/// An errno as the scan reports it: ELOOP is a link it would not follow.
std::string error_text(int err) {
  return err == ELOOP ? std::string("a symbolic link (not followed)") : std::string(std::strerror(err));
}

/// Why a directory could not be opened with O_DIRECTORY | O_NOFOLLOW: a link says ENOTDIR too.
std::string dir_error(int parent_fd, const char* name, int err) {
  struct stat sb {};
  if ((err == ENOTDIR || err == ELOOP) && ::fstatat(parent_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(sb.st_mode))
    return error_text(ELOOP);
  return error_text(err);
}

/// A file descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

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
  const TreeFile f = read_tree_file(AT_FDCWD, path, kLargeFileCap);
  if (!f.ok()) return users;
  const std::string& text = f.text;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::string_view line = text::next_line(text, pos);
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

struct ProcessRead;

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
  /// fd/ and maps; false when the process ended meanwhile.
  bool read_fds(ProcessRead& p, std::map<std::string, DrmCard>& cards) const;
  bool read_maps(ProcessRead& p, std::map<std::string, DrmCard>& cards) const;
  Holder make_holder(ProcessRead& p, const ProcStat& st, const ProcStatus& status) const;
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
  // sysfs' class entries are links into /sys/devices: followed, but for the file read itself.
  const TreeFile vendor = read_tree_file(AT_FDCWD, device + "/vendor", kSmallFileCap);
  if (!vendor.ok()) return card;
  card.nvidia = text::trim(vendor.text) == "0x10de";
  const std::string link = read_link(AT_FDCWD, device.c_str());
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

/// One process's directory as it is read: the device files found, and what could not be read.
struct ProcessRead {
  int pid = 0;
  std::string dir;
  int dir_fd = -1;
  ScanResult& out;
  std::map<std::string, DeviceUse> found;
  std::string what, reason;  ///< the parts that could not be read, the first failure's text

  void unreadable(std::string_view part, const std::string& why) {
    what += what.empty() ? std::string(part) : fmt::format(", {}", part);
    if (reason.empty()) reason = why;
  }
  /// Records a file refused or cut at its cap; true when its text may be used.
  bool usable(const TreeFile& f, std::string_view file, std::size_t cap) {
    if (!f.refused.empty()) out.refused.push_back(Refused{pid, std::string(file), f.refused});
    if (f.cut)
      out.refused.push_back(
          Refused{pid, std::string(file), fmt::format("larger than {}: read in part", cap_text(cap))});
    return f.ok();
  }
  /// ENOENT or ESRCH and the directory gone: the process ended while it was read.
  [[nodiscard]] bool ended(int err) const { return gone(err) && ::access(dir.c_str(), F_OK) != 0; }
};

/// fd/: each link's target, read with readlink (never opened).
bool Scanner::Impl::read_fds(ProcessRead& p, std::map<std::string, DrmCard>& cards) const {
  const int fd_dir = ::openat(p.dir_fd, "fd", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR* d = fd_dir >= 0 ? ::fdopendir(fd_dir) : nullptr;
  if (d == nullptr) {
    const int err = errno;
    if (fd_dir >= 0) ::close(fd_dir);
    if (p.ended(err)) return false;
    const std::string why = dir_error(p.dir_fd, "fd", err);
    if (why == error_text(ELOOP)) p.out.refused.push_back(Refused{p.pid, "fd", why});
    p.unreadable("fd", why);
    return true;
  }
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const std::string target = read_link(::dirfd(d), e->d_name);  // empty: closed meanwhile
    bool deleted = false;
    const std::string_view path = strip_deleted(target, deleted);
    add_handle(path, deleted, true, 0, p.found, cards);
  }
  ::closedir(d);
  return true;
}

/// maps: the pathnames of the mappings. Cut at its cap, its whole lines still count.
bool Scanner::Impl::read_maps(ProcessRead& p, std::map<std::string, DrmCard>& cards) const {
  const TreeFile maps = read_tree_file(p.dir_fd, "maps", kMapsCap);
  if (!p.usable(maps, "maps", kMapsCap)) {
    if (p.ended(maps.err)) return false;
    p.unreadable("maps", maps.err != 0 ? error_text(maps.err) : maps.reason());
    return true;
  }
  std::string_view text = maps.text;
  if (maps.cut) {
    text = text.substr(0, text.rfind('\n') + 1);
    p.unreadable("maps", fmt::format("larger than {}", cap_text(kMapsCap)));
  }
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (const auto m = parse_maps_line(text::next_line(text, pos)); m && !m->path.empty())
      add_handle(m->path, m->deleted, false, m->end - m->start, p.found, cards);
  }
  return true;
}

void Scanner::Impl::scan_process(int pid, ScanResult& out, std::map<std::string, DrmCard>& cards) const {
  ProcessRead p{pid, fmt::format("{}/{}", proc, pid), -1, out, {}, {}, {}};
  // No link followed from here: a planted "4242 -> /root" is refused like a linked file.
  const Fd dir(::open(p.dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  p.dir_fd = dir.fd;
  const int dir_err = dir.fd < 0 ? errno : 0;
  const TreeFile stat_file =
      dir.fd >= 0 ? read_tree_file(dir.fd, "stat", kSmallFileCap) : TreeFile{dir_err, {}, false, {}};
  if (gone(stat_file.err)) {
    ++out.vanished;
    return;
  }
  std::optional<ProcStat> st;
  if (p.usable(stat_file, "stat", kSmallFileCap)) st = parse_stat(stat_file.text);
  if (!st) {
    const std::string why = dir.fd < 0           ? dir_error(AT_FDCWD, p.dir.c_str(), dir_err)
                            : stat_file.ok()     ? "not a stat line"
                            : stat_file.err != 0 ? error_text(stat_file.err)
                                                 : stat_file.reason();
    out.unreadable.push_back(Unreadable{pid, std::nullopt, {}, {}, "stat", why});
    return;
  }
  out.parents[pid] = st->ppid;
  if ((st->flags & kPfKthread) != 0) {
    ++out.kernel_threads;
    return;
  }
  if (!read_fds(p, cards) || !read_maps(p, cards)) {
    ++out.vanished;
    return;
  }
  ProcStatus status;
  if (!p.what.empty() || !p.found.empty()) {
    const TreeFile f = read_tree_file(dir.fd, "status", kSmallFileCap);
    if (gone(f.err)) {
      ++out.vanished;
      return;
    }
    if (p.usable(f, "status", kSmallFileCap)) status = parse_status(f.text);
  }
  if (!p.what.empty())
    out.unreadable.push_back(
        Unreadable{pid, status.uid, status.uid ? user_name(*status.uid) : std::string(), st->comm, p.what, p.reason});
  if (!p.found.empty()) out.holders.push_back(make_holder(p, *st, status));
}

Holder Scanner::Impl::make_holder(ProcessRead& p, const ProcStat& st, const ProcStatus& status) const {
  Holder h;
  h.pid = p.pid;
  h.ppid = st.ppid;
  h.ns_pid = status.ns_pid;
  h.uid = status.uid;
  if (h.uid) h.user = user_name(*h.uid);
  h.comm = st.comm;
  h.start_ticks = st.start_ticks;
  h.start_ns = start_time_ns(btime_s, st.start_ticks, ticks);
  h.partial = !p.what.empty();
  // A command line over the cap keeps its first MiB: more than any terminal shows.
  const TreeFile cmdline = read_tree_file(p.dir_fd, "cmdline", kSmallFileCap);
  if (p.usable(cmdline, "cmdline", kSmallFileCap) || cmdline.cut) h.argv = split_cmdline(cmdline.text);
  const TreeFile cgroup = read_tree_file(p.dir_fd, "cgroup", kSmallFileCap);
  if (p.usable(cgroup, "cgroup", kSmallFileCap)) {
    CgroupInfo cg = parse_cgroup(cgroup.text);
    h.cgroup = std::move(cg.path);
    h.container =
        ContainerInfo{std::move(cg.runtime), std::move(cg.container), std::move(cg.pod_uid), std::move(cg.slurm_job)};
  }
  for (auto& [path, use] : p.found) h.devices.push_back(std::move(use));
  std::sort(h.devices.begin(), h.devices.end(), [](const DeviceUse& a, const DeviceUse& b) {
    return std::tie(a.kind, a.gpu, a.path) < std::tie(b.kind, b.gpu, b.path);
  });
  return h;
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
  const std::string stat_path = tree_path(root_dir, "proc/stat");
  const TreeFile stat_file = read_tree_file(AT_FDCWD, stat_path, kLargeFileCap);
  const auto btime = stat_file.ok() ? parse_btime(stat_file.text) : std::nullopt;
  if (!btime)
    return make_error(
        ErrorKind::io,
        fmt::format("{}: {}", stat_path, stat_file.ok() ? "no btime line (boot time)" : stat_file.reason()),
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
