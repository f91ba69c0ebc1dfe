// gpucost's one HTTP layer (libcurl; `gpucost offers update` fetches through it): GETs with
// connect and total timeouts, bounded retries with exponential backoff on 429, 5xx and transient
// transfer errors, and none on other 4xx. libcurl itself honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY.
#pragma once

#include <gpucost/core/error.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpucost::io {

/// How requests are made. The backoff before try n+1 is backoff_ms x 2^(n-1), or the server's
/// Retry-After when longer (capped at max_retry_after_s).
struct HttpOptions {
  double timeout_s = 300;         ///< a whole request, body included
  double connect_timeout_s = 15;  ///< the TCP (and TLS) connection
  int tries = 3;                  ///< attempts per request, the first included
  int backoff_ms = 500;           ///< GPUCOST_HTTP_BACKOFF_MS (tests make it small)
  int max_retry_after_s = 60;
  std::string user_agent = "gpucost";
  /// Sent with every request, "Name: value" (e.g. "Authorization: Bearer ..."): never shown in a
  /// message. libcurl does not send them on to another host after a redirect.
  std::vector<std::string> headers;
  /// HTTP basic authentication when `user` is not empty (sent to the first host only).
  std::string user, password;
  std::string ca_file;     ///< a PEM bundle that verifies the server's certificate instead of the system's
  bool verify_tls = true;  ///< false: any certificate and host name are accepted (an explicit user choice)
  /// The Accept-Encoding asked for: empty, every encoding libcurl decodes (gzip, deflate); "identity",
  /// none: on loopback decoding gzip costs more time than the bytes it saves.
  std::string accept_encoding;
};

/// The start of an error message that means the host could not be reached at all (no DNS, no
/// route, connection refused): offers update then says that the built-in catalogue stays in use.
inline constexpr std::string_view kNoNetwork = "no network";
/// Whether `e` says that the network is out of reach (it starts with kNoNetwork).
bool is_no_network(const Error& e);

/// Fetches URLs. The library's sources use this interface; tests can give their own.
class Fetcher {
 public:
  Fetcher() = default;
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;
  virtual ~Fetcher() = default;
  /// The body of a 2xx answer (after the retries), or an error naming the URL.
  virtual Expected<std::string> get(const std::string& url) = 0;
  /// The body of a 2xx answer handed to `sink` as it arrives (bounded memory); `restart` is
  /// called before a retried try sends its body again from the start. `sink` returns an error
  /// to stop the transfer (not retried).
  virtual Status stream(const std::string& url, const std::function<void()>& restart,
                        const std::function<Status(std::string_view)>& sink) = 0;
  /// What happened on the way (a retry after a 429, ...), taken once.
  std::vector<std::string> take_notes() { return std::exchange(m_notes, {}); }
  /// The HTTP status of the last answer (0: none came, the host was not reached).
  [[nodiscard]] long last_status() const { return m_last_status; }
  /// The start of the last error answer's body, as the server sent it: for parsing only; a
  /// message shows it through server_text().
  [[nodiscard]] const std::string& last_error_body() const { return m_last_error_body; }

 protected:
  void note(std::string text) { m_notes.push_back(std::move(text)); }
  void set_last_status(long status) { m_last_status = status; }
  void set_last_error_body(std::string body) { m_last_error_body = std::move(body); }

 private:
  std::vector<std::string> m_notes;
  long m_last_status = 0;
  std::string m_last_error_body;
};

/// The libcurl fetcher.
std::unique_ptr<Fetcher> make_http_fetcher(const HttpOptions& options);

/// Percent-encodes `text` for a URL query (RFC 3986 unreserved characters stay).
std::string url_encode(std::string_view text);
/// "https://host:port" of a URL (scheme and authority), lower case, without a default port
/// (:443 for https, :80 for http); empty when it has none.
std::string url_origin(std::string_view url);
/// The URL with the value of every secret-looking query parameter (key, api_key, token,
/// access_token, password, secret, signature, X-Amz-Signature, ...: secret_parameter()) replaced
/// by "REDACTED" (API keys stay out of messages and catalogues).
std::string redact_key(std::string_view url);
/// Whether a query parameter's name says it holds a secret (case-insensitive): key, apikey,
/// token, auth, password, passwd, pwd, secret, signature, sig, credential, or a name ending in
/// one of them after '_', '-' or '.' (api_key, X-Amz-Signature); not pageToken or monkey.
bool secret_parameter(std::string_view name);
/// Whether the URL's authority holds a user name (and maybe a password): "http://user:pw@host".
bool has_userinfo(std::string_view url);
/// The URL without the user name and password of its authority ("https://user:pw@host/" ->
/// "https://host/"): what messages and summaries may show.
std::string without_userinfo(std::string_view url);
/// The URL as every message shows it ("<shown URL>: HTTP 404"): without_userinfo, then
/// redact_key, a long query (Azure's filter) cut short after 60 characters, and
/// text::printable (a server's redirect or next-page link is text from outside).
std::string shown_url(std::string_view url);
/// A server's own words (an error body, a Prometheus warning) for a message: on one line,
/// at most `max` bytes with "…" when cut, in double quotes with '"' and '\\' escaped, and
/// through text::printable: a server cannot start a line of its own on the terminal.
std::string server_text(std::string_view text, std::size_t max = 200);

/// Whether the URL's host is this machine: localhost, 127.0.0.0/8, [::1].
bool loopback_host(std::string_view url);
/// A one-line warning when `options` carry credentials (basic auth or an Authorization, API-key
/// or other custom header) to a plain http:// URL of another machine; empty otherwise.
std::string cleartext_credentials_warning(std::string_view url, const HttpOptions& options);
/// The protocols a redirect from `url` may lead to: "https" from an https URL (never down to
/// plain http), "http,https" from an http one.
std::string_view redirect_protocols(std::string_view url);

/// Seconds to wait from a Retry-After header value: delta-seconds only (an HTTP date or
/// garbage: none).
std::optional<int> parse_retry_after(std::string_view value);
/// The wait before try `next_try` (2, 3, ...): backoff_ms x 2^(next_try-2), or the Retry-After
/// seconds when longer, capped at max_retry_after_s.
int retry_delay_ms(const HttpOptions& options, int next_try, std::optional<int> retry_after_s);
/// Whether an HTTP status is worth another try (429, 5xx).
bool retryable_status(long status);

}  // namespace gpucost::io
