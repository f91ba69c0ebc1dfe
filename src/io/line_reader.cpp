#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>
#include <zlib.h>
#include <zstd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace gpucost::io {

std::string_view to_string(Compression c) {
  switch (c) {
    case Compression::gzip: return "gzip";
    case Compression::zstd: return "zstd";
    case Compression::none: break;
  }
  return "none";
}

bool read_once(const std::string& path) {
  if (path == "-") return true;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;  // missing: the open reports it
  return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

Status check_stdin_open() {
  // A closed stdin (`gpucost prep - <&-`) would read as an empty stream: say so rather than print nothing.
  if (::fcntl(STDIN_FILENO, F_GETFD) < 0 && errno == EBADF)
    return make_error(ErrorKind::io, "<stdin>: standard input is closed",
                      "pipe the logs in (... | gpucost prep -) or give their files");
  return {};
}

namespace {

/// Raw bytes of a file descriptor, starting with bytes already read for magic detection.
class FdSource final : public ByteSource {
 public:
  FdSource(int fd, bool owned, std::string prefix) : m_fd(fd), m_owned(owned), m_prefix(std::move(prefix)) {
    // A regular file (also stdin redirected from one): where its stream began, for direct reads.
    struct stat st {};
    if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    const off_t at = ::lseek(m_fd, 0, SEEK_CUR);
    if (at < 0 || static_cast<std::uint64_t>(at) < m_prefix.size()) return;
    m_file_start = static_cast<std::uint64_t>(at) - m_prefix.size();
    m_regular = true;
  }
  ~FdSource() override {
    if (m_owned) ::close(m_fd);
  }
  FdSource(const FdSource&) = delete;
  FdSource& operator=(const FdSource&) = delete;

  std::size_t read(char* buf, std::size_t n) override {
    if (m_prefix_pos < m_prefix.size()) {
      const std::size_t k = std::min(n, m_prefix.size() - m_prefix_pos);
      std::memcpy(buf, m_prefix.data() + m_prefix_pos, k);
      m_prefix_pos += k;
      return k;
    }
    for (;;) {
      const ssize_t got = ::read(m_fd, buf, n);
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno == EINTR) continue;
      m_error = fmt::format("read error: {}", std::strerror(errno));
      return 0;
    }
  }

  [[nodiscard]] std::optional<DirectFile> direct_file() const override {
    struct stat st {};
    if (!m_regular || ::fstat(m_fd, &st) != 0) return std::nullopt;
    const auto size = static_cast<std::uint64_t>(st.st_size);
    return DirectFile{m_fd, m_file_start, size > m_file_start ? size - m_file_start : 0};
  }

  bool seek(std::uint64_t offset) override {
    if (!m_regular || ::lseek(m_fd, static_cast<off_t>(m_file_start + offset), SEEK_SET) < 0) return false;
    m_prefix_pos = m_prefix.size();
    return true;
  }

 private:
  int m_fd;
  bool m_owned;
  std::string m_prefix;
  std::size_t m_prefix_pos = 0;
  bool m_regular = false;          // a regular file: direct_file() and seek() work
  std::uint64_t m_file_start = 0;  // its offset where the stream began
};

constexpr std::size_t kInBytes = 256u << 10;

/// gzip (and concatenated gzip members, as `cat a.gz b.gz` or some log rotators write).
class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> raw) : m_raw(std::move(raw)), m_in(new unsigned char[kInBytes]) {
    std::memset(&m_z, 0, sizeof m_z);
    m_ok = inflateInit2(&m_z, 15 + 16) == Z_OK;
    if (!m_ok) m_error = "cannot initialise zlib";
  }
  ~GzipSource() override { inflateEnd(&m_z); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  std::size_t read(char* buf, std::size_t n) override {
    if (!m_ok || m_done) return 0;
    m_z.next_out = reinterpret_cast<unsigned char*>(buf);
    m_z.avail_out = static_cast<uInt>(n);
    while (m_z.avail_out == n) {
      if (m_z.avail_in == 0 && !m_in_eof) {
        const std::size_t got = m_raw->read(reinterpret_cast<char*>(m_in.get()), kInBytes);
        if (got == 0) {
          m_in_eof = true;
          if (!m_raw->error().empty()) m_error = m_raw->error();
        }
        m_z.next_in = m_in.get();
        m_z.avail_in = static_cast<uInt>(got);
      }
      const int rc = inflate(&m_z, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        m_member_open = false;
        if (m_z.avail_in == 0 && !m_in_eof) {  // look for another member
          const std::size_t got = m_raw->read(reinterpret_cast<char*>(m_in.get()), kInBytes);
          m_z.next_in = m_in.get();
          m_z.avail_in = static_cast<uInt>(got);
          if (got == 0) m_in_eof = true;
        }
        if (m_z.avail_in == 0) {
          m_done = true;
          break;
        }
        inflateReset(&m_z);
        m_member_open = true;
        continue;
      }
      m_member_open = true;
      if (rc == Z_BUF_ERROR && m_in_eof && m_z.avail_in == 0) {
        if (m_error.empty()) m_error = "truncated gzip stream (the archive ends mid-way)";
        m_done = true;
        break;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        m_error = fmt::format("corrupt gzip data ({})", m_z.msg != nullptr ? m_z.msg : "inflate failed");
        m_done = true;
        break;
      }
    }
    return n - m_z.avail_out;
  }

 private:
  std::unique_ptr<ByteSource> m_raw;
  std::unique_ptr<unsigned char[]> m_in;
  z_stream m_z{};
  bool m_ok = false, m_done = false, m_in_eof = false, m_member_open = true;
};

