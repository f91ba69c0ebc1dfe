#include <gpucost/prices/offers_update.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/prices/sources.hpp>

#include "toml_write.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace gpucost::prices {

namespace {

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool gpu_matches(std::string_view filter, std::string_view model) {
  if (filter.empty()) return true;
  std::string lower;
  for (const char c : filter) lower += text::ascii_lower(c);
  return text::icontains(model, lower);
}

std::string base_url(const UpdateRequest& r, std::string_view source, std::string_view fallback) {
  const auto it = r.endpoints.find(std::string(source));
  if (it == r.endpoints.end()) return std::string(fallback);
  std::string base = it->second;
  while (base.ends_with('/')) base.pop_back();
  return base;
}

Expected<SourceResult> fetch_provider(const UpdateRequest& r, const ProviderRow& p, io::Fetcher& fetcher) {
  if (p.needs_key()) {
    const auto key = r.api_keys.find(std::string(p.key));
    if (key == r.api_keys.end() || key->second.empty())
      return make_error(ErrorKind::usage, fmt::format("{}: the {} needs an API key", p.key, p.list.name),
                        fmt::format("set {} ({})", p.list.key_env, p.list.key_hint));
  }
  return p.list.fetch(fetcher, endpoint_of(r, p), regions_of(r, p));
}

Error with_context(std::string_view what, const Error& e) {
  if (io::is_no_network(e))
    return make_error(ErrorKind::io,
                      fmt::format("{}: the built-in catalogue of {} stays in use; --clouds FILE for your own",
                                  io::kNoNetwork, builtin_catalogue_date()),
                      std::string(text::trim(e.message.substr(io::kNoNetwork.size() + 1))));
  Error out = e;
  out.message = fmt::format("{}: {}", what, e.message);
  return out;
}

std::string offer_toml(const breakeven::CloudOffer& o) {
  std::string t = "[[offer]]\n";
  const auto line = [&](std::string_view key, const std::string& value) { t += fmt::format("{} = {}\n", key, value); };
  line("name", toml_string(o.name));
  line("provider", toml_string(o.provider));
  line("instance", toml_string(o.instance));
  line("region", toml_string(o.region));
  line("gpu_model", toml_string(o.gpu_model));
  line("gpu_memory_gb", toml_number(o.gpu_memory_gb));
  if (o.per_gpu) {
    line("per_gpu", "true");
    line("max_gpus", std::to_string(o.gpus));
  } else {
    line("gpus", std::to_string(o.gpus));
  }
  line("price_per_hour", toml_number(o.price_per_hour));
  line("currency", toml_string(o.currency));
  line("kind", toml_string(breakeven::offer_kind_name(o.kind)));
  if (o.upfront > 0) line("upfront", toml_number(o.upfront));
  if (o.term_years) line("term_years", toml_number(*o.term_years));
  line("billing_increment_s", toml_number(o.billing_increment_s));
  line("billing_minimum_s", toml_number(o.billing_minimum_s));
  line("cold_start_s", toml_number(o.cold_start_s));
  if (o.speed_ratio) line("speed_ratio", toml_float(*o.speed_ratio));
  line("date_seen", toml_string(o.date_seen));
  line("source", toml_string(o.source));
  line("confirmed", o.confirmed ? "true" : "false");
  if (!o.note.empty()) line("note", toml_string(o.note));
  return t;
}

std::string size_text(std::uint64_t bytes) {
  const auto b = static_cast<double>(bytes);
  if (bytes >= 1000000) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.1f} kB", b / 1e3);
}

void sort_offers(std::vector<breakeven::CloudOffer>& offers) {
  std::stable_sort(offers.begin(), offers.end(), [](const auto& a, const auto& b) {
    return std::tie(a.provider, a.name) < std::tie(b.provider, b.name);
  });
}

}  // namespace

std::string endpoint_of(const UpdateRequest& r, const ProviderRow& provider) {
  return base_url(r, provider.key, provider.list.endpoint);
}

std::string ecb_endpoint(const UpdateRequest& r) { return base_url(r, kEcbKey, kEcbEndpoint); }

std::vector<std::string> regions_of(const UpdateRequest& r, const ProviderRow& provider) {
  if (const auto it = r.regions.find(std::string(provider.key)); it != r.regions.end() && !it->second.empty())
    return it->second;
  return {std::string(provider.default_region)};
}

