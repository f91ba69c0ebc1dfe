// --prometheus reads a window in time slices: their length from the series the first slice holds,
// fetched side by side and handed on in time order (the same bytes for every number of threads),
// a failed slice ending the input with its error; and the prometheus-json reader emits each
// slice's samples at its end, the GPUs' identities and last Xid codes carried to the next slice.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/io/http.hpp>
#include <gpucost/pipeline/prometheus.hpp>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace gpucost;
using gpucost::test::OwnedEvent;
using gpucost::test::run_prep_text;

/// The start and end parameters of a query_range URL, in ms.
std::pair<std::int64_t, std::int64_t> range_of(const std::string& url) {
  const auto param = [&](std::string_view key) {
    const std::size_t at = url.find(key);
    const std::size_t end = url.find('&', at);
    return std::llround(std::stod(url.substr(at + key.size(), end - at - key.size())) * 1000.0);
  };
  return {param("&start="), param("&end=")};
}

/// A server of `series` series of one point per slice (at its start), each answer slower the
/// earlier its slice, so that answers come back out of order; `fail_from_ms`: slices from there
/// answer HTTP 503.
struct FakeServer {
  int series = 1;
  std::int64_t fail_from_ms = -1;
  std::mutex mutex;
  std::vector<std::pair<std::int64_t, std::int64_t>> asked;
  std::atomic<int> in_flight = 0, most_in_flight = 0;

  std::string answer(std::int64_t start_ms) const {
    std::string out = R"({"status":"success","data":{"resultType":"matrix","result":[)";
    for (int s = 0; s < series; ++s)
      out += fmt::format(R"({}{{"metric":{{"__name__":"DCGM_FI_DEV_POWER_USAGE","Hostname":"n1","gpu":"{}"}},)"
                         R"("values":[[{}.{:03d},"{}"]]}})",
                         s > 0 ? "," : "", s, start_ms / 1000, start_ms % 1000, 100 + s);
    return out + "]}}";
  }
};

class FakeFetcher final : public io::Fetcher {
 public:
  explicit FakeFetcher(FakeServer& server) : m_server(server) {}
  Expected<std::string> get(const std::string& url) override {
    const auto range = range_of(url);
    {
      const std::lock_guard lock(m_server.mutex);
      m_server.asked.push_back(range);
    }
    const int now = ++m_server.in_flight;
    for (int seen = m_server.most_in_flight; now > seen && !m_server.most_in_flight.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (5 - (range.first / 15000) % 5)));
    --m_server.in_flight;
    if (m_server.fail_from_ms >= 0 && range.first >= m_server.fail_from_ms) {
      set_last_status(503);
      set_last_error_body(R"({"status":"error","errorType":"unavailable","error":"too busy"})");
      return make_error(ErrorKind::io, fmt::format("{}: HTTP 503", io::shown_url(url)));
    }
    set_last_status(200);
    return m_server.answer(range.first);
  }
  Status stream(const std::string& url, const std::function<void()>& /*restart*/,
                const std::function<Status(std::string_view)>& sink) override {
    auto body = get(url);
    if (!body) return body.error();
    return sink(*body);
  }

 private:
  FakeServer& m_server;
};

pipeline::PrometheusQuery query(std::int64_t points) {
  pipeline::PrometheusSettings s;
  s.url = "http://prom:9090";
  auto q = pipeline::prometheus_query(s, 0, (points * 15000) * 1'000'000, 1);
  REQUIRE(q);
  return *q;
}

struct Read {
  std::string bytes, error;
};

Read read_window(FakeServer& server, const pipeline::PrometheusQuery& q, unsigned jobs) {
  auto fetched = pipeline::fetch_prometheus(
      q, [&server] { return std::make_unique<FakeFetcher>(server); }, jobs);
  REQUIRE(fetched);
  auto reader = pipeline::open_reader(fetched->input);
  REQUIRE(reader);
  Read out;
  char buf[1000];  // small reads: a slice's answer is handed on in pieces too
  for (std::size_t n; (n = (*reader)->read_bytes(buf, sizeof buf)) > 0;) out.bytes.append(buf, n);
  out.error = (*reader)->error();
  return out;
}

}  // namespace