class ZstdSource final : public ByteSource {
 public:
  explicit ZstdSource(std::unique_ptr<ByteSource> raw)
      : m_raw(std::move(raw)), m_in(new char[kInBytes]), m_ctx(ZSTD_createDCtx()) {}
  ~ZstdSource() override { ZSTD_freeDCtx(m_ctx); }
  ZstdSource(const ZstdSource&) = delete;
  ZstdSource& operator=(const ZstdSource&) = delete;

  std::size_t read(char* buf, std::size_t n) override {
    if (m_done) return 0;
    ZSTD_outBuffer out{buf, n, 0};
    while (out.pos == 0) {
      if (m_inb.pos == m_inb.size) {
        const std::size_t got = m_raw->read(m_in.get(), kInBytes);
        if (got == 0) {
          if (!m_raw->error().empty())
            m_error = m_raw->error();
          else if (m_last != 0)
            m_error = "truncated zstd stream (the archive ends mid-frame)";
          m_done = true;
          break;
        }
        m_inb = ZSTD_inBuffer{m_in.get(), got, 0};
      }
      m_last = ZSTD_decompressStream(m_ctx, &out, &m_inb);
      if (ZSTD_isError(m_last) != 0) {
        m_error = fmt::format("corrupt zstd data ({})", ZSTD_getErrorName(m_last));
        m_done = true;
        break;
      }
    }
    return out.pos;
  }

 private:
  std::unique_ptr<ByteSource> m_raw;
  std::unique_ptr<char[]> m_in;
  ZSTD_DCtx* m_ctx;
  ZSTD_inBuffer m_inb{nullptr, 0, 0};
  std::size_t m_last = 0;
  bool m_done = false;
};

