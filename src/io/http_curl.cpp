// The libcurl fetcher: one easy handle per try, the body to a string or to a sink, the status
// and Retry-After read back, and the try repeated only for what may pass (429, 5xx, a dropped
// or stalled transfer).
//
// libcurl is opened (dlopen) at the first fetcher, not linked: a linked libcurl loads about 30
// libraries (TLS, Kerberos, LDAP, IDN, ...) at every start of gpucost, 16 ms of each run that
// never fetches anything (docs/performance.md, "Issue 39, round 3").
#include <gpucost/io/http.hpp>

#include <gpucost/core/text.hpp>

#include <curl/curl.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace gpucost::io {

namespace {

constexpr std::size_t kMaxBody = std::size_t{256} << 20;  // a page or an index, never an offer file
constexpr std::size_t kMaxErrorBody = 4096;               // what an error answer may show
constexpr long kLowSpeedBytes = 1;                        // below this many bytes/s ...
constexpr long kLowSpeedSeconds = 60;                     // ... for this long: a stalled transfer

/// The libcurl functions gpucost calls, from the library opened at run time.
struct CurlApi {
  CURLcode (*global_init)(long flags) = nullptr;
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL* handle, CURLoption option, ...) = nullptr;
  CURLcode (*easy_perform)(CURL* handle) = nullptr;
  CURLcode (*easy_getinfo)(CURL* handle, CURLINFO info, ...) = nullptr;
  void (*easy_cleanup)(CURL* handle) = nullptr;
  const char* (*easy_strerror)(CURLcode code) = nullptr;
  curl_slist* (*slist_append)(curl_slist* list, const char* value) = nullptr;
  void (*slist_free_all)(curl_slist* list) = nullptr;
};

/// The soname of libcurl's ABI 4 (every libcurl since 7.16, 2006); GPUCOST_LIBCURL names
/// another file (tests: a library that is not there).
constexpr const char* kLibcurl = "libcurl.so.4";

struct LoadedCurl {
  CurlApi api;
  std::string error;  ///< why it could not be opened; empty when it was
};

template <class Fn>
bool bind_symbol(void* lib, const char* name, Fn& fn, std::string& error) {
  void* sym = ::dlsym(lib, name);
  if (sym == nullptr) {
    error = fmt::format("{} has no {}", kLibcurl, name);
    return false;
  }
  static_assert(sizeof fn == sizeof sym);
  std::memcpy(&fn, &sym, sizeof fn);  // dlsym's object pointer as the function pointer it is
  return true;
}

LoadedCurl open_libcurl() {
  LoadedCurl loaded;
  const char* file = std::getenv("GPUCOST_LIBCURL");
  void* lib = ::dlopen(file != nullptr && *file != '\0' ? file : kLibcurl, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    loaded.error = why != nullptr ? why : "dlopen failed";
    return loaded;
  }
  CurlApi& a = loaded.api;
  std::string& e = loaded.error;
  const bool all = bind_symbol(lib, "curl_global_init", a.global_init, e) &&
                   bind_symbol(lib, "curl_easy_init", a.easy_init, e) &&
                   bind_symbol(lib, "curl_easy_setopt", a.easy_setopt, e) &&
                   bind_symbol(lib, "curl_easy_perform", a.easy_perform, e) &&
                   bind_symbol(lib, "curl_easy_getinfo", a.easy_getinfo, e) &&
                   bind_symbol(lib, "curl_easy_cleanup", a.easy_cleanup, e) &&
                   bind_symbol(lib, "curl_easy_strerror", a.easy_strerror, e) &&
                   bind_symbol(lib, "curl_slist_append", a.slist_append, e) &&
                   bind_symbol(lib, "curl_slist_free_all", a.slist_free_all, e);
  if (!all) return loaded;  // the library stays open: harmless, and dlclose would gain nothing
  a.global_init(CURL_GLOBAL_DEFAULT);
  return loaded;
}

/// libcurl, opened and initialised once (the first caller waits for it).
const LoadedCurl& libcurl() {
  static const LoadedCurl loaded = open_libcurl();
  return loaded;
}

/// The functions of an opened libcurl; only called once libcurl().error is empty.
const CurlApi& curl() { return libcurl().api; }

/// What one try saw.
struct Attempt {
  CURLcode rc = CURLE_OK;
  long status = 0;
  std::string retry_after, error_body, curl_message;
  Status sink_status;  ///< the sink's own error, when it stopped the transfer
};

/// The state the callbacks of one try write into.
struct TransferState {
  CURL* handle = nullptr;
  const std::function<Status(std::string_view)>* sink = nullptr;
  Attempt* attempt = nullptr;
};

