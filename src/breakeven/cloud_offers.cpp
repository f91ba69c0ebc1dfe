#include <gpucost/breakeven/cloud_offers.hpp>

#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/breakeven/speed_projection.hpp>
#include <gpucost/breakeven/spot.hpp>
#include <gpucost/core/text.hpp>

#include "toml_list.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace gpucost::breakeven {

namespace {

constexpr std::string_view kCatalogue =
#include "cloud_offers.inc"
    ;

constexpr std::array kKindNames{std::pair{OfferKind::on_demand, std::string_view("on-demand")},
                                std::pair{OfferKind::spot, std::string_view("spot")},
                                std::pair{OfferKind::reserved_1y, std::string_view("reserved-1y")},
                                std::pair{OfferKind::reserved_3y, std::string_view("reserved-3y")},
                                std::pair{OfferKind::savings_plan, std::string_view("savings-plan")}};

// Said with every missing field: a file written by hand is fixed in one go, not a field a run.
constexpr std::string_view kRequiredFields =
    "an [[offer]] needs name, provider, instance, gpu_model, price_per_hour, currency, date_seen and source "
    "(docs/cost-model.md, \"Fields of an offer\")";

Error missing_field(const toml::table& t, std::string_view origin, std::size_t index, std::string_view key) {
  const auto name = t["name"].value<std::string>();
  const std::string which = name ? fmt::format("'{}'", *name) : fmt::format("{}", index);
  return make_error(ErrorKind::config, fmt::format("{}: offer {}: '{}' is missing", origin, which, key),
                    std::string(kRequiredFields));
}

Expected<CloudOffer> read_offer(const toml::table& t, std::string_view origin, std::size_t index) {
  CloudOffer o;
  const auto text = [&](const char* key, std::string& into) -> Status {
    const auto v = t[key].value<std::string>();
    if (!v) return missing_field(t, origin, index, key);
    into = *v;
    return {};
  };
  for (auto [key, into] :
       {std::pair{"name", &o.name}, std::pair{"provider", &o.provider}, std::pair{"instance", &o.instance},
        std::pair{"gpu_model", &o.gpu_model}, std::pair{"currency", &o.currency}, std::pair{"date_seen", &o.date_seen},
        std::pair{"source", &o.source}})
    GPUCOST_TRY(text(key, *into));
  if (!t.contains("price_per_hour")) return missing_field(t, origin, index, "price_per_hour");
  o.region = t["region"].value_or(std::string());
  o.gpu_memory_gb = t["gpu_memory_gb"].value_or(0.0);
  o.per_gpu = t["per_gpu"].value_or(false);
  o.gpus = static_cast<int>(o.per_gpu ? t["max_gpus"].value_or(8) : t["gpus"].value_or(1));
  o.price_per_hour = t["price_per_hour"].value_or(-1.0);
  o.billing_increment_s = t["billing_increment_s"].value_or(1.0);
  o.billing_minimum_s = t["billing_minimum_s"].value_or(0.0);
  o.cold_start_s = t["cold_start_s"].value_or(0.0);
  if (const auto s = t["speed_ratio"].value<double>()) o.speed_ratio = *s;
  const std::string kind = t["kind"].value_or(std::string("on-demand"));
  const auto parsed_kind = parse_offer_kind(kind);
  if (!parsed_kind)
    return make_error(ErrorKind::config,
                      fmt::format("{}: offer '{}': kind '{}' is not one of on-demand, spot, reserved-1y, reserved-3y, "
                                  "savings-plan",
                                  origin, o.name, kind));
  o.kind = *parsed_kind;
  o.upfront = t["upfront"].value_or(0.0);
  if (const auto years = t["term_years"].value<double>()) o.term_years = *years;
  if (o.upfront < 0 || (o.term_years && !(*o.term_years > 0)))
    return make_error(ErrorKind::config,
                      fmt::format("{}: offer '{}': upfront below 0 or term_years not above 0", origin, o.name));
  if ((o.upfront > 0 || o.term_years) && !is_commitment(o.kind))
    return make_error(ErrorKind::config,
                      fmt::format("{}: offer '{}': upfront and term_years belong to a reserved or savings-plan offer, "
                                  "not to a {} one",
                                  origin, o.name, offer_kind_name(o.kind)));
  o.confirmed = t["confirmed"].value_or(true);
  o.note = t["note"].value_or(std::string());
  o.origin = std::string(origin);
  // An All Upfront reservation is paid at its start: 0 an hour beside its upfront payment.
  const bool paid_upfront = is_commitment(o.kind) && o.upfront > 0 && o.price_per_hour == 0;
  if (!(o.price_per_hour > 0 || paid_upfront) || !(o.billing_increment_s > 0) || o.gpus < 1)
    return make_error(ErrorKind::config,
                      fmt::format("{}: offer '{}': price, billing or GPU count out of range", origin, o.name));
  return o;
}

}  // namespace

