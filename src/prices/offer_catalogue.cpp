// One run's cloud catalogue (offer_catalogue.hpp) and the provider table (providers.hpp).
#include <gpucost/prices/offer_catalogue.hpp>
#include <gpucost/prices/providers.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prices {

using breakeven::OfferKind;

namespace {

Expected<std::string> read_whole(const std::string& path) {
  auto reader = io::LineReader::open(path);
  if (!reader) return reader.error();
  std::string text;
  io::Line line;
  while ((*reader)->next(line)) {
    text.append(line.text);
    text.push_back('\n');
  }
  return text;
}

/// Splits one CSV record (RFC 4180 quoting: "" inside quotes is a quote) into `cells`.
void split_csv(std::string_view line, std::vector<std::string>& cells) {
  cells.clear();
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(std::move(cell));
      cell.clear();
    } else {
      cell.push_back(c);
    }
  }
  cells.push_back(std::move(cell));
}

std::optional<double> number_of(const std::string& cell) {
  if (cell.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size() || !(v >= 0)) return std::nullopt;
  return v;
}

/// SkyPilot's accelerator names in gpucost's words ("A100-80GB" -> "A100 80GB"); the memory
/// decides an A100's size when the name does not.
std::string gpu_model_of(std::string name, double memory_gb) {
  if (name == "A100") return memory_gb > 60 ? "A100 80GB" : "A100 40GB";
  if (name.ends_with("-80GB") || name.ends_with("-40GB")) name[name.size() - 5] = ' ';
  if (name == "H100-MEGA") return "H100";
  return name;
}

/// The per-GPU memory in GpuInfo, a Python dict as SkyPilot writes it:
/// {'Gpus': [{'Name': 'H100', ..., 'MemoryInfo': {'SizeInMiB': 81920}}], ...}.
double memory_gb_of(std::string_view gpu_info) {
  const std::size_t at = gpu_info.find("'SizeInMiB':");
  if (at == std::string_view::npos) return 0;
  return std::strtod(std::string(gpu_info.substr(at + 12, 16)).c_str(), nullptr) / 1024.0;
}

/// GCP prices a GPU VM as its machine type (vCPUs, memory) plus the GPUs attached; SkyPilot's
/// gcp/vms.csv keeps both as rows (the GPUs with an empty InstanceType). These families carry
/// their GPUs fixed (Compute Engine's machine type docs, "Accelerator-optimized machine family").
struct GcpFamily {
  std::string_view prefix, accelerator;
};
constexpr std::array kGcpFamilies{GcpFamily{"a2-highgpu-", "A100"},       GcpFamily{"a2-megagpu-", "A100"},
                                  GcpFamily{"a2-ultragpu-", "A100-80GB"}, GcpFamily{"a3-highgpu-", "H100"},
                                  GcpFamily{"a3-megagpu-", "H100-MEGA"},  GcpFamily{"a3-ultragpu-", "H200"}};

/// GPUs of a GCP machine type from its name ("a3-highgpu-8g" -> 8), with its accelerator.
std::optional<std::pair<std::string_view, int>> gcp_gpus(std::string_view machine) {
  for (const GcpFamily& f : kGcpFamilies) {
    if (!machine.starts_with(f.prefix)) continue;
    const std::string_view count = machine.substr(f.prefix.size());
    const int n = std::atoi(std::string(count).c_str());
    if (n > 0 && count.ends_with('g')) return std::pair{f.accelerator, n};
  }
  return std::nullopt;
}

struct CsvColumns {
  int instance = -1, accelerator = -1, count = -1, gpu_info = -1, price = -1, spot = -1, region = -1;
};

CsvColumns columns_of(const std::vector<std::string>& header) {
  CsvColumns c;
  for (int i = 0; i < static_cast<int>(header.size()); ++i) {
    const std::string& h = header[static_cast<std::size_t>(i)];
    if (h == "InstanceType") c.instance = i;
    if (h == "AcceleratorName") c.accelerator = i;
    if (h == "AcceleratorCount") c.count = i;
    if (h == "GpuInfo") c.gpu_info = i;
    if (h == "Price") c.price = i;
    if (h == "SpotPrice") c.spot = i;
    if (h == "Region") c.region = i;
  }
  return c;
}

/// One row's figures, before offers are made of them.
struct VmRow {
  std::string instance, accelerator, region;
  int gpus = 0;
  double memory_gb = 0;
  std::optional<double> price, spot;
  bool machine_only = false;  ///< GCP: the machine type's price, its GPUs priced apart
};

/// Counts of what a vms.csv held, for the note.
struct CsvTally {
  std::size_t rows = 0, no_gpu = 0, no_price = 0, malformed = 0, gcp_no_accelerator = 0;
  std::string first_malformed;
};

void keep_cheapest(std::optional<double>& into, std::optional<double> v) {
  if (v && (!into || *v < *into)) into = v;
}

