// Reading a file of an untrusted process tree (tree_file.hpp).
#include <gpucost/procs/tree_file.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gpucost::procs {

namespace {

std::string not_regular(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device, not a regular file";
  if (S_ISSOCK(mode)) return "a socket, not a regular file";
  if (S_ISDIR(mode)) return "a directory, not a regular file";
  return "not a regular file";
}

/// Reads `fd` to its end or `cap` bytes; a byte past the cap says it was cut.
int read_capped(int fd, std::size_t cap, TreeFile& out) {
  char buf[16384];
  for (;;) {
    const std::size_t want = std::min(sizeof buf, cap + 1 - out.text.size());
    const ssize_t got = ::read(fd, buf, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno;
    if (got == 0) return 0;
    out.text.append(buf, static_cast<std::size_t>(got));
    if (out.text.size() > cap) {
      out.text.resize(cap);
      out.cut = true;
      return 0;
    }
  }
}

}  // namespace

std::string TreeFile::reason() const {
  if (!refused.empty()) return refused;
  return err != 0 ? std::string(std::strerror(err)) : std::string();
}

std::string cap_text(std::size_t cap) { return fmt::format("{} MiB", cap >> 20); }

TreeFile read_tree_file(int dir_fd, const std::string& name, std::size_t cap) {
  TreeFile f;
  // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
  const int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP)
      f.refused = "a symbolic link (not followed)";
    else
      f.err = errno;
    return f;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    f.err = errno;
  else if (!S_ISREG(st.st_mode))
    f.refused = not_regular(st.st_mode);
  else
    f.err = read_capped(fd, cap, f);
  ::close(fd);
  if (!f.ok()) f.text.clear();
  return f;
}

}  // namespace gpucost::procs
