// --prometheus: one selector for every metric the prometheus-json format maps, asked over the
// window in time slices of a few MB each (at most 11,000 steps), fetched side by side and handed
// in time order to that format's parser as JSON Lines (one answer a line, then the slice's end),
// which emits each slice's samples and forgets them: nothing grows with the window.
#include <gpucost/pipeline/prometheus.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/prep/prep.hpp>
#include <gpucost/prep/prometheus_slices.hpp>

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace gpucost::pipeline {

namespace {

const char* lookup(const EnvLookup& env, const char* name) {
  const char* v = env ? env(name) : std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

constexpr std::size_t kMaxSecretFileBytes = 1u << 20;  // a token is a few kB

/// The first line of a secret's file, trimmed (a Kubernetes service-account token, a password file).
Expected<std::string> read_secret_file(const char* variable, const std::string& path) {
  // Without blocking and regular only: a FIFO at the name cannot hang a cron run.
  auto text_read = io::read_regular_file(path, kMaxSecretFileBytes, variable);
  if (!text_read)
    return make_error(ErrorKind::usage, fmt::format("{}: {}", variable, text_read.error().message),
                      "give a readable file holding the secret on its first line");
  const std::string_view all(*text_read);
  const std::string secret(text::trim(all.substr(0, all.find('\n'))));
  if (secret.empty())
    return make_error(ErrorKind::usage, fmt::format("{}: {} is empty", variable, path),
                      "the secret goes on the file's first line");
  return secret;
}

/// A secret given as NAME or as NAME_FILE (the file wins over nothing, and both is an error).
Expected<std::string> secret(const EnvLookup& env, const char* name, const char* file_name) {
  const char* direct = lookup(env, name);
  const char* file = lookup(env, file_name);
  if (direct != nullptr && file != nullptr)
    return make_error(ErrorKind::usage, fmt::format("{} and {} are both set", name, file_name), "unset one of them");
  if (file != nullptr) return read_secret_file(file_name, file);
  return std::string(direct != nullptr ? direct : "");
}

bool is_label_char(char c, bool first) { return text::is_alpha(c) || c == '_' || (!first && text::is_digit(c)); }

std::string seconds_text(std::int64_t ms) {
  if (ms % 1000 == 0) return fmt::format("{}", ms / 1000);
  std::string out = fmt::format("{}.{:03d}", ms / 1000, ms % 1000);
  while (out.back() == '0') out.pop_back();
  return out;
}

Expected<std::string> base_url(const std::string& url) {
  std::string base(text::trim(url));
  while (base.ends_with('/')) base.pop_back();
  std::string lower = base;
  for (char& c : lower) c = text::ascii_lower(c);
  if (io::has_userinfo(base))  // a URL shows in ps, shell history, logs and the ledger
    return make_error(ErrorKind::usage,
                      fmt::format("--prometheus: '{}' holds a user name or password: refused", io::shown_url(url)),
                      "give credentials in the environment: GPUCOST_PROMETHEUS_USER with GPUCOST_PROMETHEUS_PASSWORD "
                      "or GPUCOST_PROMETHEUS_PASSWORD_FILE (basic auth), or GPUCOST_PROMETHEUS_TOKEN or "
                      "GPUCOST_PROMETHEUS_TOKEN_FILE (bearer); see docs/cluster.md");
  if (!lower.starts_with("http://") && !lower.starts_with("https://"))
    return make_error(ErrorKind::usage, fmt::format("--prometheus: '{}' is not an http(s) URL", io::shown_url(url)),
                      "give the server's base URL, e.g. --prometheus http://prometheus:9090");
  if (base.find_first_of("?#") != std::string::npos || lower.find("/api/v1") != std::string::npos)
    return make_error(ErrorKind::usage, fmt::format("--prometheus: '{}' is not a base URL", io::shown_url(url)),
                      "give the server's base URL without /api/v1 or a query, e.g. http://prometheus:9090 (or "
                      "with the path prefix it is served under: https://example.org/prometheus)");
  return base;
}

// ---- errors ------------------------------------------------------------------------------------

/// Prometheus' own words in an error answer's start ({"status":"error","errorType":"bad_data",
/// "error":"..."}), which may be cut short; empty when it has none. Raw: server_text() shows it.
std::string prometheus_error_text(std::string_view body) {
  simdjson::dom::parser parser;
  std::string_view said;
  if (parser.parse(simdjson::padded_string(body)).get_object()["error"].get_string().get(said) == simdjson::SUCCESS)
    return std::string(said);
  const std::size_t key = body.find("\"error\":\"");
  if (key == std::string_view::npos) return {};
  std::string out;
  for (std::size_t i = key + 9; i < body.size() && body[i] != '"'; ++i) {
    if (body[i] == '\\' && i + 1 < body.size()) ++i;
    out += body[i];
  }
  return out;
}

/// What the fetcher said after the URL it names: "Failed to connect ... (after 3 tries)".
std::string transfer_detail(const Error& e, const std::string& url) {
  std::string_view m = e.message;
  if (m.starts_with(io::kNoNetwork)) m = text::trim(m.substr(io::kNoNetwork.size() + 1));
  const std::string shown = io::shown_url(url) + ": ";
  if (m.starts_with(shown)) m.remove_prefix(shown.size());
  return std::string(m);
}

std::string_view hint_for_status(long status) {
  if (status == 401 || status == 403)
    return "the server wants credentials: set GPUCOST_PROMETHEUS_TOKEN (or _TOKEN_FILE) for a bearer token, or "
           "GPUCOST_PROMETHEUS_USER and GPUCOST_PROMETHEUS_PASSWORD (or _PASSWORD_FILE) for basic auth";
  if (status == 404)
    return "gpucost asks BASE/api/v1/query_range: give Prometheus' base URL, e.g. http://prometheus:9090, with "
           "the path prefix it is served under if any";
  if (status == 400 || status == 422) return "check the --match matchers (label=\"value\"), --step and the window";
  if (status >= 500)
    return "the server failed or the query timed out: try a shorter window, a larger --step, or --match to fewer "
           "hosts";
  return "check the URL with curl BASE/api/v1/status/buildinfo";
}

Error fetch_error(const PrometheusQuery& q, const std::string& url, const Error& e, const io::Fetcher& fetcher) {
  const long status = fetcher.last_status();
  const std::string& where = q.name;
  if (status == 0)
    return make_error(ErrorKind::io, fmt::format("{}: no answer: {}", where, transfer_detail(e, url)),
                      fmt::format("check the URL and that the server listens there (curl {}/-/ready); a proxy "
                                  "in HTTPS_PROXY/HTTP_PROXY is used unless NO_PROXY names the host",
                                  io::shown_url(q.base_url)));
  const std::string said = prometheus_error_text(fetcher.last_error_body());
  return make_error(ErrorKind::io,
                    fmt::format("{}: {}{}{}", where, transfer_detail(e, url), said.empty() ? "" : ": the server says ",
                                said.empty() ? std::string() : io::server_text(said)),
                    std::string(hint_for_status(status)));
}

// ---- answers -----------------------------------------------------------------------------------

/// Checks one answer: a success with a matrix; counts its series and keeps its warnings.
Status check_answer(const PrometheusQuery& q, std::string_view body, std::size_t& series,
                    std::vector<std::string>& notes) {
  const std::string& where = q.name;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view status, type;
  simdjson::dom::array result;
  if (parser.parse(simdjson::padded_string(body)).get(doc) != simdjson::SUCCESS ||
      doc["status"].get_string().get(status) != simdjson::SUCCESS)
    return make_error(ErrorKind::format, fmt::format("{}: the answer is not a Prometheus API response", where),
                      "give the base URL of a Prometheus server (or of one that answers its HTTP API)");
  if (status != "success")
    return make_error(ErrorKind::format,
                      fmt::format("{}: the server says {}", where, io::server_text(prometheus_error_text(body))),
                      std::string(hint_for_status(400)));
  if (doc["data"]["resultType"].get_string().get(type) != simdjson::SUCCESS || type != "matrix" ||
      doc["data"]["result"].get_array().get(result) != simdjson::SUCCESS)
    return make_error(ErrorKind::format, fmt::format("{}: the answer holds no matrix of series", where),
                      "give the base URL of a Prometheus server (or of one that answers its HTTP API)");
  series += result.size();
  simdjson::dom::array warnings;
  if (doc["warnings"].get_array().get(warnings) == simdjson::SUCCESS)
    for (simdjson::dom::element w : warnings) {
      std::string_view text;
      if (w.get_string().get(text) == simdjson::SUCCESS)
        notes.push_back(fmt::format("{}: the server warns: {}", q.name, io::server_text(text)));
    }
  return {};
}

Error no_series(const PrometheusQuery& q) {
  return make_error(ErrorKind::io,
                    fmt::format("{}: no dcgm-exporter or nvidia_gpu_exporter series from {} to {}", q.name,
                                format_utc(q.start_ms * 1'000'000), format_utc((q.end_ms + 1) * 1'000'000)),
                    "check the window (--from/--to: local in --tz unless Z or an offset), the --match labels "
                    "(curl 'BASE/api/v1/series?match[]=DCGM_FI_DEV_POWER_USAGE' lists them) and that the exporter "
                    "is scraped");
}

// ---- slices ------------------------------------------------------------------------------------

/// The first point of the grid after `range`.
std::int64_t after(const QueryRange& range, std::int64_t step_ms) {
  return range.start_ms + (((range.end_ms - range.start_ms) / step_ms) + 1) * step_ms;
}

/// One slice's answer as the reader takes it: on one line (a raw line break can only be JSON's
/// whitespace, so it becomes a space), then the line that says the slice is complete.
void frame_answer(std::string& body, const QueryRange& range) {
  std::replace_if(
      body.begin(), body.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  body += fmt::format("\n{{\"{}\":{}}}\n", prep::kPrometheusSliceEndKey, range.end_ms + 1);
}

/// Whether an answer's start says it is a successful matrix, as Prometheus and the servers that
/// answer its API write it: then the full check (a second parse of the whole answer) is left to
/// the reader, which says what a broken answer holds.
bool looks_like_matrix(std::string_view body) {
  const std::string_view head = body.substr(0, 4096);
  return head.starts_with('{') && head.find(R"("status":"success")") != std::string_view::npos &&
         head.find(R"("resultType":"matrix")") != std::string_view::npos;
}

/// The window's slices as one byte stream: up to `jobs` threads, each with its own fetcher, ask
/// the slices after the first ones, at most `jobs` ahead of the reader (so that memory holds a
/// few answers, whatever the window), and read() hands them on strictly in time order, so that
/// the input is the same for every number of threads. A failed slice ends the stream with the
/// slices before it read and its error as error().
class SliceStream final : public io::ByteSource {
 public:
  SliceStream(PrometheusQuery q, FetcherFactory make_fetcher, unsigned jobs, std::vector<QueryRange> ranges,
              std::vector<std::string> first_answers)
      : m_query(std::move(q)), m_make_fetcher(std::move(make_fetcher)), m_ranges(std::move(ranges)), m_jobs(jobs) {
    for (std::size_t i = 0; i < first_answers.size(); ++i) m_done.emplace(i, std::move(first_answers[i]));
    m_next_fetch = m_done.size();
  }
  SliceStream(const SliceStream&) = delete;
  SliceStream& operator=(const SliceStream&) = delete;
  ~SliceStream() override {
    {
      const std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_changed.notify_all();
    for (std::thread& t : m_workers) t.join();
  }

  std::size_t read(char* buf, std::size_t n) override {
    while (m_pos == m_current.size()) {
      if (!next_answer()) return 0;
    }
    const std::size_t k = std::min(n, m_current.size() - m_pos);
    std::copy_n(m_current.data() + m_pos, k, buf);
    m_pos += k;
    return k;
  }

 private:
  /// The next slice's framed answer into m_current; false at the end or at a failed slice.
  bool next_answer() {
    std::string().swap(m_current);  // a slice's answer is freed as soon as it is read
    m_pos = 0;
    std::unique_lock lock(m_mutex);
    if (m_next_serve >= m_ranges.size()) return false;
    if (m_workers.empty() && m_next_fetch < m_ranges.size())  // started on the first read, not before
      for (unsigned i = 0; i < std::min<std::size_t>(m_jobs, m_ranges.size() - m_next_fetch); ++i)
        m_workers.emplace_back([this] { fetch_slices(); });
    m_changed.wait(lock, [&] { return m_done.contains(m_next_serve) || (m_failed && m_failed_at == m_next_serve); });
    const auto done = m_done.find(m_next_serve);
    if (done == m_done.end()) {
      m_error = *m_failed;
      m_next_serve = m_ranges.size();
      return false;
    }
    m_current = std::move(done->second);
    m_done.erase(done);
    ++m_next_serve;
    lock.unlock();
    m_changed.notify_all();
    return true;
  }

  void fetch_slices() {
    const std::unique_ptr<io::Fetcher> fetcher = m_make_fetcher();
    for (;;) {
      std::size_t i = 0;
      {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] {
          return m_stop || m_failed || m_next_fetch >= m_ranges.size() || m_next_fetch < m_next_serve + m_jobs;
        });
        if (m_stop || m_failed || m_next_fetch >= m_ranges.size()) return;
        i = m_next_fetch++;
      }
      std::string body;
      const Status fetched = fetch_slice(*fetcher, m_ranges[i], body);
      {
        const std::lock_guard lock(m_mutex);
        if (!fetched) {
          if (!m_failed || i < m_failed_at) {
            m_failed = fmt::format("{} (the samples from {} on are not read)", fetched.error().message,
                                   format_utc(m_ranges[i].start_ms * 1'000'000));
            m_failed_at = i;
          }
        } else {
          m_done.emplace(i, std::move(body));
        }
      }
      m_changed.notify_all();
    }
  }

  Status fetch_slice(io::Fetcher& fetcher, const QueryRange& range, std::string& out) const {
    const std::string url = query_range_url(m_query.base_url, m_query.selector, range, m_query.step_ms);
    auto body = fetcher.get(url);
    fetcher.take_notes();  // a retry that succeeded changes nothing that is read
    if (!body) return fetch_error(m_query, url, body.error(), fetcher);
    if (!looks_like_matrix(*body)) {
      std::size_t series = 0;
      std::vector<std::string> notes;  // the reader shows the server's warnings
      GPUCOST_TRY(check_answer(m_query, *body, series, notes));
    }
    out = std::move(*body);
    frame_answer(out, range);
    return {};
  }

  const PrometheusQuery m_query;
  const FetcherFactory m_make_fetcher;
  const std::vector<QueryRange> m_ranges;
  const unsigned m_jobs;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::map<std::size_t, std::string> m_done;  ///< framed answers not read yet, by slice
  std::size_t m_next_fetch = 0, m_next_serve = 0;
  std::optional<std::string> m_failed;  ///< the error of the earliest failed slice
  std::size_t m_failed_at = 0;
  bool m_stop = false;
  std::vector<std::thread> m_workers;
  std::string m_current;  ///< the answer being read (only the reader's thread touches it)
  std::size_t m_pos = 0;
};

}  // namespace

Expected<PrometheusAuth> prometheus_auth_from_env(const EnvLookup& env) {
  PrometheusAuth auth;
  auto token = secret(env, "GPUCOST_PROMETHEUS_TOKEN", "GPUCOST_PROMETHEUS_TOKEN_FILE");
  if (!token) return token.error();
  auth.bearer_token = std::move(*token);
  if (const char* user = lookup(env, "GPUCOST_PROMETHEUS_USER")) auth.user = user;
  auto password = secret(env, "GPUCOST_PROMETHEUS_PASSWORD", "GPUCOST_PROMETHEUS_PASSWORD_FILE");
  if (!password) return password.error();
  auth.password = std::move(*password);
  if (!auth.bearer_token.empty() && !auth.user.empty())
    return make_error(ErrorKind::usage, "GPUCOST_PROMETHEUS_TOKEN and GPUCOST_PROMETHEUS_USER are both set",
                      "a server takes one kind of credentials: unset the token or the user");
  if (auth.user.empty() != auth.password.empty())
    return make_error(ErrorKind::usage,
                      auth.user.empty() ? "GPUCOST_PROMETHEUS_PASSWORD is set without GPUCOST_PROMETHEUS_USER"
                                        : "GPUCOST_PROMETHEUS_USER is set without GPUCOST_PROMETHEUS_PASSWORD",
                      "basic auth needs both (the password may come from GPUCOST_PROMETHEUS_PASSWORD_FILE)");
  if (const char* ca = lookup(env, "GPUCOST_PROMETHEUS_CA_FILE")) auth.ca_file = ca;
  if (const char* insecure = lookup(env, "GPUCOST_PROMETHEUS_INSECURE"))
    auth.insecure = std::string_view(insecure) == "1";
  return auth;
}

io::HttpOptions prometheus_http_options(const PrometheusAuth& auth, const std::vector<std::string>& headers) {
  io::HttpOptions o;
  for (const std::string& h : headers) {
    const std::size_t colon = h.find(':');
    o.headers.push_back(fmt::format("{}: {}", text::trim(std::string_view(h).substr(0, colon)),
                                    text::trim(std::string_view(h).substr(colon + 1))));
  }
  o.timeout_s = 120;  // Prometheus' own query timeout is 2 minutes
  if (!auth.bearer_token.empty()) o.headers.push_back("Authorization: Bearer " + auth.bearer_token);
  o.user = auth.user;
  o.password = auth.password;
  o.ca_file = auth.ca_file;
  o.verify_tls = !auth.insecure;
  return o;
}

Expected<std::int64_t> parse_step(std::string_view text) {
  const auto bad = [&] {
    return make_error(ErrorKind::usage, fmt::format("--step: '{}' is not a duration", text),
                      "give it as Prometheus does (15s, 1m, 500ms, 1m30s) or in seconds (15, 0.5)");
  };
  const std::string_view t = text::trim(text);
  double ms = 0;
  if (const auto seconds = text::parse_double(t)) {
    ms = *seconds * 1000.0;
  } else {
    std::size_t i = 0;
    if (t.empty()) return bad();
    while (i < t.size()) {
      std::size_t digits = i;
      while (digits < t.size() && text::is_digit(t[digits])) ++digits;
      if (digits == i) return bad();
      const auto n = text::parse_int(t.substr(i, digits - i));
      std::size_t unit_end = digits;
      while (unit_end < t.size() && text::is_alpha(t[unit_end])) ++unit_end;
      const std::string_view unit = t.substr(digits, unit_end - digits);
      double per = 0;
      if (unit == "ms")
        per = 1;
      else if (unit == "s")
        per = 1e3;
      else if (unit == "m")
        per = 60e3;
      else if (unit == "h")
        per = 3600e3;
      else if (unit == "d")
        per = 86400e3;
      else
        return bad();
      if (!n) return bad();
      ms += static_cast<double>(*n) * per;
      i = unit_end;
    }
  }
  if (!(ms >= 1) || ms > 86400e3)
    return make_error(ErrorKind::usage, fmt::format("--step: {} is out of range", text),
                      "it must be at least 1ms and at most a day; the exporter's scrape interval (15s, 30s) is best");
  return static_cast<std::int64_t>(std::llround(ms));
}

Status check_matcher(std::string_view matcher) {
  const std::string_view m = text::trim(matcher);
  std::size_t i = 0;
  while (i < m.size() && is_label_char(m[i], i == 0)) ++i;
  const std::string_view label = m.substr(0, i);
  while (i < m.size() && m[i] == ' ') ++i;
  std::size_t op = 0;
  for (const std::string_view o : {"!=", "=~", "!~", "="})
    if (m.substr(i).starts_with(o)) {
      op = o.size();
      break;
    }
  std::size_t v = i + op;
  while (v < m.size() && m[v] == ' ') ++v;
  const char quote = v < m.size() ? m[v] : '\0';
  bool closed = false;
  if (quote == '"' || quote == '\'') {
    for (std::size_t j = v + 1; j < m.size(); ++j) {
      if (m[j] == '\\') {
        ++j;
        continue;
      }
      if (m[j] == quote) {
        closed = j + 1 == m.size();
        break;
      }
    }
  }
  if (!label.empty() && op > 0 && closed) return {};
  std::string hint =
      "give label=\"value\" (or !=, =~ for a regex, !~), quoted for the shell: --match 'Hostname=\"node01\"'";
  if (!label.empty() && op > 0 && quote != '"' && quote != '\'' && v < m.size())
    hint = fmt::format("the value goes in double quotes: --match '{}{}\"{}\"'", label, m.substr(i, op), m.substr(v));
  return make_error(ErrorKind::usage, fmt::format("--match: '{}' is not a label matcher", matcher), hint);
}

Status check_header(std::string_view header) {
  const std::size_t colon = header.find(':');
  const std::string_view name = text::trim(header.substr(0, colon));
  const auto usage = [&](std::string message, std::string hint) {
    return make_error(ErrorKind::usage, std::move(message), std::move(hint));
  };
  const auto is_token = [](char c) {
    return text::is_alpha(c) || text::is_digit(c) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  };
  // No message shows what follows the colon: the value may be a secret.
  if (colon == std::string_view::npos)
    return usage("--header: no ':' between the name and the value",
                 "give the header as NAME: VALUE, quoted for the shell: --header 'X-Scope-OrgID: tenant1'");
  if (name.empty() || !std::all_of(name.begin(), name.end(), is_token))
    return usage(fmt::format("--header {}: the name is not an HTTP token", io::server_text(name, 64)),
                 "a header's name is letters, digits and !#$%&'*+-.^_`|~, e.g. --header 'X-Scope-OrgID: tenant1'");
  if (header.substr(colon + 1).find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos)
    return usage(fmt::format("--header {}: the value holds a line break", name),
                 "a header's value is one line: give it without CR or LF");
  if (text::iequals(name, "Authorization") || text::iequals(name, "Proxy-Authorization"))
    return usage(fmt::format("--header {}: credentials are not taken from a flag", name),
                 "a flag shows in ps and in the shell's history: set GPUCOST_PROMETHEUS_TOKEN (or _TOKEN_FILE) "
                 "for a bearer token, or GPUCOST_PROMETHEUS_USER and _PASSWORD for basic auth");
  return {};
}

std::string series_selector(const std::vector<std::string_view>& names, const std::vector<std::string>& matchers) {
  std::string out = "{__name__=~\"";
  for (std::size_t i = 0; i < names.size(); ++i) out += fmt::format("{}{}", i > 0 ? "|" : "", names[i]);
  out += '"';
  for (const std::string& m : matchers) {
    out += ',';
    out += text::trim(m);
  }
  out += '}';
  return out;
}

std::vector<QueryRange> split_query_window(std::int64_t start_ms, std::int64_t end_ms, std::int64_t step_ms,
                                           std::int64_t max_points) {
  std::vector<QueryRange> out;
  if (end_ms < start_ms || step_ms <= 0) return out;
  // A range of n points spans (n - 1) steps; Prometheus counts (end - start) / step steps.
  const std::int64_t span = std::max<std::int64_t>(max_points - 1, 0) * step_ms;
  for (std::int64_t s = start_ms; s <= end_ms;) {
    const std::int64_t e = std::min(end_ms, s + span);
    out.push_back(QueryRange{s, e});
    s += (((e - s) / step_ms) + 1) * step_ms;  // the next point of the grid
  }
  return out;
}

std::string query_range_url(std::string_view base, std::string_view selector, const QueryRange& range,
                            std::int64_t step_ms) {
  return fmt::format("{}/api/v1/query_range?query={}&start={}&end={}&step={}", base, io::url_encode(selector),
                     seconds_text(range.start_ms), seconds_text(range.end_ms), seconds_text(step_ms));
}

std::string prometheus_input_name(const PrometheusSettings& settings) {
  std::string base = io::without_userinfo(text::trim(settings.url));
  while (base.ends_with('/')) base.pop_back();
  std::string out = "prometheus:" + base;
  if (!settings.matchers.empty()) {
    out += '{';
    for (std::size_t i = 0; i < settings.matchers.size(); ++i) {
      if (i > 0) out += ',';
      out += text::trim(settings.matchers[i]);
    }
    out += '}';
  }
  return out;
}

Expected<PrometheusQuery> prometheus_query(const PrometheusSettings& settings, std::optional<std::int64_t> from_ns,
                                           std::optional<std::int64_t> to_ns, std::int64_t now_ns) {
  PrometheusQuery q;
  auto base = base_url(settings.url);
  if (!base) return base.error();
  q.base_url = std::move(*base);
  q.name = prometheus_input_name(settings);
  for (const std::string& m : settings.matchers) GPUCOST_TRY(check_matcher(m));
  for (const std::string& h : settings.headers) GPUCOST_TRY(check_header(h));
  auto step = parse_step(settings.step.empty() ? kDefaultStep : std::string_view(settings.step));
  if (!step) return step.error();
  q.step_ms = *step;
  if (!from_ns)
    return make_error(ErrorKind::usage, "--prometheus: no --from: which window should be asked for?",
                      "give the job's window, e.g. --from 2026-12-01T08:00Z --to 2026-12-01T20:00Z (--to defaults "
                      "to now)");
  const std::int64_t to = to_ns.value_or(now_ns);
  constexpr std::int64_t kNsPerMs = 1'000'000;
  q.start_ms = *from_ns >= 0 ? (*from_ns + kNsPerMs - 1) / kNsPerMs : -1;
  q.end_ms = (to + kNsPerMs - 1) / kNsPerMs - 1;  // the last ms before --to
  if (q.start_ms < 0 || q.end_ms < q.start_ms)
    return make_error(ErrorKind::usage,
                      fmt::format("--prometheus: the window {} to {} is empty", format_utc(*from_ns), format_utc(to)),
                      "--from must come before --to (and before now, when --to is not given)");
  q.selector = series_selector(prep::prometheus_metric_names(), settings.matchers);
  return q;
}

std::int64_t slice_points(std::size_t series, std::int64_t max_points) {
  const std::int64_t per_series = kSlicePoints / static_cast<std::int64_t>(std::max<std::size_t>(series, 1));
  return std::clamp<std::int64_t>(per_series, 2, std::max<std::int64_t>(max_points, 2));
}

Expected<PrometheusFetch> fetch_prometheus(const PrometheusQuery& q, const FetcherFactory& make_fetcher,
                                           unsigned jobs) {
  PrometheusFetch out;
  std::unique_ptr<io::Fetcher> fetcher = make_fetcher();
  std::vector<QueryRange> ranges;
  std::vector<std::string> answers;
  std::size_t series = 0;
  std::int64_t probe = std::min(kProbePoints, q.max_points);
  std::int64_t next = q.start_ms;
  while (next <= q.end_ms && series == 0) {
    const QueryRange range = split_query_window(next, q.end_ms, q.step_ms, probe).front();
    const std::string url = query_range_url(q.base_url, q.selector, range, q.step_ms);
    auto body = fetcher->get(url);
    for (std::string& n : fetcher->take_notes()) out.notes.push_back(std::move(n));
    if (!body) return fetch_error(q, url, body.error(), *fetcher);
    std::vector<std::string> warnings;  // the reader shows the server's warnings, once
    GPUCOST_TRY(check_answer(q, *body, series, warnings));
    frame_answer(*body, range);
    answers.push_back(std::move(*body));
    ranges.push_back(range);
    next = after(range, q.step_ms);
    probe = std::min(probe * 2, q.max_points);
  }
  if (series == 0) return no_series(q);
  if (next <= q.end_ms)
    for (const QueryRange& r : split_query_window(next, q.end_ms, q.step_ms, slice_points(series, q.max_points)))
      ranges.push_back(r);
  out.input.path = q.name;
  out.input.kind = ProbedInput::Kind::raw_log;
  out.input.format = Format::prometheus_json;
  out.input.stream =
      std::make_shared<SliceStream>(q, make_fetcher, std::max(jobs, 1u), std::move(ranges), std::move(answers));
  return out;
}

}  // namespace gpucost::pipeline
