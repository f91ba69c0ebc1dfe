// Reading a file of an untrusted process tree (tree_file.hpp).
#include <gpucost/procs/tree_file.hpp>

#include <gpucost/io/atomic_file.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace gpucost::procs {

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
    f.refused = fmt::format("{}, not a regular file", io::file_kind(st.st_mode));
  else
    f.err = io::read_capped(fd, cap, f.text, f.cut);
  ::close(fd);
  if (!f.ok()) f.text.clear();
  return f;
}

}  // namespace gpucost::procs
