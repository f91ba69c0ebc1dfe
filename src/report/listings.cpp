#include <gpucost/report/listings.hpp>

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

namespace gpucost::report {

namespace {

constexpr std::size_t kOfferColumns = 11;
using OfferRow = std::array<std::string, kOfferColumns>;

/// "12 d", "913 d (old)" past the age at which breakeven warns; "?" without a date to count to.
std::string age_cell(const breakeven::CloudOffer& o, std::string_view today) {
  const auto age = breakeven::price_age_days(o, today);
  if (!age) return "?";
  return fmt::format("{} d{}", *age, *age > breakeven::kStalePriceDays ? " (old)" : "");
}

OfferRow offer_row(const breakeven::CloudOffer& o, std::string_view today) {
  return {o.name,
          o.provider,
          o.region,
          o.gpu_model,
          o.per_gpu ? fmt::format("1-{}", o.gpus) : fmt::format("{}", o.gpus),
          std::string(breakeven::offer_kind_name(o.kind)),
          fmt::format("{:.4g} {}{}{}", o.price_per_hour, o.currency, o.per_gpu ? "/GPU" : "",
                      o.confirmed ? "" : " (unconfirmed)"),
          fmt::format("{:g} s, min {:g} s", o.billing_increment_s, o.billing_minimum_s),
          o.date_seen,
          age_cell(o, today),
          o.source};
}

/// Columns as wide as their widest cell; GPUs and price right-aligned, the last one unpadded.
std::string format_offer_row(const OfferRow& row, const std::array<std::size_t, kOfferColumns>& width) {
  std::string line;
  for (std::size_t i = 0; i < kOfferColumns; ++i) {
    const bool right = i == 4;
    if (i + 1 == kOfferColumns)
      line += row[i];
    else if (right)
      line += fmt::format("{:>{}}  ", row[i], width[i]);
    else
      line += fmt::format("{:<{}}  ", row[i], width[i]);
  }
  line += '\n';
  return line;
}

}  // namespace

std::string indicator_catalogue_table() {
  std::string out;
  for (const auto& d : extract::catalogue())
    out += fmt::format("{}  {:<27} {:<6} {:<12} {}\n", d.id, d.key, d.unit, d.category, d.definition);
  return out;
}

std::string indicator_catalogue_json() {
  std::string out;
  io::JsonWriter w(out);
  w.array();
  for (const auto& d : extract::catalogue()) {
    w.line("  ").item().object().key("id").str(d.id).key("key").str(d.key).key("unit").str(d.unit);
    w.key("category").str(d.category).key("name").str(d.name).key("definition").str(d.definition);
    w.key("used_by").str(d.used_by).close();
  }
  w.close("\n");
  out += '\n';
  return out;
}

std::string cloud_offers_table(const std::vector<breakeven::CloudOffer>& offers, std::string_view today) {
  const OfferRow header = {"name",    "provider", "region", "GPU", "GPUs",  "kind",
                           "price/h", "billing",  "seen",   "age", "source"};
  std::vector<OfferRow> rows;
  for (const auto& o : offers) rows.push_back(offer_row(o, today));
  std::array<std::size_t, kOfferColumns> width{};
  for (std::size_t i = 0; i < kOfferColumns; ++i) {
    width[i] = header[i].size();
    for (const auto& r : rows) width[i] = std::max(width[i], r[i].size());
  }
  std::string out = format_offer_row(header, width);
  for (const auto& r : rows) out += format_offer_row(r, width);
  if (rows.empty()) out += "(no offer matches)\n";
  out += fmt::format(
      "\nList prices as seen on the date shown, in the region shown; age in days to {}. Check the\n"
      "source before relying on one; refresh them with gpucost offers update. Use one with --cloud NAME.\n",
      today.empty() ? std::string_view("today") : today);
  return out;
}

std::string cloud_offers_json(const std::vector<breakeven::CloudOffer>& offers, std::string_view today) {
  std::string out;
  io::JsonWriter w(out);
  w.array();
  for (const auto& o : offers) {
    w.line("  ").item().object().key("name").str(o.name).key("provider").str(o.provider);
    w.key("instance").str(o.instance).key("region").str(o.region).key("gpu_model").str(o.gpu_model);
    w.key("gpu_memory_gb").num(o.gpu_memory_gb).key("gpus").num(o.gpus).key("per_gpu").boolean(o.per_gpu);
    w.key("kind").str(breakeven::offer_kind_name(o.kind)).key("price_per_hour").num(o.price_per_hour);
    w.key("currency").str(o.currency).key("billing_increment_s").num(o.billing_increment_s);
    w.key("billing_minimum_s").num(o.billing_minimum_s).key("cold_start_s").num(o.cold_start_s);
    w.key("date_seen").str(o.date_seen).key("age_days");
    if (const auto age = breakeven::price_age_days(o, today))
      w.num(*age);
    else
      w.null();
    w.key("confirmed").boolean(o.confirmed).key("note").str(o.note).key("source").str(o.source);
    w.key("catalogue").str(o.origin).close();
  }
  w.close(offers.empty() ? "" : "\n");
  out += '\n';
  return out;
}

namespace {

std::string figure(const std::optional<double>& v) { return v ? fmt::format("{:g}", *v) : "-"; }

/// A match's words as one name: "H100 SXM".
std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::string gpu_table_text(const std::vector<breakeven::GpuSpeed>& gpus) {
  constexpr std::size_t kColumns = 8;
  using Row = std::array<std::string, kColumns>;
  std::vector<Row> rows{
      {"model", "memory GB", "board W", "idle W", "dense TFLOPS", "memory GB/s", "precision", "source (seen)"}};
  for (const auto& g : gpus)
    rows.push_back({g.model, figure(g.memory_gb), figure(g.tdp_w), figure(g.idle_w), figure(g.dense_tflops),
                    figure(g.memory_bw_gbs),
                    g.variants.empty() ? g.precision : fmt::format("{}: {}", g.precision, join_names(g.variants)),
                    fmt::format("{} ({})", g.source, g.date_seen)});
  std::array<std::size_t, kColumns> width{};
  for (const Row& r : rows)
    for (std::size_t i = 0; i < kColumns; ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (const Row& r : rows) {
    std::string line =
        fmt::format("{:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:<{}}  {}", r[0], width[0], r[1], width[1], r[2],
                    width[2], r[3], width[3], r[4], width[4], r[5], width[5], r[6], width[6], r[7]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out +=
      "\nFrom the vendors' datasheets, or the document named (data/gpu-speed.toml; --json has the interconnect and\n"
      "where each bandwidth comes from). board W: the maximum board power (TDP, or a GeForce card's total graphics\n"
      "power); idle W: measured at 0 % utilisation (how, in --json); dense TFLOPS: peak dense tensor throughput of\n"
      "mixed-precision training (FP16/BF16 with FP32 accumulate); memory GB/s: peak memory bandwidth. Neither is a\n"
      "training speed: gpucost gpus --speed A B gives the range of B over A.\n"
      "A name matches the entry whose words begin it, the longest first (gpucost gpus --json lists them).\n";
  return out;
}

std::string gpu_table_json(const std::vector<breakeven::GpuSpeed>& gpus) {
  std::string out;
  io::JsonWriter w(out);
  w.object().key("schema").str("gpucost.gpus").key("version").integer(1).key("gpus").array();
  for (const auto& g : gpus) {
    w.line("  ").item().object().key("model").str(g.model).key("match").array();
    for (const auto& words : g.match) w.item().str(join_words(words));
    w.close();
    if (!g.variants.empty()) {
      w.key("variants").array();
      for (const auto& v : g.variants) w.item().str(v);
      w.close();
    }
    w.key("memory_gb").num(g.memory_gb).key("tdp_w").num(g.tdp_w).key("idle_w").num(g.idle_w);
    if (g.idle_w) w.key("idle_source").str(g.idle_source);
    w.key("dense_tflops").num(g.dense_tflops).text_if("accumulate", g.accumulate).key("precision").str(g.precision);
    w.key("memory_bw_gbs").num(g.memory_bw_gbs).text_if("interconnect", g.interconnect);
    w.key("interconnect_gbs").num(g.interconnect_gbs).text_if("bandwidth_source", g.bandwidth_source);
    w.key("source").str(g.source).key("date_seen").str(g.date_seen).close();
  }
  w.close("\n").close();
  out += '\n';
  return out;
}

namespace {

// The table entries a range names ("H100 SXM / H100 PCIe" for variants), each with its sources.
std::vector<const breakeven::GpuSpeed*> entries_named(std::string_view models) {
  std::vector<const breakeven::GpuSpeed*> out;
  std::size_t start = 0;
  while (start <= models.size()) {
    const std::size_t end = std::min(models.find(" / ", start), models.size());
    const std::string_view one = models.substr(start, end - start);
    for (const auto& g : breakeven::gpu_speeds())
      if (g.model == one) out.push_back(&g);
    start = end + 3;
  }
  return out;
}

}  // namespace

std::string gpu_speed_text(const breakeven::SpeedRange& r) {
  std::string out = fmt::format(
      "{} over {}: how much faster training runs on the {} when nothing was measured\n"
      "  range    x{:.3g} \u2026 x{:.3g}\n  middle   x{:.3g}\n"
      "  low      {}\n  high     {}\n  middle   {}\n",
      r.to_model, r.from_model, r.to_model, r.low, r.high, r.middle, r.low_basis, r.high_basis, r.middle_basis);
  if (!r.identification.empty()) out += fmt::format("  note     {}\n", r.identification);
  auto models = entries_named(r.from_model);
  for (const auto* g : entries_named(r.to_model))
    if (std::find(models.begin(), models.end(), g) == models.end()) models.push_back(g);
  for (const auto* g : models)
    out += fmt::format("  {}: {}{} (seen {})\n", g->model, g->source,
                       g->bandwidth_source.empty() ? "" : "; bandwidth: " + g->bandwidth_source, g->date_seen);
  out += fmt::format(
      "\nA job bound by tensor math gains the compute-bound ratio, one bound by memory traffic the memory-bound one;\n"
      "launches, input and host work do not get faster ({:g} % of the step assumed). Measured training throughputs\n"
      "fall inside such ranges for most pairs, not all: docs/cost-model.md, \"Speed ratio\", has the method and its\n"
      "error. Measure your own job on both GPUs and pass the ratio with --speed-ratio when the answer is close.\n",
      breakeven::kSpeedFixedShare * 100);
  return out;
}

std::string gpu_speed_json(const breakeven::SpeedRange& r) {
  std::string out;
  io::JsonWriter w(out);
  w.object().key("schema").str("gpucost.gpu-speed").key("version").integer(1).key("from").str(r.from_model);
  w.key("to").str(r.to_model).key("low").num(r.low).key("middle").num(r.middle).key("high").num(r.high);
  w.key("low_basis").str(r.low_basis).key("middle_basis").str(r.middle_basis).key("high_basis").str(r.high_basis);
  w.key("fixed_share").num(breakeven::kSpeedFixedShare).key("identification").str(r.identification);
  w.key("date_seen").str(r.date_seen).close();
  out += '\n';
  return out;
}

}  // namespace gpucost::report
