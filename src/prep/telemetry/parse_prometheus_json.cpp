// Prometheus HTTP API JSON (docs/formats.md, "Prometheus query_range JSON"): what
//   curl 'http://prom:9090/api/v1/query_range?query=DCGM_FI_DEV_POWER_USAGE&start=...&end=...&step=15s'
// returns, one document per query, possibly several concatenated or one per line (JSON Lines):
//   {"status":"success","data":{"resultType":"matrix","result":[
//     {"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","UUID":"GPU-...","Hostname":"node01",...},
//      "values":[[1718197338.011,"312.5"],...]}]}}
// A series is one metric of one GPU over time; an event is one GPU at one time with all its
// metrics. So every series is read first, its points filed under (host, GPU) and time, and the
// samples are emitted at the end in time order; `--prometheus` marks the end of each time slice
// (kPrometheusSliceEndKey), and the samples before it are emitted there. Metric names are dcgm-exporter's (DCGM_FI_*) and
// nvidia_gpu_exporter's (nvidia_smi_*); any other series is ignored and counted by name.
#include "prep/parsers.hpp"
#include "prep/telemetry/prometheus_series.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/io/http.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prometheus_slices.hpp>

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::prep {

namespace {

/// Bytes read at a time: the documents are parsed as they arrive, so that only the unparsed rest
/// (at most one document's start) and the join's samples are held, never the whole input.
constexpr std::size_t kReadBytes = std::size_t{4} << 20;
constexpr std::size_t kMinReadBytes = std::size_t{64} << 10;

std::string compact_head(std::string_view head, std::size_t n) {
  std::string out;
  for (const char c : head) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    out.push_back(c);
    if (out.size() >= n) break;
  }
  return out;
}

class PrometheusJsonParser final : public LineParser {
 public:
  explicit PrometheusJsonParser(prom::LabelFilter filter) : m_filter(std::move(filter)) {}
  // Read whole (FormatTraits::whole_document): parse() is never called.
  LineResult parse(std::string_view /*line*/, ParseContext& /*ctx*/) override { return LineResult::ignored; }
  void parse_whole(io::LineReader& reader, ParseContext& ctx) override {
    ctx.stats.time_basis = TimeBasis::absolute;
    ctx.stats.clock = "absolute: Prometheus timestamps (Unix seconds, UTC)";
    read_documents(reader, ctx);
    m_join.emit(ctx);
    m_join.summarise(ctx);
    note_snapshot(ctx);
  }

 private:
  // ---- reading --------------------------------------------------------------------------

  /// The bytes read and not parsed yet. It only grows, and what it grows by is not zero-filled: a
  /// short answer (and each fuzz run) does not write the 4 MB a fetched slice may take at once.
  /// simdjson reads its padding but does not depend on its value.
  struct ReadBuffer {
    std::unique_ptr<char[]> bytes;
    std::size_t capacity = 0;
    [[nodiscard]] char* data() const { return bytes.get(); }
    /// At least `size` bytes, the first `keep` kept.
    void grow(std::size_t size, std::size_t keep) {
      if (size <= capacity) return;
      auto grown = std::make_unique_for_overwrite<char[]>(size);
      if (keep > 0) std::memcpy(grown.get(), bytes.get(), keep);
      bytes = std::move(grown);
      capacity = size;
    }
  };

  /// Reads into `buf` after its first `len` bytes what the reader has, up to `want` bytes: at
  /// least as much as `len` (so that a long document is scanned a few times, not once per read) or
  /// 64 KiB, unless the input ends; a fetched slice comes whole in one read. `buf` only grows, with
  /// simdjson's padding after the bytes read, so that the next slice writes no fresh memory. True
  /// at the input's end.
  static bool fill(io::LineReader& reader, ReadBuffer& buf, std::size_t& len, std::size_t want) {
    const std::size_t enough = std::max(len, kMinReadBytes);
    buf.grow(len + want + simdjson::SIMDJSON_PADDING, len);
    std::size_t got = 0;
    bool end = false;
    while (got < enough) {
      const std::size_t n = reader.read_bytes(buf.data() + len + got, want - got);
      if (n == 0) {
        end = true;
        break;
      }
      got += n;
    }
    len += got;
    return end;
  }

  // The documents one after another as the reader gives them: each pass parses every document
  // the bytes read so far hold and keeps the start of a cut one for the next pass.
  void read_documents(io::LineReader& reader, ParseContext& ctx) {
    simdjson::dom::parser parser;
    ReadBuffer buf;
    std::size_t len = 0;     // the bytes of buf read and not parsed yet
    std::uint64_t line = 1;  // the line of buf's first byte
    for (bool end = false; !end;) {
      end = fill(reader, buf, len, std::max(kReadBytes, 2 * len));
      if (len == 0) return;
      const std::string_view bytes(buf.data(), len);
      simdjson::dom::document_stream docs;
      // One batch holds all the bytes, so that any document fits; its buffers are sized by it.
      if (parser.parse_many(buf.data(), len, std::max<std::size_t>(len, 4096)).get(docs) != simdjson::SUCCESS)
        return count_bad_document(ctx, line, "not JSON");
      std::size_t line_pos = 0;
      for (auto it = docs.begin(); it != docs.end(); ++it) {
        const std::size_t at = std::min(it.current_index(), len);
        line += newlines(bytes, line_pos, at);
        line_pos = at;
        simdjson::dom::element doc;
        if ((*it).get(doc) != simdjson::SUCCESS)
          return count_bad_document(ctx, line, "not JSON (a cut or broken document)");  // no resync after it
        parse_document(doc, line, ctx);
      }
      const std::size_t consumed = len - std::min(docs.truncated_bytes(), len);
      line += newlines(bytes, line_pos, consumed);
      std::memmove(buf.data(), buf.data() + consumed, len - consumed);
      len -= consumed;
    }
    if (!text::trim(std::string_view(buf.data(), len)).empty())
      count_bad_document(ctx, line, "the input ends inside a document");
  }

  // By memchr, which skips a line of MBs (a slice's whole answer) many bytes at a time, where a
  // byte-by-byte count costs as much as a share of the parse.
  static std::uint64_t newlines(std::string_view buf, std::size_t from, std::size_t to) {
    std::uint64_t n = 0;
    const char* p = buf.data() + from;
    const char* const end = buf.data() + std::max(from, to);
    while (p < end) {
      p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      if (p == nullptr) break;
      ++n;
      ++p;
    }
    return n;
  }

  static void count_bad_document(ParseContext& ctx, std::uint64_t line, std::string_view why) {
    ++ctx.stats.lines;
    ctx.settle(LineResult::malformed, 1, line, why);
  }

  void parse_document(simdjson::dom::element doc, std::uint64_t line, ParseContext& ctx) {
    std::int64_t slice_end_ms = 0;
    if (doc[kPrometheusSliceEndKey].get_int64().get(slice_end_ms) == simdjson::SUCCESS) {
      m_join.emit(ctx, slice_end_ms * 1'000'000);  // the samples before it are complete
      return;
    }
    std::string_view status;
    if (doc["status"].get_string().get(status) != simdjson::SUCCESS)
      return count_bad_document(ctx, line, "not a Prometheus API response (no \"status\")");
    if (status != "success") {
      std::string_view error;
      if (doc["error"].get_string().get(error) != simdjson::SUCCESS) error = {};
      ctx.stats.warnings.push_back(
          fmt::format("{}:{}: Prometheus answered with an error: {}", ctx.stats.path, line, error));
      return count_bad_document(ctx, line, "a Prometheus error response instead of data");
    }
    std::string_view type;
    simdjson::dom::array result;
    if (doc["data"]["resultType"].get_string().get(type) != simdjson::SUCCESS ||
        doc["data"]["result"].get_array().get(result) != simdjson::SUCCESS)
      return count_bad_document(ctx, line, "no data.resultType and data.result");
    if (type != "matrix" && type != "vector")
      return count_bad_document(ctx, line, "a scalar or string result: gpucost reads series (matrix, vector)");
    note_server_text(doc, line, ctx);
    if (type == "vector") ++m_vector_documents;
    std::size_t n = 0;
    for (simdjson::dom::element series : result) parse_series(series, type == "matrix", line, ++n, ctx);
  }

  // Thanos, Mimir and Prometheus 3 say what the answer lacks (a partial answer, a dropped store)
  // in "warnings" and "infos": a saved answer keeps them, and the user should see them. The
  // server's words are quoted, on one line and cut short (io::server_text).
  static void note_server_text(simdjson::dom::element doc, std::uint64_t line, ParseContext& ctx) {
    for (const auto& [key, says] : {std::pair{"warnings", "warns"}, std::pair{"infos", "informs"}}) {
      simdjson::dom::array list;
      if (doc[key].get_array().get(list) != simdjson::SUCCESS) continue;
      for (simdjson::dom::element w : list) {
        std::string_view text;
        if (w.get_string().get(text) == simdjson::SUCCESS)
          add_note(ctx.stats,
                   fmt::format("the answer on line {}: the server {}: {}", line, says, io::server_text(text)));
      }
    }
  }

  // An instant query gives each series at one time: alone, that is no run to price.
  void note_snapshot(ParseContext& ctx) const {
    if (m_vector_documents > 0 && ctx.stats.events > 0 && ctx.stats.first_ts_ns == ctx.stats.last_ts_ns)
      add_note(ctx.stats, fmt::format("an instant query's answer (resultType vector) at {}: a snapshot: one instant, "
                                      "no duration to price (save a query_range answer for the job's window)",
                                      format_utc(ctx.stats.first_ts_ns)));
  }

  // ---- one series -------------------------------------------------------------------------

  void parse_series(simdjson::dom::element series, bool matrix, std::uint64_t line, std::size_t n, ParseContext& ctx) {
    ++ctx.stats.lines;
    simdjson::dom::object object;
    if (series["metric"].get_object().get(object) != simdjson::SUCCESS)
      return bad_series(ctx, line, n, "", "no \"metric\" object");
    m_labels.clear();
    for (const auto [key, value] : object) {
      std::string_view v;
      if (value.get_string().get(v) == simdjson::SUCCESS) m_labels.push_back(prom::Label{key, v});
    }
    const std::string_view name = prom::label(m_labels, "__name__");
    prom::SeriesJoin::Series s;
    switch (m_join.classify(name, m_labels, m_filter, s)) {
      case prom::SeriesJoin::Outcome::ignored:
      case prom::SeriesJoin::Outcome::filtered: return ctx.settle(LineResult::ignored, 1);
      case prom::SeriesJoin::Outcome::info: return ctx.settle(LineResult::event, 1);
      case prom::SeriesJoin::Outcome::no_gpu:
        return bad_series(ctx, line, n, name, "no gpu, UUID or uuid label: which GPU is it?");
      case prom::SeriesJoin::Outcome::series: break;
    }
    simdjson::dom::array values;
    simdjson::dom::element single;
    if (matrix ? series["values"].get_array().get(values) != simdjson::SUCCESS
               : series["value"].get(single) != simdjson::SUCCESS)
      return bad_series(ctx, line, n, name, matrix ? "no \"values\" array" : "no \"value\"");
    std::string_view why;
    if (matrix) {
      for (simdjson::dom::element v : values)
        if (!add_point(s, v, why)) break;
    } else {
      add_point(s, single, why);
    }
    if (!why.empty()) return bad_series(ctx, line, n, name, why);
    ctx.settle(LineResult::event, 1);
  }

  static void bad_series(ParseContext& ctx, std::uint64_t line, std::size_t n, std::string_view name,
                         std::string_view why) {
    ctx.reason_buf = fmt::format("series {} of the document: {}", n, why);
    ctx.settle(LineResult::malformed, 1, line, ctx.reason_buf, name);
  }

  // A point [unix seconds, "value"]. "NaN" and "+Inf"/"-Inf" (a failed read, a stale division)
  // are no value: counted, not a sample. False, with `why`, when the point is not of that shape.
  bool add_point(const prom::SeriesJoin::Series& s, simdjson::dom::element point, std::string_view& why) {
    simdjson::dom::array pair;
    double seconds = 0;
    std::string_view text;
    if (point.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2 ||
        pair.at(0).get_double().get(seconds) != simdjson::SUCCESS ||
        pair.at(1).get_string().get(text) != simdjson::SUCCESS) {
      why = "a point is not [unix_seconds, \"value\"]";
      return false;
    }
    if (!std::isfinite(seconds) || seconds < 0 || seconds > 4e9) {
      why = "a point's time is not Unix seconds";
      return false;
    }
    const std::int64_t ts_ns = std::llround(seconds * 1e3) * 1'000'000;  // Prometheus keeps ms
    return m_join.add_point(s, ts_ns, text, why);
  }

  prom::LabelFilter m_filter;
  prom::SeriesJoin m_join{"prometheus"};
  std::vector<prom::Label> m_labels;  ///< the series' labels, reused
  std::uint64_t m_vector_documents = 0;
};

/// {"status":"error","errorType":...,"error":...} in any key order (compacted).
bool is_error_answer(const std::string& compact) {
  return compact.find(R"("status":"error")") != std::string::npos &&
         compact.find(R"("errorType":)") != std::string::npos &&
         compact.find(R"("data":{"resultType":)") == std::string::npos;
}

}  // namespace