/// Decompression on a thread of its own (-j 2 and more): the decompressor fills blocks ahead
/// while the caller parses the previous ones. It reads exactly the bytes the decompressor gives,
/// in order, and ends with its error, so the lines are those of a reader without it.
class PrefetchSource final : public ByteSource {
 public:
  explicit PrefetchSource(std::unique_ptr<ByteSource> inner) : m_inner(std::move(inner)) {}
  ~PrefetchSource() override {
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      m_stop = true;
    }
    m_changed.notify_all();
    if (m_worker.joinable()) m_worker.join();
  }
  PrefetchSource(const PrefetchSource&) = delete;
  PrefetchSource& operator=(const PrefetchSource&) = delete;

  std::size_t read(char* buf, std::size_t n) override {
    if (!m_worker.joinable()) m_worker = std::thread([this] { decompress(); });  // not before the first read
    if (m_pos == m_reading.size && !next_block()) return 0;
    const std::size_t k = std::min(n, m_reading.size - m_pos);
    std::memcpy(buf, m_reading.data.get() + m_pos, k);
    m_pos += k;
    return k;
  }

 private:
  static constexpr std::size_t kBlock = 1u << 20;
  static constexpr std::size_t kAhead = 3;  // blocks decompressed ahead of the reader
  struct Block {
    std::unique_ptr<char[]> data;
    std::size_t size = 0;
  };

  // The caller's side: hands the block read back and takes the next full one; false at the end.
  bool next_block() {
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_reading.data) m_free.push_back(std::move(m_reading));
    m_reading = Block();
    m_pos = 0;
    m_changed.notify_all();
    m_changed.wait(lock, [&] { return !m_full.empty() || m_done; });
    if (m_full.empty()) {
      m_error = m_inner_error;
      return false;
    }
    m_reading = std::move(m_full.front());
    m_full.pop_front();
    return true;
  }

  // The worker's side: fills free blocks until the decompressor ends or the reader is gone.
  void decompress() {
    for (std::size_t made = 0;;) {
      Block b;
      {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_changed.wait(lock, [&] { return m_stop || !m_free.empty() || made < kAhead; });
        if (m_stop) return;
        if (!m_free.empty()) {
          b = std::move(m_free.back());
          m_free.pop_back();
        }
      }
      if (!b.data) {
        b.data = std::make_unique_for_overwrite<char[]>(kBlock);
        ++made;
      }
      b.size = 0;
      while (b.size < kBlock) {
        const std::size_t got = m_inner->read(b.data.get() + b.size, kBlock - b.size);
        if (got == 0) break;
        b.size += got;
      }
      const bool last = b.size < kBlock;  // the end, or an error: the decompressor gives nothing more
      const std::lock_guard<std::mutex> lock(m_mutex);
      if (b.size > 0) m_full.push_back(std::move(b));
      if (last) {
        m_inner_error = m_inner->error();
        m_done = true;
      }
      m_changed.notify_all();
      if (m_done) return;
    }
  }

  std::unique_ptr<ByteSource> m_inner;
  std::thread m_worker;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<Block> m_full;
  std::vector<Block> m_free;
  Block m_reading;  // the caller's
  std::size_t m_pos = 0;
  std::string m_inner_error;
  bool m_done = false, m_stop = false;
};

class StringSource final : public ByteSource {
 public:
  explicit StringSource(std::string s) : m_s(std::move(s)) {}
  std::size_t read(char* buf, std::size_t n) override {
    const std::size_t k = std::min(n, m_s.size() - m_pos);
    std::memcpy(buf, m_s.data() + m_pos, k);
    m_pos += k;
    return k;
  }

 private:
  std::string m_s;
  std::size_t m_pos = 0;
};

/// Text in another encoding than UTF-8, decoded on the fly so that every reader sees UTF-8: a
/// UTF-8 byte-order mark is dropped, and UTF-16 with a byte-order mark (what Windows PowerShell
/// 5.1 writes for `nvidia-smi ... > log.csv`) becomes UTF-8. An unpaired surrogate becomes
/// U+FFFD; an odd last byte is reported as a cut input, like a truncated archive.
class TextSource final : public ByteSource {
 public:
  explicit TextSource(std::unique_ptr<ByteSource> inner) : m_inner(std::move(inner)) {}

  std::size_t read(char* buf, std::size_t n) override {
    if (!m_started) start();
    return m_mode == Mode::utf8 ? pass(buf, n) : decode(buf, n);
  }

  // UTF-8 passed on as it is, past the byte-order mark (if any): the file's bytes are the text's.
  [[nodiscard]] std::optional<DirectFile> direct_file() const override {
    if (!m_started || m_mode != Mode::utf8 || m_head_pos < m_head_len) return std::nullopt;
    auto file = m_inner->direct_file();
    if (file) {
      file->offset += m_dropped;
      file->size -= std::min<std::uint64_t>(file->size, m_dropped);
    }
    return file;
  }
  bool seek(std::uint64_t offset) override {
    return m_started && m_mode == Mode::utf8 && m_head_pos >= m_head_len && m_inner->seek(offset + m_dropped);
  }

 private:
  enum class Mode { utf8, utf16le, utf16be };
  static constexpr std::size_t kRawBytes = 64u << 10;

