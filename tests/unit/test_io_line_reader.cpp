// io::LineReader: plain, gzip and zstd input, line endings, overlong lines, truncated archives.
#include <catch2/catch.hpp>

#include <gpucost/io/line_reader.hpp>

#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace io = gpucost::io;
namespace fs = std::filesystem;

namespace {

/// A file under the temp directory, removed at scope exit.
class TempFile {
 public:
  explicit TempFile(const std::string& bytes, const std::string& suffix = ".txt") {
    static std::atomic<int> counter{0};
    m_path = fs::temp_directory_path() /
             ("gpucost_line_reader_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix);
    std::ofstream out(m_path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    REQUIRE(out.good());
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(m_path, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] std::string path() const { return m_path.string(); }

 private:
  fs::path m_path;
};

std::string gzip(const std::string& data) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string zstd(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  REQUIRE(ZSTD_isError(n) == 0);
  out.resize(n);
  return out;
}

struct ReadAll {
  std::vector<std::string> lines;
  std::vector<io::Line> meta;  // text views are stale; numbers and flags only
  std::string error;
  io::Compression compression = io::Compression::none;
};

ReadAll read_all(io::LineReader& reader) {
  ReadAll r;
  r.compression = reader.compression();
  io::Line line;
  while (reader.next(line)) {
    r.lines.emplace_back(line.text);
    r.meta.push_back(line);
  }
  r.error = reader.error();
  return r;
}

ReadAll read_path(const std::string& path) {
  auto reader = io::LineReader::open(path);
  REQUIRE(reader);
  return read_all(**reader);
}

ReadAll read_string(std::string s) {
  auto reader = io::LineReader::from_string(std::move(s));
  return read_all(*reader);
}

// Numbered dmon-like lines, `n` of them.
std::string numbered_lines(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i)
    s += "    0    " + std::to_string(100 + i % 500) + "     63     57   line " + std::to_string(i) + " \n";
  return s;
}

// Line `i` padded to exactly `width` bytes including its '\n'.
std::string fmt_line(std::size_t i, std::size_t width) {
  std::string s = std::to_string(i);
  return std::string(width - 1 - s.size(), ' ') + s + "\n";
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    const std::size_t nl = s.find('\n', start);
    if (nl == std::string::npos) {
      out.push_back(s.substr(start));
      break;
    }
    out.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("io::line_reader: plain text, line numbers, CRLF and a missing final newline", "[io][line_reader]") {
  const ReadAll a = read_string("first\nsecond\r\n\nlast without newline\r");
  REQUIRE(a.lines.size() == 4);
  CHECK(a.lines[0] == "first");
  CHECK(a.lines[1] == "second");  // one trailing \r stripped
  CHECK(a.lines[2].empty());
  CHECK(a.lines[3] == "last without newline");
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(a.meta[i].number == i + 1);
    CHECK_FALSE(a.meta[i].overlong);
  }
  CHECK(a.error.empty());
  CHECK(a.compression == io::Compression::none);

  CHECK(read_string("").lines.empty());
  CHECK(read_string("\n").lines == std::vector<std::string>{""});
  CHECK(read_string("a\r\r\n").lines == std::vector<std::string>{"a\r"});  // only one \r is stripped

  const std::string big = numbered_lines(120000);  // several blocks
  const TempFile f(big);
  const ReadAll b = read_path(f.path());
  CHECK(b.lines == split_lines(big));
  CHECK(b.error.empty());
  CHECK(b.compression == io::Compression::none);
}

TEST_CASE("io::line_reader: peek does not consume", "[io][line_reader]") {
  auto reader = io::LineReader::from_string("# gpu pwr\n# Idx W\n0 1\n");
  CHECK(reader->peek(5) == "# gpu");
  CHECK(reader->peek(1000) == "# gpu pwr\n# Idx W\n0 1\n");
  const ReadAll a = read_all(*reader);
  CHECK(a.lines == std::vector<std::string>{"# gpu pwr", "# Idx W", "0 1"});
}

TEST_CASE("io::line_reader: gzip input, also two concatenated members", "[io][line_reader]") {
  const std::string one = numbered_lines(50000);
  const std::string two = "second member line 1\r\nsecond member line 2";
  const TempFile single(gzip(one), ".gz");
  const ReadAll a = read_path(single.path());
  CHECK(a.compression == io::Compression::gzip);
  CHECK(a.error.empty());
  CHECK(a.lines == split_lines(one));

  const TempFile concat(gzip(one) + gzip(two), ".gz");  // as `cat a.gz b.gz > c.gz`
  const ReadAll b = read_path(concat.path());
  CHECK(b.error.empty());
  std::vector<std::string> want = split_lines(one);
  want.emplace_back("second member line 1");
  want.emplace_back("second member line 2");
  CHECK(b.lines.size() == want.size());
  CHECK(b.lines == want);
}

TEST_CASE("io::line_reader: a truncated gzip keeps the lines before the cut and reports it", "[io][line_reader]") {
  const std::string text = numbered_lines(200000);
  const std::string gz = gzip(text);
  const TempFile cut(gz.substr(0, gz.size() * 2 / 3), ".gz");
  const ReadAll a = read_path(cut.path());
  CHECK_FALSE(a.error.empty());
  const std::vector<std::string> want = split_lines(text);
  REQUIRE(a.lines.size() > 1000);
  REQUIRE(a.lines.size() < want.size());
  // Every complete line before the cut is intact; the last one may be cut short.
  for (std::size_t i = 0; i + 1 < a.lines.size(); ++i) REQUIRE(a.lines[i] == want[i]);
  CHECK(want[a.lines.size() - 1].rfind(a.lines.back(), 0) == 0);

  // Cut inside the 8-byte trailer: all data is there, the error still says the archive is short.
  const TempFile trailer(gz.substr(0, gz.size() - 4), ".gz");
  const ReadAll b = read_path(trailer.path());
  CHECK_FALSE(b.error.empty());
  CHECK(b.lines == want);
}

TEST_CASE("io::line_reader: zstd input, large and truncated", "[io][line_reader]") {
  const std::string small = "# gpu    pwr \n# Idx      W \n    0    631 \n";
  const TempFile s(zstd(small), ".zst");
  const ReadAll a = read_path(s.path());
  CHECK(a.compression == io::Compression::zstd);
  CHECK(a.error.empty());
  CHECK(a.lines == split_lines(small));

  // Highly compressible and larger than one read of the line reader.
  {
    const std::string text = numbered_lines(230001);
    const TempFile big(zstd(text), ".zst");
    const ReadAll b = read_path(big.path());
    CHECK(b.error.empty());
    CHECK(b.lines.size() == 230001);
    CHECK(b.lines == split_lines(text));
  }

  // The end of the last zstd block falls just past the second read of the line reader, so the
  // decoder has decoded the whole frame but still holds a few bytes when the output buffer is
  // full (zstd keeps one input byte back until they are flushed). Lines of 33 bytes make the
  // reads uneven: the first read ends 5 bytes into a line, so the second ends 5 bytes before a
  // 128 KiB block boundary.
  {
    constexpr std::size_t kCap = io::LineReader::kMaxLineBytes + io::LineReader::kBlockBytes;
    constexpr std::size_t kLine = 33;
    const std::size_t second_end = kCap + (kCap - kCap % kLine);
    for (std::size_t extra : {1u, 3u, 5u}) {
      const std::size_t total = second_end + extra;
      std::string text;
      text.reserve(total);
      std::size_t i = 0;
      while (text.size() + kLine < total) text += fmt_line(i++, kLine);
      text += std::string(total - text.size() - 1, 'e') + "\n";
      REQUIRE(text.size() == total);
      const TempFile f(zstd(text), ".zst");
      const ReadAll b = read_path(f.path());
      INFO(total << " bytes");
      CHECK(b.error.empty());
      CHECK(b.lines.size() == i + 1);
      CHECK(b.lines == split_lines(text));
    }
  }

  const std::string text = numbered_lines(100000);
  const std::string z = zstd(text);
  const TempFile cut(z.substr(0, z.size() / 2), ".zst");
  const ReadAll c = read_path(cut.path());
  CHECK_FALSE(c.error.empty());
  const std::vector<std::string> want = split_lines(text);
  REQUIRE(c.lines.size() < want.size());
  for (std::size_t i = 0; i + 1 < c.lines.size(); ++i) REQUIRE(c.lines[i] == want[i]);
}

TEST_CASE("io::line_reader: a line longer than kMaxLineBytes is reported overlong with its length",
          "[io][line_reader]") {
  constexpr std::size_t kMax = io::LineReader::kMaxLineBytes;
  for (std::size_t len : {kMax + 1, kMax + 10, 2 * kMax + 12345}) {
    INFO("line of " << len << " bytes");
    const std::string text = "before\n" + std::string(len, 'x') + "\nafter\n";
    const ReadAll a = read_string(text);
    REQUIRE(a.lines.size() == 3);
    CHECK(a.lines[0] == "before");
    CHECK(a.meta[1].overlong);
    CHECK(a.meta[1].full_length == len);
    CHECK_FALSE(a.lines[1].empty());
    CHECK(a.lines[1].size() <= 200);
    CHECK(a.lines[1] == std::string(a.lines[1].size(), 'x'));
    CHECK(a.meta[1].number == 2);
    CHECK(a.lines[2] == "after");
    CHECK(a.meta[2].number == 3);
    CHECK_FALSE(a.meta[2].overlong);

    // Also as the last line of the input, without a final newline.
    const ReadAll b = read_string("before\n" + std::string(len, 'y'));
    REQUIRE(b.lines.size() == 2);
    CHECK(b.meta[1].overlong);
    CHECK(b.meta[1].full_length == len);
  }
  // Exactly the limit is still a normal line.
  const ReadAll c = read_string(std::string(kMax, 'z') + "\nend\n");
  REQUIRE(c.lines.size() == 2);
  CHECK_FALSE(c.meta[0].overlong);
  CHECK(c.lines[0].size() == kMax);
  CHECK(c.lines[1] == "end");
}

TEST_CASE("io::line_reader: open fails on a missing file and on a directory", "[io][line_reader]") {
  auto missing = io::LineReader::open("/nonexistent/gpucost/dmon.txt");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().kind == gpucost::ErrorKind::io);
  CHECK(missing.error().message.find("cannot open") != std::string::npos);

  auto dir = io::LineReader::open(fs::temp_directory_path().string());
  REQUIRE_FALSE(dir);
  CHECK(dir.error().message.find("directory") != std::string::npos);

  const TempFile empty("");
  const ReadAll e = read_path(empty.path());
  CHECK(e.lines.empty());
  CHECK(e.error.empty());
}

namespace {

/// `text` (UTF-8) as UTF-16 with a byte-order mark, little- or big-endian.
std::string utf16(const std::u16string& text, bool little_endian) {
  std::string out = little_endian ? std::string("\xFF\xFE") : std::string("\xFE\xFF");
  for (const char16_t u : text) {
    const auto lo = static_cast<char>(u & 0xFF), hi = static_cast<char>(u >> 8);
    out += little_endian ? std::string{lo, hi} : std::string{hi, lo};
  }
  return out;
}

}  // namespace

TEST_CASE("io::line_reader: UTF-16 with a byte-order mark (Windows PowerShell's >) reads as UTF-8",
          "[io][line_reader]") {
  // nvidia-smi's CSV header and a row, CRLF as on Windows; a degree sign, an accented name and
  // a character outside the BMP (a surrogate pair) to convert.
  const std::u16string text =
      u"timestamp, index, temperature.gpu\r\n2024/06/12 14:22:18.123, 0, 41 \u00B0C\r\nRTX \u00E9t\u00E9 "
      u"\U0001F525\r\n";
  const std::vector<std::string> want = {"timestamp, index, temperature.gpu",
                                         "2024/06/12 14:22:18.123, 0, 41 \xC2\xB0"
                                         "C",
                                         "RTX \xC3\xA9t\xC3\xA9 \xF0\x9F\x94\xA5"};
  for (const bool le : {true, false}) {
    INFO((le ? "UTF-16LE" : "UTF-16BE"));
    const TempFile f(utf16(text, le), ".csv");
    const ReadAll a = read_path(f.path());
    CHECK(a.error.empty());
    CHECK(a.lines == want);
    CHECK(read_string(utf16(text, le)).lines == want);
    const TempFile gz(gzip(utf16(text, le)), ".csv.gz");  // compressed after the fact
    CHECK(read_path(gz.path()).lines == want);
  }
  // Large enough to cross the decoder's 64 KiB reads, with a surrogate pair at every offset.
  std::u16string big;
  for (int i = 0; i < 40000; ++i)
    big += u"ab\U0001F525" + std::u16string(static_cast<std::size_t>(i % 3), u'x') + u"\n";
  const ReadAll b = read_string(utf16(big, true));
  REQUIRE(b.lines.size() == 40000);
  CHECK(b.lines[39999] == "ab\xF0\x9F\x94\xA5");  // 39999 % 3 == 0
  CHECK(b.lines[39998] == "ab\xF0\x9F\x94\xA5xx");
}

TEST_CASE("io::line_reader: a UTF-8 byte-order mark is dropped, broken UTF-16 is replaced or reported",
          "[io][line_reader]") {
  CHECK(read_string("\xEF\xBB\xBFtimestamp, index\n1, 2\n").lines ==
        std::vector<std::string>{"timestamp, index", "1, 2"});
  CHECK(read_string("\xEF\xBB").lines == std::vector<std::string>{"\xEF\xBB"});  // too short for a mark: kept
  CHECK(read_string("").lines.empty());
  // An unpaired low surrogate and a high one at the end become U+FFFD.
  const std::string lone =
      utf16(u"a", true) + std::string("\x00\xDC", 2) + std::string("b\0\n\0", 4) + std::string("\x3D\xD8", 2);
  CHECK(read_string(lone).lines == std::vector<std::string>{"a\xEF\xBF\xBD"
                                                            "b",
                                                            "\xEF\xBF\xBD"});
  // An odd last byte: the text before it is kept, the cut is reported.
  const ReadAll odd = read_string(utf16(u"line 1\nline 2\n", true) + "x");
  CHECK(odd.lines == std::vector<std::string>{"line 1", "line 2"});
  CHECK(odd.error.find("middle of a character") != std::string::npos);
}

namespace {

/// Hands out a string a few bytes per read, like a slow pipe.
class TrickleSource final : public io::ByteSource {
 public:
  TrickleSource(std::string data, std::size_t step) : m_data(std::move(data)), m_step(step) {}
  std::size_t read(char* buf, std::size_t n) override {
    const std::size_t take = std::min({n, m_step, m_data.size() - m_pos});
    std::copy_n(m_data.data() + m_pos, take, buf);
    m_pos += take;
    return take;
  }

