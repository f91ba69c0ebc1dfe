// gpucost offers update: refreshes cloud GPU list prices from the providers' public price lists
// (prices::fetch_updates) and writes the user catalogue atomically, only when every requested
// provider succeeded. --dry-run prints each offer's price before and after and writes nothing.
#include "commands.hpp"
#include "console.hpp"
#include "help_format.hpp"

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/prices/offer_catalogue.hpp>
#include <gpucost/prices/offers_update.hpp>
#include <gpucost/prices/providers.hpp>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <utility>

namespace gpucost::cli {

namespace {

struct OffersUpdateArgs {
  std::vector<std::string> providers, regions, endpoints;
  std::string gpu, output;
  double timeout_s = 300;
  bool dry_run = false, quiet = false;
};

/// The row of a provider whose price list can be read; null for another name.
const prices::ProviderRow* fetchable(std::string_view key) {
  const prices::ProviderRow* p = prices::provider_row(key);
  return p != nullptr && p->fetchable() ? p : nullptr;
}

/// "a", "a or b", "a, b or c" (with `last` "or"; "and" likewise).
std::string listed(const std::vector<std::string>& words, std::string_view last) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? fmt::format(" {} ", last) : std::string(", ");
    out += words[i];
  }
  return out;
}

/// The fetchable providers' keys, and kEcbKey: what --endpoint takes.
std::vector<std::string> endpoint_sources() {
  std::vector<std::string> out = prices::fetchable_keys();
  out.emplace_back(prices::kEcbKey);
  return out;
}

/// --provider's help: "aws, azure or gcp (repeatable; default aws and azure, and gcp when
/// GPUCOST_GCP_API_KEY is set)".
std::string provider_help() {
  std::vector<std::string> free;
  std::string keyed;
  for (const prices::ProviderRow& p : prices::provider_table()) {
    if (!p.fetchable()) continue;
    if (p.needs_key())
      keyed += fmt::format(", and {} when {} is set", p.key, p.list.key_env);
    else
      free.emplace_back(p.key);
  }
  return fmt::format("{} (repeatable; default {}{})", listed(prices::fetchable_keys(), "or"), listed(free, "and"),
                     keyed);
}

/// Where the API keys come from: "Google Cloud's API key comes from GPUCOST_GCP_API_KEY".
std::string key_sources() {
  std::vector<std::string> keys;
  for (const prices::ProviderRow& p : prices::provider_table())
    if (p.fetchable() && p.needs_key())
      keys.push_back(fmt::format("{}'s API key comes from {}", p.display, p.list.key_env));
  return text::join(keys, ", ");
}

/// --region's help: the bare names recognised and the default regions.
std::string region_help() {
  std::vector<std::string> shaped, defaults;
  for (const prices::ProviderRow& p : prices::provider_table()) {
    if (!p.fetchable()) continue;
    if (p.list.region_shape != nullptr) shaped.emplace_back(p.default_region);
    defaults.emplace_back(p.default_region);
  }
  return fmt::format("a region to price (repeatable; PROVIDER=REGION or a bare name such as {}; default {})",
                     text::join(shaped, ", "), text::join(defaults, ", "));
}

/// --region's hint: "--region aws=eu-central-1, --region azure=westeurope, ...".
std::string region_examples() {
  std::vector<std::string> examples;
  for (const prices::ProviderRow& p : prices::provider_table())
    if (p.fetchable() && !p.list.other_region.empty())
      examples.push_back(fmt::format("--region {}={}", p.key, p.list.other_region));
  return text::join(examples, ", ");
}

/// "PROVIDER=VALUE" split at the first '='; an empty provider when there is none.
std::pair<std::string, std::string> split_pair(std::string_view s) {
  const std::size_t eq = s.find('=');
  if (eq == std::string_view::npos) return {{}, std::string(s)};
  return {std::string(text::trim(s.substr(0, eq))), std::string(text::trim(s.substr(eq + 1)))};
}