bool success(long status) { return status >= 200 && status < 300; }

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* st = static_cast<TransferState*>(user);
  const std::size_t n = size * count;
  long status = 0;
  curl().easy_getinfo(st->handle, CURLINFO_RESPONSE_CODE, &status);
  if (!success(status)) {  // an error page: keep its start for the message, never parse it
    std::string& e = st->attempt->error_body;
    e.append(data, std::min(n, kMaxErrorBody - std::min(e.size(), kMaxErrorBody)));
    return n;
  }
  Status s = (*st->sink)(std::string_view(data, n));
  if (!s) {
    st->attempt->sink_status = std::move(s);
    return 0;  // CURLE_WRITE_ERROR ends the transfer
  }
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* st = static_cast<TransferState*>(user);
  const std::string_view line(data, size * count);
  if (text::istarts_with(line, "retry-after:")) st->attempt->retry_after = std::string(text::trim(line.substr(12)));
  if (text::istarts_with(line, "http/")) st->attempt->retry_after.clear();  // a new answer (redirect)
  return size * count;
}

long to_ms(double seconds) { return static_cast<long>(std::llround(seconds * 1000.0)); }

/// Basic authentication and the TLS trust of one handle, as the options say.
void set_credentials(CURL* h, const HttpOptions& o) {
  if (!o.user.empty()) {
    curl().easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl().easy_setopt(h, CURLOPT_USERNAME, o.user.c_str());
    curl().easy_setopt(h, CURLOPT_PASSWORD, o.password.c_str());
  }
  if (!o.ca_file.empty()) curl().easy_setopt(h, CURLOPT_CAINFO, o.ca_file.c_str());
  if (!o.verify_tls) {
    curl().easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl().easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

bool secret_headers(const HttpOptions& o);

Attempt perform(const std::string& url, const HttpOptions& o, const std::function<Status(std::string_view)>& sink) {
  Attempt a;
  CURL* h = curl().easy_init();
  if (h == nullptr) {
    a.rc = CURLE_FAILED_INIT;
    return a;
  }
  TransferState st{h, &sink, &a};
  char message[CURL_ERROR_SIZE] = {};
  curl().easy_setopt(h, CURLOPT_URL, url.c_str());
  curl().easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  const std::string redirects(redirect_protocols(url));
  curl().easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, redirects.c_str());
  // libcurl keeps Authorization and basic auth to the first host (no UNRESTRICTED_AUTH), but would
  // send another header, such as an API key, on to wherever a redirect points.
  curl().easy_setopt(h, CURLOPT_UNRESTRICTED_AUTH, 0L);
  curl().easy_setopt(h, CURLOPT_FOLLOWLOCATION, secret_headers(o) ? 0L : 1L);
  curl().easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
  curl().easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl().easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, to_ms(o.connect_timeout_s));
  curl().easy_setopt(h, CURLOPT_TIMEOUT_MS, to_ms(o.timeout_s));
  curl().easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, kLowSpeedBytes);
  curl().easy_setopt(h, CURLOPT_LOW_SPEED_TIME, kLowSpeedSeconds);
  // "": gzip/deflate when the server offers them
  curl().easy_setopt(h, CURLOPT_ACCEPT_ENCODING, o.accept_encoding.c_str());
  curl().easy_setopt(h, CURLOPT_USERAGENT, o.user_agent.c_str());
  curl().easy_setopt(h, CURLOPT_ERRORBUFFER, message);
  curl().easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl().easy_setopt(h, CURLOPT_WRITEDATA, &st);
  curl().easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl().easy_setopt(h, CURLOPT_HEADERDATA, &st);
  curl_slist* headers = nullptr;
  for (const std::string& header : o.headers) headers = curl().slist_append(headers, header.c_str());
  if (headers != nullptr) curl().easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  set_credentials(h, o);
  a.rc = curl().easy_perform(h);
  curl().easy_getinfo(h, CURLINFO_RESPONSE_CODE, &a.status);
  a.curl_message = message[0] != '\0' ? std::string(message) : std::string(curl().easy_strerror(a.rc));
  curl().easy_cleanup(h);
  curl().slist_free_all(headers);
  return a;
}

/// A header other than Authorization: libcurl would resend it after a redirect to another host.
bool secret_headers(const HttpOptions& o) {
  return std::any_of(o.headers.begin(), o.headers.end(),
                     [](const std::string& h) { return !text::istarts_with(h, "authorization:"); });
}

bool no_network_code(CURLcode rc) {
  return rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_COULDNT_CONNECT;
}

/// A transfer error that another try may not meet: a timeout, a dropped connection, a body
/// shorter than announced, a refused connection.
bool transient_code(CURLcode rc) {
  switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR: return true;
    default: return false;
  }
}