  void start() {
    m_started = true;
    while (m_head_len < 3) {
      const std::size_t k = m_inner->read(m_head + m_head_len, 3 - m_head_len);
      if (k == 0) break;
      m_head_len += k;
    }
    const auto at = [&](std::size_t i) { return i < m_head_len ? static_cast<unsigned char>(m_head[i]) : 0u; };
    if (m_head_len == 3 && at(0) == 0xEF && at(1) == 0xBB && at(2) == 0xBF) {
      m_head_pos = 3;
      m_dropped = 3;
    } else if (m_head_len >= 2 && at(0) == 0xFF && at(1) == 0xFE) {
      m_mode = Mode::utf16le;
    } else if (m_head_len >= 2 && at(0) == 0xFE && at(1) == 0xFF) {
      m_mode = Mode::utf16be;
    }
    if (m_mode != Mode::utf8) {  // the byte after the mark is the first of the text
      m_raw.resize(kRawBytes);
      for (std::size_t i = 2; i < m_head_len; ++i) m_raw[m_raw_len++] = static_cast<unsigned char>(m_head[i]);
      m_head_pos = m_head_len;
    }
  }

  std::size_t pass(char* buf, std::size_t n) {
    if (m_head_pos < m_head_len) {
      const std::size_t k = std::min(n, m_head_len - m_head_pos);
      std::memcpy(buf, m_head + m_head_pos, k);
      m_head_pos += k;
      return k;
    }
    const std::size_t k = m_inner->read(buf, n);
    if (k == 0) m_error = m_inner->error();
    return k;
  }

  /// The next UTF-16 code unit, or -1 at the end of the input.
  long next_unit() {
    if (m_raw_len - m_raw_pos < 2) {
      const std::size_t left = m_raw_len - m_raw_pos;  // 0 or 1
      if (left == 1) m_raw[0] = m_raw[m_raw_pos];
      m_raw_pos = 0;
      m_raw_len = left;
      while (!m_inner_done && m_raw_len < 2) {
        const std::size_t k = m_inner->read(reinterpret_cast<char*>(m_raw.data()) + m_raw_len, kRawBytes - m_raw_len);
        if (k == 0) {
          m_inner_done = true;
          m_error = m_inner->error();
        }
        m_raw_len += k;
      }
      if (m_raw_len < 2) {
        if (m_raw_len == 1 && m_error.empty())
          m_error = "the UTF-16 text ends in the middle of a character (a cut file?)";
        m_raw_len = 0;
        return -1;
      }
    }
    const unsigned a = m_raw[m_raw_pos], b = m_raw[m_raw_pos + 1];
    m_raw_pos += 2;
    return static_cast<long>(m_mode == Mode::utf16le ? (b << 8 | a) : (a << 8 | b));
  }

  void emit(std::uint32_t cp) {
    char* o = m_carry + m_carry_len;
    if (cp < 0x80) {
      *o++ = static_cast<char>(cp);
    } else if (cp < 0x800) {
      *o++ = static_cast<char>(0xC0 | (cp >> 6));
      *o++ = static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *o++ = static_cast<char>(0xE0 | (cp >> 12));
      *o++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *o++ = static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *o++ = static_cast<char>(0xF0 | (cp >> 18));
      *o++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *o++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *o++ = static_cast<char>(0x80 | (cp & 0x3F));
    }
    m_carry_len = static_cast<std::size_t>(o - m_carry);
  }

  std::size_t decode(char* buf, std::size_t n) {
    std::size_t out = 0;
    for (;;) {
      while (out < n && m_carry_pos < m_carry_len) buf[out++] = m_carry[m_carry_pos++];
      if (out == n) return out;
      m_carry_pos = m_carry_len = 0;
      const long unit = next_unit();
      if (unit < 0) {
        if (m_high != 0) emit(0xFFFD);  // a high surrogate at the very end
        m_high = 0;
        if (m_carry_len == 0) return out;
        continue;
      }
      const auto u = static_cast<std::uint32_t>(unit);
      if (u >= 0xD800 && u <= 0xDBFF) {  // high surrogate: wait for its pair
        if (m_high != 0) emit(0xFFFD);
        m_high = u;
      } else if (u >= 0xDC00 && u <= 0xDFFF) {
        emit(m_high != 0 ? 0x10000 + ((m_high - 0xD800) << 10) + (u - 0xDC00) : 0xFFFD);
        m_high = 0;
      } else {
        if (m_high != 0) emit(0xFFFD);
        m_high = 0;
        emit(u);
      }
    }
  }

