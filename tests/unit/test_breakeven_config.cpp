// breakeven: the TOML cost configuration, --set overrides, defaults and every kind of error.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/breakeven/config.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using namespace gpucost;
namespace fs = std::filesystem;

fs::path temp_dir() {
  static const test::ScratchDir kDir{"config"};
  return kDir.path();
}

/// Writes `text` to a fresh file under the temp directory and returns its path.
std::string write_toml(const std::string& name, const std::string& text) {
  const fs::path dir = temp_dir();
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  return p.string();
}

const std::string kMinimal = R"(# the three required keys
[electricity]
price_per_kwh = 0.30

[local]
hardware_price = 3000

[cloud]
rate_per_hour = 2
)";

const std::vector<std::string> kRequiredSets = {"electricity.price_per_kwh=0.30", "local.hardware_price=3000",
                                                "cloud.rate_per_hour=2.0"};

std::string message_of(const Expected<breakeven::CostConfig>& c) {
  REQUIRE_FALSE(c.has_value());
  return c.error().message;
}

}  // namespace

TEST_CASE("breakeven: config file with every key", "[breakeven]") {
  const std::string path = write_toml("full.toml", R"(currency = "EUR"
line = 0.15

[electricity]
price_per_kwh = 0.30

[local]
hardware_price = 3_000
residual_fraction = 0.1
lifetime_years = 4
use_hours_per_year = 2000
cooling_factor = 1.2
system_power_w = 100
hourly_wage = 50
maintenance_hours_per_year = 10

[cloud]
name = "A100 on demand"
rate_per_hour = 2.0
speed_ratio = 2
cold_start_s = 300
billing_increment_s = 60
billing_minimum_s = 600
fixed_per_job = 0.5
)");
  auto c = breakeven::load_config(path, {});
  REQUIRE(c.has_value());
  CHECK(c->currency == "EUR");
  CHECK(c->line == 0.15);
  CHECK(c->price_per_kwh == 0.30);
  CHECK(c->hardware_price == 3000);  // TOML integer with an underscore
  CHECK(c->residual_fraction == 0.1);
  CHECK(c->lifetime_years == 4);
  CHECK(c->use_hours_per_year == 2000);
  CHECK(c->cooling_factor == 1.2);
  CHECK(c->system_power_w == 100);
  CHECK(c->hourly_wage == 50);
  CHECK(c->maintenance_hours_per_year == 10);
  CHECK(c->cloud_name == "A100 on demand");
  CHECK(c->rate_per_hour == 2.0);
  CHECK(c->speed_ratio == 2.0);  // an integer converts to a number
  CHECK(c->cold_start_s == 300);
  CHECK(c->billing_increment_s == 60);
  CHECK(c->billing_minimum_s == 600);
  CHECK(c->fixed_per_job == 0.5);
}

TEST_CASE("breakeven: config defaults are the issue's", "[breakeven]") {
  auto c = breakeven::load_config(write_toml("minimal.toml", kMinimal), {});
  REQUIRE(c.has_value());
  CHECK(c->currency == "USD");
  CHECK(c->line == 0.12);
  CHECK(c->residual_fraction == 0);
  CHECK(c->lifetime_years == 3);
  CHECK(c->use_hours_per_year == 2044);
  CHECK(c->cooling_factor == 1.0);
  CHECK(c->system_power_w == 0);
  CHECK(c->hourly_wage == 0);
  CHECK(c->maintenance_hours_per_year == 0);
  CHECK(c->cloud_name.empty());
  CHECK(c->speed_ratio == 1.0);
  CHECK(c->cold_start_s == 0);
  CHECK(c->billing_increment_s == 1);
  CHECK(c->billing_minimum_s == 0);
  CHECK(c->fixed_per_job == 0);
}