Expected<UpdateResult> fetch_updates(const UpdateRequest& r, io::Fetcher& fetcher,
                                     const std::map<std::string, io::Fetcher*>& with_key) {
  UpdateResult out;
  for (const ProviderRow& row : provider_table()) {
    const std::string provider(row.key);
    if (!row.fetchable() || !contains(r.providers, provider)) continue;
    const auto keyed = with_key.find(provider);
    io::Fetcher& used = keyed != with_key.end() && keyed->second != nullptr ? *keyed->second : fetcher;
    auto got = fetch_provider(r, row, used);
    for (std::string& n : used.take_notes()) out.notes.push_back(fmt::format("{}: {}", provider, n));
    if (!got) return with_context(provider, got.error());
    std::vector<breakeven::CloudOffer> kept;
    for (breakeven::CloudOffer& o : got->offers) {
      if (!gpu_matches(r.gpu, o.gpu_model)) {
        ++got->skipped[fmt::format("not {}", r.gpu)];
        continue;
      }
      if (o.date_seen.empty()) o.date_seen = r.today;
      kept.push_back(std::move(o));
    }
    got->offers = std::move(kept);
    out.notes.push_back(fmt::format("{} ({}): {} document{}, {}: {}", provider, fmt::join(regions_of(r, row), ", "),
                                    got->pages, got->pages == 1 ? "" : "s", size_text(got->bytes), summary(*got)));
    for (breakeven::CloudOffer& o : got->offers) out.offers.push_back(std::move(o));
  }
  const std::string ecb = ecb_endpoint(r) + std::string(kEcbDailyPath);
  auto xml = fetcher.get(ecb);
  for (std::string& n : fetcher.take_notes()) out.notes.push_back(fmt::format("ecb: {}", n));
  if (!xml) return with_context("ecb", xml.error());
  auto rates = parse_ecb_rates(*xml, ecb);
  if (!rates) return rates.error();
  out.exchange = std::move(*rates);
  out.notes.push_back(
      fmt::format("ecb: {} euro reference rates of {}", out.exchange.per_euro.size(), out.exchange.date));
  sort_offers(out.offers);
  return out;
}

std::string catalogue_toml(const std::vector<breakeven::CloudOffer>& offers,
                           const std::optional<ExchangeRates>& exchange, std::string_view today) {
  std::string t = fmt::format(
      "# gpucost user catalogue, written by `gpucost offers update` on {} from the providers' public price\n"
      "# lists (list prices, not quotes). Its offers override the built-in ones of the same name; the next\n"
      "# update rewrites it. Format: data/cloud-offers.toml (docs/cost-model.md, \"Cloud catalogue\").\n\n",
      today);
  if (exchange) t += exchange_toml(*exchange) + "\n";
  for (const breakeven::CloudOffer& o : offers) t += offer_toml(o) + "\n";
  return t;
}

bool replaced_by(const UpdateRequest& r, const breakeven::CloudOffer& o) {
  const ProviderRow* p = provider_row_by_display(o.provider);
  if (p == nullptr || !contains(r.providers, p->key)) return false;
  return contains(regions_of(r, *p), o.region) && gpu_matches(r.gpu, o.gpu_model);
}

Expected<NewCatalogue> new_catalogue(const UpdateRequest& r, const UpdateResult& update, std::string_view old_text,
                                     std::string_view old_origin) {
  NewCatalogue c;
  c.offers = update.offers;
  if (!text::trim(old_text).empty()) {
    auto old = breakeven::parse_cloud_offers(old_text, old_origin);
    if (!old)
      return make_error(old.error().kind, old.error().message,
                        "the update keeps the offers it does not replace: fix or remove that file, then run it again");
    for (breakeven::CloudOffer& o : *old) {
      const bool listed =
          std::any_of(c.offers.begin(), c.offers.end(), [&](const auto& n) { return n.name == o.name; });
      if (replaced_by(r, o) || listed) continue;
      o.origin.clear();
      c.offers.push_back(std::move(o));
      ++c.kept;
    }
  }
  sort_offers(c.offers);
  c.toml = catalogue_toml(c.offers, update.exchange, r.today);
  return c;
}

std::vector<PriceChange> price_changes(const UpdateRequest& r, const std::vector<breakeven::CloudOffer>& current,
                                       const std::vector<breakeven::CloudOffer>& updated) {
  std::vector<PriceChange> out;
  const auto find = [](const std::vector<breakeven::CloudOffer>& list, std::string_view name) {
    const breakeven::CloudOffer* found = nullptr;
    for (const auto& o : list)
      if (o.name == name) found = &o;  // the last wins, as when catalogues are loaded
    return found;
  };
  for (const breakeven::CloudOffer& o : updated) {
    PriceChange p{o.name, o.currency, std::nullopt, o.price_per_hour, {}};
    if (const auto* was = find(current, o.name)) {
      p.before = was->price_per_hour;
      p.before_origin = was->origin;
    }
    out.push_back(std::move(p));
  }
  // Gone: offers of the old user catalogue the update drops. A built-in offer the update does not
  // list stays in every run's catalogue, so it is not gone.
  for (const breakeven::CloudOffer& o : current)
    if (o.origin != "built-in" && replaced_by(r, o) && find(updated, o.name) == nullptr && find(current, o.name) == &o)
      out.push_back(PriceChange{o.name, o.currency, o.price_per_hour, std::nullopt, o.origin});
  return out;
}

std::string builtin_catalogue_date() {
  std::string newest;
  for (const breakeven::CloudOffer& o : breakeven::cloud_offers()) newest = std::max(newest, o.date_seen);
  return newest;
}

}  // namespace gpucost::prices
