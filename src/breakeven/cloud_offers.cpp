#include <gpucost/breakeven/cloud_offers.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace gpucost::breakeven {

namespace {

constexpr std::string_view kCatalogue =
#include "cloud_offers.inc"
    ;

Expected<CloudOffer> read_offer(const toml::table& t, std::string_view origin, std::size_t index) {
  CloudOffer o;
  const auto text = [&](const char* key, std::string& into) -> Status {
    const auto v = t[key].value<std::string>();
    if (!v) return make_error(ErrorKind::config, fmt::format("{}: offer {}: '{}' is missing", origin, index, key));
    into = *v;
    return {};
  };
  for (auto [key, into] : {std::pair{"name", &o.name}, std::pair{"provider", &o.provider},
                           std::pair{"instance", &o.instance}, std::pair{"gpu_model", &o.gpu_model},
                           std::pair{"currency", &o.currency}, std::pair{"date_seen", &o.date_seen},
                           std::pair{"source", &o.source}})
    if (auto st = text(key, *into); !st) return st.error();
  o.region = t["region"].value_or(std::string());
  o.gpu_memory_gb = t["gpu_memory_gb"].value_or(0.0);
  o.per_gpu = t["per_gpu"].value_or(false);
  o.gpus = static_cast<int>(o.per_gpu ? t["max_gpus"].value_or(8) : t["gpus"].value_or(1));
  o.price_per_hour = t["price_per_hour"].value_or(-1.0);
  o.billing_increment_s = t["billing_increment_s"].value_or(1.0);
  o.billing_minimum_s = t["billing_minimum_s"].value_or(0.0);
  o.cold_start_s = t["cold_start_s"].value_or(0.0);
  if (const auto s = t["speed_ratio"].value<double>()) o.speed_ratio = *s;
  if (!(o.price_per_hour > 0) || !(o.billing_increment_s > 0) || o.gpus < 1)
    return make_error(ErrorKind::config, fmt::format("{}: offer '{}': price, billing or GPU count out of range", origin, o.name));
  return o;
}

}  // namespace

Expected<std::vector<CloudOffer>> parse_cloud_offers(std::string_view toml_text, std::string_view origin) {
  toml::table tbl;
  try {
    tbl = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    return make_error(ErrorKind::config, fmt::format("{}:{}:{}: {}", origin, e.source().begin.line,
                                                     e.source().begin.column, e.description()));
  }
  std::vector<CloudOffer> out;
  const auto* offers = tbl["offer"].as_array();
  if (offers == nullptr) return out;
  for (std::size_t i = 0; i < offers->size(); ++i) {
    const auto* t = offers->get(i)->as_table();
    if (t == nullptr) return make_error(ErrorKind::config, fmt::format("{}: offer {} is not a table", origin, i + 1));
    auto o = read_offer(*t, origin, i + 1);
    if (!o) return o.error();
    out.push_back(std::move(*o));
  }
  return out;
}

const std::vector<CloudOffer>& cloud_offers() {
  static const std::vector<CloudOffer> kOffers = [] {
    auto parsed = parse_cloud_offers(kCatalogue, "data/cloud-offers.toml");
    return parsed ? std::move(*parsed) : std::vector<CloudOffer>{};  // a unit test parses it
  }();
  return kOffers;
}

Expected<CloudOffer> find_cloud_offer(std::string_view name) {
  std::string best;
  std::size_t best_d = 6;
  for (const CloudOffer& o : cloud_offers()) {
    if (o.name == name) return o;
    const std::size_t d = text::edit_distance(name, o.name);
    if (d < best_d) {
      best_d = d;
      best = o.name;
    }
  }
  return make_error(ErrorKind::usage, fmt::format("--cloud: unknown offer '{}'", name),
                    best.empty() ? std::string("list the offers with gpucost breakeven --list-clouds")
                                 : fmt::format("did you mean '{}'? (gpucost breakeven --list-clouds)", best));
}

CostConfig with_offer(const CostConfig& c, const CloudOffer& o, int job_gpus) {
  CostConfig out = c;
  out.cloud_offer = o.name;
  out.cloud_name = fmt::format("{} {} ({}x {}, list price seen {})", o.provider, o.instance,
                               o.per_gpu ? job_gpus : o.gpus, o.gpu_model, o.date_seen);
  out.rate_per_hour = o.rate_for(job_gpus);
  out.billing_increment_s = o.billing_increment_s;
  out.billing_minimum_s = o.billing_minimum_s;
  out.cold_start_s = o.cold_start_s;
  if (o.speed_ratio && c.speed_ratio_source == "default") {
    out.speed_ratio = *o.speed_ratio;
    out.speed_ratio_source = "offer";
  }
  return out;
}

}  // namespace gpucost::breakeven