std::string_view offer_kind_name(OfferKind kind) {
  for (const auto& [k, name] : kKindNames)
    if (k == kind) return name;
  return "on-demand";
}

std::optional<OfferKind> parse_offer_kind(std::string_view word) {
  for (const auto& [k, name] : kKindNames)
    if (name == word) return k;
  return std::nullopt;
}

bool is_commitment(OfferKind kind) {
  return kind == OfferKind::reserved_1y || kind == OfferKind::reserved_3y || kind == OfferKind::savings_plan;
}

double CloudOffer::term_length_years() const {
  if (term_years) return *term_years;
  switch (kind) {
    case OfferKind::reserved_1y: return 1;
    case OfferKind::reserved_3y: return 3;
    case OfferKind::savings_plan: return 1;
    case OfferKind::on_demand:
    case OfferKind::spot: return 0;
  }
  return 0;
}

Expected<std::vector<CloudOffer>> parse_cloud_offers(std::string_view toml_text, std::string_view origin) {
  return parse_toml_list<CloudOffer>(toml_text, origin, "offer", read_offer);
}

const std::vector<CloudOffer>& cloud_offers() {
  static const std::vector<CloudOffer> kOffers = [] {
    auto parsed = parse_cloud_offers(kCatalogue, "data/cloud-offers.toml");
    if (!parsed) return std::vector<CloudOffer>{};  // a unit test parses it
    for (CloudOffer& o : *parsed) o.origin = "built-in";
    return std::move(*parsed);
  }();
  return kOffers;
}

Expected<CloudOffer> find_cloud_offer(std::string_view name, const std::vector<CloudOffer>& offers) {
  std::vector<std::string_view> names;
  for (const CloudOffer& o : offers) {
    if (o.name == name) return o;
    names.push_back(o.name);
  }
  const std::string_view best = text::closest_name(name, names);
  return make_error(ErrorKind::usage, fmt::format("--cloud: unknown offer '{}'", name),
                    best.empty() ? std::string("list the offers with gpucost offers list")
                                 : fmt::format("did you mean '{}'? (gpucost offers list)", best));
}

bool user_speed_ratio(const CostConfig& c) {
  return c.speed_ratio_source == "flag" || c.speed_ratio_source == "config";
}

namespace {

// "12000 USD upfront over 1 y (1.37 USD/h of the term) and ": said before the term's rule.
std::string upfront_words(const CloudOffer& o, int job_gpus) {
  if (!(o.upfront > 0)) return {};
  const double years = o.term_length_years();
  return fmt::format("{:g} {} upfront over {:g} y{} ({:.4g} {}/h of the term) and ", o.upfront_for(job_gpus),
                     o.currency, years, o.term_years ? "" : " (term assumed)",
                     o.upfront_for(job_gpus) / (years * kHoursPerYear), o.currency);
}

// A listed price per hour of use: spot pays the work redone after interruptions; a term (reserved,
// savings plan) is paid for all 8760 hours of the year whether used or not, and an upfront payment
// is spread over the term's hours.
double rate_per_use_hour(const CostConfig& c, const CloudOffer& o, int job_gpus, std::string& basis) {
  const double listed = o.rate_for(job_gpus);
  switch (o.kind) {
    case OfferKind::on_demand: basis.clear(); return listed;
    case OfferKind::spot:
      if (!c.is_set("cloud.spot_restart_overhead")) {
        // The checkpoints may come from the job's training log and the restart from each offer's
        // cold start, both known later: the priced offer's spot line says which.
        basis = fmt::format(
            "spot price as listed; the billed time grows by the interruptions expected: {}{}, {}", spot_terms_text(c),
            c.is_set("cloud.checkpoint_interval_s") ? "" : " unless the training log gives its checkpoints",
            c.is_set("cloud.spot_restart_s") ? fmt::format("restart {:g} s", c.spot_restart_s)
                                             : std::string("restart = the offer's cold start"));
        return listed;
      }
      basis = fmt::format(
          "spot price x (1 + {:g} restart overhead, cloud.spot_restart_overhead given); interruptions are "
          "not priced",
          c.spot_restart_overhead);
      return listed * (1 + c.spot_restart_overhead);
    case OfferKind::reserved_1y:
    case OfferKind::reserved_3y:
    case OfferKind::savings_plan: {
      const double used = std::clamp(c.use_hours_per_year, 1.0, kHoursPerYear);
      basis =
          fmt::format("{}{} paid for every hour of the term: x 8760 / {:g} h used a year (local.use_hours_per_year)",
                      upfront_words(o, job_gpus), offer_kind_name(o.kind), used);
      const double upfront_per_hour =
          o.upfront > 0 ? o.upfront_for(job_gpus) / (o.term_length_years() * kHoursPerYear) : 0.0;
      return (listed + upfront_per_hour) * kHoursPerYear / used;
    }
  }
  return listed;
}

}  // namespace