/// What a failed try says after the URL: the status, or libcurl's words.
std::string failure_text(const Attempt& a, bool followed) {
  if (a.rc == CURLE_OK && a.status >= 300 && a.status < 400 && !followed)
    return fmt::format("HTTP {} (a redirect, not followed while a key goes in a header)", a.status);
  if (a.rc == CURLE_UNSUPPORTED_PROTOCOL && a.status >= 300 && a.status < 400)
    return fmt::format("HTTP {} to another protocol, not followed (an https URL is only followed to https)", a.status);
  return a.rc == CURLE_OK ? fmt::format("HTTP {}", a.status) : a.curl_message;
}

class CurlFetcher final : public Fetcher {
 public:
  explicit CurlFetcher(const HttpOptions& o) : m_options(o) {}

  Expected<std::string> get(const std::string& url) override {
    std::string body;
    auto st = stream(
        url, [&] { body.clear(); },
        [&](std::string_view chunk) -> Status {
          if (body.size() + chunk.size() > kMaxBody)
            return make_error(ErrorKind::io,
                              fmt::format("{}: answer larger than {} MiB", shown_url(url), kMaxBody >> 20));
          body.append(chunk);
          return {};
        });
    if (!st) return st.error();
    return body;
  }

  Status stream(const std::string& url, const std::function<void()>& restart,
                const std::function<Status(std::string_view)>& sink) override {
    const std::string shown = shown_url(url);
    if (const std::string& why = libcurl().error; !why.empty())
      return make_error(ErrorKind::io, fmt::format("{}: cannot load libcurl: {}", shown, why),
                        "gpucost fetches over HTTP with libcurl (ABI 4); install it: apt-get install libcurl4");
    const int tries = std::max(1, m_options.tries);
    for (int attempt_no = 1;; ++attempt_no) {
      if (attempt_no > 1) restart();
      Attempt a = perform(url, m_options, sink);
      set_last_status(a.status);
      set_last_error_body(a.error_body);
      if (!a.sink_status) return a.sink_status;
      if (a.rc == CURLE_OK && success(a.status)) return {};
      const bool http_error = a.rc == CURLE_OK;
      const bool again = http_error ? retryable_status(a.status) : transient_code(a.rc);
      const std::string what = failure_text(a, !secret_headers(m_options));
      if (!again || attempt_no >= tries) return final_error(shown, a, what, attempt_no);
      const int wait = retry_delay_ms(m_options, attempt_no + 1, parse_retry_after(a.retry_after));
      note(fmt::format("{}: {}; try {} of {} in {:.1f} s", shown, what, attempt_no + 1, tries, wait / 1000.0));
      std::this_thread::sleep_for(std::chrono::milliseconds(wait));
    }
  }

 private:
  static Error final_error(const std::string& shown, const Attempt& a, const std::string& what, int tries) {
    const std::string after = tries > 1 ? fmt::format(" (after {} tries)", tries) : std::string();
    if (a.rc != CURLE_OK && no_network_code(a.rc))
      return make_error(ErrorKind::io, fmt::format("{}: {}: {}{}", kNoNetwork, shown, what, after));
    if (a.rc == CURLE_OK && !text::trim(a.error_body).empty())
      return make_error(ErrorKind::io, fmt::format("{}: {}{}", shown, what, after),
                        "the server said " + server_text(a.error_body));
    return make_error(ErrorKind::io, fmt::format("{}: {}{}", shown, what, after));
  }

  HttpOptions m_options;
};

}  // namespace

bool is_no_network(const Error& e) { return e.message.starts_with(kNoNetwork); }

bool retryable_status(long status) { return status == 429 || (status >= 500 && status <= 599); }

std::optional<int> parse_retry_after(std::string_view value) {
  value = text::trim(value);
  if (value.empty() || value.size() > 9) return std::nullopt;
  int seconds = 0;
  for (const char c : value) {
    if (!text::is_digit(c)) return std::nullopt;
    seconds = seconds * 10 + (c - '0');
  }
  return seconds;
}

int retry_delay_ms(const HttpOptions& o, int next_try, std::optional<int> retry_after_s) {
  const int doublings = std::clamp(next_try - 2, 0, 20);
  const long long backoff = static_cast<long long>(std::max(0, o.backoff_ms)) << doublings;
  const long long cap = static_cast<long long>(std::max(0, o.max_retry_after_s)) * 1000;
  long long wait = backoff;
  if (retry_after_s) wait = std::max(wait, static_cast<long long>(*retry_after_s) * 1000);
  return static_cast<int>(std::min(wait, std::max(cap, static_cast<long long>(o.backoff_ms))));
}

std::string url_encode(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (text::is_alpha(c) || text::is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~')
      out += c;
    else
      out += fmt::format("%{:02X}", u);
  }
  return out;
}

