// The trace reader's own JSON scanner (prep/profiler/trace/json_scan.hpp): what it takes and what it
// leaves to simdjson, and the reader with it against the reader with simdjson alone
// (ReadOptions::scan_records): the same TraceData on every trace of testdata/ and on random
// records, valid and broken, at several chunk sizes.
#include <catch2/catch.hpp>

#include "prep/profiler/trace/json_scan.hpp"
#include "prep/profiler/trace/trace.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace gpucost::test {

namespace {

namespace js = prep::trace::json_scan;
namespace fs = std::filesystem;

/// `text`, then the NUL the reader puts at the end of what it scans, then readable padding.
struct Scanned {
  explicit Scanned(std::string_view text) : buf(std::string(text) + '\0' + std::string(80, '"')) {}
  [[nodiscard]] const char* begin() const { return buf.data(); }
  [[nodiscard]] const char* end() const { return buf.data() + buf.size() - 81; }
  std::string buf;
};

/// The bytes json_scan::string takes from `text` (-1: left to simdjson), and its raw text.
long string_taken(std::string_view text, std::string* raw = nullptr) {
  const Scanned s(text);
  const char* p = s.begin();
  std::string_view r;
  bool escaped = false;
  if (!js::string(p, s.end(), r, escaped)) return -1;
  if (raw != nullptr) *raw = std::string(r);
  return p - s.begin();
}

long scalar_taken(std::string_view text) {
  const Scanned s(text);
  const char* p = s.begin();
  std::string_view token;
  if (!js::scalar(p, s.end(), token)) return -1;
  CHECK(token.size() == static_cast<std::size_t>(p - s.begin()));
  return p - s.begin();
}

long skip_taken(std::string_view text) {
  const Scanned s(text);
  const char* p = s.begin();
  if (!js::skip_value(p, s.end())) return -1;
  return p - s.begin();
}

prep::trace::TraceData read(const std::string& text, std::size_t chunk, bool scan) {
  prep::trace::ReadOptions options;
  options.scan_records = scan;
  return prep::trace::read_trace_text(text, chunk, options);
}

/// The reader with and without json_scan gives the same data; where simdjson alone finds the JSON
/// broken, the reader with json_scan finds it broken too (it may read more records before the
/// break: simdjson judges a chunk whole, json_scan each record).
void check_same(const std::string& text, std::size_t chunk) {
  const prep::trace::TraceData alone = read(text, chunk, false);
  const prep::trace::TraceData scanned = read(text, chunk, true);
  INFO("chunk " << chunk << ", simdjson alone: records " << alone.counts.records << ", truncated '" << alone.truncated
                << "'; with json_scan: records " << scanned.counts.records << ", truncated '" << scanned.truncated
                << "'");
  if (alone.truncated.empty())
    CHECK(scanned == alone);
  else
    CHECK_FALSE(scanned.truncated.empty());
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Random records in Kineto's shape, with the variations real traces and broken files have:
/// escapes, non-ASCII names, numbers of every form, nested and odd args, blanks, and now and then
/// a fault (a control byte in a string, a missing or doubled comma, mismatched brackets).
class RecordMaker {
 public:
  explicit RecordMaker(unsigned seed) : m_rng(seed) {}

  std::string trace(int records, bool faults) {
    std::string t = R"({"schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000,)" + blank() +
                    R"("traceEvents": [)" + blank();
    for (int i = 0; i < records; ++i) {
      if (i > 0) t += faults && one_in(60) ? pick({",,", " ", ", ,"}) : std::string(",");
      t += blank() + record(faults);
    }
    t += blank() + "]," + blank() + R"("traceName": "r.json"})" + "\n";
    if (faults && one_in(4)) t.resize(m_rng() % (t.size() + 1));  // a file cut short
    return t;
  }

 private:
  bool one_in(unsigned n) { return m_rng() % n == 0; }
  std::string pick(std::initializer_list<const char*> options) {
    return *(options.begin() + static_cast<std::ptrdiff_t>(m_rng() % options.size()));
  }
  std::string blank() { return pick({"", " ", "\n  ", "\n    ", "\t", "\r\n", " ", ""}); }

  std::string number() {
    return pick({"12",
                 "4458676388247.917",
                 "0",
                 "-5",
                 "1e3",
                 "2.5E-1",
                 "-0",
                 "01",
                 "1.",
                 "\"12.5\"",
                 "true",
                 "null",
                 "1.2.3",
                 "12345678901234567890123",
                 "9223372036854775808",
                 "-9223372036854775807",
                 "\"7\"",
                 "3.14159",
                 "\"\"",
                 "[]",
                 "{}"});
  }
  std::string name() {
    return pick({"\"aten::mm\"", "\"cudaLaunchKernel\"", "\"ncclKernel_AllReduce_RING\"", "\"[memory]\"",
                 "\"ProfilerStep#7\"", "\"Memcpy HtoD (Pinned -> Device)\"", "\"void k<(char)92>(a\\\\b)\"",
                 "\"na\\\"me\"", "\"caf\xC3\xA9\"", "\"bad\\q\"", "\"u\\u00e9x\"", "\"a{b}[c]\"", "7", "null",
                 "\"event_record\"", "\"dma_request\""});
  }
  std::string category() {
    return pick({"\"kernel\"", "\"cpu_op\"", "\"cuda_runtime\"", "\"gpu_memcpy\"", "\"gpu_memset\"",
                 "\"user_annotation\"", "\"gpu_user_annotation\"", "\"cuda_sync\"", "\"ac2g\"", "\"mtia_ccp_events\"",
                 "\"ker\\u006eel\"", "\"Kernel\"", "5", "\"xpu_runtime\""});
  }
  std::string args(bool faults, int depth = 0) {
    std::vector<std::string> fields;
    const int n = static_cast<int>(m_rng() % 9);
    for (int i = 0; i < n; ++i) {
      std::string key = pick({"device",
                              "stream",
                              "correlation",
                              "bytes",
                              "size",
                              "External id",
                              "Seq",
                              "Process Group Name",
                              "Process Group Ranks",
                              "Collective name",
                              "In msg nelems",
                              "direction",
                              "Device Type",
                              "Device Id",
                              "Bytes",
                              "Total Allocated",
                              "Input Dims",
                              "Concrete Inputs",
                              "grid",
                              "wait_on_stream",
                              "ke\\\"y",
                              "n\xC3\xA9"});
      std::string value;
      switch (m_rng() % 6) {
        case 0:
        case 1: value = number(); break;
        case 2: value = name(); break;
        case 3:
          value = pick({"[[16384, 4096], [4096]]", "[\"\", \"1\", \"False\"]", "[\"a]\", \"{\"]", "[\"x\\\"]\"]", "[]",
                        "[[[[1]]]]", "{\"a\": [1, {\"b\": \"}\"}]}", "\"[0, 1]\"", "\"HOST_TO_DEVICE\""});
          break;
        case 4: value = depth < 3 ? args(faults, depth + 1) : "{}"; break;
        default:
          value = faults ? pick({"[1, 2}", "{\"a\" 1}", "\"tab\there\"", "[1 2]", "\"\x01\"", "[\"\xFF\"]", "{\"a\":}"})
                         : std::string("\"ok\"");
      }
      fields.push_back("\"" + key + "\":" + blank() + value);
    }
    std::string o = "{" + blank();
    for (std::size_t i = 0; i < fields.size(); ++i) o += (i > 0 ? "," + blank() : std::string()) + fields[i];
    return o + blank() + "}";
  }
  std::string record(bool faults) {
    if (one_in(40)) return pick({"5", "[]", "\"text\"", "null", "{}"});
    std::vector<std::string> fields = {"\"ph\": " + pick({"\"X\"", "\"X\"", "\"X\"", "\"i\"", "\"f\"", "\"M\"", "5"}),
                                       "\"cat\": " + category(),
                                       "\"name\": " + name(),
                                       "\"pid\": " + number(),
                                       "\"tid\": " + number(),
                                       "\"ts\": " + number(),
                                       "\"dur\": " + number(),
                                       "\"args\": " + (one_in(10) ? number() : args(faults))};
    if (one_in(3)) std::swap(fields[m_rng() % fields.size()], fields[m_rng() % fields.size()]);
    if (one_in(5)) fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(m_rng() % fields.size()));
    if (one_in(8)) fields.push_back(fields[m_rng() % fields.size()]);  // a key twice
    if (one_in(10)) fields.push_back("\"id\": " + number());
    std::string r = "{" + blank();
    for (std::size_t i = 0; i < fields.size(); ++i) r += (i > 0 ? "," + blank() : std::string()) + fields[i];
    return r + blank() + "}";
  }

