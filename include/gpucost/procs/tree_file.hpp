// Reading one file of a process tree that gpucost does not trust: --proc-root's planted tree, or
// the /proc entries of another user's process, read as root. A file is opened without following a
// symbolic link and without blocking, read only when it is a regular file (as every file of /proc
// and sysfs is), and only up to a cap (/proc's files report size 0: read to the end or the cap).
#pragma once

#include <cstddef>
#include <string>

namespace gpucost::procs {

/// stat, status, cmdline, cgroup, sysfs attributes: a few kB in a real /proc (argv: 2 MiB at most).
inline constexpr std::size_t kSmallFileCap = std::size_t{1} << 20;
/// maps: about 100 bytes a mapping; 64 MiB holds the 262,144 mappings some databases are allowed.
inline constexpr std::size_t kMapsCap = std::size_t{64} << 20;
/// A tree's etc/passwd, /proc/stat (a line per CPU and a long one of interrupt counts).
inline constexpr std::size_t kLargeFileCap = std::size_t{16} << 20;

/// What reading one file gave.
struct TreeFile {
  int err = 0;          ///< errno of open or read (ENOENT: the process ended); 0 otherwise
  std::string refused;  ///< why it was not read, when it is no regular file ("a FIFO, not a regular file")
  bool cut = false;     ///< larger than the cap: `text` holds its first `cap` bytes
  std::string text;
  [[nodiscard]] bool ok() const { return err == 0 && refused.empty(); }
  /// err's text or `refused`, for a message ("Permission denied", "a symbolic link (not followed)").
  [[nodiscard]] std::string reason() const;
};

/// Reads `name`, relative to the directory `dir_fd` (AT_FDCWD: the working directory), with
/// O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, after fstat says it is a regular file.
TreeFile read_tree_file(int dir_fd, const std::string& name, std::size_t cap);

/// "1 MiB", "64 MiB": a cap as messages say it.
std::string cap_text(std::size_t cap);

}  // namespace gpucost::procs