TEST_CASE("prometheus slices: their length follows the series, a few MB an answer", "[pipeline][prometheus]") {
  CHECK(pipeline::slice_points(1) == pipeline::kMaxPointsPerSeries);
  CHECK(pipeline::slice_points(256) == 781);  // 64 GPUs x 4 metrics: about 3 hours at 15 s
  CHECK(pipeline::slice_points(4000) == 50);
  CHECK(pipeline::slice_points(1'000'000) == 2);
  CHECK(pipeline::slice_points(10, 30) == 30);
}

TEST_CASE("prometheus slices: the first slice measures, the rest follow on one grid, in time order for any -j",
          "[pipeline][prometheus]") {
  FakeServer server;
  server.series = 2000;  // slices of 100 points after the first of 240
  const auto q = query(3000);
  const Read one = read_window(server, q, 1);
  REQUIRE(one.error.empty());
  std::vector<std::pair<std::int64_t, std::int64_t>> asked = server.asked;
  std::sort(asked.begin(), asked.end());
  REQUIRE(asked.size() == 1 + (3001 - 240 + 99) / 100);
  CHECK(asked.front() == std::pair<std::int64_t, std::int64_t>{0, 239 * 15000});
  for (std::size_t i = 1; i < asked.size(); ++i) {
    CHECK(asked[i].first == asked[i - 1].second + 15000);  // no point asked twice, none skipped
    CHECK(asked[i].second - asked[i].first <= 99 * 15000);
  }
  CHECK(asked.back().second == 3000 * 15000 - 1);
  CHECK(server.most_in_flight == 1);

  server.asked.clear();
  const Read four = read_window(server, q, 4);
  CHECK(four.error.empty());
  CHECK(server.asked.size() == asked.size());
  CHECK(server.most_in_flight <= 4);
  CHECK(four.bytes == one.bytes);  // byte for byte, whatever order the answers came in
}

TEST_CASE("prometheus slices: a slice that fails ends the input there, with its error", "[pipeline][prometheus]") {
  FakeServer server;
  server.series = 2000;
  server.fail_from_ms = 540 * 15000;  // the fourth slice: 240 + 3 x 100 points
  const Read r = read_window(server, query(3000), 4);
  CHECK(r.error.find("prometheus:http://prom:9090: HTTP 503: the server says \"too busy\"") == 0);
  CHECK(r.error.find("the samples from 1970-01-01T02:15:00Z on are not read") != std::string::npos);
  // Every slice before it, complete: its end line is the last line.
  CHECK(r.bytes.ends_with("{\"gpucost_slice_end_ms\":8085001}\n"));
}

