// --prometheus: one selector for every metric the prometheus-json format maps, asked over the
// window in ranges of at most 11,000 steps, the answers kept in memory as JSON Lines (one answer
// a line) and handed to that format's parser like a saved file.
#include <gpucost/pipeline/prometheus.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/prep/prep.hpp>

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>

namespace gpucost::pipeline {

namespace {

/// The parser holds its whole input (the join needs every series first); beyond this, ask less.
constexpr std::size_t kMaxFetchedBytes = std::size_t{1} << 30;

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

Expected<PrometheusFetch> fetch_prometheus(const PrometheusQuery& q, io::Fetcher& fetcher) {
  PrometheusFetch out;
  auto content = std::make_shared<std::string>();
  std::size_t series = 0;
  for (const QueryRange& range : split_query_window(q.start_ms, q.end_ms, q.step_ms, q.max_points)) {
    const std::string url = query_range_url(q.base_url, q.selector, range, q.step_ms);
    auto body = fetcher.get(url);
    for (std::string& n : fetcher.take_notes()) out.notes.push_back(std::move(n));
    if (!body) return fetch_error(q, url, body.error(), fetcher);
    GPUCOST_TRY(check_answer(q, *body, series, out.notes));
    if (content->size() + body->size() + 1 > kMaxFetchedBytes)
      return make_error(ErrorKind::io, fmt::format("{}: the answers exceed {} MiB", q.name, kMaxFetchedBytes >> 20),
                        "ask less at once: a shorter window, a larger --step, or --match to fewer hosts");
    content->append(*body);
    if (!content->ends_with('\n')) content->push_back('\n');  // one answer a line (JSON Lines)
  }
  if (series == 0) return no_series(q);
  out.input.path = q.name;
  out.input.kind = ProbedInput::Kind::raw_log;
  out.input.format = Format::prometheus_json;
  out.input.size = content->size();
  out.input.content = std::move(content);
  return out;
}

}  // namespace gpucost::pipeline