  std::mt19937 m_rng;
};

}  // namespace

TEST_CASE("trace scan: a string stops at its closing quote, past escapes and 16-byte blocks", "[trace]") {
  std::string raw;
  CHECK(string_taken(R"("ph": "X")", &raw) == 4);
  CHECK(raw == "ph");
  CHECK(string_taken(R"("" rest)", &raw) == 2);
  CHECK(raw.empty());
  const std::string long_name = "\"void at::native::vectorized_elementwise_kernel<4, float>(int, float*)\", ";
  CHECK(string_taken(long_name) == static_cast<long>(long_name.size()) - 2);
  CHECK(string_taken(R"("a\"b\\" x)", &raw) == 8);  // escapes as written
  CHECK(raw == R"(a\"b\\)");
  CHECK(string_taken(R"("\u00e9\/\b\f\n\r\t")") == 20);
  // An escape across a block's end: the '\' is the block's last byte, the quote it escapes the next one's first.
  CHECK(string_taken("\"0123456789abcde\\\"ef\"") == 21);
}

TEST_CASE("trace scan: a string with what simdjson must judge is left to it", "[trace]") {
  CHECK(string_taken("\"caf\xC3\xA9\"") == -1);  // non-ASCII: UTF-8 is simdjson's to check
  CHECK(string_taken("\"tab\there\"") == -1);    // a raw control byte
  CHECK(string_taken("\"line\nbreak\"") == -1);
  CHECK(string_taken(R"("bad\q")") == -1);  // not an escape
  CHECK(string_taken(R"("\u12G4")") == -1);
  CHECK(string_taken(R"("open)") == -1);  // runs into the end
  CHECK(string_taken("\"0123456789abcdef0123456789") == -1);
}

TEST_CASE("trace scan: numbers and literals by JSON's grammar, up to a blank, comma or bracket", "[trace]") {
  CHECK(scalar_taken("12,") == 2);
  CHECK(scalar_taken("4458676388247.917}") == 17);
  CHECK(scalar_taken("-0 ") == 2);
  CHECK(scalar_taken("1e3]") == 3);
  CHECK(scalar_taken("2.5E-10\n") == 7);
  CHECK(scalar_taken("true,") == 4);
  CHECK(scalar_taken("false}") == 5);
  CHECK(scalar_taken("null ") == 4);
  // Not JSON, or not ended before the end of the text: simdjson decides.
  for (const char* bad :
       {"01,", "1.,", ".5,", "-,", "+1,", "1e,", "1.2.3,", "12a,", "tru,", "nul", "12", "Infinity,", "1\x0b,"}) {
    INFO(bad);
    CHECK(scalar_taken(bad) == -1);
  }
}

TEST_CASE("trace scan: a skipped object or array ends at its own closing bracket", "[trace]") {
  CHECK(skip_taken(R"({"a": 1}, next)") == 8);
  CHECK(skip_taken(R"([[16384, 4096], [4096]] x)") == 23);
  CHECK(skip_taken(R"({"s": "}]{[", "t": ["]"]} x)") == 25);  // brackets in strings
  CHECK(skip_taken(R"(["\"]", "\\"] x)") == 13);              // escaped quotes and backslashes
  CHECK(skip_taken("{\n  \"a\":\t[1,\r\n 2]\n}") == 19);      // blanks outside strings
  // Longer than a block of 64 bytes, with the end in the second and third block.
  const std::string args =
      R"({"External id": 2060,"Record function id": 1910, "Concrete Inputs": ["False", "1", "0"], )"
      R"("Input type": ["Scalar", "c10::BFloat16"], "Input Dims": [[4096], [8, 2048, 4096]]})";
  CHECK(skip_taken(args + ",") == static_cast<long>(args.size()));
  // A '\' in a block makes it read a byte at a time; the escape may straddle two blocks.
  std::string straddle = "[\"" + std::string(61, 'a') + "\\\"b\"]";
  CHECK(skip_taken(straddle + " ") == static_cast<long>(straddle.size()));
  // The grammar between the brackets is not checked, as On-Demand does not check a value it skips.
  CHECK(skip_taken("[1 2] ") == 5);
}

TEST_CASE("trace scan: a skipped value with what simdjson must judge is left to it", "[trace]") {
  CHECK(skip_taken("[1, 2}") == -1);                                     // brackets of different kinds
  CHECK(skip_taken("{\"a\": [1, 2}") == -1);                             // not closed before the end
  CHECK(skip_taken("[\"\xFF\"]") == -1);                                 // a byte >= 0x80
  CHECK(skip_taken("[\"a\tb\"]") == -1);                                 // a control byte in a string
  CHECK(skip_taken("[1,\x01 2]") == -1);                                 // a control byte outside one
  CHECK(skip_taken("[\"a\\\x01\"]") == -1);                              // escaped, still a control byte
  CHECK(skip_taken(std::string(70, '[') + std::string(70, ']')) == -1);  // deeper than 64
  CHECK(skip_taken(std::string(64, '[') + std::string(64, ']')) == 128);
}

/// check_same() on every plain .json trace under `dir` at each of `chunks`; how many there were.
int check_traces_under(const fs::path& dir, std::initializer_list<std::size_t> chunks) {
  int traces = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    const std::string text = file_text(entry.path());
    if (!prep::trace::looks_like_trace(text.substr(0, 64 * 1024))) continue;
    INFO(entry.path().string());
    ++traces;
    for (const std::size_t chunk : chunks) check_same(text, chunk);
  }
  return traces;
}

