// Streaming line reader over a file or stdin, plain, gzip or zstd (detected by magic bytes).
// Reads big blocks, splits them with memchr and hands out string_views into its own buffer:
// no allocation per line, memory bounded by the block size plus the longest allowed line.
#pragma once

#include <gpucost/core/error.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gpucost::io {

enum class Compression { none, gzip, zstd };

/// Called with the number of (decompressed) bytes after every block any reader reads: the CLI's
/// progress line. Null (the default) costs one branch per block.
using ReadObserver = void (*)(std::size_t bytes);
void set_read_observer(ReadObserver observer);
std::string_view to_string(Compression c);
/// -j 2 and more: readers opened from now on decompress .gz/.zst on a thread of their own, a few
/// MiB ahead of their lines (off by default).
void set_decompress_ahead(bool on);
/// The '\n' in `text` (16 bytes a step, 32 with AVX2, chosen at run time).
std::size_t count_newlines(std::string_view text);
/// Tells the read observer (set_read_observer) of `bytes` read outside a LineReader (prep -j's
/// direct reads).
void report_read(std::size_t bytes);
/// The compression the first bytes of an input announce (gzip or zstd magic), else none.
Compression sniff_compression(std::string_view head);

/// True when `path` can be read only once: stdin ("-"), a pipe (mkfifo, or the shell's
/// `<(zcat kern.log.gz)`, a /dev/fd path), a character device or a socket. Such an input is never
/// opened ahead to look at it (format checks, the journal's boot time): the stage that reads it
/// opens it once.
bool read_once(const std::string& path);

/// An error when standard input is closed (`gpucost prep <&-`): checked before any output is
/// written, as a file that cannot be opened is, since stdin is not opened ahead.
Status check_stdin_open();

/// A regular file whose bytes from `offset` on are an input's (plain UTF-8 text, not compressed):
/// prep -j reads its chunks straight from it (pread), each worker its own.
struct DirectFile {
  int fd = -1;
  std::uint64_t offset = 0;  ///< the file offset of the input's first byte
  std::uint64_t size = 0;    ///< the input's bytes in the file now (it may still grow)
};

/// Decompressed bytes of one input. Implementations: plain fd, zlib, zstd.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Reads up to n bytes; 0 at the end. On a read or decompression error returns 0 and
  /// error() describes it (a truncated archive keeps every byte before the cut).
  virtual std::size_t read(char* buf, std::size_t n) = 0;
  /// The regular file under this source when its bytes are the input's as they are.
  [[nodiscard]] virtual std::optional<DirectFile> direct_file() const { return std::nullopt; }
  /// Reads on from the input's byte `offset` (a direct file's only); false when it cannot.
  virtual bool seek(std::uint64_t offset) {
    (void)offset;
    return false;
  }
  [[nodiscard]] const std::string& error() const { return m_error; }

 protected:
  std::string m_error;
};

/// One line without its '\n' and without one trailing '\r'.
struct Line {
  std::string_view text;
  std::uint64_t number = 0;       ///< 1-based line number
  std::uint64_t full_length = 0;  ///< bytes of the whole line when it was cut (overlong)
  bool overlong = false;          ///< longer than the limit: text holds only its start
};

class LineReader {
 public:
  /// Lines longer than this (by default; --max-line) are reported as overlong and skipped,
  /// keeping memory bounded.
  static constexpr std::size_t kMaxLineBytes = 4u << 20;
  static constexpr std::size_t kMinMaxLineBytes = 64u << 10;
  static constexpr std::size_t kBlockBytes = 256u << 10;
  /// The smallest buffer: more than an overlong line's excerpt; it grows by doubling.
  static constexpr std::size_t kMinBufferBytes = 4u << 10;

  /// Opens a path, or stdin for "-". Fails on a missing/unreadable file or a directory.
  static Expected<std::unique_ptr<LineReader>> open(const std::string& path);
  /// Reads lines from an in-memory string (tests, in-process stages).
  static std::unique_ptr<LineReader> from_string(std::string data);