CloudOffer vm_offer(const VmRow& row, const ProviderRow* provider, const BillingTerms& terms, const std::string& dir,
                    const std::string& path, const std::string& date, OfferKind kind) {
  CloudOffer o;
  o.name = offer_name(dir, row.instance, row.region, kind);
  o.provider = provider != nullptr ? std::string(provider->display) : dir;
  o.instance = row.instance;
  o.region = row.region;
  o.gpu_model = gpu_model_of(row.accelerator, row.memory_gb);
  o.gpu_memory_gb = row.memory_gb;
  o.gpus = row.gpus;
  o.price_per_hour = kind == OfferKind::spot ? *row.spot : *row.price;
  o.currency = "USD";  // SkyPilot's catalogues are in US dollars
  o.kind = kind;
  o.billing_increment_s = terms.increment_s;
  o.billing_minimum_s = terms.minimum_s;
  o.cold_start_s = terms.cold_start_s;
  o.date_seen = date;
  o.source = path;
  o.origin = path;
  o.note = "SkyPilot vms.csv; billing and cold start: gpucost's defaults for the provider";
  return o;
}

/// The rows of a vms.csv, one per instance and region (the cheapest zone); with `gpus_apart` (a
/// provider whose GPUs are priced apart from the machine type: Google Cloud's families above),
/// the machine types joined with the GPUs they carry.
std::vector<VmRow> vm_rows(const std::string& text, const std::string& path, bool gpus_apart, CsvTally& tally) {
  std::map<std::pair<std::string, std::string>, VmRow> rows;          // (instance, region)
  std::map<std::pair<std::string, std::string>, VmRow> accelerators;  // GCP: (accelerator x1, region)
  std::vector<std::string> cells;
  CsvColumns col;
  std::size_t line_no = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    split_csv(line, cells);
    if (line_no == 1) {
      col = columns_of(cells);
      continue;
    }
    ++tally.rows;
    const auto cell = [&](int i) -> const std::string& {
      static const std::string kEmpty;
      return i >= 0 && static_cast<std::size_t>(i) < cells.size() ? cells[static_cast<std::size_t>(i)] : kEmpty;
    };
    VmRow r;
    r.instance = cell(col.instance);
    r.accelerator = cell(col.accelerator);
    r.region = cell(col.region);
    r.memory_gb = memory_gb_of(cell(col.gpu_info));
    r.price = number_of(cell(col.price));
    r.spot = number_of(cell(col.spot));
    const auto count = number_of(cell(col.count));
    if (r.region.empty() || (!cell(col.price).empty() && !r.price)) {
      ++tally.malformed;
      if (tally.first_malformed.empty()) tally.first_malformed = fmt::format("{}:{}: {}", path, line_no, line);
      continue;
    }
    if (gpus_apart && r.instance.empty() && !r.accelerator.empty() && count == 1.0) {
      auto& a = accelerators[{r.accelerator, r.region}];
      a.accelerator = r.accelerator;
      a.memory_gb = std::max(a.memory_gb, r.memory_gb);
      keep_cheapest(a.price, r.price);
      keep_cheapest(a.spot, r.spot);
      continue;
    }
    if (gpus_apart && r.accelerator.empty()) {
      if (const auto carried = gcp_gpus(r.instance)) {
        r.accelerator = std::string(carried->first);
        r.gpus = carried->second;
        r.machine_only = true;
      }
    } else if (count) {
      r.gpus = static_cast<int>(*count);
    }
    if (r.instance.empty() || r.accelerator.empty() || r.gpus < 1) {
      ++tally.no_gpu;
      continue;
    }
    auto& kept = rows[{r.instance, r.region}];
    if (kept.instance.empty()) kept = r;
    keep_cheapest(kept.price, r.price);
    keep_cheapest(kept.spot, r.spot);
  }
  std::vector<VmRow> out;
  for (auto& [key, r] : rows) {
    if (r.machine_only) {  // add the price of its GPUs
      const auto a = accelerators.find({r.accelerator, r.region});
      if (a == accelerators.end() || !a->second.price) {
        ++tally.gcp_no_accelerator;
        continue;
      }
      r.memory_gb = a->second.memory_gb;
      if (r.price) *r.price += *a->second.price * r.gpus;
      r.spot = r.spot && a->second.spot ? std::optional(*r.spot + *a->second.spot * r.gpus) : std::nullopt;
    }
    if (!r.price && !r.spot) {
      ++tally.no_price;
      continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string file_date(const std::string& path) {
  std::error_code ec;
  const auto t = std::filesystem::last_write_time(path, ec);
  if (ec) return "unknown";
  const auto sys = std::chrono::file_clock::to_sys(t);
  const auto days = std::chrono::floor<std::chrono::days>(sys);
  const std::chrono::year_month_day ymd{days};
  return fmt::format("{:04d}-{:02d}-{:02d}", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()));
}

Expected<std::vector<CloudOffer>> read_skypilot_csv(const std::string& path, const std::string& text,
                                                    std::string& note) {
  const std::filesystem::path p(path);
  const std::string dir = p.parent_path().filename().string();
  const ProviderRow* provider = provider_row(dir);
  const BillingTerms& terms = provider != nullptr ? provider->terms() : billing_table().fallback;
  if (dir.empty())
    return make_error(ErrorKind::usage,
                      fmt::format("--clouds {}: a SkyPilot vms.csv names its cloud by its folder", path),
                      "keep it as SkyPilot does, e.g. ~/.sky/catalogs/v7/aws/vms.csv");
  CsvTally tally;
  const std::string date = file_date(path);
  std::vector<CloudOffer> offers;
  for (const VmRow& r : vm_rows(text, path, provider != nullptr && provider->gpus_priced_apart, tally)) {
    if (r.price) offers.push_back(vm_offer(r, provider, terms, dir, path, date, OfferKind::on_demand));
    if (r.spot) offers.push_back(vm_offer(r, provider, terms, dir, path, date, OfferKind::spot));
  }
  note = fmt::format(
      "--clouds {}: SkyPilot vms.csv of {} ({} rows): {} offers; rows without GPUs ignored: {}{}{}{}; prices dated by "
      "the file's time ({}); billing {:g} s increment, {:g} s minimum, cold start {:g} s: gpucost's defaults for {}",
      path, provider != nullptr ? std::string(provider->display) : dir, tally.rows, offers.size(), tally.no_gpu,
      tally.no_price > 0 ? fmt::format(", {} without a price", tally.no_price) : "",
      tally.gcp_no_accelerator > 0
          ? fmt::format(", {} machine types without their GPUs' price", tally.gcp_no_accelerator)
          : "",
      tally.malformed > 0 ? fmt::format(", {} malformed (first: {})", tally.malformed, tally.first_malformed) : "",
      date, terms.increment_s, terms.minimum_s, terms.cold_start_s,
      provider != nullptr ? std::string(provider->display) : std::string("a provider it does not know"));
  return offers;
}

bool looks_like_vms_csv(std::string_view text) {
  const std::string_view first = text.substr(0, text.find('\n'));
  return first.find("InstanceType") != std::string_view::npos && first.find("Price") != std::string_view::npos;
}

/// Adds `more` to `offers`: one of the same name replaces the earlier one, in its place.
std::size_t overlay(std::vector<CloudOffer>& offers, std::vector<CloudOffer> more) {
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < offers.size(); ++i) at[offers[i].name] = i;
  std::size_t replaced = 0;
  for (CloudOffer& o : more) {
    if (const auto it = at.find(o.name); it != at.end()) {
      offers[it->second] = std::move(o);
      ++replaced;
    } else {
      at[o.name] = offers.size();
      offers.push_back(std::move(o));
    }
  }
  return replaced;
}