Expected<prices::UpdateRequest> request_from(const OffersUpdateArgs& a, std::vector<std::string>& notes) {
  prices::UpdateRequest r;
  for (const prices::ProviderRow& p : prices::provider_table())
    if (p.fetchable() && p.needs_key())
      r.api_keys[std::string(p.key)] = env_or_empty(std::string(p.list.key_env).c_str());
  r.gpu = a.gpu;
  r.today = today_date();
  for (const std::string& p : a.providers) {
    if (fetchable(p) == nullptr)
      return make_error(ErrorKind::usage,
                        fmt::format("--provider {}: not one of {}", p, text::join(prices::fetchable_keys(), ", ")));
    if (std::find(r.providers.begin(), r.providers.end(), p) == r.providers.end()) r.providers.push_back(p);
  }
  if (r.providers.empty()) {
    for (const prices::ProviderRow& p : prices::provider_table()) {
      if (!p.fetchable()) continue;
      if (!p.needs_key() || !r.api_keys[std::string(p.key)].empty())
        r.providers.emplace_back(p.key);
      else
        notes.push_back(
            fmt::format("{}: skipped: {} is not set (the {} needs an API key)", p.key, p.list.key_env, p.list.name));
    }
  }
  for (const std::string& spec : a.regions) {
    auto [provider, region] = split_pair(spec);
    if (provider.empty()) provider = prices::provider_of_region(region);
    if (fetchable(provider) == nullptr || region.empty())
      return make_error(ErrorKind::usage, fmt::format("--region {}: whose region is it?", spec),
                        fmt::format("write it as PROVIDER=REGION, e.g. {}", region_examples()));
    r.regions[provider].push_back(region);
  }
  for (const std::string& spec : a.endpoints) {
    const auto [source, url] = split_pair(spec);
    if ((fetchable(source) == nullptr && source != prices::kEcbKey) ||
        !(url.starts_with("http://") || url.starts_with("https://")))
      return make_error(ErrorKind::usage, fmt::format("--endpoint {}: expected SOURCE=URL", io::shown_url(spec)),
                        fmt::format("SOURCE is {}; URL replaces the list's https://host (tests, mirrors)",
                                    listed(endpoint_sources(), "or")));
    if (io::has_userinfo(url))  // a URL shows in ps and shell history
      return make_error(
          ErrorKind::usage,
          fmt::format("--endpoint {}={}: holds a user name or password: refused", source, io::shown_url(url)),
          fmt::format("the price lists need no credentials; {} (docs/cluster.md)", key_sources()));
    r.endpoints[source] = url;
  }
  return r;
}

constexpr std::size_t kMaxCatalogueBytes = 256u << 20;

void print_changes(const std::vector<prices::PriceChange>& changes) {
  std::size_t width = 5;
  for (const auto& c : changes) width = std::max(width, c.name.size());
  fmt::print("{:<{}}  {:>10}  {:>10}  {:>8}  {}\n", "offer", width, "before", "after", "change", "before from");
  for (const auto& c : changes) {
    const std::string before = c.before ? fmt::format("{:.4f}", *c.before) : std::string("new");
    const std::string after = c.after ? fmt::format("{:.4f}", *c.after) : std::string("gone");
    std::string change;
    if (c.before && c.after && *c.before > 0) change = fmt::format("{:+.1f} %", (*c.after / *c.before - 1) * 100);
    fmt::print("{:<{}}  {:>10}  {:>10}  {:>8}  {}\n", c.name, width, before, after, change, c.before_origin);
  }
}