namespace {

std::string answer(const std::string& series) {
  return R"({"status":"success","data":{"resultType":"matrix","result":[)" + series + "]}}";
}
std::string end_of_slice(std::int64_t ms) { return fmt::format("{{\"gpucost_slice_end_ms\":{}}}\n", ms); }

std::vector<std::string> lines_of(const std::vector<OwnedEvent>& events) {
  std::vector<std::string> out;
  for (const OwnedEvent& e : events) {
    std::string line = fmt::format("{} {} {} {}", e.ts_ns, e.kind, e.host, e.gpu);
    for (const auto& [k, v] : e.metrics) line += fmt::format(" {}={}", k, v);
    for (const auto& [k, v] : e.fields) line += fmt::format(" {}={}", k, v);
    out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("prometheus slices: the reader emits each slice at its end, identities and Xid codes carried on",
          "[prep][prometheus-json]") {
  // Slice 1 (0-29 s): nvidia_smi_gpu_info names GPU-a index 3; GPU 0's Xid gauge reads 0.
  // Slice 2 (30-59 s): GPU-a by uuid alone, no info series; the Xid gauge changes to 79.
  const std::string slice1 = answer(
      R"({"metric":{"__name__":"nvidia_smi_gpu_info","instance":"n1:9835","uuid":"GPU-a","index":"3","name":"NVIDIA A100"},"values":[[0,"1"]]},)"
      R"({"metric":{"__name__":"nvidia_smi_power_draw_watts","instance":"n1:9835","uuid":"GPU-a"},"values":[[0,"200"],[15,"201"]]},)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_XID_ERRORS","Hostname":"n1","gpu":"0"},"values":[[0,"0"],[15,"0"]]})");
  const std::string slice2 = answer(
      R"({"metric":{"__name__":"nvidia_smi_power_draw_watts","instance":"n1:9835","uuid":"GPU-a"},"values":[[30,"202"],[45,"203"]]},)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_XID_ERRORS","Hostname":"n1","gpu":"0"},"values":[[30,"79"],[45,"79"]]})");
  // The padding makes each slice a read of its own (the reader reads at least 64 KiB).
  const std::string pad(70'000, ' ');
  const std::string sliced = slice1 + pad + "\n" + end_of_slice(30'000) + slice2 + pad + "\n" + end_of_slice(60'000);
  const auto r = run_prep_text(sliced);
  REQUIRE(r.status);
  const auto whole = run_prep_text(slice1 + "\n" + slice2 + "\n");
  CHECK(lines_of(r.events) == lines_of(whole.events));  // the same events as the whole window joined
  int xids = 0, indexed = 0;
  for (const OwnedEvent& e : r.events) {
    if (e.kind == "xid") {
      ++xids;
      CHECK(e.ts_ns == 30 * kNsPerSecond);
    }
    if (e.kind == "sample" && e.fields.contains("uuid") && e.fields.at("uuid") == "GPU-a") {
      CHECK(e.gpu == 3);
      CHECK(e.fields.at("name") == "NVIDIA A100");
      ++indexed;
    }
  }
  CHECK(xids == 1);  // 0 -> 79 across the slices' boundary
  CHECK(indexed == 4);
  CHECK(r.stats.malformed == 0);
}

TEST_CASE("prometheus slices: a slice's samples are emitted before the next slice is read", "[prep][prometheus-json]") {
  // A source that hands on one piece per read and counts what it handed on.
  class Pieces final : public io::ByteSource {
   public:
    explicit Pieces(std::vector<std::string> pieces, std::size_t& served)
        : m_pieces(std::move(pieces)), m_served(served) {}
    std::size_t read(char* buf, std::size_t n) override {
      if (m_next == m_pieces.size()) return 0;
      const std::string& p = m_pieces[m_next];
      const std::size_t k = std::min(n, p.size() - m_pos);
      std::copy_n(p.data() + m_pos, k, buf);
      m_pos += k;
      if (m_pos == p.size()) {
        ++m_next;
        m_pos = 0;
        ++m_served;
      }
      return k;
    }

   private:
    std::vector<std::string> m_pieces;
    std::size_t m_next = 0, m_pos = 0;
    std::size_t& m_served;
  };
  class WhenSink final : public EventSink {
   public:
    explicit WhenSink(const std::size_t& served) : m_served(served) {}
    void on_event(const Event& e) override {
      if (e.kind == "sample") served_at.emplace_back(e.ts_ns, m_served);
    }
    std::vector<std::pair<std::int64_t, std::size_t>> served_at;

   private:
    const std::size_t& m_served;
  };
  const std::string pad(70'000, ' ');
  std::vector<std::string> pieces;
  for (int s = 0; s < 3; ++s)
    pieces.push_back(
        answer(fmt::format(R"({{"metric":{{"__name__":"DCGM_FI_DEV_POWER_USAGE","Hostname":"n1","gpu":"0"}},)"
                           R"("values":[[{},"100"],[{},"101"]]}})",
                           s * 30, s * 30 + 15)) +
        pad + "\n" + end_of_slice((s + 1) * 30'000));
  std::size_t served = 0;
  io::LineReader reader(std::make_unique<Pieces>(pieces, served), io::Compression::none);
  auto clock = LocalClock::make("UTC");
  WhenSink sink(served);
  InputStats stats;
  stats.path = "test";
  prep::PrepOptions options;
  options.forced = Format::prometheus_json;
  REQUIRE(prep::run_prep_input(reader, options, *clock, sink, stats));
  REQUIRE(sink.served_at.size() == 6);
  for (const auto& [ts_ns, when] : sink.served_at) {
    const auto slice = static_cast<std::size_t>(ts_ns / (30 * kNsPerSecond));
    CHECK(when <= slice + 1);  // not held until a later slice (or the end) was read
  }
}