TEST_CASE("trace scan: the reader gives the same data with and without its scanner on every trace of testdata",
          "[trace]") {
  CHECK(check_traces_under(GPUCOST_TESTDATA_DIR, {64, 700, prep::trace::kTraceChunkBytes}) >= 10);
}

TEST_CASE("trace scan: the reader gives the same data with and without its scanner on every trace of the corpus",
          "[corpus]") {
  const fs::path dir = GPUCOST_CORPUS_DIR;
  if (!fs::is_directory(dir)) {
    WARN("corpus " << dir.string() << " not found: skipped");
    return;
  }
  const int traces = check_traces_under(dir, {300, prep::trace::kTraceChunkBytes});
  WARN(traces << " corpus traces compared");
}

TEST_CASE("trace scan: the same data with and without the scanner on random records, valid and broken", "[trace]") {
  for (unsigned seed = 1; seed <= 120; ++seed) {
    RecordMaker maker(seed);
    const bool faults = seed % 2 == 0;
    const std::string text = maker.trace(20 + static_cast<int>(seed % 40), faults);
    INFO("seed " << seed << "\n" << text);
    for (std::size_t chunk : {std::size_t{64}, std::size_t{512}, prep::trace::kTraceChunkBytes})
      check_same(text, chunk);
  }
}