  std::unique_ptr<ByteSource> m_inner;
  bool m_started = false, m_inner_done = false;
  Mode m_mode = Mode::utf8;
  char m_head[3] = {};
  std::size_t m_head_len = 0, m_head_pos = 0;
  std::uint64_t m_dropped = 0;       // a UTF-8 byte-order mark taken off the start
  std::vector<unsigned char> m_raw;  // UTF-16 bytes read, not yet decoded
  std::size_t m_raw_pos = 0, m_raw_len = 0;
  char m_carry[8] = {};  // UTF-8 of the last code points, not yet handed out
  std::size_t m_carry_pos = 0, m_carry_len = 0;
  std::uint32_t m_high = 0;  // a high surrogate waiting for its low one
};

bool g_decompress_ahead = false;  // set_decompress_ahead()

}  // namespace

void set_decompress_ahead(bool on) { g_decompress_ahead = on; }

Compression sniff_compression(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b)
    return Compression::gzip;
  if (head.size() >= 4 && static_cast<unsigned char>(head[0]) == 0x28 && static_cast<unsigned char>(head[1]) == 0xb5 &&
      static_cast<unsigned char>(head[2]) == 0x2f && static_cast<unsigned char>(head[3]) == 0xfd)
    return Compression::zstd;
  return Compression::none;
}

Expected<std::unique_ptr<LineReader>> LineReader::open(const std::string& path) {
  int fd = 0;
  std::optional<std::int64_t> mtime;
  const bool is_stdin = path == "-";
  if (!is_stdin) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      std::string hint = err == ENOENT   ? "check the path; globs are expanded, quote them for gpucost to expand"
                         : err == EACCES ? "the file is not readable by this user"
                                         : "";
      return make_error(ErrorKind::io, fmt::format("{}: cannot open: {}", path, std::strerror(err)), hint);
    }
    struct stat st {};
    if (::fstat(fd, &st) == 0)
      mtime = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return make_error(ErrorKind::io, fmt::format("{}: is a directory", path),
                        "pass the files inside it, e.g. 'dir/*.log'");
    }
  }
  if (is_stdin) GPUCOST_TRY(check_stdin_open());
  // Read the magic bytes, then hand them back as the start of the raw stream.
  std::string prefix(4, '\0');
  std::size_t have = 0;
  while (have < 4) {
    const ssize_t got = ::read(fd, prefix.data() + have, 4 - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    have += static_cast<std::size_t>(got);
  }
  prefix.resize(have);
  const Compression c = sniff_compression(prefix);
  std::unique_ptr<ByteSource> src = std::make_unique<FdSource>(fd, !is_stdin, std::move(prefix));
  if (c == Compression::gzip) src = std::make_unique<GzipSource>(std::move(src));
  if (c == Compression::zstd) src = std::make_unique<ZstdSource>(std::move(src));
  if (c != Compression::none && g_decompress_ahead) src = std::make_unique<PrefetchSource>(std::move(src));
  src = std::make_unique<TextSource>(std::move(src));
  auto reader = std::make_unique<LineReader>(std::move(src), c);
  reader->m_mtime_ns = mtime;
  return reader;
}

std::unique_ptr<LineReader> LineReader::from_string(std::string data) {
  // A short string gets a buffer its size, not a whole block: tests and the fuzz targets make
  // many small readers, and a 1 MiB allocation each dominated their time.
  const std::size_t capacity = std::clamp<std::size_t>(data.size() + 1, kMinBufferBytes, kBlockBytes);
  return std::make_unique<LineReader>(std::make_unique<TextSource>(std::make_unique<StringSource>(std::move(data))),
                                      Compression::none, capacity);
}

LineReader::LineReader(std::unique_ptr<ByteSource> src, Compression c, std::size_t capacity)
    : m_src(std::move(src)),
      m_compression(c),
      m_buf(new char[std::max(capacity, kMinBufferBytes)]),
      m_cap(std::max(capacity, kMinBufferBytes)) {}

LineReader::~LineReader() = default;

const std::string& LineReader::error() const { return m_src->error(); }

namespace {
ReadObserver g_read_observer = nullptr;
}  // namespace

void set_read_observer(ReadObserver observer) { g_read_observer = observer; }