TEST_CASE("breakeven: --set overrides", "[breakeven]") {
  SECTION("without a file, --set alone gives the required keys") {
    auto c = breakeven::load_config(std::nullopt, kRequiredSets);
    REQUIRE(c.has_value());
    CHECK(c->price_per_kwh == 0.30);
    CHECK(c->hardware_price == 3000);
    CHECK(c->rate_per_hour == 2.0);
  }
  SECTION("an override wins over the file") {
    auto c = breakeven::load_config(write_toml("ov.toml", kMinimal),
                                    {"electricity.price_per_kwh=0.45", "local.cooling_factor = 1.3"});
    REQUIRE(c.has_value());
    CHECK(c->price_per_kwh == 0.45);
    CHECK(c->cooling_factor == 1.3);  // spaces around '=' are trimmed
    CHECK(c->hardware_price == 3000);
  }
  SECTION("the last of two overrides wins") {
    auto ov = kRequiredSets;
    ov.push_back("line=0.2");
    ov.push_back("line=0.3");
    auto c = breakeven::load_config(std::nullopt, ov);
    REQUIRE(c.has_value());
    CHECK(c->line == 0.3);
  }
  SECTION("string keys: bare words and quoted strings") {
    auto ov = kRequiredSets;
    ov.push_back("currency=EUR");
    ov.push_back("cloud.name=\"Lambda A100\"");
    auto c = breakeven::load_config(std::nullopt, ov);
    REQUIRE(c.has_value());
    CHECK(c->currency == "EUR");
    CHECK(c->cloud_name == "Lambda A100");
  }
  SECTION("a bare word with spaces is a string too") {
    auto ov = kRequiredSets;
    ov.push_back("cloud.name=spot A100 x8");
    auto c = breakeven::load_config(std::nullopt, ov);
    REQUIRE(c.has_value());
    CHECK(c->cloud_name == "spot A100 x8");
  }
  SECTION("no '=' is a usage error") {
    auto c = breakeven::load_config(std::nullopt, {"electricity.price_per_kwh"});
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().kind == ErrorKind::usage);
    CHECK(c.error().message.find("expected section.key=value") != std::string::npos);
  }
  SECTION("an unknown key gets a 'did you mean'") {
    auto ov = kRequiredSets;
    ov.push_back("cloud.rate_per_hr=3");
    auto c = breakeven::load_config(std::nullopt, ov);
    CHECK(message_of(c).find("unknown key 'cloud.rate_per_hr'") != std::string::npos);
    CHECK(c.error().hint == "did you mean 'cloud.rate_per_hour'?");
  }
  SECTION("a word for a number") {
    auto ov = kRequiredSets;
    ov.push_back("local.lifetime_years=three");
    auto c = breakeven::load_config(std::nullopt, ov);
    CHECK(message_of(c).find("'local.lifetime_years' must be a number") != std::string::npos);
  }
  SECTION("out of range") {
    auto ov = kRequiredSets;
    ov.push_back("cloud.speed_ratio=0");
    auto c = breakeven::load_config(std::nullopt, ov);
    CHECK(message_of(c).find("out of range") != std::string::npos);
  }
}

TEST_CASE("breakeven: a missing required key names the key", "[breakeven]") {
  SECTION("no config at all: a first run, pointed at gpucost init") {
    auto c = breakeven::load_config(std::nullopt, {});
    CHECK(message_of(c).find("no configuration given") != std::string::npos);
    CHECK(c.error().kind == ErrorKind::config);
    CHECK(c.error().hint.find("gpucost init -o my.toml") != std::string::npos);
  }
  SECTION("a --set but no file: the key is named") {
    auto c = breakeven::load_config(std::nullopt, {"local.hardware_price=3000"});
    CHECK(message_of(c).find("electricity.price_per_kwh") != std::string::npos);
    CHECK(c.error().hint.find("--set electricity.price_per_kwh=") != std::string::npos);
  }
  SECTION("each required key in turn") {
    for (const auto& key : breakeven::config_keys()) {
      if (!key.required) continue;
      std::vector<std::string> ov;
      for (const auto& s : kRequiredSets)
        if (s.rfind(std::string(key.path) + "=", 0) != 0) ov.push_back(s);
      REQUIRE(ov.size() == kRequiredSets.size() - 1);
      auto c = breakeven::load_config(std::nullopt, ov);
      INFO(key.path);
      CHECK(message_of(c).find("missing required key '" + std::string(key.path) + "'") != std::string::npos);
    }
  }
}