CostConfig with_offer(const CostConfig& c, const CloudOffer& o, int job_gpus) {
  CostConfig out = c;
  out.cloud_offer = o.name;
  out.cloud_name =
      fmt::format("{} {} ({}x {}, {} price seen {})", o.provider, o.instance, o.billed_gpus(job_gpus), o.gpu_model,
                  o.kind == OfferKind::on_demand ? "list" : offer_kind_name(o.kind), o.date_seen);
  out.rate_per_hour = rate_per_use_hour(c, o, job_gpus, out.offer_rate_basis);
  out.offer_kind = offer_kind_name(o.kind);
  out.offer_date_seen = o.date_seen;
  out.offer_source = o.source;
  out.offer_note = o.note;
  out.offer_confirmed = o.confirmed;
  out.billing_increment_s = o.billing_increment_s;
  out.billing_minimum_s = o.billing_minimum_s;
  out.cold_start_s = o.cold_start_s;
  out.offer_provider = o.provider;  // the cloud's PUE and grid (carbon.cpp)
  out.offer_region = o.region;
  // Only a ratio the user gave (flag, config) holds for every offer; one that came from another
  // offer or from the table is that offer's own.
  if (!user_speed_ratio(c)) {
    out.speed_ratio = o.speed_ratio.value_or(1.0);
    out.speed_ratio_source = o.speed_ratio ? "offer" : "default";
    out.speed_ratio_basis =
        o.speed_ratio ? "the offer's own speed_ratio: a point, it overrides the GPU table's range" : std::string();
    out.speed_ratio_low.reset();
    out.speed_ratio_high.reset();
    out.speed_projection.reset();  // another offer's: config_for_offer projects for this one
    out.speed_projection_missing.clear();
  }
  return out;
}

JobShape job_shape(const extract::Features& f, const std::vector<std::string>& gpu_names) {
  JobShape s;
  s.gpus = static_cast<int>(f.gpus.size());
  for (const auto& g : f.gpus) {
    const auto used = extract::value_of(g.indicators, "fb_used_max_mib");
    if (!used) continue;
    s.peak_fb_mib = std::max(s.peak_fb_mib.value_or(0.0), *used);
    // The GPU's memory: the smallest memory.total - memory.used the samples gave, plus the peak.
    if (const auto free = g.partials.find("fb_free.min"); free != g.partials.end())
      s.local_fb_mib = std::max(s.local_fb_mib.value_or(0.0), *used + free->second);
  }
  if (gpu_names.size() == 1) s.local_model = gpu_names.front();  // several models: no one ratio
  s.trace_split = f.trace_split;
  s.trace_memory = f.trace_memory;
  // Without telemetry (a trace alone) no model names the local GPU: the trace's own device does.
  if (gpu_names.empty() && f.trace_split && !f.trace_split->gpu_model.empty()) s.local_model = f.trace_split->gpu_model;
  return s;
}