std::string url_origin(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  const std::size_t end = url.find_first_of("/?#", scheme + 3);
  std::string out(url.substr(0, end));
  for (char& c : out) c = text::ascii_lower(c);
  // The default port is the same origin: https://prices.azure.com:443 is https://prices.azure.com.
  for (const std::string_view default_port : {std::string_view("https://:443"), std::string_view("http://:80")}) {
    const std::string_view prefix = default_port.substr(0, default_port.find(':') + 3);
    const std::string_view port = default_port.substr(prefix.size());
    if (out.starts_with(prefix) && out.ends_with(port)) out.resize(out.size() - port.size());
  }
  return out;
}

bool secret_parameter(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kWords{"key", "apikey", "token", "auth",      "password",  "passwd",
                                                           "pwd", "secret", "sig",   "signature", "credential"};
  std::string lower;
  for (const char c : name) lower += text::ascii_lower(c);
  for (const std::string_view w : kWords) {
    if (lower == w) return true;
    // api_key, access_token, X-Amz-Signature, client.secret: the last word of the name
    if (lower.size() > w.size() && lower.ends_with(w)) {
      const char sep = lower[lower.size() - w.size() - 1];
      if (sep == '_' || sep == '-' || sep == '.') return true;
    }
  }
  return false;
}

std::string redact_key(std::string_view url) {
  const std::size_t q = url.find('?');
  if (q == std::string_view::npos) return std::string(url);
  const std::size_t hash = std::min(url.find('#', q), url.size());
  std::string out(url.substr(0, q + 1));
  for (std::size_t pos = q + 1; pos <= hash;) {
    const std::size_t end = std::min(url.find('&', pos), hash);
    const std::string_view param = url.substr(pos, end - pos);
    const std::size_t eq = param.find('=');
    if (eq != std::string_view::npos && secret_parameter(param.substr(0, eq)))
      out += fmt::format("{}=REDACTED", param.substr(0, eq));
    else
      out += param;
    if (end < hash) out += '&';
    pos = end + 1;
  }
  out += url.substr(hash);
  return out;
}

bool has_userinfo(std::string_view url) { return without_userinfo(url).size() != url.size(); }

std::string shown_url(std::string_view url) {
  constexpr std::size_t kMaxQuery = 60;
  std::string out = redact_key(without_userinfo(url));
  const std::size_t q = out.find('?');
  if (q != std::string::npos && out.size() - q > kMaxQuery) out.replace(q + kMaxQuery, std::string::npos, "...");
  return text::printable(out);
}

std::string server_text(std::string_view s, std::size_t max) {
  std::string line;
  bool space = false;
  for (const char c : text::trim(s)) {  // one line: every run of white space a single space
    if (text::is_space(c)) {
      space = true;
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += c;
  }
  bool cut = false;
  if (line.size() > max) {
    std::size_t end = max;  // not inside a UTF-8 sequence
    while (end > 0 && (static_cast<unsigned char>(line[end]) & 0xC0U) == 0x80U) --end;
    line.resize(end);
    cut = true;
  }
  std::string quoted = "\"";
  for (const char c : line) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return text::printable(quoted) + (cut ? "\u2026\"" : "\"");
}

namespace {

/// The host of a URL, lower case, without brackets, port and user.
std::string url_host(std::string_view url) {
  const std::string origin = url_origin(without_userinfo(url));
  const std::size_t scheme = origin.find("://");
  if (scheme == std::string::npos) return {};
  std::string_view host = std::string_view(origin).substr(scheme + 3);
  if (host.starts_with('[')) return std::string(host.substr(1, host.find(']') - 1));
  return std::string(host.substr(0, host.find(':')));
}

}  // namespace

bool loopback_host(std::string_view url) {
  const std::string host = url_host(url);
  const bool ipv4 =
      !host.empty() && std::all_of(host.begin(), host.end(), [](char c) { return text::is_digit(c) || c == '.'; });
  return host == "localhost" || (ipv4 && host.starts_with("127.")) || host == "::1";
}

std::string cleartext_credentials_warning(std::string_view url, const HttpOptions& o) {
  const bool credentials = !o.user.empty() || !o.headers.empty();
  if (!credentials || !text::istarts_with(url, "http://") || loopback_host(url)) return {};
  return fmt::format(
      "{}: credentials go to it over plain http://, readable on the way; use https:// (only "
      "localhost and 127.0.0.1 are spared this warning)",
      shown_url(url));
}

std::string_view redirect_protocols(std::string_view url) {
  return text::istarts_with(url, "https://") ? "https" : "http,https";
}

std::string without_userinfo(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const std::size_t host = scheme + 3;
  const std::size_t end = std::min(url.find_first_of("/?#", host), url.size());
  const std::size_t at = url.substr(0, end).rfind('@');
  if (at == std::string_view::npos || at < host) return std::string(url);
  return std::string(url.substr(0, host)) + std::string(url.substr(at + 1));
}

std::unique_ptr<Fetcher> make_http_fetcher(const HttpOptions& options) {
  return std::make_unique<CurlFetcher>(options);
}

}  // namespace gpucost::io
