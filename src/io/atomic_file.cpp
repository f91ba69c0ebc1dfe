#include <gpucost/io/atomic_file.hpp>

#include <fmt/format.h>

#include <gpucost/core/text.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace gpucost::io {

namespace {

// The process's umask: reading it means setting it, so it is set straight back.
mode_t current_umask() {
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

}  // namespace

std::string write_failure_hint(int err) {
  switch (err) {
    case EBADF: return "stdout is closed: redirect it (> FILE) or give -o FILE";
    case ENOSPC:
    case EDQUOT: return "check the free space (and quota) of the output's disk";
    case EFBIG: return "the output reached the file-size limit (ulimit -f)";
    case EPIPE: return "the reader of the pipe went away";
    default: return "check the output's disk and path";
  }
}

namespace {

// "/dev/fd/3" -> 3: names of this process's own descriptors (a shell's >(...) or 3>file).
std::optional<int> own_descriptor(std::string_view path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const std::string_view dir : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/")}) {
    if (path.substr(0, dir.size()) != dir) continue;
    const auto n = text::parse_int(path.substr(dir.size()));
    if (n && *n >= 0 && *n < 1 << 20) return static_cast<int>(*n);
  }
  return std::nullopt;
}

Error not_regular_error(const std::string& path, mode_t mode) {
  return make_error(ErrorKind::io, fmt::format("{}: is {}, not a regular file: not written", path, file_kind(mode)),
                    "remove it or give another name (- writes to stdout)");
}

// What is at an output's name (lstat, in `st`): nothing, a regular file or a link (replaced by the
// rename), /dev/null; anything else is an error. One look serves the check and the open.
Status look_at_target(const std::string& path, struct stat& st, bool& exists) {
  exists = ::lstat(path.c_str(), &st) == 0;
  if (!exists || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) return {};
  if (S_ISDIR(st.st_mode))
    return make_error(ErrorKind::io, fmt::format("{}: is a directory", path), "give a file name for -o");
  if (S_ISCHR(st.st_mode) && path == "/dev/null") return {};
  return not_regular_error(path, st.st_mode);
}

}  // namespace

std::string_view file_kind(unsigned mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISDIR(mode)) return "a directory";
  return "a special file";
}