namespace {

constexpr double kMib = 1024.0 * 1024.0;

/// The trace's allocated peak in MiB; none when no trace gave it.
std::optional<double> trace_allocated_mib(const JobShape& shape) {
  if (!shape.trace_memory || shape.trace_memory->allocated_bytes < 0) return std::nullopt;
  return static_cast<double>(shape.trace_memory->allocated_bytes) / kMib;
}

/// "trace peak allocated 6.17 GiB + 5 % + 0.50 GiB outside the allocator (nvidia-smi 12.40 GiB -
/// reserved 11.90 GiB)", or "peak use 24.4 GiB + 5 %": how the need was made.
std::string need_basis(const JobShape& shape, double margin) {
  const auto allocated = trace_allocated_mib(shape);
  if (!allocated) return fmt::format("peak use {:.1f} GiB + {:g} %", *shape.peak_fb_mib / 1024.0, margin * 100);
  const double outside = *outside_allocator_mib(shape);
  const double reserved = static_cast<double>(shape.trace_memory->reserved_bytes) / kMib;
  const std::string why = shape.peak_fb_mib && shape.trace_memory->reserved_bytes >= 0
                              ? fmt::format("nvidia-smi peak {:.2f} GiB - reserved {:.2f} GiB",
                                            *shape.peak_fb_mib / 1024.0, reserved / 1024.0)
                              : "allowance for the CUDA context";
  return fmt::format("trace peak allocated {:.2f} GiB + {:g} % + {:.2f} GiB outside the allocator ({})",
                     *allocated / 1024.0, margin * 100, outside / 1024.0, why);
}

/// "; allocator reserved 11.90 GiB, nvidia-smi frame-buffer peak 12.40 GiB": the figures beside
/// the one that decided, so both are seen.
std::string other_figures(const JobShape& shape) {
  if (!trace_allocated_mib(shape)) return {};
  std::string out;
  if (shape.trace_memory->reserved_bytes >= 0)
    out += fmt::format("; allocator reserved {:.2f} GiB",
                       static_cast<double>(shape.trace_memory->reserved_bytes) / kMib / 1024.0);
  out += shape.peak_fb_mib ? fmt::format("; nvidia-smi frame-buffer peak {:.2f} GiB", *shape.peak_fb_mib / 1024.0)
                           : std::string("; nvidia-smi frame-buffer peak not in the logs");
  return out;
}

}  // namespace

std::optional<double> outside_allocator_mib(const JobShape& shape) {
  if (!trace_allocated_mib(shape)) return std::nullopt;
  if (shape.peak_fb_mib && shape.trace_memory->reserved_bytes >= 0)
    return std::max(0.0, *shape.peak_fb_mib - static_cast<double>(shape.trace_memory->reserved_bytes) / kMib);
  return kContextAllowanceMib;
}

namespace {

/// The need before the local card's cap: the trace's allocated peak when it gives one, else nvidia-smi's.
std::optional<double> uncapped_need_mib(const JobShape& shape, double margin) {
  if (const auto allocated = trace_allocated_mib(shape))
    return *allocated * (1.0 + margin) + *outside_allocator_mib(shape);
  if (shape.peak_fb_mib) return *shape.peak_fb_mib * (1.0 + margin);
  return std::nullopt;
}

}  // namespace

std::optional<double> required_memory_mib(const JobShape& shape, double margin) {
  const auto want = uncapped_need_mib(shape, margin);
  if (!want) return std::nullopt;
  return shape.local_fb_mib ? std::min(*want, *shape.local_fb_mib) : *want;
}

std::string fit_basis(const JobShape& shape, double margin) {
  const std::string gpus = fmt::format("{} GPU{}", shape.gpus, shape.gpus == 1 ? "" : "s");
  const auto need = required_memory_mib(shape, margin);
  if (!need) return fmt::format("to fit: {} (memory use not in the logs: not checked)", gpus);
  const bool capped = shape.local_fb_mib && *shape.local_fb_mib < *uncapped_need_mib(shape, margin);
  return fmt::format("to fit: {}, {:.1f} GiB per GPU ({}{}{})", gpus, *need / 1024.0, need_basis(shape, margin),
                     capped ? ", capped at the local card's" : "", other_figures(shape));
}

