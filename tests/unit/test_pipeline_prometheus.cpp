// --prometheus: the window cut under the server's points limit on one step grid, the selector and
// its URL encoding, --step and --match, the credentials from the environment, and the answers of
// a Fetcher that stands in for the server (data, errors, nothing) turned into one input or one
// clear error.
#include <catch2/catch.hpp>

#include <gpucost/io/http.hpp>
#include <gpucost/pipeline/prometheus.hpp>
#include <gpucost/prep/prep.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace gpucost;
using pipeline::QueryRange;

/// Answers by URL substring; an answer with a status >= 400 fails as the libcurl fetcher does.
class ScriptedFetcher final : public io::Fetcher {
 public:
  struct Answer {
    long status = 200;
    std::string body;
  };
  std::vector<std::string> urls;
  std::vector<Answer> answers;  ///< one per request, in order; the last one repeats

  Expected<std::string> get(const std::string& url) override {
    urls.push_back(url);
    const Answer& a = answers.at(std::min(urls.size(), answers.size()) - 1);
    set_last_status(a.status);
    set_last_error_body(a.status >= 400 ? a.body : std::string());
    if (a.status == 0)
      return make_error(ErrorKind::io, fmt::format("{}: {}: Failed to connect to 127.0.0.1 port 1 after 0 ms (after 3 "
                                                   "tries)",
                                                   io::kNoNetwork, io::shown_url(url)));
    if (a.status >= 400)
      return make_error(ErrorKind::io, fmt::format("{}: HTTP {}", io::shown_url(url), a.status), a.body.substr(0, 200));
    return a.body;
  }
  Status stream(const std::string& url, const std::function<void()>& /*restart*/,
                const std::function<Status(std::string_view)>& sink) override {
    auto body = get(url);
    if (!body) return body.error();
    return sink(*body);
  }
};

/// Fetchers that all ask `f` (one thread at a time: jobs 1).
pipeline::FetcherFactory borrowing(io::Fetcher& f) {
  class Borrowed final : public io::Fetcher {
   public:
    explicit Borrowed(io::Fetcher& f) : m_f(f) {}
    Expected<std::string> get(const std::string& url) override {
      auto body = m_f.get(url);
      set_last_status(m_f.last_status());
      set_last_error_body(m_f.last_error_body());
      for (std::string& n : m_f.take_notes()) note(std::move(n));
      return body;
    }
    Status stream(const std::string& url, const std::function<void()>& restart,
                  const std::function<Status(std::string_view)>& sink) override {
      return m_f.stream(url, restart, sink);
    }

   private:
    io::Fetcher& m_f;
  };
  return [&f] { return std::make_unique<Borrowed>(f); };
}

std::string read_all(io::LineReader& reader) {
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = reader.read_bytes(buf, sizeof buf)) > 0;) out.append(buf, n);
  return out;
}

const std::string kOneSeries =
    R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"Hostname":"node01",)"
    R"("UUID":"GPU-1","__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0"},"values":[[1718197335,"250.5"]]}]}})";
const std::string kNoSeries = R"({"status":"success","data":{"resultType":"matrix","result":[]}})";

pipeline::PrometheusQuery query(std::int64_t start_ms, std::int64_t end_ms, std::int64_t step_ms = 15000) {
  pipeline::PrometheusSettings s;
  s.url = "http://prom:9090";
  auto q = pipeline::prometheus_query(s, start_ms * 1'000'000, (end_ms + 1) * 1'000'000, 0);
  REQUIRE(q);
  q->step_ms = step_ms;
  return *q;
}

}  // namespace