  /// `capacity`: the buffer's first size (it doubles while a line needs more room).
  explicit LineReader(std::unique_ptr<ByteSource> src, Compression c, std::size_t capacity = kBlockBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// Next line; false at the end of input.
  bool next(Line& line);
  /// Appends whole lines as read, each with its '\n' (and its '\r' before it, if any; a last
  /// line without '\n' gets one), to `out` while it holds less than `bytes`; returns how many.
  /// 0: at the end of input, or the next line is longer than max_line() (read it with next()).
  /// They are numbered as next() would have numbered them (prep -j's chunks).
  std::size_t append_lines(std::string& out, std::size_t bytes);
  /// The bytes in the buffer not handed out yet (prep's prefilter looks at them): whole lines,
  /// each with its '\n', then perhaps the start of one more. Reads nothing.
  [[nodiscard]] std::string_view buffered() const { return {m_buf.get() + m_begin, m_end - m_begin}; }
  /// Hands out the first `count` whole lines of buffered(), `bytes` long, without returning them.
  void skip_buffered(std::size_t bytes, std::uint64_t count) {
    m_begin += bytes;
    m_line_no += count;
  }
  /// The longest line kept (at least kMinMaxLineBytes: format detection looks at 64 KiB);
  /// longer ones are overlong. Set before reading.
  void set_max_line(std::size_t bytes) { m_max_line = std::max<std::size_t>(bytes, kMinMaxLineBytes); }
  [[nodiscard]] std::size_t max_line() const { return m_max_line; }
  /// Looks at the first bytes without consuming them (format detection); up to n bytes.
  std::string_view peek(std::size_t n);
  /// Reads up to n raw bytes (bytes peeked or buffered first, then the source) for readers of
  /// whole documents such as trace JSON; 0 at the end. Do not mix with next().
  std::size_t read_bytes(char* dst, std::size_t n);

  [[nodiscard]] Compression compression() const { return m_compression; }
  /// Non-empty when the input ended early (read error, truncated archive).
  [[nodiscard]] const std::string& error() const;
  [[nodiscard]] std::uint64_t bytes_read() const { return m_bytes; }
  /// Lines handed out so far (the number of the last one).
  [[nodiscard]] std::uint64_t lines_read() const { return m_line_no; }
  /// Decompressed bytes consumed so far: the offset just past the last line handed out.
  [[nodiscard]] std::uint64_t position() const { return m_bytes - (m_end - m_begin); }
  /// Discards bytes up to decompressed `offset` (a line boundary) without parsing them, and
  /// numbers the next line `lines + 1` (batch mode resumes a file read before). False when
  /// the input ends before `offset`.
  bool skip_to(std::uint64_t offset, std::uint64_t lines);
  /// The regular file under a plain input (not compressed, not UTF-16), else nullopt: prep -j's
  /// workers read their chunks from it themselves.
  [[nodiscard]] std::optional<DirectFile> direct_file() const;
  /// Reads on from byte `offset` of the input (a line boundary) through its direct file, the next
  /// line numbered `lines + 1`; what is buffered is dropped. False when the input has no direct file.
  bool seek(std::uint64_t offset, std::uint64_t lines);
  /// A last line without its '\n' (a writer mid-line) is held back instead of handed out, so
  /// that position() stays on a line boundary.
  void hold_back_unterminated_line() { m_hold_partial = true; }
  /// --follow: the end reached was only the end so far; the next read asks the file again (what
  /// a writer appended since, the rest of a held-back line included).
  void rearm() { m_eof = false; }
  /// Modification time of the file (ns since the epoch); empty for stdin and strings.
  [[nodiscard]] std::optional<std::int64_t> mtime_ns() const { return m_mtime_ns; }

 private:
  bool fill();  // appends a block; false at EOF

  std::unique_ptr<ByteSource> m_src;
  Compression m_compression;
  std::unique_ptr<char[]> m_buf;
  std::size_t m_cap = 0, m_begin = 0, m_end = 0;
  std::uint64_t m_line_no = 0, m_bytes = 0;
  bool m_eof = false;
  std::size_t m_max_line = kMaxLineBytes;
  bool m_hold_partial = false;
  std::optional<std::int64_t> m_mtime_ns;
};

}  // namespace gpucost::io