bool looks_like_prometheus_json(std::string_view head) {
  // The keys in any order and beside others (isPartial, warnings, infos, stats): Prometheus writes
  // status first, a client writing the answer back may not; resultType always leads data.
  const std::string c = compact_head(head, 64 * 1024);
  if (!c.starts_with('{')) return false;
  if (is_error_answer(c)) return true;
  return c.find(R"("data":{"resultType":"matrix")") != std::string::npos ||
         c.find(R"("data":{"resultType":"vector")") != std::string::npos;
}

std::string prometheus_json_hint(std::string_view head) {
  const std::string c = compact_head(head, 64 * 1024);
  if (!c.starts_with('{')) return {};
  const bool result_type = c.find(R"("resultType":)") != std::string::npos;
  const bool status = c.find(R"("status":"success")") != std::string::npos;
  if (result_type && c.find(R"("data":{)") == std::string::npos)
    return "this looks like the data of a Prometheus answer without its envelope (no \"status\" and \"data\" "
           "keys): save curl's whole answer, or wrap it: jq '{status:\"success\",data:.}'";
  if (status && !result_type)
    return "this looks like a Prometheus answer without \"data\": {\"resultType\", \"result\"}: save the answer "
           "of /api/v1/query_range (or /api/v1/query) whole";
  return {};
}

Expected<std::unique_ptr<LineParser>> make_prometheus_json_parser(ParseContext& ctx, std::string_view head) {
  if (is_error_answer(compact_head(head, 64 * 1024))) {
    simdjson::dom::parser parser;
    std::string_view error;
    simdjson::dom::element doc;
    if (parser.parse(simdjson::padded_string(head)).get(doc) == simdjson::SUCCESS)
      if (doc["error"].get_string().get(error) != simdjson::SUCCESS) error = {};
    return make_error(ErrorKind::format,
                      fmt::format("{}: Prometheus answered with an error, not data: {}", ctx.stats.path,
                                  error.empty() ? std::string_view("(no message)") : error),
                      "fix the query (or its start/end/step: at most 11000 points per series) and fetch it again");
  }
  auto filter = prom::LabelFilter::compile(ctx.options.label_matchers);
  if (!filter) return filter.error();
  return std::unique_ptr<LineParser>(std::make_unique<PrometheusJsonParser>(std::move(*filter)));
}

}  // namespace gpucost::prep