TEST_CASE("prometheus: the window is cut under the points limit, on one step grid", "[pipeline][prometheus]") {
  using pipeline::split_query_window;
  // 41 points at 15 s (ten minutes, both ends in): one range.
  CHECK(split_query_window(0, 600'000, 15'000) == std::vector<QueryRange>{{0, 600'000}});
  // At most 10 points a range: 0..135 s, then 150..285 s (the next grid point), ...; 41 = 4 x 10 + 1.
  const auto r = split_query_window(0, 600'000, 15'000, 10);
  REQUIRE(r.size() == 5);
  CHECK(r[0] == QueryRange{0, 135'000});
  CHECK(r[1] == QueryRange{150'000, 285'000});
  CHECK(r[4] == QueryRange{600'000, 600'000});
  // An end off the grid: the last full range ends on its tenth point, 585 s; no point after it.
  CHECK(split_query_window(0, 599'999, 15'000, 10).back() == QueryRange{450'000, 585'000});
  CHECK(split_query_window(0, 599'999, 15'000, 100) == std::vector<QueryRange>{{0, 599'999}});
  // Prometheus' own limit: a day at 1 s is 86,401 points, 11,000 a range (10,999 steps): 8 ranges.
  const auto day = split_query_window(0, 86'400'000, 1'000);
  REQUIRE(day.size() == 8);
  for (const auto& x : day) CHECK((x.end_ms - x.start_ms) / 1'000 <= pipeline::kMaxPointsPerSeries);
  for (std::size_t i = 1; i < day.size(); ++i) CHECK(day[i].start_ms == day[i - 1].end_ms + 1'000);
  CHECK(day.back().end_ms == 86'400'000);
  // Nothing to ask: an empty window or no step.
  CHECK(split_query_window(10, 5, 1'000).empty());
  CHECK(split_query_window(0, 5, 0).empty());
  CHECK(split_query_window(7, 7, 1'000) == std::vector<QueryRange>{{7, 7}});
}

TEST_CASE("prometheus: one selector for every mapped name, the matchers added, percent-encoded",
          "[pipeline][prometheus]") {
  const std::vector<std::string_view> names = {"DCGM_FI_DEV_POWER_USAGE", "nvidia_smi_power_draw_watts"};
  const std::string sel = pipeline::series_selector(names, {"Hostname=\"node01\"", " gpu=~\"0|1\" "});
  CHECK(sel == R"({__name__=~"DCGM_FI_DEV_POWER_USAGE|nvidia_smi_power_draw_watts",Hostname="node01",gpu=~"0|1"})");
  CHECK(pipeline::series_selector(names, {}) == R"({__name__=~"DCGM_FI_DEV_POWER_USAGE|nvidia_smi_power_draw_watts"})");
  CHECK(pipeline::query_range_url("http://prom:9090/prefix", sel, QueryRange{1718197335000, 1718197949999}, 15000) ==
        "http://prom:9090/prefix/api/v1/query_range?query=%7B__name__%3D~%22DCGM_FI_DEV_POWER_USAGE%7Cnvidia_smi_"
        "power_draw_watts%22%2CHostname%3D%22node01%22%2Cgpu%3D~%220%7C1%22%7D&start=1718197335&end=1718197949.999"
        "&step=15");
  CHECK(pipeline::query_range_url("http://p", "up", QueryRange{1500, 2050}, 500) ==
        "http://p/api/v1/query_range?query=up&start=1.5&end=2.05&step=0.5");
  CHECK(io::url_encode("a b\"{}=~|,\\") == "a%20b%22%7B%7D%3D~%7C%2C%5C");
  // Every name the prometheus-json format maps is asked for: power, the energy counter, the
  // profiling ratios, the throttle reasons under both names, nvidia_gpu_exporter's.
  const auto all = prep::prometheus_metric_names();
  for (const char* name :
       {"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_GPU_UTIL",
        "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK",
        "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
        "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE",
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE", "nvidia_smi_power_draw_watts",
        "nvidia_smi_gpu_info"}) {
    INFO(name);
    CHECK(std::find(all.begin(), all.end(), std::string_view(name)) != all.end());
  }
}

TEST_CASE("prometheus: --step as Prometheus writes durations, or seconds", "[pipeline][prometheus]") {
  CHECK(*pipeline::parse_step("15s") == 15000);
  CHECK(*pipeline::parse_step("1m30s") == 90000);
  CHECK(*pipeline::parse_step("500ms") == 500);
  CHECK(*pipeline::parse_step("1h") == 3600000);
  CHECK(*pipeline::parse_step("15") == 15000);
  CHECK(*pipeline::parse_step("0.25") == 250);
  for (const char* bad : {"", "fast", "15x", "s", "-5", "0", "0.0001", "2d", "1.5m"}) {
    INFO(bad);
    auto s = pipeline::parse_step(bad);
    REQUIRE_FALSE(s);
    CHECK(s.error().kind == ErrorKind::usage);
  }
}

TEST_CASE("prometheus: --match takes one label matcher with a quoted value", "[pipeline][prometheus]") {
  for (const char* ok : {R"(Hostname="node01")", R"(gpu=~"0|1")", R"(namespace!="kube-system")", R"(pod!~"idle-.*")",
                         R"( Hostname = "a \"b\"" )", "job='dcgm'"})
    CHECK(pipeline::check_matcher(ok));
  for (const char* bad : {"Hostname=node01", "Hostname", R"(="x")", R"(1gpu="0")", R"(gpu=="0")", R"(gpu="0)",
                          R"(gpu="0" x)", R"(a="1",b="2")"}) {
    INFO(bad);
    CHECK_FALSE(pipeline::check_matcher(bad));
  }
  const auto e = pipeline::check_matcher("Hostname=node01");
  CHECK(e.error().hint == R"(the value goes in double quotes: --match 'Hostname="node01"')");
}

TEST_CASE("prometheus: the query of a window, --from required, --to exclusive", "[pipeline][prometheus]") {
  pipeline::PrometheusSettings s;
  s.url = "https://prom.example.org/prometheus/";
  s.matchers = {"Hostname=\"node01\""};
  const std::int64_t from = 1718197335'000'000'000, to = 1718197950'000'000'000;
  auto q = pipeline::prometheus_query(s, from, to, 0);
  REQUIRE(q);
  CHECK(q->base_url == "https://prom.example.org/prometheus");
  CHECK(q->name == "prometheus:https://prom.example.org/prometheus{Hostname=\"node01\"}");
  CHECK(q->start_ms == 1718197335000);
  CHECK(q->end_ms == 1718197949999);  // the last point before --to
  CHECK(q->step_ms == 15000);
  // --to defaults to now; --from never is guessed.
  auto now = pipeline::prometheus_query(s, from, std::nullopt, to + 1);
  REQUIRE(now);
  CHECK(now->end_ms == 1718197950000);
  auto no_from = pipeline::prometheus_query(s, std::nullopt, to, to);
  REQUIRE_FALSE(no_from);
  CHECK(no_from.error().message == "--prometheus: no --from: which window should be asked for?");
  CHECK_FALSE(pipeline::prometheus_query(s, to, from, 0));
  for (const char* url : {"prom:9090", "ftp://prom", "http://prom:9090/api/v1/query_range", "http://prom/?x=1"}) {
    INFO(url);
    s.url = url;
    CHECK_FALSE(pipeline::prometheus_query(s, from, to, 0));
  }
}

TEST_CASE("prometheus: credentials and TLS from the environment, never half", "[pipeline][prometheus]") {
  std::map<std::string, std::string> env;
  const auto lookup = [&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  auto none = pipeline::prometheus_auth_from_env(lookup);
  REQUIRE(none);
  CHECK(pipeline::prometheus_http_options(*none).headers.empty());
  CHECK(pipeline::prometheus_http_options(*none).verify_tls);

  env = {{"GPUCOST_PROMETHEUS_TOKEN", "t0k"}};
  auto token = pipeline::prometheus_auth_from_env(lookup);
  REQUIRE(token);
  CHECK(pipeline::prometheus_http_options(*token).headers == std::vector<std::string>{"Authorization: Bearer t0k"});

  const std::string path = std::filesystem::temp_directory_path() / "gpucost-test-token";
  std::ofstream(path) << "  from-file \nsecond line\n";
  env = {{"GPUCOST_PROMETHEUS_TOKEN_FILE", path}};
  auto from_file = pipeline::prometheus_auth_from_env(lookup);
  REQUIRE(from_file);
  CHECK(from_file->bearer_token == "from-file");
  env = {{"GPUCOST_PROMETHEUS_TOKEN_FILE", path + ".missing"}};
  CHECK_FALSE(pipeline::prometheus_auth_from_env(lookup));
  std::filesystem::remove(path);

  env = {{"GPUCOST_PROMETHEUS_USER", "alice"},
         {"GPUCOST_PROMETHEUS_PASSWORD", "pw"},
         {"GPUCOST_PROMETHEUS_CA_FILE", "/etc/ca.pem"},
         {"GPUCOST_PROMETHEUS_INSECURE", "1"}};
  auto basic = pipeline::prometheus_auth_from_env(lookup);
  REQUIRE(basic);
  const auto o = pipeline::prometheus_http_options(*basic);
  CHECK(o.user == "alice");
  CHECK(o.password == "pw");
  CHECK(o.ca_file == "/etc/ca.pem");
  CHECK_FALSE(o.verify_tls);

  for (const auto& bad : std::vector<std::map<std::string, std::string>>{
           {{"GPUCOST_PROMETHEUS_USER", "alice"}},
           {{"GPUCOST_PROMETHEUS_PASSWORD", "pw"}},
           {{"GPUCOST_PROMETHEUS_TOKEN", "t"}, {"GPUCOST_PROMETHEUS_USER", "a"}, {"GPUCOST_PROMETHEUS_PASSWORD", "p"}},
           {{"GPUCOST_PROMETHEUS_TOKEN", "t"}, {"GPUCOST_PROMETHEUS_TOKEN_FILE", "/etc/hostname"}}}) {
    env = bad;
    auto a = pipeline::prometheus_auth_from_env(lookup);
    REQUIRE_FALSE(a);
    CHECK(a.error().kind == ErrorKind::usage);
    CHECK(a.error().message.find("pw") == std::string::npos);
  }
}

TEST_CASE("prometheus: the answers become one input read slice by slice, or one clear error",
          "[pipeline][prometheus]") {
  ScriptedFetcher f;
  f.answers = {{200, kOneSeries}, {200, kNoSeries}};
  auto q = query(1718197335000, 1718197949999);
  q.max_points = 30;  // 41 points: 2 ranges
  auto fetched = pipeline::fetch_prometheus(q, borrowing(f));
  REQUIRE(fetched);
  CHECK(f.urls.size() == 1);  // the first slice, before anything is read
  CHECK(fetched->input.path == "prometheus:http://prom:9090");
  CHECK(fetched->input.format == Format::prometheus_json);
  REQUIRE(fetched->input.stream);
  auto reader = pipeline::open_reader(fetched->input);
  REQUIRE(reader);
  // JSON Lines: each answer, then the line that says its slice is complete.
  CHECK(read_all(**reader) == kOneSeries + "\n{\"gpucost_slice_end_ms\":1718197770001}\n" + kNoSeries +
                                  "\n{\"gpucost_slice_end_ms\":1718197950000}\n");
  CHECK((*reader)->error().empty());
  CHECK(f.urls.size() == 2);

  // The server's warnings stay in the answer, for the reader to say once; the fetch adds no note.
  ScriptedFetcher warned;
  warned.answers = {{200, R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x"},)"
                          R"("values":[]}]},"warnings":["partial response"]})"}};
  fetched = pipeline::fetch_prometheus(query(0, 1000), borrowing(warned));
  REQUIRE(fetched);
  CHECK(fetched->notes.empty());
  auto warned_reader = pipeline::open_reader(fetched->input);
  REQUIRE(warned_reader);
  CHECK(read_all(**warned_reader).find(R"("warnings":["partial response"])") != std::string::npos);

  const auto error_of = [](ScriptedFetcher::Answer answer) {
    ScriptedFetcher s;
    s.answers = {std::move(answer)};
    auto r = pipeline::fetch_prometheus(query(1718197335000, 1718197949999), borrowing(s));
    REQUIRE_FALSE(r);
    return r.error();
  };
  auto e = error_of({200, kNoSeries});
  CHECK(e.message ==
        "prometheus:http://prom:9090: no dcgm-exporter or nvidia_gpu_exporter series from 2024-06-12T13:02:15Z to "
        "2024-06-12T13:12:30Z");
  e = error_of({0, ""});
  CHECK(e.message ==
        "prometheus:http://prom:9090: no answer: Failed to connect to 127.0.0.1 port 1 after 0 ms (after 3 tries)");
  CHECK(e.hint.find("curl http://prom:9090/-/ready") != std::string::npos);
  e = error_of({400, R"({"status":"error","errorType":"bad_data","error":"1:2: parse error: unexpected \"=\""})"});
  CHECK(e.message == R"(prometheus:http://prom:9090: HTTP 400: the server says "1:2: parse error: unexpected \"=\"")");
  CHECK(e.hint.find("--match") != std::string::npos);
  e = error_of({401, "Unauthorized"});
  CHECK(e.message == "prometheus:http://prom:9090: HTTP 401");
  CHECK(e.hint.find("GPUCOST_PROMETHEUS_TOKEN") != std::string::npos);
  e = error_of({404, "404 page not found"});
  CHECK(e.hint.find("base URL") != std::string::npos);
  e = error_of({200, "<html>Sign in</html>"});
  CHECK(e.message == "prometheus:http://prom:9090: the answer is not a Prometheus API response");
  e = error_of({200, R"({"status":"success","data":{"resultType":"vector","result":[]}})"});
  CHECK(e.message == "prometheus:http://prom:9090: the answer holds no matrix of series");
}

TEST_CASE("io: URLs as messages show them: no user, password or key", "[io][http]") {
  CHECK(io::without_userinfo("https://alice:pw@prom:9090/x?y=a@b") == "https://prom:9090/x?y=a@b");
  CHECK(io::without_userinfo("http://prom:9090/a@b") == "http://prom:9090/a@b");
  CHECK(io::without_userinfo("prom:9090") == "prom:9090");
  CHECK(io::shown_url("https://u:p@h/v1/skus?key=SECRET") == "https://h/v1/skus?key=REDACTED");
}

TEST_CASE("prometheus: --header takes NAME: VALUE, a token and one line, never credentials", "[pipeline][prometheus]") {
  CHECK(pipeline::check_header("X-Scope-OrgID: tenant1"));
  CHECK(pipeline::check_header("X-Scope-OrgID:tenant1|tenant2"));
  CHECK(pipeline::check_header("X-Custom!#$%&'*+-.^_`|~: v"));
  for (const std::string bad : {"X-Scope-OrgID tenant1", ": v", "X Scope: v", "X(a): v", "X-A: a\r\nHost: evil"}) {
    INFO(bad);
    const auto e = pipeline::check_header(bad);
    REQUIRE_FALSE(e);
    CHECK(e.error().kind == gpucost::ErrorKind::usage);
    CHECK(e.error().message.find("evil") == std::string::npos);  // what follows the colon is never shown
    CHECK(e.error().message.find("tenant1") == std::string::npos);
  }
  const auto auth = pipeline::check_header("authorization: Bearer s3cret");
  REQUIRE_FALSE(auth);
  CHECK(auth.error().message.find("s3cret") == std::string::npos);
  CHECK(auth.error().hint.find("GPUCOST_PROMETHEUS_TOKEN") != std::string::npos);

  // The headers go with the queries, normalised, beside the credentials; not into the input's name.
  pipeline::PrometheusAuth a;
  a.bearer_token = "t";
  const io::HttpOptions o = pipeline::prometheus_http_options(a, {"X-Scope-OrgID:  tenant1 "});
  CHECK(o.headers == std::vector<std::string>{"X-Scope-OrgID: tenant1", "Authorization: Bearer t"});
  pipeline::PrometheusSettings s;
  s.url = "http://prom:9090";
  s.headers = {"X-Scope-OrgID: tenant1"};
  CHECK(pipeline::prometheus_input_name(s) == "prometheus:http://prom:9090");
  s.headers = {"X-A: 1\n2"};
  CHECK_FALSE(pipeline::prometheus_query(s, 0, 1'000'000'000, 0));
}