std::string unfit_reason(const CloudOffer& o, const JobShape& shape, double margin) {
  if (!o.fits(shape.gpus))
    return fmt::format("{} GPU{}, the job ran on {}", o.gpus, o.gpus == 1 ? "" : "s", shape.gpus);
  const auto need = required_memory_mib(shape, margin);
  // Offers list memory in GB as vendors print it (80 for an 80 GB card), which is GiB in practice:
  // nvidia-smi shows an "80 GB" H100 as 81559 MiB.
  const double have = o.gpu_memory_gb * 1024.0;
  if (!need || o.gpu_memory_gb <= 0 || have >= *need) return {};
  if (trace_allocated_mib(shape))
    return fmt::format("{:g} GB per GPU, the job needs {:.1f} GiB ({})", o.gpu_memory_gb, *need / 1024.0,
                       need_basis(shape, margin));
  return fmt::format("{:g} GB per GPU, the job used up to {:.1f} GiB (+{:g} % margin)", o.gpu_memory_gb,
                     *shape.peak_fb_mib / 1024.0, margin * 100);
}

Expected<double> exchange_rate(const CostConfig& c, std::string_view currency) {
  if (currency == c.currency) return 1.0;
  const auto it = c.exchange.find(std::string(currency));
  if (it != c.exchange.end()) return it->second;
  const auto ref = c.reference_exchange.find(std::string(currency));
  if (ref != c.reference_exchange.end()) return ref->second;
  // The reference rates were there, but without one of the two currencies (the ECB's list is short):
  // none at all into the config's currency when it is the one they lack.
  const std::string none = c.reference_exchange_label.empty()
                               ? std::string()
                               : fmt::format(" (the {} have no rate for {})", c.reference_exchange_label,
                                             c.reference_exchange.empty() ? c.currency : std::string(currency));
  return make_error(ErrorKind::config,
                    fmt::format("the offer is priced in {}, the answer in {}: no exchange rate 'exchange.{}'{}",
                                currency, c.currency, currency, none),
                    fmt::format("give the rate as {} per {}: add [exchange] {} = RATE and date = \"YYYY-MM-DD\" to the "
                                "config, or --set exchange.{}=RATE",
                                c.currency, currency, currency, currency));
}

std::string exchange_text(const CostConfig& c) {
  if (c.offer_currency.empty() || c.offer_currency == c.currency) return {};
  if (c.offer_exchange_source != "config")
    return fmt::format("{}->{} {:.6g}, from the {} (no [exchange] rate in the config)", c.offer_currency, c.currency,
                       c.offer_exchange_rate, c.offer_exchange_source);
  return fmt::format("{}->{} {:g}{}, from config", c.offer_currency, c.currency, c.offer_exchange_rate,
                     c.exchange_date.empty() ? " (no date given)" : " of " + c.exchange_date);
}

Expected<CostConfig> config_for_offer(const CostConfig& c, const CloudOffer& o, const JobShape& shape) {
  auto rate = exchange_rate(c, o.currency);
  if (!rate) return rate.error();
  CostConfig out = with_offer(c, o, shape.gpus);
  out.rate_per_hour *= *rate;
  out.offer_currency = o.currency;
  out.offer_exchange_rate = *rate;
  out.offer_exchange_source =
      c.exchange.count(o.currency) > 0 || o.currency == c.currency ? "config" : c.reference_exchange_label;
  if (out.speed_ratio_source == "default" && shape.trace_split) {  // this job's own trace, before the table
    std::string why;
    const std::string& local = shape.trace_split->gpu_model.empty() ? shape.local_model : shape.trace_split->gpu_model;
    if (const auto p = project_speed(*shape.trace_split, local, o.gpu_model,
                                     shape.gpu_table != nullptr ? *shape.gpu_table : gpu_speeds(), &why)) {
      out.speed_ratio = p->ratio();
      out.speed_ratio_source = "trace";
      out.speed_ratio_basis = speed_projection_basis(*p);
      out.speed_projection = *p;
    } else {
      out.speed_projection_missing = "no projection: " + why;
    }
  }
  if (user_speed_ratio(out)) {
    // A measured or chosen ratio is one number for every offer: no table range beside it.
    out.speed_ratio_low.reset();
    out.speed_ratio_high.reset();
    if (out.speed_ratio_basis.empty())
      out.speed_ratio_basis = fmt::format("given ({}): a point, it overrides the GPU table's range",
                                          out.speed_ratio_source == "flag" ? "--speed-ratio" : "cloud.speed_ratio");
  }
  if (out.speed_ratio_source == "default") {  // no ratio from the user or the offer
    std::string why;
    const GpuHints hints{fmt::format("{} {}", o.instance, o.name), o.gpu_memory_gb};
    if (const auto r = speed_ratio_range(shape.local_model, o.gpu_model, hints, &why)) {
      out.speed_ratio = r->middle;
      out.speed_ratio_low = r->low;
      out.speed_ratio_high = r->high;
      out.speed_ratio_source = "table";
      out.speed_ratio_basis = "table, " + r->sentence();
    } else {
      out.speed_ratio_basis = "no ratio from data/gpu-speed.toml: " + why;
    }
  }
  return out;
}