TEST_CASE("breakeven: an unknown key in the file gets a 'did you mean'", "[breakeven]") {
  const std::string path = write_toml("typo2.toml", R"([electricity]
price_per_kwh = 0.30
[local]
hardware_price = 3000
lifetime_yeras = 4
[cloud]
rate_per_hour = 2
)");
  auto t = breakeven::load_config(path, {});
  CHECK(message_of(t) == path + ": unknown key 'local.lifetime_yeras'");
  CHECK(t.error().hint == "did you mean 'local.lifetime_years'?");
  CHECK(t.error().kind == ErrorKind::config);
}

TEST_CASE("breakeven: an unknown section is named as a section", "[breakeven]") {
  const std::string path = write_toml("section.toml", kMinimal + "\n[clod]\nspeed_ratio = 2\n");
  auto c = breakeven::load_config(path, {});
  CHECK(message_of(c) == path + ": unknown section '[clod]'");
  CHECK(c.error().hint == "did you mean '[cloud]'?");
  SECTION("a table nested in a section") {
    const std::string p2 = write_toml("nested.toml", kMinimal + "\n[local.gpu]\nprice = 2\n");
    auto n = breakeven::load_config(p2, {});
    CHECK(message_of(n).find("unknown section '[local.gpu]'") != std::string::npos);
  }
}

TEST_CASE("breakeven: a value of the wrong type", "[breakeven]") {
  SECTION("a string for a number") {
    const std::string path = write_toml("type1.toml", R"([electricity]
price_per_kwh = "0.30"
[local]
hardware_price = 3000
[cloud]
rate_per_hour = 2
)");
    auto c = breakeven::load_config(path, {});
    CHECK(message_of(c) == path + ": 'electricity.price_per_kwh' must be a number");
    CHECK(c.error().hint == "e.g. price_per_kwh = 0.30");
  }
  SECTION("a boolean for a number") {
    const std::string path = write_toml("type3.toml", "line = true\n" + kMinimal);
    auto b = breakeven::load_config(path, {});
    CHECK(message_of(b).find("'line' must be a number") != std::string::npos);
  }
  SECTION("a number for a string") {
    const std::string path = write_toml("type4.toml", "currency = 978\n" + kMinimal);
    auto c = breakeven::load_config(path, {});
    CHECK(message_of(c).find("'currency' must be a string") != std::string::npos);
  }
  SECTION("nan and inf are not numbers here") {
    const std::string path = write_toml("type5.toml", "line = nan\n" + kMinimal);
    CHECK(message_of(breakeven::load_config(path, {})).find("'line' must be a number") != std::string::npos);
  }
}

TEST_CASE("breakeven: out-of-range values say the allowed range", "[breakeven]") {
  const auto with = [](const std::string& name, const std::string& section_line) {
    return breakeven::load_config(write_toml(name, kMinimal), {section_line});
  };
  SECTION("lifetime_years = 0 (must be > 0)") {
    auto c = with("r1.toml", "local.lifetime_years=0");
    CHECK(message_of(c) == "--set: 'local.lifetime_years' = 0 is out of range");
    CHECK(c.error().hint.find("(0, 100]") != std::string::npos);
  }
  SECTION("residual_fraction = 1.5 (must be in [0, 1])") {
    auto c = with("r2.toml", "local.residual_fraction=1.5");
    CHECK(message_of(c) == "--set: 'local.residual_fraction' = 1.5 is out of range");
    CHECK(c.error().hint.find("[0, 1]") != std::string::npos);
  }
  SECTION("use_hours_per_year = 9000 (a year has 8760 h)") {
    auto c = with("r3.toml", "local.use_hours_per_year=9000");
    CHECK(message_of(c) == "--set: 'local.use_hours_per_year' = 9000 is out of range");
    CHECK(c.error().hint.find("(0, 8760]") != std::string::npos);
  }
  SECTION("a negative price") {
    auto c = with("r4.toml", "electricity.price_per_kwh=-0.1");
    CHECK(message_of(c).find("out of range") != std::string::npos);
    CHECK(c.error().hint.find(">= 0") != std::string::npos);
  }
  SECTION("in the file too") {
    const std::string bad = write_toml("r6.toml", R"([electricity]
price_per_kwh = 0.30
[local]
hardware_price = 3000
lifetime_years = 0
[cloud]
rate_per_hour = 2
)");
    CHECK(message_of(breakeven::load_config(bad, {})) == bad + ": 'local.lifetime_years' = 0 is out of range");
  }
  SECTION("limits themselves are allowed") {
    auto c = breakeven::load_config(write_toml("r7.toml", kMinimal),
                                    {"local.residual_fraction=1", "local.use_hours_per_year=8760",
                                     "electricity.price_per_kwh=0", "local.lifetime_years=100"});
    REQUIRE(c.has_value());
    CHECK(c->residual_fraction == 1.0);
    CHECK(c->use_hours_per_year == 8760.0);
  }
}