bool LineReader::fill() {
  if (m_eof) return false;
  if (m_begin > 0 && m_cap - m_end < kBlockBytes) {
    std::memmove(m_buf.get(), m_buf.get() + m_begin, m_end - m_begin);
    m_end -= m_begin;
    m_begin = 0;
  }
  // The buffer starts at one block (or less for a short string) and doubles only while a
  // single line needs more room (up to the line limit + kBlockBytes), so many inputs read side
  // by side stay small.
  if (m_cap - m_end < std::min(m_cap, kBlockBytes) / 2 && m_cap < m_max_line + kBlockBytes) {
    const std::size_t cap = std::min(m_cap * 2, m_max_line + kBlockBytes);
    std::unique_ptr<char[]> grown(new char[cap]);
    std::memcpy(grown.get(), m_buf.get() + m_begin, m_end - m_begin);
    m_end -= m_begin;
    m_begin = 0;
    m_buf = std::move(grown);
    m_cap = cap;
  }
  const std::size_t got = m_src->read(m_buf.get() + m_end, m_cap - m_end);
  if (got == 0) {
    m_eof = true;
    return false;
  }
  m_end += got;
  m_bytes += got;
  report_read(got);
  return true;
}

std::size_t LineReader::read_bytes(char* dst, std::size_t n) {
  if (m_begin < m_end) {
    const std::size_t take = std::min(n, m_end - m_begin);
    std::memcpy(dst, m_buf.get() + m_begin, take);
    m_begin += take;
    return take;
  }
  if (m_eof) return 0;
  const std::size_t got = m_src->read(dst, n);
  if (got == 0) m_eof = true;
  m_bytes += got;
  if (g_read_observer != nullptr) g_read_observer(got);
  return got;
}

std::optional<DirectFile> LineReader::direct_file() const {
  if (m_compression != Compression::none) return std::nullopt;
  return m_src->direct_file();
}

bool LineReader::seek(std::uint64_t offset, std::uint64_t lines) {
  if (!m_src->seek(offset)) return false;
  m_begin = m_end = 0;
  m_bytes = offset;
  m_line_no = lines;
  m_eof = false;
  return true;
}

bool LineReader::skip_to(std::uint64_t offset, std::uint64_t lines) {
  while (position() < offset) {
    if (m_begin == m_end && !fill()) return false;
    const std::uint64_t take = std::min<std::uint64_t>(offset - position(), m_end - m_begin);
    m_begin += static_cast<std::size_t>(take);
  }
  m_line_no = lines;
  return true;
}

std::string_view LineReader::peek(std::size_t n) {
  n = std::min(n, m_max_line);
  while (m_end - m_begin < n && fill()) {
  }
  return {m_buf.get() + m_begin, std::min(n, m_end - m_begin)};
}

namespace {

// Byte vectors (GCC/Clang vector types): SSE2's pcmpeqb/psubb for 16 bytes on x86-64, AVX2's for 32.
using Bytes16 = unsigned char __attribute__((vector_size(16)));
using Bytes32 = unsigned char __attribute__((vector_size(32)));

// The '\n' in [p, end), a vector of bytes a step: each byte lane of `lanes` counts the matches in
// its column for up to 255 steps. Counting a chunk's lines with std::count (which widened every
// byte to a 64-bit counter) and then with a memchr per line took a quarter of prep -j 2's time on
// a kern.log, on the thread that cuts chunks. Always inlined: the AVX2 copy is compiled inside its
// caller.
template <class Bytes>
[[gnu::always_inline]] inline std::size_t count_newlines_by(const char* p, const char* end) {
  constexpr auto width = static_cast<std::ptrdiff_t>(sizeof(Bytes));
  const Bytes newline = Bytes{} + static_cast<unsigned char>('\n');
  std::size_t n = 0;
  while (end - p >= width) {
    const std::ptrdiff_t steps = std::min<std::ptrdiff_t>((end - p) / width, 255);
    Bytes lanes = {};
    for (const char* stop = p + steps * width; p < stop; p += width) {
      Bytes v;
      std::memcpy(&v, p, sizeof v);
      lanes -= reinterpret_cast<Bytes>(v == newline);  // a match is all ones: -1
    }
    for (std::size_t i = 0; i < sizeof lanes; ++i) n += lanes[i];
  }
  for (; p < end; ++p) n += *p == '\n' ? 1 : 0;
  return n;
}

std::size_t count_newlines(const char* p, const char* end) { return count_newlines_by<Bytes16>(p, end); }

#if defined(__x86_64__) && defined(__GNUC__)
// 32 bytes a step with AVX2 (most x86-64 CPUs since 2013), chosen at run time: prep -j's workers
// count each chunk's lines before they parse it, and the 16-byte loop was a tenth of -j 2.
__attribute__((target("avx2"))) std::size_t count_newlines_avx2(const char* p, const char* end) {
  return count_newlines_by<Bytes32>(p, end);
}

const bool g_has_avx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2") != 0);
#endif

}  // namespace