std::vector<OfferPrice> price_offers(const CostConfig& c, const JobInputs& job, const EnergyPrices& prices,
                                     const JobShape& shape, const std::vector<CloudOffer>& offers) {
  std::vector<OfferPrice> fit, unfit;
  for (const CloudOffer& o : offers) {
    OfferPrice p;
    p.name = o.name;
    p.provider = o.provider;
    p.instance = o.instance;
    p.region = o.region;
    p.gpu_model = o.gpu_model;
    p.date_seen = o.date_seen;
    p.kind = o.kind;
    p.confirmed = o.confirmed;
    p.gpus = o.billed_gpus(shape.gpus);
    p.currency = o.currency;
    p.unfit = unfit_reason(o, shape, c.memory_margin);
    auto with = p.unfit.empty() ? config_for_offer(c, o, shape) : Expected<CostConfig>(c);
    if (!with) p.unfit = fmt::format("no exchange rate exchange.{} for its {} price", o.currency, o.currency);
    if (!p.unfit.empty()) {
      unfit.push_back(std::move(p));
      continue;
    }
    const Result r = evaluate(*with, job, prices);
    p.rate_per_hour = with->rate_per_hour;
    p.speed_ratio = with->speed_ratio;
    p.speed_ratio_source = with->speed_ratio_source;
    p.speed_ratio_basis = with->speed_ratio_basis;
    p.speed_ratio_low = with->speed_ratio_low;
    p.speed_ratio_high = with->speed_ratio_high;
    p.exchange_rate = with->offer_exchange_rate;
    p.rate_basis = with->offer_rate_basis;
    p.billed_s = r.billed_s;
    p.total = r.cloud_total;
    p.premium = r.premium;
    if (spot_modelled(*with)) p.spot = spot_terms(*with, job.checkpoint_interval_s);
    fit.push_back(std::move(p));
  }
  std::stable_sort(fit.begin(), fit.end(), [](const OfferPrice& a, const OfferPrice& b) { return a.total < b.total; });
  fit.insert(fit.end(), std::make_move_iterator(unfit.begin()), std::make_move_iterator(unfit.end()));
  return fit;
}

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

std::optional<std::chrono::sys_days> parse_day(std::string_view text) {
  int y = 0;
  unsigned m = 0, d = 0;
  if (text.size() != 10 || std::sscanf(std::string(text).c_str(), "%4d-%2u-%2u", &y, &m, &d) != 3) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{m}, std::chrono::day{d}};
  if (!ymd.ok()) return std::nullopt;
  return std::chrono::sys_days{ymd};
}

bool matches(const CloudOffer& o, const OfferFilter& f) {
  if (!f.gpu.empty() && lower(o.gpu_model).find(lower(f.gpu)) == std::string::npos) return false;
  if (!f.kind.empty() && offer_kind_name(o.kind) != f.kind) return false;
  if (f.regions.empty()) return true;
  return std::any_of(f.regions.begin(), f.regions.end(),
                     [&](const std::string& r) { return lower(o.region).starts_with(lower(r)); });
}

}  // namespace

std::optional<int> days_between(std::string_view day, std::string_view today) {
  const auto from = parse_day(day), now = parse_day(today);
  if (!from || !now) return std::nullopt;
  return static_cast<int>((*now - *from).count());
}

std::optional<int> price_age_days(const CloudOffer& offer, std::string_view today) {
  return days_between(offer.date_seen, today);
}

std::vector<CloudOffer> filter_offers(const std::vector<CloudOffer>& offers, const OfferFilter& filter) {
  std::vector<CloudOffer> out;
  for (const CloudOffer& o : offers)
    if (matches(o, filter)) out.push_back(o);
  return out;
}

}  // namespace gpucost::breakeven