int run_offers_update(const OffersUpdateArgs& a) {
  std::vector<std::string> notes;
  auto request = request_from(a, notes);
  if (!request) return fail(request.error());
  const bool default_path = a.output.empty();
  const std::string output = default_path ? prices::user_catalogue_path() : a.output;
  if (output.empty())
    return fail(make_error(ErrorKind::usage, "offers update: no place for the user catalogue",
                           "neither XDG_DATA_HOME nor HOME is set: give --output FILE"));

  io::HttpOptions http;
  http.user_agent = "gpucost-offers-update";
  http.timeout_s = a.timeout_s;
  http.connect_timeout_s = std::min(a.timeout_s, http.connect_timeout_s);
  apply_http_backoff_env(http);
  const auto fetcher = io::make_http_fetcher(http);
  // A provider whose list needs an API key is asked through a fetcher whose requests carry it.
  std::vector<std::unique_ptr<io::Fetcher>> keyed;
  std::map<std::string, io::Fetcher*> with_key;
  for (const auto& [provider, key] : request->api_keys) {
    const prices::ProviderRow* p = fetchable(provider);
    if (key.empty() || p == nullptr || p->list.with_key == nullptr) continue;
    const io::HttpOptions options = p->list.with_key(http, key);
    keyed.push_back(io::make_http_fetcher(options));
    with_key[provider] = keyed.back().get();
    const bool asked =
        std::find(request->providers.begin(), request->providers.end(), provider) != request->providers.end();
    const std::string url = prices::endpoint_of(*request, *p);
    if (const std::string w = io::cleartext_credentials_warning(url, options); asked && !w.empty())
      fmt::print(stderr, "{} {}\n", prefix(Level::warning), w);
  }
  auto update = prices::fetch_updates(*request, *fetcher, with_key);
  if (!a.quiet)
    for (const std::string& n : notes) fmt::print(stderr, "{} {}\n", prefix(Level::note), n);
  if (!update) return fail(update.error());
  if (!a.quiet)
    for (const std::string& n : update->notes) fmt::print(stderr, "{} {}\n", prefix(Level::note), n);

  // The catalogue it replaces (its offers are kept): a regular file, read without blocking.
  std::error_code ec;
  std::string old_text;
  if (std::filesystem::exists(output, ec)) {
    auto read = io::read_regular_file(output, kMaxCatalogueBytes, "-o catalogue");
    if (!read) return fail(read.error());
    old_text = std::move(*read);
  }
  auto catalogue = prices::new_catalogue(*request, *update, old_text, output);
  if (!catalogue) return fail(catalogue.error());
  if (a.dry_run) {
    // The offers in use now: the built-in ones as the user catalogue overrides them.
    auto in_use = prices::load_catalogue({output, {}});
    if (!in_use) return fail(in_use.error());
    print_changes(prices::price_changes(*request, in_use->offers, update->offers));
    if (!a.quiet)
      fmt::print(stderr, "{} dry run: nothing written ({} would hold {} offers)\n", prefix(Level::note), output,
                 catalogue->offers.size());
    return kOk;
  }
  // A freshly written catalogue must load: the same parse every run does.
  if (auto check = breakeven::parse_cloud_offers(catalogue->toml, output); !check) return fail(check.error());
  if (default_path) std::filesystem::create_directories(std::filesystem::path(output).parent_path(), ec);
  if (auto st = io::write_file_atomically(output, catalogue->toml); !st) return fail(st.error());
  if (!a.quiet)
    fmt::print(stderr, "{} wrote {}: {} offers ({} kept from before), ECB rates of {}\n", prefix(Level::note), output,
               catalogue->offers.size(), catalogue->kept, update->exchange.date);
  return kOk;
}

}  // namespace

Runner define_offers_update(CLI::App& cmd) {
  auto args = std::make_shared<OffersUpdateArgs>();
  cmd.add_option("--provider", args->providers, provider_help())
      ->type_name("NAME")
      ->check(offers(prices::fetchable_keys()))
      ->group("Sources");
  cmd.add_option("--region", args->regions, region_help())->type_name("REGION")->group("Sources");
  cmd.add_option("--gpu", args->gpu, "only offers whose GPU model contains this (H100, A100 80GB, L4)")
      ->type_name("MODEL")
      ->group("Sources");
  cmd.add_option("--endpoint", args->endpoints,
                 fmt::format("SOURCE=URL: another base URL for {} (repeatable; tests, mirrors)",
                             listed(endpoint_sources(), "or")))
      ->type_name("SOURCE=URL")
      ->group("Sources");
  cmd.add_option("--timeout", args->timeout_s, "seconds a request may take, body included (default 300)")
      ->type_name("S")
      ->check(CLI::Range(1.0, 86400.0))
      ->group("Sources");
  cmd.add_flag("--dry-run", args->dry_run, "print each offer's price before and after; write nothing")->group("Output");
  cmd.add_option("-o,--output", args->output,
                 "the catalogue to write (default $XDG_DATA_HOME/gpucost/offers.toml, else "
                 "~/.local/share/gpucost/offers.toml)")
      ->type_name("FILE")
      ->group("Output");
  cmd.add_flag("-q,--quiet", args->quiet, "no notes on stderr")->group("Output");
  cmd.footer(footer_with_example("gpucost offers update --provider aws --region us-west-2 --dry-run"));
  return [args] { return run_offers_update(*args); };
}

}  // namespace gpucost::cli
