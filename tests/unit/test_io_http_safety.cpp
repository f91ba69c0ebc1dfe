// HTTP and credentials (docs/security.md): URLs shown redacted, a server's words on one
// escaped line, credentials refused in a URL, a warning for credentials over plain http, and the
// redirects an https URL may follow.
#include <catch2/catch.hpp>

#include <gpucost/io/http.hpp>
#include <gpucost/pipeline/prometheus.hpp>

#include <string>

using namespace gpucost;

TEST_CASE("io: secret-looking query parameters are redacted, others kept", "[io][http][security]") {
  for (const char* name : {"key", "KEY", "api_key", "apikey", "token", "access_token", "X-Amz-Signature",
                           "X-Amz-Credential", "sig", "password", "client.secret", "auth"})
    CHECK(io::secret_parameter(name));
  for (const char* name : {"monkey", "pageToken", "currencyCode", "query", "step", "signatures", "keyboard"})
    CHECK_FALSE(io::secret_parameter(name));
  CHECK(io::redact_key("https://h/x?access_token=T&step=15&X-Amz-Signature=abc#frag") ==
        "https://h/x?access_token=REDACTED&step=15&X-Amz-Signature=REDACTED#frag");
  CHECK(io::redact_key("https://h/x?pageToken=p1&key=") == "https://h/x?pageToken=p1&key=REDACTED");
  CHECK(io::redact_key("https://h/key=x") == "https://h/key=x");  // not a query
  CHECK(io::shown_url("https://u:p@h/a?token=T") == "https://h/a?token=REDACTED");
  CHECK(io::shown_url("https://h/\x1b[31m") == "https://h/\\x1b[31m");  // a server's link, escaped
}

TEST_CASE("io: a URL's user name and password are found wherever the authority holds them", "[io][http][security]") {
  CHECK(io::has_userinfo("http://user:PW@host:9090"));
  CHECK(io::has_userinfo("https://user@host"));  // an empty password: still a user in the URL
  CHECK(io::has_userinfo("HTTP://u:p@h/path"));
  CHECK_FALSE(io::has_userinfo("http://host/a@b"));
  CHECK_FALSE(io::has_userinfo("http://host:9090/?q=a@b"));
  CHECK_FALSE(io::has_userinfo("host:9090"));
}

TEST_CASE("io: a server's words are one quoted, escaped, bounded line", "[io][http][security]") {
  const std::string forged = "\x1b]0;owned\x07\x1b[31mred\x1b[0m\ngpucost: error: forged\r\n";
  const std::string shown = io::server_text(forged);
  CHECK(shown == R"("\x1b]0;owned\a\x1b[31mred\x1b[0m gpucost: error: forged")");
  CHECK(shown.find('\n') == std::string::npos);
  CHECK(shown.find('\x1b') == std::string::npos);
  CHECK(io::server_text(R"(say "hi" \ bye)") == R"("say \"hi\" \\ bye")");
  const std::string cut = io::server_text(std::string(300, 'x'));
  CHECK(cut == "\"" + std::string(200, 'x') + "\u2026\"");
  // Never cut inside a UTF-8 sequence: 199 bytes, then a 2-byte "é" across the limit.
  const std::string accents = io::server_text(std::string(199, 'a') + "\xc3\xa9" + "zzz");
  CHECK(accents == "\"" + std::string(199, 'a') + "\u2026\"");
  CHECK(io::server_text("") == "\"\"");
}

TEST_CASE("io: credentials over plain http warn, but to this machine or over https", "[io][http][security]") {
  io::HttpOptions token;
  token.headers.push_back("Authorization: Bearer s3cret");
  io::HttpOptions basic;
  basic.user = "alice";
  basic.password = "pw";
  const std::string w = io::cleartext_credentials_warning("http://prom:9090", token);
  CHECK(w.find("http://prom:9090: credentials go to it over plain http://") == 0);
  CHECK(w.find("s3cret") == std::string::npos);
  CHECK_FALSE(io::cleartext_credentials_warning("HTTP://10.0.0.5:9090/p", basic).empty());
  CHECK(io::cleartext_credentials_warning("https://prom:9090", token).empty());
  CHECK(io::cleartext_credentials_warning("http://prom:9090", io::HttpOptions{}).empty());
  for (const char* local : {"http://127.0.0.1:9090", "http://localhost/x", "http://[::1]:9090", "http://127.1.2.3"})
    CHECK(io::cleartext_credentials_warning(local, token).empty());
  CHECK_FALSE(io::loopback_host("http://127.evil.example/"));
  CHECK_FALSE(io::loopback_host("http://localhost.evil.example/"));
}

TEST_CASE("io: an https URL is redirected to https only", "[io][http][security]") {
  CHECK(io::redirect_protocols("https://prom:9090/api") == "https");
  CHECK(io::redirect_protocols("HTTPS://prom") == "https");
  CHECK(io::redirect_protocols("http://prom:9090") == "http,https");
}

TEST_CASE("prometheus: a URL with credentials is refused, the password never shown", "[prometheus][security]") {
  for (const char* url : {"http://alice:pa55word@prom:9090", "https://alice@prom:9090/"}) {
    pipeline::PrometheusSettings settings;
    settings.url = url;
    auto q = pipeline::prometheus_query(settings, 0, 1'000'000'000, 2'000'000'000);
    REQUIRE_FALSE(q);
    CHECK(q.error().kind == ErrorKind::usage);
    CHECK(q.error().message.find("holds a user name or password: refused") != std::string::npos);
    CHECK(q.error().message.find("pa55word") == std::string::npos);
    CHECK(q.error().message.find("alice") == std::string::npos);
    CHECK(q.error().hint.find("GPUCOST_PROMETHEUS_PASSWORD_FILE") != std::string::npos);
    CHECK(q.error().hint.find("GPUCOST_PROMETHEUS_TOKEN_FILE") != std::string::npos);
  }
}
