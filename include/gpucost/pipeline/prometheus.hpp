// `--prometheus URL`: the dcgm-exporter and nvidia_gpu_exporter series of a Prometheus server
// (or anything that answers its HTTP API: Thanos, Mimir, VictoriaMetrics) over the run's window,
// fetched with /api/v1/query_range and read by the prometheus-json format like a saved answer
// (docs/formats.md, "Prometheus server: --prometheus").
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/io/http.hpp>
#include <gpucost/pipeline/inputs.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::pipeline {

/// Prometheus refuses a range query of more than this many steps per series
/// ("exceeded maximum resolution of 11,000 points per timeseries").
inline constexpr std::int64_t kMaxPointsPerSeries = 11000;
/// --step when none is given: Prometheus' own example scrape interval; a step shorter than the
/// scrape interval repeats samples, a longer one skips them.
inline constexpr std::string_view kDefaultStep = "15s";

/// --prometheus and the flags that go with it, as given.
struct PrometheusSettings {
  std::string url;                    ///< the server's base URL: http(s)://host:port[/path prefix]
  std::vector<std::string> matchers;  ///< --match: label matchers added to the selector, e.g. Hostname="node01"
  std::string step;                   ///< --step; empty: kDefaultStep
  /// --header 'NAME: VALUE': sent with each query (a tenant's X-Scope-OrgID for Mimir or
  /// Cortex), never printed.
  std::vector<std::string> headers;
};

/// Credentials and TLS trust, from the environment (never from a flag: flags show in `ps`).
struct PrometheusAuth {
  std::string bearer_token;    ///< GPUCOST_PROMETHEUS_TOKEN, or the first line of GPUCOST_PROMETHEUS_TOKEN_FILE
  std::string user, password;  ///< GPUCOST_PROMETHEUS_USER and _PASSWORD (or _PASSWORD_FILE): basic auth
  std::string ca_file;         ///< GPUCOST_PROMETHEUS_CA_FILE
  bool insecure = false;       ///< GPUCOST_PROMETHEUS_INSECURE=1: the certificate is not checked
};
using EnvLookup = std::function<const char*(const char*)>;
/// Reads the GPUCOST_PROMETHEUS_* variables through `env` (std::getenv by default) and the files
/// they name; fails (usage) on a token and a user both set, a user without a password, an
/// unreadable or empty file.
Expected<PrometheusAuth> prometheus_auth_from_env(const EnvLookup& env = {});
/// The HTTP options of the queries: the credentials as headers or basic auth, the TLS trust, and
/// the --header headers (checked by check_header).
io::HttpOptions prometheus_http_options(const PrometheusAuth& auth, const std::vector<std::string>& headers = {});
/// Checks one --header: `NAME: VALUE`, NAME an HTTP token (RFC 9110: letters, digits and
/// !#$%&'*+-.^_`|~), VALUE without CR, LF or NUL; credentials (Authorization) are refused, they
/// go in the environment. The message never shows the value.
Status check_header(std::string_view header);

/// --step: a Prometheus duration ("15s", "1m", "500ms", "1m30s") or plain seconds ("15",
/// "0.5"), in ms; at least 1 ms, at most a day.
Expected<std::int64_t> parse_step(std::string_view text);
/// Checks one --match: `label="value"`, `label!="value"`, `label=~"regex"` or `label!~"regex"`,
/// the value in double quotes (backslash escapes inside).
Status check_matcher(std::string_view matcher);

/// `{__name__=~"A|B|...",m1,m2}`: every metric name, and each matcher.
std::string series_selector(const std::vector<std::string_view>& names, const std::vector<std::string>& matchers);

/// One query's evaluation times: start, start + step, ... up to end (ms since the epoch, both in).
struct QueryRange {
  std::int64_t start_ms = 0, end_ms = 0;
  bool operator==(const QueryRange&) const = default;
};
/// [start_ms, end_ms] cut into consecutive ranges of at most `max_points` steps each, on the one
/// grid start_ms + k × step_ms (so that no point is asked twice and none is skipped).
std::vector<QueryRange> split_query_window(std::int64_t start_ms, std::int64_t end_ms, std::int64_t step_ms,
                                           std::int64_t max_points = kMaxPointsPerSeries);

/// `BASE/api/v1/query_range?query=...&start=...&end=...&step=...`, the query percent-encoded,
/// the times in Unix seconds (with ms when they have them).
std::string query_range_url(std::string_view base, std::string_view selector, const QueryRange& range,
                            std::int64_t step_ms);

/// How the input is named in summaries, the ledger and messages: `prometheus:URL` and the
/// matchers, without user or password.
std::string prometheus_input_name(const PrometheusSettings& settings);

/// One run's query: the settings checked, the window in ms.
struct PrometheusQuery {
  std::string base_url;  ///< without a trailing '/'
  std::string name;      ///< prometheus_input_name()
  std::string selector;
  std::int64_t start_ms = 0, end_ms = 0, step_ms = 0;
  std::int64_t max_points = kMaxPointsPerSeries;
};
/// The query of [from_ns, to_ns): from_ns is required (a window is never guessed), to_ns none =
/// `now_ns`. The last evaluation is before to_ns, as --to is exclusive everywhere.
Expected<PrometheusQuery> prometheus_query(const PrometheusSettings& settings, std::optional<std::int64_t> from_ns,
                                           std::optional<std::int64_t> to_ns, std::int64_t now_ns);

/// The first slice asked: an hour at 15 s, so that a short window is one query, and a long one's
/// series are counted before its slices are cut. An empty slice doubles the next one.
inline constexpr std::int64_t kProbePoints = 240;
/// The points (series x steps) one slice's answer should hold: about 4 MB of JSON, so that an
/// answer is parsed and freed while the next ones arrive, and the window's length never matters.
inline constexpr std::int64_t kSlicePoints = 200'000;

/// The steps of a slice once `series` series are known: kSlicePoints / series, at least 2, at most
/// `max_points`.
std::int64_t slice_points(std::size_t series, std::int64_t max_points = kMaxPointsPerSeries);

/// A source of fetchers: each thread that fetches slices uses its own.
using FetcherFactory = std::function<std::unique_ptr<io::Fetcher>()>;

/// What the queries bring back: one raw input (format prometheus-json) that fetches the window's
/// slices as it is read, and notes (the server's own warnings, retries) of the slices fetched
/// before it is returned.
struct PrometheusFetch {
  ProbedInput input;
  std::vector<std::string> notes;
};
/// Asks the window's first slices (kProbePoints, doubled while empty) through a fetcher of
/// `make_fetcher` before returning, so that an unreachable server, HTTP 4xx/5xx,
/// `"status":"error"`, an answer that is not JSON, or a window without a series fails here,
/// before anything is written. The rest of the window is cut into slices of slice_points() steps
/// that the input fetches while it is read, at most `jobs` at once, and gives in time order, each
/// slice's answer on one line followed by its kPrometheusSliceEndKey line: the reader emits and
/// forgets each slice's samples, so memory does not grow with the window. A slice that fails
/// later ends the input there, its error the reader's error (the input's `truncated`).
Expected<PrometheusFetch> fetch_prometheus(const PrometheusQuery& query, const FetcherFactory& make_fetcher,
                                           unsigned jobs = 1);

}  // namespace gpucost::pipeline
