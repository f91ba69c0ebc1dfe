// `gpucost procs`: the processes that hold NVIDIA device files open or mapped (docs/procs.md).
// A Scanner walks <root>/proc/[0-9]*: the links of fd/ and the pathnames of maps name the device
// files; stat, status, cmdline and cgroup say who the process is, since when, and in which
// container or Slurm job. Processes vanish while they are read: such a race is counted, never an
// error; a process whose fd/ or maps cannot be read (another user's, without root) is listed as
// unreadable, never silently left out.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/procs/proc_files.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpucost::procs {

struct ScanOptions {
  /// The root of the tree read: <root>/proc, <root>/sys/class/drm and, when it is not "/",
  /// <root>/etc/passwd for user names. "/" is this machine.
  std::string root = "/";
  /// RE2 patterns (unanchored) of more paths to count as device handles.
  std::vector<std::string> device_patterns;
};

/// One device file a process holds.
struct DeviceUse {
  std::string path;  ///< as the fd link or the maps line names it
  DeviceKind kind = DeviceKind::pattern;
  int gpu = -1;                    ///< N of /dev/nvidiaN (the device's minor number), else -1
  std::string pci;                 ///< DRM nodes: the card's PCI address (sysfs), else empty
  int fds = 0;                     ///< open file descriptors on it
  int mappings = 0;                ///< lines of maps naming it
  std::uint64_t mapped_bytes = 0;  ///< virtual address space those mappings span, bytes
  bool deleted = false;            ///< a link or mapping said " (deleted)"
  bool by_pattern = false;         ///< found through --device-pattern
};

struct ContainerInfo {
  std::string runtime, id, pod_uid, slurm_job;
};

/// A process holding at least one device file.
struct Holder {
  int pid = 0, ppid = 0;
  int ns_pid = -1;                   ///< its pid inside its container's pid namespace, when different
  std::optional<std::uint32_t> uid;  ///< effective uid; none when status could not be read
  std::string user;                  ///< the uid's name, empty when it cannot be resolved
  std::string comm;                  ///< stat's name (15 characters at most)
  std::vector<std::string> argv;     ///< cmdline; empty for a zombie
  std::uint64_t start_ticks = 0;     ///< stat field 22
  std::int64_t start_ns = 0;         ///< btime + start_ticks / USER_HZ, ns since the epoch
  std::string cgroup;
  ContainerInfo container;
  std::vector<DeviceUse> devices;  ///< in order of kind, then path
  bool partial = false;            ///< fd/ or maps could not be read: it may hold more

  /// The command line joined by spaces, or "[comm]" (as ps shows) when it has none.
  [[nodiscard]] std::string command() const;
  /// The GPUs (N of /dev/nvidiaN) it holds, ascending.
  [[nodiscard]] std::vector<int> gpus() const;
};

/// A process whose fd/ or maps could not be read.
struct Unreadable {
  int pid = 0;
  std::optional<std::uint32_t> uid;
  std::string user, comm;
  std::string what;    ///< "fd", "maps" or "fd, maps"
  std::string reason;  ///< strerror of the first failure ("Permission denied")
};

/// A file of the tree left unread for what it is: not a regular file (a FIFO, a device, a symbolic
/// link, never followed) or larger than its cap. A real /proc has none: a planted tree does.
struct Refused {
  int pid = 0;
  std::string file;    ///< "maps", "cmdline", ...
  std::string reason;  ///< "a symbolic link (not followed)", "a FIFO, not a regular file", ...
};

struct ScanResult {
  std::string root;
  std::int64_t boot_ns = 0;  ///< btime of <root>/proc/stat
  long ticks_per_second = 100;
  int processes = 0;                   ///< numeric entries of <root>/proc seen
  int kernel_threads = 0;              ///< passed by: they hold no files of user space
  int vanished = 0;                    ///< gone between the listing and the reading of their files
  std::vector<Holder> holders;         ///< ascending pid
  std::vector<Unreadable> unreadable;  ///< ascending pid
  std::vector<Refused> refused;        ///< ascending pid; a refused maps or stat is also unreadable
  std::map<int, int> parents;          ///< pid → parent pid of every process read
  /// Whether `pid` is `ancestor` or one of its descendants (through `parents`).
  [[nodiscard]] bool descends_from(int pid, int ancestor) const;
};

/// Scans a tree again and again with the same options (record scans every sampling cycle): the
/// patterns are compiled, the boot time and the tree's users read once.
class Scanner {
 public:
  /// Errors: a pattern RE2 refuses, a root without proc/ (or one that is a /proc itself: give
  /// its parent), no btime in <root>/proc/stat.
  static Expected<Scanner> create(const ScanOptions& options);
  ~Scanner();
  Scanner(Scanner&&) noexcept;
  Scanner& operator=(Scanner&&) noexcept;
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  /// One pass over <root>/proc. Fails only when <root>/proc cannot be listed.
  [[nodiscard]] Expected<ScanResult> scan() const;

 private:
  struct Impl;
  explicit Scanner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace gpucost::procs