 private:
  std::string m_data;
  std::size_t m_step, m_pos = 0;
};

}  // namespace

TEST_CASE("io::line_reader: a small first buffer grows for long lines and still cuts overlong ones",
          "[io][line_reader]") {
  // from_string() starts with a buffer the size of a short string; any reader given a small
  // capacity must double it while a line needs room, up to the line limit.
  const std::string long_line(300'000, 'a');
  constexpr std::size_t kLimit = 512u << 10;
  const std::string overlong(kLimit + 5000, 'b');
  const std::string text = "short\n" + long_line + "\n" + overlong + "\nlast";
  for (std::size_t step : {std::size_t{7}, std::size_t{4096}, std::size_t{1} << 20}) {
    INFO("read step " << step);
    io::LineReader r(std::make_unique<TrickleSource>(text, step), io::Compression::none, 16);
    r.set_max_line(kLimit);
    io::Line line;
    REQUIRE(r.next(line));
    CHECK(line.text == "short");
    REQUIRE(r.next(line));
    CHECK(line.text.size() == long_line.size());
    CHECK_FALSE(line.overlong);
    REQUIRE(r.next(line));
    CHECK(line.overlong);
    CHECK(line.full_length == overlong.size());
    REQUIRE(r.next(line));
    CHECK(line.text == "last");
    CHECK(line.number == 4);
    CHECK_FALSE(r.next(line));
  }
  // A short string reads whole from its own small buffer.
  auto small = io::LineReader::from_string("a\nbb\nccc");
  io::Line line;
  std::string seen;
  while (small->next(line)) seen += std::string(line.text) + "|";
  CHECK(seen == "a|bb|ccc|");
}

TEST_CASE("io::line_reader: decompressing ahead on a thread (-j) reads the same lines and the same cut",
          "[io][line_reader]") {
  // Several MiB, so that the blocks decompressed ahead wrap around; lines of every length up to
  // an overlong one, which the reader cuts the same way.
  std::string text = numbered_lines(150000);
  text += std::string(5u << 20, 'x') + "\nafter the long line\n";
  text += numbered_lines(1000);
  for (const bool gz : {true, false}) {
    INFO((gz ? "gzip" : "zstd"));
    const std::string packed = gz ? gzip(text) : zstd(text);
    const TempFile whole(packed, gz ? ".gz" : ".zst");
    const TempFile cut(packed.substr(0, packed.size() * 2 / 3), gz ? ".gz" : ".zst");
    for (const TempFile* file : {&whole, &cut}) {
      io::set_decompress_ahead(false);
      const ReadAll one = read_path(file->path());
      io::set_decompress_ahead(true);
      const ReadAll ahead = read_path(file->path());
      io::set_decompress_ahead(false);
      CHECK(ahead.lines == one.lines);
      REQUIRE(ahead.meta.size() == one.meta.size());
      for (std::size_t i = 0; i < one.meta.size(); ++i) {
        CHECK(ahead.meta[i].number == one.meta[i].number);
        CHECK(ahead.meta[i].overlong == one.meta[i].overlong);
        CHECK(ahead.meta[i].full_length == one.meta[i].full_length);
      }
      CHECK(ahead.error == one.error);
      if (file == &cut) CHECK_FALSE(one.error.empty());
    }
  }
}

TEST_CASE("io::line_reader: a reader that decompresses ahead can be dropped before its end", "[io][line_reader]") {
  const TempFile file(gzip(numbered_lines(300000)), ".gz");
  io::set_decompress_ahead(true);
  for (int i = 0; i < 20; ++i) {
    auto reader = io::LineReader::open(file.path());
    REQUIRE(reader);
    io::Line line;
    for (int k = 0; k < i * 1000 && (*reader)->next(line); ++k) {
    }
  }  // each reader stops its thread while it may be waiting for room
  io::set_decompress_ahead(false);
}

TEST_CASE("io::line_reader: append_lines hands out next()'s lines, many at a time", "[io][line_reader]") {
  // Lines with CRs (one is taken off, as next() does), empty lines, lines longer than the limit
  // (append_lines leaves them to next()), and a last line without its newline.
  std::string text;
  std::uint32_t seed = 7;
  const auto rnd = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t r = rnd() % 100;
    if (r == 0)
      text += std::string(70 * 1024 + rnd() % 5000, 'x');  // over the 64 KiB limit
    else if (r < 5)
      text += "";
    else
      text += std::string(1 + rnd() % 200, static_cast<char>('a' + r % 26));
    if (r % 7 == 1) text += "\r";
    if (r % 11 == 2) text += "\r\r";
    text += "\n";
  }
  text += "last line\r";
  struct Seen {
    std::string text;
    std::uint64_t number, full_length;
    bool overlong;
    bool operator==(const Seen&) const = default;
  };
  std::vector<Seen> one_by_one, in_blocks;
  auto a = io::LineReader::from_string(text);
  a->set_max_line(64 * 1024);
  io::Line line;
  while (a->next(line)) one_by_one.push_back({std::string(line.text), line.number, line.full_length, line.overlong});
  for (const std::size_t budget : {std::size_t{1}, std::size_t{150}, std::size_t{128 * 1024}}) {
    INFO("budget " << budget);
    in_blocks.clear();
    auto b = io::LineReader::from_string(text);
    b->set_max_line(64 * 1024);
    for (;;) {
      std::string block;
      const std::size_t n = b->append_lines(block, budget);
      if (n == 0) {
        if (!b->next(line)) break;
        in_blocks.push_back({std::string(line.text), line.number, line.full_length, line.overlong});
        continue;
      }
      std::uint64_t number = b->lines_read() - n + 1;
      std::string_view rest = block;
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t nl = rest.find('\n');
        REQUIRE(nl != std::string_view::npos);
        std::string_view t = rest.substr(0, nl);
        if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
        in_blocks.push_back({std::string(t), number++, 0, false});
        rest.remove_prefix(nl + 1);
      }
      CHECK(rest.empty());
    }
    REQUIRE(in_blocks.size() == one_by_one.size());
    CHECK(in_blocks == one_by_one);
  }
}