int read_capped(int fd, std::size_t cap, std::string& out, bool& cut) {
  char buf[64 * 1024];
  const std::size_t start = out.size();
  for (;;) {
    const std::size_t want = std::min(sizeof buf, cap + 1 - (out.size() - start));  // one byte past says "cut"
    const ssize_t got = ::read(fd, buf, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno;
    if (got == 0) return 0;
    out.append(buf, static_cast<std::size_t>(got));
    if (out.size() - start > cap) {
      out.resize(start + cap);
      cut = true;
      return 0;
    }
  }
}

unsigned chosen_file_mode(const WriteOptions& options, std::optional<unsigned> replaced_mode, bool replaced_is_ours) {
  if (options.mode) return *options.mode & 0777u;
  if (replaced_mode && replaced_is_ours && options.readers == Readers::shared) return *replaced_mode & 0777u;
  const unsigned base = options.readers == Readers::private_ ? 0600u : 0644u;
  return base & ~static_cast<unsigned>(current_umask());
}

Status check_output_target(const std::string& path) {
  if (path.empty() || path == "-" || own_descriptor(path)) return {};
  struct stat st {};
  bool exists = false;
  return look_at_target(path, st, exists);
}

Expected<OutputFile> OutputFile::open(const std::string& path, const WriteOptions& options) {
  OutputFile f;
  if (path.empty() || path == "-" || path == "/dev/stdout") {
    f.m_file = stdout;
    return f;
  }
  f.m_stdout = false;
  f.m_path = path;
  if (const auto fd = own_descriptor(path)) {
    const int copy = ::fcntl(*fd, F_DUPFD_CLOEXEC, 3);
    f.m_file = copy >= 0 ? ::fdopen(copy, "wb") : nullptr;
    if (f.m_file == nullptr)
      return make_error(ErrorKind::io, fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    f.m_direct = true;
    return f;
  }
  struct stat st {};
  bool exists = false;
  if (auto ok = look_at_target(path, st, exists); !ok) return ok.error();
  if (exists && S_ISCHR(st.st_mode)) {  // /dev/null: look_at_target refuses every other device
    f.m_file = std::fopen("/dev/null", "wbe");
    if (f.m_file == nullptr)
      return make_error(ErrorKind::io, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    f.m_direct = true;
    return f;
  }
  // A link at the name is replaced by the rename, never written through.
  const bool replacing = exists && S_ISREG(st.st_mode);
  std::string tmpl = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);  // O_CREAT|O_EXCL, mode 0600 until chosen
  if (fd < 0)
    return make_error(ErrorKind::io, fmt::format("{}: cannot create the output: {}", path, std::strerror(errno)),
                      "check that the directory exists and is writable");
  f.m_tmp = tmpl;
  const auto replaced_mode = replacing ? std::optional<unsigned>(st.st_mode & 07777) : std::nullopt;
  (void)::fchmod(fd,
                 static_cast<mode_t>(chosen_file_mode(options, replaced_mode, replacing && st.st_uid == ::geteuid())));
  f.m_file = ::fdopen(fd, "wb");
  if (options.live) {
    if (::rename(f.m_tmp.c_str(), path.c_str()) != 0)
      return make_error(ErrorKind::io, fmt::format("{}: cannot create the output: {}", path, std::strerror(errno)));
    f.m_tmp.clear();
    f.m_direct = true;  // already in place: commit() only flushes
  }
  return f;
}

OutputFile::OutputFile(OutputFile&& o) noexcept
    : m_file(o.m_file),
      m_path(std::move(o.m_path)),
      m_tmp(std::move(o.m_tmp)),
      m_stdout(o.m_stdout),
      m_direct(o.m_direct) {
  o.m_file = nullptr;
  o.m_tmp.clear();
}

OutputFile::~OutputFile() {
  if (!m_stdout && m_file != nullptr) std::fclose(m_file);
  if (!m_tmp.empty()) ::unlink(m_tmp.c_str());
}

Status OutputFile::commit() {
  if (m_stdout) {
    if (std::fflush(stdout) != 0 && errno != EPIPE) {
      const int err = errno;
      return make_error(ErrorKind::io, fmt::format("stdout: write failed: {}", std::strerror(err)),
                        write_failure_hint(err));
    }
    return {};
  }
  // fsync makes the rename safe; a device or pipe written in place has nothing to sync.
  const bool write_ok =
      std::fflush(m_file) == 0 && std::ferror(m_file) == 0 && (m_direct || ::fsync(::fileno(m_file)) == 0);
  const int err = errno;
  const bool close_ok = std::fclose(m_file) == 0;
  m_file = nullptr;
  if (!write_ok || !close_ok)
    return make_error(ErrorKind::io, fmt::format("{}: write failed: {}", m_path, std::strerror(err)),
                      write_failure_hint(err) + "; the previous file (if any) was left untouched");
  if (m_direct) return {};
  if (::rename(m_tmp.c_str(), m_path.c_str()) != 0)
    return make_error(ErrorKind::io,
                      fmt::format("{}: cannot rename the output into place: {}", m_path, std::strerror(errno)));
  m_tmp.clear();
  return {};
}

std::optional<unsigned> parse_file_mode(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'o' || text[1] == 'O')) text.remove_prefix(2);
  if (text.empty() || text.size() > 4) return std::nullopt;
  unsigned mode = 0;
  for (const char c : text) {
    if (c < '0' || c > '7') return std::nullopt;
    mode = mode * 8 + static_cast<unsigned>(c - '0');
  }
  if (mode > 0777) return std::nullopt;
  return mode;
}

Status write_file_atomically(const std::string& path, std::string_view text, const WriteOptions& options) {
  auto out = OutputFile::open(path, options);
  if (!out) return out.error();
  std::fwrite(text.data(), 1, text.size(), out->stream());
  return out->commit();
}

Expected<int> open_own_file(const std::string& path, bool append, Readers readers) {
  // O_NONBLOCK: a FIFO put there cannot hang the open; it is refused just below.
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
  const int fd = ::open(path.c_str(), flags, readers == Readers::private_ ? 0600 : 0644);
  if (fd < 0) {
    const int err = errno;
    return make_error(ErrorKind::io, fmt::format("{}: cannot write: {}", path,
                                                 err == ELOOP ? "it is a symbolic link" : std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return not_regular_error(path, st.st_mode);
  }
  (void)::fcntl(fd, F_SETFL, append ? O_APPEND : 0);  // blocking again
  return fd;
}

Expected<std::string> read_regular_file(const std::string& path, std::size_t max_bytes, std::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return make_error(ErrorKind::io, fmt::format("{}: cannot open: {}", path, std::strerror(errno)),
                      fmt::format("check the {} path", what));
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  if (!stat_ok || !S_ISREG(st.st_mode)) {
    ::close(fd);
    if (stat_ok && S_ISDIR(st.st_mode))
      return make_error(ErrorKind::io, fmt::format("{}: is a directory", path), fmt::format("give the {} file", what));
    return make_error(ErrorKind::io,
                      fmt::format("{}: is {}, not a regular file: not read", path, file_kind(st.st_mode)),
                      fmt::format("give the {} as a regular file", what));
  }
  std::string text;
  bool cut = false;
  const int err = read_capped(fd, max_bytes, text, cut);
  ::close(fd);
  if (err != 0) return make_error(ErrorKind::io, fmt::format("{}: read error: {}", path, std::strerror(err)));
  if (cut)
    return make_error(ErrorKind::io, fmt::format("{}: larger than {} bytes: not read", path, max_bytes),
                      fmt::format("is this the {}?", what));
  return text;
}

}  // namespace gpucost::io
