#include <gpucost/io/atomic_file.hpp>

#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>
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

Expected<OutputFile> OutputFile::open(const std::string& path, std::optional<unsigned> mode) {
  OutputFile f;
  if (path.empty() || path == "-") {
    f.m_file = stdout;
    return f;
  }
  f.m_stdout = false;
  f.m_path = path;
  // A device, FIFO or socket (/dev/null, /dev/stdout, a named pipe) is written in place:
  // renaming a temporary file over it would replace the device with a regular file.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode))
      return make_error(ErrorKind::io, fmt::format("{}: is a directory", path), "give a file name for -o");
    f.m_file = std::fopen(path.c_str(), "wb");
    if (f.m_file == nullptr)
      return make_error(ErrorKind::io, fmt::format("{}: cannot open the output: {}", path, std::strerror(errno)));
    f.m_direct = true;
    return f;
  }
  std::string tmpl = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0)
    return make_error(ErrorKind::io, fmt::format("{}: cannot create the output: {}", path, std::strerror(errno)),
                      "check that the directory exists and is writable");
  f.m_tmp = tmpl;
  // mkstemp creates 0600; the output gets the mode a plain open() would give it (0666 less the
  // umask: 0644 under 022, so node_exporter's own user can read a textfile), or the mode of the
  // file it replaces.
  const bool replacing = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const mode_t chosen = mode        ? static_cast<mode_t>(*mode)
                        : replacing ? (st.st_mode & 07777)
                                    : (0666 & ~current_umask());
  (void)::fchmod(fd, chosen);
  f.m_file = ::fdopen(fd, "wb");
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

Status write_file_atomically(const std::string& path, std::string_view text, std::optional<unsigned> mode) {
  auto out = OutputFile::open(path, mode);
  if (!out) return out.error();
  std::fwrite(text.data(), 1, text.size(), out->stream());
  return out->commit();
}

}  // namespace gpucost::io
