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
  std::string out = "[\n";
  bool first = true;
  for (const auto& d : extract::catalogue()) {
    out += first ? "  {" : ",\n  {";
    first = false;
    io::append_json_text_field(out, "id", d.id, true);
    io::append_json_text_field(out, "key", d.key);
    io::append_json_text_field(out, "unit", d.unit);
    io::append_json_text_field(out, "category", d.category);
    io::append_json_text_field(out, "name", d.name);
    io::append_json_text_field(out, "definition", d.definition);
    io::append_json_text_field(out, "used_by", d.used_by);
    out += '}';
  }
  out += "\n]\n";
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
  std::string out = "[";
  bool first = true;
  for (const auto& o : offers) {
    out += first ? "\n  {" : ",\n  {";
    first = false;
    io::append_json_text_field(out, "name", o.name, true);
    io::append_json_text_field(out, "provider", o.provider);
    io::append_json_text_field(out, "instance", o.instance);
    io::append_json_text_field(out, "region", o.region);
    io::append_json_text_field(out, "gpu_model", o.gpu_model);
    io::append_json_number_field(out, "gpu_memory_gb", o.gpu_memory_gb);
    io::append_json_number_field(out, "gpus", o.gpus);
    out += fmt::format(", \"per_gpu\": {}", o.per_gpu ? "true" : "false");
    io::append_json_text_field(out, "kind", breakeven::offer_kind_name(o.kind));
    io::append_json_number_field(out, "price_per_hour", o.price_per_hour);
    io::append_json_text_field(out, "currency", o.currency);
    io::append_json_number_field(out, "billing_increment_s", o.billing_increment_s);
    io::append_json_number_field(out, "billing_minimum_s", o.billing_minimum_s);
    io::append_json_number_field(out, "cold_start_s", o.cold_start_s);
    io::append_json_text_field(out, "date_seen", o.date_seen);
    out += ", \"age_days\": ";
    if (const auto age = breakeven::price_age_days(o, today))
      io::append_json_number(out, *age);
    else
      out += "null";
    out += fmt::format(", \"confirmed\": {}", o.confirmed ? "true" : "false");
    io::append_json_text_field(out, "note", o.note);
    io::append_json_text_field(out, "source", o.source);
    io::append_json_text_field(out, "catalogue", o.origin);
    out += '}';
  }
  out += first ? "]\n" : "\n]\n";
  return out;
}

namespace {

std::string figure(const std::optional<double>& v) { return v ? fmt::format("{:g}", *v) : "-"; }

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void number_or_null(std::string& out, std::string_view key, const std::optional<double>& v) {
  if (v) {
    io::append_json_number_field(out, key, *v);
  } else {
    out += ", ";
    io::append_json_string(out, key);
    out += ": null";
  }
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
  std::string out = "{\"schema\": \"gpucost.gpus\", \"version\": 1, \"gpus\": [";
  bool first = true;
  for (const auto& g : gpus) {
    out += first ? "\n  {" : ",\n  {";
    first = false;
    io::append_json_text_field(out, "model", g.model, true);
    out += ", \"match\": [";
    bool first_match = true;
    for (const auto& words : g.match) {
      std::string one;
      for (const auto& w : words) one += (one.empty() ? "" : " ") + w;
      out += first_match ? "" : ", ";
      first_match = false;
      io::append_json_string(out, one);
    }
    out += "]";
    if (!g.variants.empty()) {
      out += ", \"variants\": [";
      for (std::size_t i = 0; i < g.variants.size(); ++i) {
        out += i == 0 ? "" : ", ";
        io::append_json_string(out, g.variants[i]);
      }
      out += "]";
    }
    number_or_null(out, "memory_gb", g.memory_gb);
    number_or_null(out, "tdp_w", g.tdp_w);
    number_or_null(out, "idle_w", g.idle_w);
    if (g.idle_w) io::append_json_text_field(out, "idle_source", g.idle_source);
    number_or_null(out, "dense_tflops", g.dense_tflops);
    if (!g.accumulate.empty()) io::append_json_text_field(out, "accumulate", g.accumulate);
    io::append_json_text_field(out, "precision", g.precision);
    number_or_null(out, "memory_bw_gbs", g.memory_bw_gbs);
    if (!g.interconnect.empty()) io::append_json_text_field(out, "interconnect", g.interconnect);
    number_or_null(out, "interconnect_gbs", g.interconnect_gbs);
    if (!g.bandwidth_source.empty()) io::append_json_text_field(out, "bandwidth_source", g.bandwidth_source);
    io::append_json_text_field(out, "source", g.source);
    io::append_json_text_field(out, "date_seen", g.date_seen);
    out += "}";
  }
  out += "\n]}\n";
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
  std::string out = "{\"schema\": \"gpucost.gpu-speed\", \"version\": 1";
  io::append_json_text_field(out, "from", r.from_model);
  io::append_json_text_field(out, "to", r.to_model);
  io::append_json_number_field(out, "low", r.low);
  io::append_json_number_field(out, "middle", r.middle);
  io::append_json_number_field(out, "high", r.high);
  io::append_json_text_field(out, "low_basis", r.low_basis);
  io::append_json_text_field(out, "middle_basis", r.middle_basis);
  io::append_json_text_field(out, "high_basis", r.high_basis);
  io::append_json_number_field(out, "fixed_share", breakeven::kSpeedFixedShare);
  io::append_json_text_field(out, "identification", r.identification);
  io::append_json_text_field(out, "date_seen", r.date_seen);
  out += "}\n";
  return out;
}

}  // namespace gpucost::report