Status add_file(Catalogue& c, const std::string& path, bool user) {
  auto text = read_whole(path);
  if (!text)
    return make_error(ErrorKind::usage,
                      fmt::format("{}: {}", user ? "user catalogue" : "--clouds", text.error().message),
                      "give a catalogue in gpucost's format (docs/cost-model.md, \"Cloud catalogue\") or a "
                      "SkyPilot vms.csv");
  std::string note;
  std::vector<CloudOffer> offers;
  if (user) {
    auto rates = breakeven::parse_euro_rates(*text, path);
    if (!rates) return rates.error();
    if (*rates) c.rates = std::move(**rates);
  }
  if (!user && looks_like_vms_csv(*text)) {
    auto read = read_skypilot_csv(path, *text, note);
    if (!read) return read.error();
    offers = std::move(*read);
  } else {
    auto parsed = breakeven::parse_cloud_offers(*text, path);
    if (!parsed) return parsed.error();
    offers = std::move(*parsed);
    note = fmt::format("{} {}: {} offers", user ? "user catalogue" : "--clouds", path, offers.size());
  }
  const std::size_t count = offers.size();
  const std::size_t replaced = overlay(c.offers, std::move(offers));
  if (replaced > 0) note += fmt::format(" ({} of them replace offers of the same name)", replaced);
  if (count == 0) note += " (none: is it the file you meant?)";
  c.notes.push_back(std::move(note));
  return {};
}

}  // namespace

std::string user_catalogue_path() {
  const char* data = std::getenv("XDG_DATA_HOME");
  if (data != nullptr && *data != '\0') return std::string(data) + "/gpucost/offers.toml";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return std::string(home) + "/.local/share/gpucost/offers.toml";
  return {};
}

Expected<Catalogue> load_catalogue(const CatalogueFiles& files) {
  Catalogue c;
  c.offers = breakeven::cloud_offers();
  std::error_code ec;
  if (!files.user.empty() && std::filesystem::exists(files.user, ec)) GPUCOST_TRY(add_file(c, files.user, true));
  for (const std::string& path : files.clouds) GPUCOST_TRY(add_file(c, path, false));
  return c;
}

}  // namespace gpucost::prices