TEST_CASE("breakeven: a TOML syntax error gives file:line:column", "[breakeven]") {
  const std::string path = write_toml("syntax.toml", "[electricity]\nprice_per_kwh = = 0.30\n");
  auto c = breakeven::load_config(path, {});
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error().kind == ErrorKind::config);
  const std::string& m = c.error().message;
  CHECK(m.rfind(path + ":2:", 0) == 0);  // line 2
  REQUIRE(m.size() > path.size() + 3);
  CHECK(std::isdigit(static_cast<unsigned char>(m[path.size() + 3])));  // then the column
  CHECK_FALSE(c.error().hint.empty());
}

TEST_CASE("breakeven: a malformed table header is a syntax error, not an abort", "[breakeven]") {
  // toml++ 3.3 reached parse_key() on these with a failing precondition (an assert() abort, or
  // undefined behaviour under NDEBUG); found by tools/fuzz's config target.
  for (const std::string header : {"[[[1]]]", "[[[a]]]", "[[[]]", "[[=", "[=", "[ [x]]", "[[\t{]]"}) {
    CAPTURE(header);
    const std::string path = write_toml("header.toml", header + "\nprice_per_kwh = 0.30\n");
    auto c = breakeven::load_config(path, {});
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().kind == ErrorKind::config);
    CHECK(c.error().message.rfind(path + ":1:", 0) == 0);
  }
}

TEST_CASE("breakeven: an unreadable config file is an I/O error", "[breakeven]") {
  const std::string path = (temp_dir() / "does-not-exist.toml").string();
  auto c = breakeven::load_config(path, {});
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error().kind == ErrorKind::io);
  CHECK(c.error().message.find(path) == 0);
  SECTION("a directory is not read as an empty config") {
    const std::string dir = temp_dir().string();
    auto d = breakeven::load_config(dir, {});
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error().kind == ErrorKind::io);
    CHECK(d.error().message == dir + ": is a directory");
  }
}

TEST_CASE("breakeven: config key table is consistent", "[breakeven]") {
  std::set<std::string_view> seen;
  for (const auto& k : breakeven::config_keys()) {
    INFO(k.path);
    CHECK(seen.insert(k.path).second);
    CHECK_FALSE(k.description.empty());
    if (!k.is_string) CHECK(k.min <= k.max);
    // Every key can be set and read back through --set.
    auto ov = kRequiredSets;
    // 1 is inside every numeric range; a currency is a code, a zone must exist, a busy share is util or sm_active.
    // A country must be in data/grid-carbon-intensity.tsv.
    const std::string value = k.path == "currency"           ? "EUR"
                              : k.path == "electricity.tz"   ? "Europe/Berlin"
                              : k.path == "cloud.busy_share" ? "sm_active"
                              : k.path == "local.faults"     ? "hardware-only"
                              : k.path.ends_with("country")  ? "DE"
                              : k.is_bool                    ? "true"
                              : k.is_string                  ? "x"
                                                             : "1";
    ov.push_back(std::string(k.path) + "=" + value);
    CHECK(breakeven::load_config(std::nullopt, ov).has_value());
  }
  CHECK(seen.size() == 41);
}
