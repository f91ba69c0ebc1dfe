// core/text: the words of a name and the "did you mean" ranking shared by --cloud, --set and
// the config file's keys and sections.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/core/text.hpp>

#include <string>
#include <vector>

using namespace gpucost;

namespace {

std::vector<std::string_view> offer_names() {
  std::vector<std::string_view> out;
  for (const auto& o : breakeven::cloud_offers()) out.push_back(o.name);
  return out;
}

std::vector<std::string_view> key_paths() {
  std::vector<std::string_view> out;
  for (const auto& k : breakeven::config_keys()) out.push_back(k.path);
  return out;
}

}  // namespace

TEST_CASE("core::text: name_tokens splits at separators and between letters and digits", "[core][text]") {
  CHECK(text::name_tokens("runpod-rtx4090-community") ==
        std::vector<std::string>{"runpod", "rtx", "4090", "community"});
  CHECK(text::name_tokens("aws-g5.12xlarge") == std::vector<std::string>{"aws", "g", "5", "12", "xlarge"});
  CHECK(text::name_tokens("cloud.rate_per_hour") == std::vector<std::string>{"cloud", "rate", "per", "hour"});
  CHECK(text::name_tokens("RunPod--L40S") == std::vector<std::string>{"runpod", "l", "40", "s"});
  CHECK(text::name_tokens("").empty());
  CHECK(text::name_tokens("-._").empty());
}

TEST_CASE("core::text: edit_distance counts a swap of neighbours as one edit", "[core][text]") {
  CHECK(text::edit_distance("kitten", "sitting") == 3);
  CHECK(text::edit_distance("years", "yeras") == 1);
  CHECK(text::edit_distance("", "abc") == 3);
  CHECK(text::edit_distance("abc", "abc") == 0);
  CHECK(text::edit_distance("ab", "ba") == 1);
}

TEST_CASE("core::text: closest_name ranks shared words before spelling", "[core][text]") {
  const auto offers = offer_names();
  const auto keys = key_paths();
  REQUIRE_FALSE(offers.empty());
  SECTION("an offer named by its provider and GPU number") {
    // Edit distance alone picks runpod-l40s (6 edits); the words runpod and 4090 say otherwise.
    CHECK(text::closest_name("runpod-4090", offers) == "runpod-rtx4090-community");
    CHECK(text::closest_name("RunPod-4090", offers) == "runpod-rtx4090-community");
    CHECK(text::closest_name("rtx4090", offers) == "vast-rtx4090");
    CHECK(text::closest_name("lambda-h100", offers) == "lambda-h100-sxm");
  }
  SECTION("a key named by a prefix of its words") {
    // cloud.name is 5 edits away, cloud.rate_per_hour 9: the shared words and the prefix win.
    CHECK(text::closest_name("cloud.rate", keys) == "cloud.rate_per_hour");
    CHECK(text::closest_name("cloud.speed", keys) == "cloud.speed_ratio");
    CHECK(text::closest_name("hardware_price", keys) == "local.hardware_price");
  }
  SECTION("a typo inside a word still finds it") {
    CHECK(text::closest_name("cloud.rate_per_hr", keys) == "cloud.rate_per_hour");
    CHECK(text::closest_name("local.lifetime_yeras", keys) == "local.lifetime_years");
    CHECK(text::closest_name("runpdo-h100-sxm", offers) == "runpod-h100-sxm");
    CHECK(text::closest_name("aws-g5.xlarg", offers) == "aws-g5.xlarge");
  }
  SECTION("a number is a word of its own: 4080 is not 4090") {
    CHECK(text::closest_name("vast-rtx4080", offers) == "vast-rtx4090");  // by spelling (1 edit), not as a word
    CHECK(text::closest_name("4080", offers).empty());
  }
  SECTION("nothing close: no suggestion") {
    CHECK(text::closest_name("xyzzy", offers).empty());
    CHECK(text::closest_name("cloud.xyzzy", keys).empty());  // one word of two is not enough
    CHECK(text::closest_name("", keys).empty());
  }
  SECTION("the query itself is not suggested") {
    const std::vector<std::string_view> names{"cloud", "local"};
    CHECK(text::closest_name("clod", names) == "cloud");
    CHECK(text::closest_name("cloud", names).empty());
  }
}

TEST_CASE("core::text: the hints of --cloud and --set use closest_name", "[core][text][breakeven]") {
  const auto offer = breakeven::find_cloud_offer("runpod-4090", breakeven::cloud_offers());
  REQUIRE_FALSE(offer.has_value());
  CHECK(offer.error().hint == "did you mean 'runpod-rtx4090-community'? (gpucost offers list)");
  const auto config = breakeven::load_config(
      std::nullopt, {"electricity.price_per_kwh=0.3", "local.hardware_price=3000", "cloud.rate=2"});
  REQUIRE_FALSE(config.has_value());
  CHECK(config.error().message == "--set: unknown key 'cloud.rate'");
  CHECK(config.error().hint == "did you mean 'cloud.rate_per_hour'?");
}