TEST_CASE("trace scan: a record the scanner leaves goes to simdjson with the rest of its chunk", "[trace]") {
  // Four records: json_scan takes the first; the second (a non-ASCII name) and the rest of the
  // chunk go to simdjson. With chunks of 300 bytes the third and fourth are in later chunks, which
  // json_scan reads again.
  const std::string text = R"({"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2, "args": {"stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k)"
                           "\xC3\xA9"
                           R"(", "pid": 0, "tid": 7, "ts": 20, "dur": 3, "args": {"stream": 7}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 9, "dur": 1, "args": {"correlation": 1}},
{"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 10.5, "cat": "ac2g", "name": "ac2g", "bp": "e"}
]})";
  for (const std::size_t chunk : {std::size_t{300}, prep::trace::kTraceChunkBytes}) {
    const prep::trace::TraceData d = read(text, chunk, true);
    CHECK(d.truncated.empty());
    CHECK(d.counts.records == 4);
    REQUIRE(d.ops.size() == 2);
    CHECK(d.names[d.ops[1].name] == "k\xC3\xA9");
    CHECK(d.ops[0].start_ns == 10500);
    CHECK(d.launches.size() == 1);
    CHECK(d == read(text, chunk, false));
  }
}

TEST_CASE("trace scan: a record is taken only with what may follow it in the array", "[trace]") {
  // A missing comma (the fuzzer's `}true,`), a trailing one, a doubled one: simdjson alone finds
  // each, so the scanner must not take the record before it and let simdjson start after it.
  const std::string record = R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2})";
  for (const char* between : {"true, ", " ", ", ]", ",, ", "\n5, ", ", 5, "}) {
    const std::string text = "{\"traceEvents\": [\n" + record + between + record + "\n]}\n";
    INFO(text);
    for (const std::size_t chunk : {std::size_t{64}, std::size_t{150}, prep::trace::kTraceChunkBytes})
      check_same(text, chunk);
  }
}

}  // namespace gpucost::test

namespace gpucost::test {

TEST_CASE("trace scan: a record that starts before a line longer than a chunk is read, not parsed again for ever",
          "[trace]") {
  // The cut falls after the record's first line; the buffer then already holds the text the
  // reader asked for, so it parsed the same cut again without reading more, for ever (before
  // 2026-12-06, with either reader; a 3 MB line did it at the default chunk).
  const std::string text =
      "{\"traceEvents\": [\n"
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 2,\n"
      " \"args\": {\"stream\": 7, \"big\": \"" +
      std::string(2000, 'x') +
      "\"}},\n"
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 7, \"ts\": 5, \"dur\": 2, "
      "\"args\": {\"stream\": 7}}\n]}\n";
  for (const bool scan : {false, true}) {
    const prep::trace::TraceData d = read(text, 300, scan);
    CHECK(d.truncated.empty());
    CHECK(d.counts.records == 2);
    CHECK(d.ops.size() == 2);
  }
}

}  // namespace gpucost::test