std::size_t count_newlines(std::string_view text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
#if defined(__x86_64__) && defined(__GNUC__)
  if (g_has_avx2) return count_newlines_avx2(begin, end);
#endif
  return count_newlines(begin, end);
}

void report_read(std::size_t bytes) {
  if (g_read_observer != nullptr) g_read_observer(bytes);
}

std::size_t LineReader::append_lines(std::string& out, std::size_t bytes) {
  std::size_t lines = 0;
  while (out.size() < bytes) {
    if (m_begin == m_end && !fill()) break;
    const char* base = m_buf.get();
    // Whole lines up to the budget, in one copy; else the one line that crosses it.
    const std::size_t want = std::min({m_end - m_begin, bytes - out.size(), m_max_line});
    const void* last = ::memrchr(base + m_begin, '\n', want);
    if (last == nullptr) last = std::memchr(base + m_begin, '\n', std::min(m_end - m_begin, m_max_line + 1));
    if (last != nullptr) {
      const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(last) - base) + 1;
      const std::size_t count = count_newlines(base + m_begin, base + end);
      out.append(base + m_begin, end - m_begin);
      m_begin = end;
      m_line_no += count;
      lines += count;
      continue;
    }
    if (m_end - m_begin > m_max_line) break;  // overlong: next() cuts it
    const std::size_t before = m_end - m_begin;
    if (fill() || m_end - m_begin > before) continue;
    if (m_hold_partial) break;
    out.append(m_buf.get() + m_begin, m_end - m_begin);  // the last line, without its '\n'
    out.push_back('\n');
    m_begin = m_end;
    ++m_line_no;
    ++lines;
  }
  return lines;
}

bool LineReader::next(Line& line) {
  constexpr std::size_t kHead = 120;  // bytes of an overlong line kept as its excerpt
  std::size_t scanned = m_begin;      // bytes before this offset hold no '\n'
  for (;;) {
    const char* base = m_buf.get();
    const void* nl = std::memchr(base + scanned, '\n', m_end - scanned);
    if (nl != nullptr) {
      const std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
      if (pos - m_begin > m_max_line) {  // an overlong line that arrived whole in the buffer
        line = Line{std::string_view(base + m_begin, kHead), ++m_line_no, pos - m_begin, true};
        m_begin = pos + 1;
        return true;
      }
      std::string_view text(base + m_begin, pos - m_begin);
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      m_begin = pos + 1;
      line = Line{text, ++m_line_no, 0, false};
      return true;
    }
    if (m_end - m_begin > m_max_line) break;  // overlong: handled below
    const std::size_t before = m_begin;
    scanned = m_end;
    if (!fill()) {
      if (m_begin == m_end || m_hold_partial) return false;
      std::string_view text(m_buf.get() + m_begin, m_end - m_begin);  // no final newline
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      m_begin = m_end;
      line = Line{text, ++m_line_no, 0, false};
      return true;
    }
    scanned -= before - m_begin;  // fill() may have moved the data to the front
  }
  // A line longer than the limit: keep its first bytes as the excerpt, skip the rest.
  std::uint64_t length = m_end - m_begin;
  std::memmove(m_buf.get(), m_buf.get() + m_begin, kHead);
  m_begin = kHead;
  m_end = kHead;
  for (;;) {
    const std::size_t got = m_src->read(m_buf.get() + kHead, m_cap - kHead);
    if (got == 0) {
      m_eof = true;
      break;
    }
    m_bytes += got;
    const void* nl = std::memchr(m_buf.get() + kHead, '\n', got);
    if (nl != nullptr) {
      const std::size_t k = static_cast<std::size_t>(static_cast<const char*>(nl) - (m_buf.get() + kHead));
      length += k;
      m_begin = kHead + k + 1;
      m_end = kHead + got;
      break;
    }
    length += got;
  }
  line = Line{std::string_view(m_buf.get(), kHead), ++m_line_no, length, true};
  return true;
}

}  // namespace gpucost::io
