// The spill file: an unlinked temporary file that extract's stores append sorted runs to.
#include <gpucost/extract/spill.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace gpucost::extract {

namespace {

/// Repeats `io(done)`, a pread or pwrite of what is left from `done` on, until all `bytes` have
/// moved (EINTR retried). False when a call fails: `failed` is its result (-1: errno says why; 0:
/// nothing moved).
template <class Io>
bool move_all(std::size_t bytes, Io&& io, ssize_t& failed) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = io(done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failed = n;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

SpillFile::~SpillFile() {
  if (m_fd >= 0) ::close(m_fd);
}

void SpillFile::fail(std::string message) const {
  const std::lock_guard<std::mutex> lock(m_fail_mutex);  // the walks of -j read at once
  if (m_status) m_status = make_error(ErrorKind::io, std::move(message), "set TMPDIR to a file system with room");
}

std::int64_t SpillFile::append(const void* data, std::size_t bytes) {
  if (!m_status) return -1;  // failed before: the caller keeps its records in memory
  if (m_fd < 0) {
    const char* dir = std::getenv("TMPDIR");
    m_path = fmt::format("{}/gpucost-extract-XXXXXX", dir != nullptr && *dir != '\0' ? dir : "/tmp");
    m_fd = ::mkstemp(m_path.data());
    if (m_fd < 0) {
      fail(fmt::format("extract: cannot create a temporary file {}: {}", m_path, std::strerror(errno)));
      return -1;
    }
    ::unlink(m_path.c_str());  // gone when the process ends, whatever the way
  }
  const auto* bytes_in = static_cast<const char*>(data);
  const auto write_from = [&](std::size_t done) {
    return ::pwrite(m_fd, bytes_in + done, bytes - done, static_cast<off_t>(m_size + static_cast<std::int64_t>(done)));
  };
  if (ssize_t n = 0; !move_all(bytes, write_from, n)) {
    fail(fmt::format("extract: cannot write the temporary file {}: {}", m_path,
                     n < 0 ? std::strerror(errno) : "no space left"));
    return -1;
  }
  const std::int64_t at = m_size;
  m_size += static_cast<std::int64_t>(bytes);
  return at;
}

bool SpillFile::read_at(std::int64_t offset, void* into, std::size_t bytes) const {
  auto* out = static_cast<char*>(into);
  const auto read_from = [&](std::size_t done) {
    return ::pread(m_fd, out + done, bytes - done, static_cast<off_t>(offset + static_cast<std::int64_t>(done)));
  };
  if (ssize_t n = 0; !move_all(bytes, read_from, n)) {
    fail(fmt::format("extract: cannot read back the temporary file {}", m_path));
    return false;
  }
  return true;
}

}  // namespace gpucost::extract
