#include <gpucost/breakeven/starter_config.hpp>

#include <gpucost/breakeven/carbon.hpp>

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/breakeven/reference_rates.hpp>
#include <gpucost/core/formats.hpp>
#include <gpucost/core/input_stats.hpp>
#include <gpucost/core/text.hpp>

#include "toml_list.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <utility>

namespace gpucost::breakeven {

namespace {

constexpr std::string_view kPrices =
#include "electricity_prices.inc"
    ;

Expected<ElectricityPrice> read_price(const toml::table& t, std::string_view origin, std::size_t index) {
  ElectricityPrice p;
  for (auto [key, into] :
       {std::pair{"country", &p.country}, std::pair{"currency", &p.currency}, std::pair{"period", &p.period},
        std::pair{"consumers", &p.consumers}, std::pair{"source", &p.source}, std::pair{"date_seen", &p.date_seen}}) {
    const auto v = t[key].value<std::string>();
    if (!v) return make_error(ErrorKind::config, fmt::format("{}: price {}: '{}' is missing", origin, index, key));
    *into = *v;
  }
  p.price_per_kwh = t["price_per_kwh"].value_or(-1.0);
  if (!(p.price_per_kwh >= 0))
    return make_error(ErrorKind::config,
                      fmt::format("{}: price {} ({}): price_per_kwh must be a number >= 0", origin, index, p.country));
  return p;
}

// ISO 3166-1 alpha-2 -> ISO 4217: a small table of the countries GPU machines are commonly in.
// clang-format off
constexpr std::array<std::pair<std::string_view, std::string_view>, 54> kCurrencies{{
    // The euro area (Croatia since 2023, Bulgaria since 2026-01-01).
    {"AT", "EUR"}, {"BE", "EUR"}, {"BG", "EUR"}, {"CY", "EUR"}, {"DE", "EUR"}, {"EE", "EUR"}, {"ES", "EUR"},
    {"FI", "EUR"}, {"FR", "EUR"}, {"GR", "EUR"}, {"HR", "EUR"}, {"IE", "EUR"}, {"IT", "EUR"}, {"LT", "EUR"},
    {"LU", "EUR"}, {"LV", "EUR"}, {"MT", "EUR"}, {"NL", "EUR"}, {"PT", "EUR"}, {"SI", "EUR"}, {"SK", "EUR"},
    // Other European countries.
    {"CH", "CHF"}, {"LI", "CHF"}, {"CZ", "CZK"}, {"DK", "DKK"}, {"GB", "GBP"}, {"HU", "HUF"}, {"IS", "ISK"},
    {"NO", "NOK"}, {"PL", "PLN"}, {"RO", "RON"}, {"SE", "SEK"}, {"TR", "TRY"}, {"UA", "UAH"},
    // The Americas, Asia-Pacific, Middle East and Africa.
    {"US", "USD"}, {"CA", "CAD"}, {"MX", "MXN"}, {"BR", "BRL"}, {"AR", "ARS"}, {"CL", "CLP"},
    {"JP", "JPY"}, {"CN", "CNY"}, {"HK", "HKD"}, {"TW", "TWD"}, {"KR", "KRW"}, {"IN", "INR"}, {"SG", "SGD"},
    {"AU", "AUD"}, {"NZ", "NZD"}, {"IL", "ILS"}, {"AE", "AED"}, {"SA", "SAR"}, {"ZA", "ZAR"}, {"VN", "VND"},
}};
// clang-format on

// ---- what init writes about each key -------------------------------------------------------

// Where the number of each key is found: the first thing a user asks of a starter file.
const std::map<std::string_view, std::string_view>& where_map() {
  static const std::map<std::string_view, std::string_view> kWhere = {
      {"currency", "the currency of your invoice and electricity bill (--country chooses it)"},
      {"line", "your own choice: how much dearer owning may be before you would rather rent"},
      {"electricity.price_per_kwh",
       "your electricity bill: what you pay per kWh with network charges and taxes (the energy part of the total "
       "divided by the kWh billed); in a data centre, the colocation contract's price per kWh"},
      {"electricity.tz",
       "only with [[electricity.tou]] windows: the zone the tariff's hours are in, e.g. \"Europe/Berlin\" (the "
       "default is the logs' --tz zone)"},
      {"local.hardware_price",
       "the invoice of the machine: GPUs, host, power supply, cooling (without VAT when you reclaim it)"},
      {"local.residual_fraction",
       "what used machines (or cards) of this kind sell for at the end of the lifetime, divided by the price "
       "(sold listings of second-hand dealers); 0 when it will be scrapped"},
      {"local.lifetime_years",
       "your depreciation schedule (the useful life of IT hardware in your accounts), or how long you will keep it"},
      {"local.use_hours_per_year",
       "the hours of paid work a year: the scheduler's accounting (e.g. Slurm's sacct) or `gpucost history` over "
       "a ledger of the machine's runs"},
      {"local.cooling_factor",
       "the facility's PUE (the colocation contract or the data centre's report); 1.0 in an office or at home"},
      {"local.system_power_w",
       "a wall-plug power meter (or the BMC: ipmitool dcmi power reading) under load, minus the GPUs' power.draw "
       "in nvidia-smi"},
      {"local.hourly_wage",
       "what an hour of the person who looks after the machine costs, overhead included (finance/HR)"},
      {"local.maintenance_hours_per_year",
       "your ticket system or time sheets: the hours a year spent on updates, repairs and care of the machine"},
      {"local.machines",
       "how many machines the figures above describe: 1 for one node of a cluster of alike nodes (a job on four "
       "hosts then counts four), or the node count when they are the cluster's sums"},
      {"local.always_on", "true when the machine stays powered on between jobs"},
      {"local.idle_power_w",
       "a wall-plug power meter (or ipmitool dcmi power reading) with the machine on and idle; nvidia-smi "
       "--query-gpu=power.draw gives the GPUs' part"},
      {"local.incident_hours.restart_app",
       "your ticket system: the time from such a fault to the job running again; NVIDIA's Xid catalogue names each "
       "code's resolution bucket"},
      {"local.incident_hours.reset_gpu",
       "your ticket system: the time a GPU reset (nvidia-smi -r) and the restart take"},
      {"local.incident_hours.reboot", "your ticket system: the time a reboot and the restart take"},
      {"local.incident_hours.contact_support",
       "your ticket system: the time a hardware case takes (diagnosis, RMA, the replacement)"},
      {"local.incident_hours.unknown", "your ticket system: the time an unknown Xid code takes to look up and fix"},
      {"local.fault_window_s",
       "rarely changed: the driver prints one fault as a storm of lines within seconds (docs/cost-model.md, "
       "\"Faults\")"},
      {"local.faults",
       "rarely changed: hardware-only leaves the application's own faults (Xid 13, 31, 43) out of both sides, "
       "all-local charges them to owning alone (docs/cost-model.md, \"Who caused a fault\")"},
      {"cloud.name", "any label for the output"},
      {"cloud.offer", "an offer of the catalogue: `gpucost offers list` lists them"},
      {"cloud.rate_per_hour",
       "the provider's price page: the on-demand price of the instance per hour, in this file's currency"},
      {"cloud.speed_ratio",
       "time a short run of the job on the cloud GPU and divide (local time / cloud time); 1 for the same GPU "
       "model"},
      {"cloud.cold_start_s",
       "time one launch: from starting the instance to the job running (boot, image pull, data copy)"},
      {"cloud.billing_increment_s", "the provider's billing page: 1 = per second, 60 = per minute, 3600 = per hour"},
      {"cloud.billing_minimum_s", "the provider's billing page: the least time billed per start"},
      {"cloud.fixed_per_job", "the provider's price page: egress and storage per job (data out x the egress price)"},
      {"cloud.memory_margin",
       "rarely changed: the headroom over the job's peak GPU memory when judging whether an offer fits"},
      {"cloud.spot_restart_overhead",
       "the older flat rule for spot offers; leave it unset to price the interruptions from the three keys below"},
      {"cloud.spot_interruptions_per_hour",
       "from your own spot runs: interruptions / hours run; the AWS Spot Instance Advisor and the Azure portal "
       "publish only a monthly band per instance type and region"},
      {"cloud.checkpoint_interval_s", "the training script's checkpoint interval, in seconds of work"},
      {"cloud.spot_restart_s", "time one restart: a new instance to the job resumed from its checkpoint"},
      {"cloud.busy_share",
       "sm_active when the telemetry is DCGM's with its profiling field 1002 (dcgmi dmon -e 1002, dcgm-exporter's "
       "DCGM_FI_PROF_SM_ACTIVE): the share of the GPU that did work, not only the time a kernel ran"},
      {"carbon.intensity_g_per_kwh",
       "your electricity supplier's fuel mix disclosure (g CO2e per kWh on the bill or its label), or the grid "
       "operator's; leave it out to use carbon.country"},
      {"carbon.country",
       "the country the machine's electricity comes from (ISO code: DE, US, FR): its annual average from "
       "data/grid-carbon-intensity.tsv (Ember); --country fills it in"},
      {"carbon.cloud_intensity_g_per_kwh",
       "rarely needed: the provider's figure for the region (e.g. Google Cloud's region carbon data); the default "
       "is the region's country average"},
      {"carbon.cloud_country",
       "only for an offer whose region names no country (RunPod, Vast.ai: \"varies\"): where the instance runs"},
      {"carbon.cloud_pue",
       "rarely needed: the data centre's PUE; the default is the provider's published fleet average "
       "(data/cloud-pue.toml)"},
  };
  return kWhere;
}

std::string_view section_of(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}

std::string_view leaf_of(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

/// `text` as "# " comment lines of at most 100 characters, broken at spaces; lines after the
/// first indented by `indent` spaces more.
std::string comment(std::string_view text, std::size_t indent = 0) {
  std::string out;
  bool first = true;
  while (!text.empty()) {
    const std::size_t width = 100 - 2 - (first ? 0 : indent);
    std::size_t cut = text.size();
    if (cut > width) {
      cut = text.rfind(' ', width);
      if (cut == std::string_view::npos || cut == 0) cut = std::min(text.find(' '), text.size());
    }
    out += fmt::format("# {:{}}{}\n", "", first ? 0 : indent, text.substr(0, cut));
    first = false;
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
  return out;
}

std::string unit_text(const ConfigKey& key, const std::string& currency) {
  if (key.path == "currency") return "ISO 4217 code";
  if (key.is_bool) return "true or false";
  if (key.is_string) return "text";
  std::string unit(key.unit);
  if (const auto at = unit.find("currency"); at != std::string::npos) unit.replace(at, 8, currency);
  return unit;
}

std::string gpus_text(const MachineFacts& m) {
  std::string names;
  for (const auto& n : m.gpu_names) names += fmt::format("{}{}", names.empty() ? "" : ", ", n);
  if (names.empty()) names = "GPU model not named";
  return m.gpu_count > 0 ? fmt::format("{} x {}", m.gpu_count, names) : names;
}

std::string rate_text(const CloudOffer& o) {
  return fmt::format("{:g} {}/h{}", o.price_per_hour, o.currency, o.per_gpu ? " per GPU" : "");
}

/// A key's line and its comments: written out with `value`, or behind "# " at its default.
struct KeyText {
  std::string value;   ///< TOML text; empty: not filled
  std::string origin;  ///< where the filled value came from, or what to know besides
};

struct Context {
  explicit Context(const StarterOptions& options) : o(options) {}
  const StarterOptions& o;
  std::string currency = "USD";
  bool currency_from_country = false;
  const ElectricityPrice* price = nullptr;  ///< the country's entry, in any currency
  std::optional<CloudOffer> offer;          ///< the suggested offer
  std::vector<CloudOffer> other_offers;
  const EuroRates* rates = nullptr;  ///< the newest ECB rates (newest_rates)
  std::optional<double> offer_rate;  ///< units of `currency` per unit of the offer's, when they differ
  std::vector<std::string> notes;
};

std::string price_entry_text(const ElectricityPrice& p, std::string_view country) {
  return fmt::format("{:g} {}/kWh, the average of {} in {} ({}), published {}: {}", p.price_per_kwh, p.currency,
                     country, p.period, p.consumers, p.date_seen, p.source);
}

/// What the offer sets instead of the key (breakeven::with_offer); empty for a key it leaves alone.
std::string offer_brings(const CloudOffer& o, std::string_view path) {
  if (path == "cloud.name") return fmt::format("\"{} {}\"", o.provider, o.instance);
  if (path == "cloud.cold_start_s") return fmt::format("{:g} s", o.cold_start_s);
  if (path == "cloud.billing_increment_s") return fmt::format("{:g} s", o.billing_increment_s);
  if (path == "cloud.billing_minimum_s") return fmt::format("{:g} s", o.billing_minimum_s);
  return {};
}

/// Why `other`, listed beside the chosen offer, was not chosen (same_gpu_offers' order: the
/// config's currency first, then confirmed prices, then the rate); empty when it is simply dearer.
std::string why_not_chosen(const CloudOffer& other, const CloudOffer& chosen, int count) {
  if (other.currency != chosen.currency) return fmt::format(": priced in {}, not {}", other.currency, chosen.currency);
  if (other.rate_for(count) < chosen.rate_for(count) && !other.confirmed)
    return ": cheaper, but its price could not be confirmed against its source";
  return {};
}

/// Without a measurement: the GPU table's idle figure of the one model, times the GPU count.
std::optional<KeyText> idle_power_from_table(const MachineFacts& m) {
  if (m.gpu_names.size() != 1 || m.gpu_count <= 0) return std::nullopt;
  const GpuSpeed* gpu = find_gpu_speed(m.gpu_names.front());
  if (gpu == nullptr || !gpu->idle_w) return std::nullopt;
  const double watts = *gpu->idle_w * m.gpu_count;
  return KeyText{fmt::format("{:g}", watts),
                 fmt::format("from the GPU table (data/gpu-speed.toml): {} idles at {:g} W{} ({}){}. The rest of the "
                             "machine idles on top of it",
                             gpu->model, *gpu->idle_w,
                             m.gpu_count > 1 ? fmt::format(" × {} GPUs", m.gpu_count) : std::string(), gpu->idle_source,
                             m.source.find("the logs") != std::string::npos
                                 ? "; the logs hold too few samples at 0 % utilisation to measure it"
                                 : "")};
}

/// Where a country's average household price is published, for a country the table lacks.
std::string where_country_average(std::string_view country, std::string_view currency) {
  if (country == "US")
    return "The U.S. Energy Information Administration publishes it monthly: Electric Power Monthly, table 5.6.A "
           "\"Average Price of Electricity to Ultimate Customers by End-Use Sector, by State\", column Residential, "
           "in cents per kWh (divide by 100 for USD/kWh; "
           "https://www.eia.gov/electricity/monthly/epm_table_grapher.php?t=table_5_06_a)";
  if (currency == "EUR" || country == "DK" || country == "SE" || country == "PL" || country == "CZ" ||
      country == "HU" || country == "RO")
    return "Eurostat publishes every EU country's per half-year: dataset nrg_pc_204, households of band DC, all taxes "
           "and levies included";
  return "The country's statistics office or energy regulator publishes the average household price";
}

KeyText fill(const Context& c, std::string_view path) {
  const MachineFacts& m = c.o.machine;
  if (path == "currency" && c.currency_from_country)
    return {fmt::format("\"{}\"", c.currency), fmt::format("from --country {}", c.o.country)};
  if (path == "electricity.price_per_kwh" && c.price != nullptr) {
    if (c.price->currency == c.currency)
      return {fmt::format("{:g}", c.price->price_per_kwh),
              fmt::format("from data/electricity-prices.toml: {}. Your own tariff (your bill) is the number to use",
                          price_entry_text(*c.price, c.o.country))};
    return {{},
            fmt::format("data/electricity-prices.toml: {}; a figure in {}, not in {}",
                        price_entry_text(*c.price, c.o.country), c.price->currency, c.currency)};
  }
  if (path == "electricity.price_per_kwh" && !c.o.country.empty())
    return {{},
            fmt::format("data/electricity-prices.toml has no figure for {} yet: it holds only averages read in a "
                        "statistics office's own publication, with their period and date. {}",
                        c.o.country, where_country_average(c.o.country, c.currency))};
  if (path == "carbon.country" && !c.o.country.empty()) {
    if (const GridIntensity* g = find_grid_intensity(c.o.country))
      return {fmt::format("\"{}\"", g->country),
              fmt::format("from --country {}: {:g} g CO2e/kWh, Ember's {} average for {}", c.o.country, g->g_per_kwh,
                          g->year, g->name)};
    return {{}, fmt::format("data/grid-carbon-intensity.tsv has no figure for {}", c.o.country)};
  }
  // The logs are named in the header; naming them here again would wrap this note differently for
  // every path length.
  if (path == "local.idle_power_w" && m.idle_power_w) return {fmt::format("{:.1f}", *m.idle_power_w), m.idle_basis};
  if (path == "local.idle_power_w")
    if (const auto table = idle_power_from_table(m)) return *table;
  if (path == "local.system_power_w" && m.gpu_power_limit_w)
    return {{},
            fmt::format("each GPU may draw up to {:g} W (its power limit in nvidia-smi); this key is the rest",
                        *m.gpu_power_limit_w)};
  if (path == "cloud.offer" && c.offer) {
    std::string others;
    const int count = std::max(m.gpu_count, 1);
    for (const auto& x : c.other_offers)
      others += fmt::format("{}{} ({}{})", others.empty() ? "" : ", ", x.name, rate_text(x),
                            why_not_chosen(x, *c.offer, count));
    return {fmt::format("\"{}\"", c.offer->name),
            fmt::format("the cheapest catalogue offer of the same GPU for {} GPU{}: {} {}{}, {} (list price seen "
                        "{}: {}){}",
                        std::max(m.gpu_count, 1), std::max(m.gpu_count, 1) == 1 ? "" : "s", c.offer->provider,
                        c.offer->instance, c.offer->region.empty() ? "" : ", region " + c.offer->region,
                        rate_text(*c.offer), c.offer->date_seen, c.offer->source,
                        others.empty() ? "" : fmt::format(". Others of the same GPU: {}", others))};
  }
  if (path == "cloud.offer" && m.gpu_names.size() == 1)
    return {{},
            fmt::format("the catalogue has no offer of the {} for {} GPU{}", m.gpu_names.front(),
                        std::max(m.gpu_count, 1), std::max(m.gpu_count, 1) == 1 ? "" : "s")};
  if (path == "cloud.offer" && m.gpu_names.size() > 1)
    return {{}, "the logs name several GPU models: no one offer of the same GPU"};
  if (path == "cloud.speed_ratio" && c.offer && m.gpu_names.size() == 1) {
    const GpuHints hints{fmt::format("{} {}", c.offer->instance, c.offer->name), c.offer->gpu_memory_gb};
    const auto r = speed_ratio_range(m.gpu_names.front(), c.offer->gpu_model, hints);
    if (r && r->low == r->high)
      return {{}, fmt::format("left out, breakeven takes x{:.3g} for cloud.offer ({})", r->middle, r->sentence())};
    if (r)
      return {{},
              fmt::format("left out: breakeven takes x{:.3g}, the middle of the GPU table's range x{:.3g} \u2026 "
                          "x{:.3g} for cloud.offer, and shows the range; measure your job on the offer's GPU and set "
                          "a point here ({})",
                          r->middle, r->low, r->high, r->sentence())};
  }
  if (path == "cloud.speed_ratio")
    return {{},
            "left out: 1, or for a catalogue offer the middle of a range from data/gpu-speed.toml when it knows "
            "both GPUs (memory-bound to compute-bound; docs/cost-model.md, Speed ratio)"};
  return {};
}

void write_key(std::string& out, const Context& c, const ConfigKey& key) {
  const std::string path(key.path);
  const KeyText k = fill(c, key.path);
  const std::string def = key_value_text(CostConfig{}, key.path);
  const bool offer_rate = key.path == "cloud.rate_per_hour" && c.offer.has_value();
  const std::string offer_value = c.offer ? offer_brings(*c.offer, key.path) : std::string();
  std::string head = fmt::format("{}; {}, ", key.description, unit_text(key, c.currency));
  if (key.required && !offer_rate)
    head += "required";
  else if (key.required)
    head += "required unless cloud.offer is set";
  else if (key.no_default)
    head += "no default: unknown until set";
  else if (!key.default_words.empty())
    head += key.default_words;
  else
    head += fmt::format("default {}", def == "\"\"" ? "empty" : def);
  out += comment(head);
  const std::string where(where_to_find(key.path));
  if (!k.value.empty()) {
    out += comment(fmt::format("{}. Where: {}", k.origin, where));
    out += fmt::format("{} = {}\n", leaf_of(key.path), k.value);
    return;
  }
  if (!k.origin.empty()) out += comment(k.origin);
  if (offer_rate)
    out += comment(fmt::format("not needed: cloud.offer brings the rate. To price another instance: {}", where));
  else if (!offer_value.empty())
    out += comment(
        fmt::format("not used with cloud.offer, which brings its own ({}). Without an offer: {}", offer_value, where));
  else
    out += comment(fmt::format("set this: {}", where));
  if (key.required || key.no_default || !key.default_words.empty())
    out += fmt::format("# {} =\n", leaf_of(key.path));
  else
    out += fmt::format("# {} = {}\n", leaf_of(key.path), def);
}

std::string_view section_comment(std::string_view section) {
  if (section == "electricity") return "What a kWh costs you.";
  if (section == "local") return "The machine: what it cost, how long it lasts, who looks after it.";
  if (section == "local.incident_hours")
    return "Operator hours per GPU fault, by the NVIDIA resolution bucket of its worst Xid (docs/cost-model.md, "
           "\"Faults\"); priced at local.hourly_wage.";
  if (section == "cloud") return "The cloud offer the job is compared with.";
  if (section == "carbon")
    return "The grid's carbon intensity: the kg CO2e of the job locally and in the cloud (docs/cost-model.md, "
           "\"Carbon\"). Without carbon.country or carbon.intensity_g_per_kwh the local figure is left unknown.";
  return {};
}

void write_header(std::string& out, const Context& c, const std::vector<std::string>& missing) {
  const MachineFacts& m = c.o.machine;
  out += "# gpucost cost configuration: a starter written by " + c.o.generator + ".\n";
  out += comment(
      "Every key `gpucost breakeven -c FILE` reads is below with its unit, its default and where to find the number; "
      "docs/cost-model.md (\"Configuration\") explains each. A key written out holds a value init knew; a key behind "
      "\"# \" keeps its default until you remove the \"# \" and set it. A required key written \"# key =\" has no "
      "value yet: breakeven names it until it is set.");
  out += "#\n# What init knew:\n";
  if (!m.gpu_names.empty() || m.gpu_count > 0) {
    out += comment(fmt::format("  GPUs: {}, from {}", gpus_text(m), m.source), 4);
    if (m.gpu_memory_mib || m.gpu_power_limit_w) {
      std::string each;
      if (m.gpu_memory_mib) each = fmt::format("{:g} MiB of memory", *m.gpu_memory_mib);
      if (m.gpu_power_limit_w)
        each += fmt::format("{}power limit {:g} W", each.empty() ? "" : ", ", *m.gpu_power_limit_w);
      out += comment(fmt::format("  each GPU: {}", each), 4);
    }
    if (m.idle_power_w)
      out += comment(fmt::format("  the GPUs idle at {:.1f} W together (measured at 0 % utilisation)", *m.idle_power_w),
                     4);
  } else {
    out += "#   GPUs: unknown (give logs, --gpu NAME, or run init where nvidia-smi sees them)\n";
  }
  if (!c.o.country.empty())
    out += comment(fmt::format("  country: {}{}", c.o.country,
                               c.currency_from_country ? fmt::format(" (currency {})", c.currency) : std::string()),
                   4);
  for (const auto& n : c.o.notes) out += comment("  " + n, 4);
  for (const auto& n : c.notes) out += comment("  " + n, 4);
  out += "#\n";
  if (!missing.empty()) {
    std::string keys;
    for (const auto& k : missing) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k);
    out += comment(fmt::format("Set before breakeven can price: {}.", keys));
  }
  out += "# Then: gpucost breakeven -c FILE LOGS...\n";
}

void write_ranges_example(std::string& out) {
  out += "\n";
  out += comment(
      "[ranges]: for --mc, the range of each number you are unsure of, as `name = [low, high]` (e.g. "
      "`price_per_kwh` between the year's lowest and highest tariff); docs/cost-model.md, \"Uncertainty\".");
}

/// How the rate was had through the euro: "1 EUR = 1.1225 USD, so 1 USD = 1 / 1.1225 EUR".
std::string through_euro(const EuroRates& rates, std::string_view from, std::string_view to) {
  const auto per_euro = [&](std::string_view code) {
    return code == "EUR" ? 1.0 : rates.per_euro.at(std::string(code));
  };
  if (from == "EUR") return fmt::format("1 EUR = {} {}", per_euro(to), to);
  if (to == "EUR")
    return fmt::format("1 EUR = {} {}, so 1 {} = 1 / {} EUR", per_euro(from), from, from, per_euro(from));
  return fmt::format("1 EUR = {} {} = {} {}, so 1 {} = {} / {} {}", per_euro(to), to, per_euro(from), from, from,
                     per_euro(to), per_euro(from), to);
}

void write_extras(std::string& out, const Context& c) {
  out += "\n";
  if (c.offer && c.offer->currency != c.currency) {
    out += "[exchange]\n";
    out += comment(fmt::format(
        "Units of {} per unit of another currency, for an offer priced in it (docs/cost-model.md, \"One currency per "
        "answer\"), and the date the rate was taken (printed with every conversion). Needed: cloud.offer is priced "
        "in {}.",
        c.currency, c.offer->currency));
    if (c.offer_rate) {
      out += comment(fmt::format(
          "From the {} (gpucost offers update refreshes them): {}. The rate your bank charges is the one to use; "
          "breakeven warns when the date is more than {} days old.",
          rates_label(*c.rates), through_euro(*c.rates, c.offer->currency, c.currency), kStalePriceDays));
      out += fmt::format("{} = {:.6g}\ndate = \"{}\"\n", c.offer->currency, *c.offer_rate, c.rates->date);
    } else {
      const bool knows_offer = c.offer->currency == "EUR" || c.rates->per_euro.count(c.offer->currency) > 0;
      out += comment(fmt::format(
          "set this: your bank's rate, or a central bank's reference rate of the day ({} per {}; "
          "the {} have no {})",
          c.currency, c.offer->currency, rates_label(*c.rates), knows_offer ? c.currency : c.offer->currency));
      out += fmt::format("# {} =\n# date = \"\"\n", c.offer->currency);
    }
  } else {
    out += comment(fmt::format(
        "[exchange]: for an offer priced in another currency than {}, its rate (CODE = units of {} per CODE) and "
        "`date = \"...\"`; docs/cost-model.md, \"One currency per answer\". Not needed here.",
        c.currency, c.currency));
  }
  write_ranges_example(out);
}

void write_tou_example(std::string& out) {
  out += "\n";
  out += comment(
      "Time-of-use windows (optional, any number): a price for some hours, days or months, from your tariff sheet; "
      "outside every window price_per_kwh holds (docs/cost-model.md, \"Time of use\").");
  out += "# [[electricity.tou]]\n# days = \"mon-fri\"\n# hours = \"08:00-20:00\"\n# price_per_kwh =\n";
}

bool memory_word(const std::string& w) {
  return w.size() > 2 && w.compare(w.size() - 2, 2, "gb") == 0 &&
         std::all_of(w.begin(), w.end() - 2, [](char ch) { return text::is_digit(ch); });
}

/// The GPU table knows both and they may be the same board (memory aside: the fit test sees to
/// it): "A100 40GB" may be an "NVIDIA A100-SXM4-80GB"'s board; an "H100 SXM" is an "NVIDIA H100 80GB
/// HBM3", an "H100 PCIe" is not, a bare "H100" may be. Else the offer's model words (memory sizes
/// aside) all appear in the GPU's name; "A10G" is no "NVIDIA A10", nor "L4" an "NVIDIA L40S".
bool same_model(std::string_view gpu_name, const CloudOffer& offer) {
  const GpuIdentity local_boards = identify_gpu(gpu_name);
  const GpuIdentity offer_boards = identify_gpu(offer.gpu_model, {fmt::format("{} {}", offer.instance, offer.name)});
  if (!local_boards.boards.empty() && !offer_boards.boards.empty())
    return std::any_of(offer_boards.boards.begin(), offer_boards.boards.end(), [&](const GpuSpeed* b) {
      return std::find(local_boards.boards.begin(), local_boards.boards.end(), b) != local_boards.boards.end();
    });
  const std::string_view offer_model = offer.gpu_model;
  const std::vector<std::string> local = gpu_name_words(gpu_name);
  std::size_t matched = 0;
  for (const std::string& w : gpu_name_words(offer_model)) {
    if (memory_word(w)) continue;
    if (std::find(local.begin(), local.end(), w) == local.end()) return false;
    ++matched;
  }
  return matched > 0;
}

}  // namespace

Expected<std::vector<ElectricityPrice>> parse_electricity_prices(std::string_view toml_text, std::string_view origin) {
  return parse_toml_list<ElectricityPrice>(toml_text, origin, "price", read_price);
}

const std::vector<ElectricityPrice>& electricity_prices() {
  static const std::vector<ElectricityPrice> kTable = [] {
    auto parsed = parse_electricity_prices(kPrices, "data/electricity-prices.toml");
    return parsed ? std::move(*parsed) : std::vector<ElectricityPrice>{};  // a unit test parses it
  }();
  return kTable;
}

Expected<std::string> normalise_country(std::string_view code) {
  std::string cc(text::trim(code));
  const bool letters = cc.size() == 2 && std::all_of(cc.begin(), cc.end(), [](char ch) {
                         return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
                       });
  if (!letters)
    return make_error(ErrorKind::usage, fmt::format("--country '{}': not a two-letter country code", code),
                      "give the ISO 3166-1 alpha-2 code, e.g. --country DE or --country GB");
  for (char& ch : cc) ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
  if (cc == "UK") return std::string("GB");
  if (cc == "EL") return std::string("GR");
  return cc;
}

std::optional<std::string> currency_of_country(std::string_view country) {
  for (const auto& [cc, cur] : kCurrencies)
    if (cc == country) return std::string(cur);
  return std::nullopt;
}

std::vector<CloudOffer> same_gpu_offers(std::string_view gpu_name, int gpu_count, std::optional<double> memory_mib,
                                        std::string_view currency, const std::vector<CloudOffer>& catalogue) {
  const int count = std::max(gpu_count, 1);
  std::vector<CloudOffer> out;
  for (const CloudOffer& o : catalogue) {
    // On demand only: a spot or reserved price is not what renting for one job costs.
    if (o.kind != OfferKind::on_demand || !same_model(gpu_name, o) || !o.fits(count)) continue;
    // Offers give memory as vendors print it ("80 GB"), read as GiB like breakeven's fit test.
    if (memory_mib && o.gpu_memory_gb > 0 && o.gpu_memory_gb * 1024 < *memory_mib * 0.98) continue;
    out.push_back(o);
  }
  std::stable_sort(out.begin(), out.end(), [&](const CloudOffer& a, const CloudOffer& b) {
    const bool a_other = a.currency != currency, b_other = b.currency != currency;
    if (a_other != b_other) return !a_other;
    if (a.confirmed != b.confirmed) return a.confirmed;  // a checked price before a guess
    return a.rate_for(count) < b.rate_for(count);
  });
  return out;
}

Expected<MachineFacts> parse_smi_gpu_list(std::string_view csv) {
  MachineFacts m;
  const auto number = [](std::string_view field) -> std::optional<double> {
    std::size_t pos = 0;
    return text::parse_double(text::next_token(text::trim(field), pos));  // "81559 MiB", "[N/A]"
  };
  std::string first_line;
  std::size_t at = 0;
  while (at < csv.size()) {
    const std::size_t nl = std::min(csv.find('\n', at), csv.size());
    const std::string_view line = text::trim(csv.substr(at, nl - at));
    at = nl + 1;
    if (line.empty()) continue;
    if (first_line.empty()) first_line = std::string(line);
    std::vector<std::string_view> fields;
    std::size_t f = 0;
    while (f <= line.size()) {
      const std::size_t comma = std::min(line.find(',', f), line.size());
      fields.push_back(text::trim(line.substr(f, comma - f)));
      f = comma + 1;
    }
    if (fields.size() != 3 || fields[0].empty()) continue;
    const auto memory = number(fields[1]);
    if (!memory && fields[1].find("N/A") == std::string_view::npos) continue;  // not the query's shape
    ++m.gpu_count;
    Fingerprint::add(m.gpu_names, fields[0]);
    if (memory) m.gpu_memory_mib = std::max(m.gpu_memory_mib.value_or(0.0), *memory);
    if (const auto limit = number(fields[2])) m.gpu_power_limit_w = std::max(m.gpu_power_limit_w.value_or(0.0), *limit);
  }
  if (m.gpu_count == 0)
    return make_error(ErrorKind::format,
                      first_line.empty() ? std::string("nvidia-smi printed nothing")
                                         : fmt::format("nvidia-smi printed no GPU: {}", text::printable(first_line)));
  m.source = "nvidia-smi on this machine";
  return m;
}

std::string_view where_to_find(std::string_view path) {
  const auto it = where_map().find(path);
  return it == where_map().end() ? std::string_view{} : it->second;
}

StarterConfig starter_config(const StarterOptions& options) {
  Context c(options);
  c.rates = &newest_rates(options.user_rates);
  if (!options.country.empty()) {
    if (const auto cur = currency_of_country(options.country)) {
      c.currency = *cur;
      c.currency_from_country = true;
    } else {
      c.notes.push_back(
          fmt::format("no currency known for country {}: currency stays {}; set it", options.country, c.currency));
    }
    for (const ElectricityPrice& p : electricity_prices())
      if (p.country == options.country) c.price = &p;
  }
  const MachineFacts& m = options.machine;
  if (m.gpu_names.size() == 1) {
    auto offers = same_gpu_offers(m.gpu_names.front(), m.gpu_count, m.gpu_memory_mib, c.currency);
    if (!offers.empty()) {
      c.offer = offers.front();
      c.other_offers.assign(offers.begin() + 1, offers.end());
    }
  }
  // The required keys left without a value: breakeven stops and names them.
  std::vector<std::string> missing;
  for (const ConfigKey& k : config_keys()) {
    if (!k.required || !fill(c, k.path).value.empty()) continue;
    if (k.path == "cloud.rate_per_hour" && c.offer) continue;
    missing.emplace_back(k.path);
  }
  if (c.offer && c.offer->currency != c.currency) {
    c.offer_rate = c.rates->rate(c.offer->currency, c.currency);
    if (!c.offer_rate) missing.push_back("exchange." + c.offer->currency);
  }
  StarterConfig out;
  write_header(out.toml, c, missing);
  // Keys by section, the sections in the order the key table first names them; a key is written
  // under its own table header (a later [local.incident_hours] would capture the [local] keys
  // after it).
  std::vector<std::string_view> sections;
  for (const ConfigKey& k : config_keys())
    if (std::find(sections.begin(), sections.end(), section_of(k.path)) == sections.end())
      sections.push_back(section_of(k.path));
  for (const std::string_view section : sections) {
    out.toml += "\n";
    if (!section.empty()) {
      out.toml += comment(section_comment(section));
      out.toml += fmt::format("[{}]\n", section);
    }
    bool first = true;
    for (const ConfigKey& k : config_keys()) {
      if (section_of(k.path) != section) continue;
      if (!first) out.toml += "\n";
      first = false;
      write_key(out.toml, c, k);
    }
    if (section == "electricity") write_tou_example(out.toml);
  }
  write_extras(out.toml, c);
  out.notes = c.notes;
  if (c.offer) out.notes.push_back(fmt::format("cloud.offer = \"{}\" ({})", c.offer->name, rate_text(*c.offer)));
  if (c.offer_rate)
    out.notes.push_back(fmt::format("exchange.{} = {:.6g} ({} per {}, from the {})", c.offer->currency, *c.offer_rate,
                                    c.currency, c.offer->currency, rates_label(*c.rates)));
  if (!missing.empty()) {
    std::string keys;
    for (const auto& k : missing) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k);
    out.notes.push_back(fmt::format("set before breakeven can price: {}", keys));
  }
  return out;
}

MachineFacts machine_facts_from_logs(const extract::Features& features, const std::vector<InputStats>& stats) {
  MachineFacts m;
  for (const auto& st : stats)
    if (!format_traits(st.format).profiler)
      for (const auto& name : st.fingerprint.gpus) Fingerprint::add(m.gpu_names, name);
  m.gpu_count = static_cast<int>(features.gpus.size());
  m.gpu_memory_mib = job_shape(features, m.gpu_names).local_fb_mib;
  return m;
}

std::optional<IdlePowerReading> idle_power_from_samples(const std::vector<std::vector<double>>& zero_util_power_w) {
  if (zero_util_power_w.empty()) return std::nullopt;
  IdlePowerReading r;
  for (std::vector<double> w : zero_util_power_w) {
    if (w.size() < kMinIdleSamples) return std::nullopt;
    std::sort(w.begin(), w.end());
    // Nearest rank below: the 10th percentile of 20 samples is the 2nd lowest.
    r.watts += w[static_cast<std::size_t>(kIdlePercentile * static_cast<double>(w.size() - 1))];
    r.low_w = r.gpus == 0 ? w.front() : std::min(r.low_w, w.front());
    r.high_w = r.gpus == 0 ? w.back() : std::max(r.high_w, w.back());
    r.samples += w.size();
    ++r.gpus;
  }
  return r;
}

std::string idle_power_basis(const IdlePowerReading& r) {
  return fmt::format(
      "measured in the logs named above: the {:.0f}th percentile of the power of each GPU's samples at 0 % "
      "utilisation ({} sample{}, {:.1f} .. {:.1f} W){}; the rest of the machine idles on top of it",
      kIdlePercentile * 100, r.samples, r.samples == 1 ? "" : "s", r.low_w, r.high_w,
      r.gpus > 1 ? fmt::format(", summed over {} GPUs", r.gpus) : std::string());
}

}  // namespace gpucost::breakeven
