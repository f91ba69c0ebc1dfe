// AWS Price List bulk API:
// https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/using-the-aws-price-list-bulk-api.html
// The EC2 region index names each region's offer file (hundreds of MB of JSON); the file is
// streamed through the OfferScanner, which hands over one product or one SKU's terms at a time.
#include <gpucost/prices/sources.hpp>

#include <gpucost/core/text.hpp>

#include "offer_build.hpp"
#include "toml_write.hpp"

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

namespace gpucost::prices {

namespace {

constexpr std::string_view kRegionIndexPath = "/offers/v1.0/aws/AmazonEC2/current/region_index.json";

struct Product {
  std::string instance;
  SkuGpu gpu;
};

/// The leading number of "320 GB", "24 GiB"; none for "NA".
std::optional<double> leading_number(std::string_view s) {
  std::size_t pos = 0;
  return text::parse_double(text::next_token(s, pos));
}

/// The offer file's gpu and gpuMemory over the table's: gpuMemory is read as the whole
/// instance's or one GPU's, whichever lies nearer the table's figure for the family.
SkuGpu gpus_from_attributes(simdjson::dom::object attrs, SkuGpu gpu) {
  if (const auto n = leading_number(json_string(attrs, "gpu")); n && *n >= 1 && *n <= 64 && *n == std::floor(*n))
    gpu.gpus = static_cast<int>(*n);
  if (const auto m = leading_number(json_string(attrs, "gpuMemory")); m && *m > 0) {
    const double per_gpu = *m / gpu.gpus;
    gpu.memory_gb = std::abs(per_gpu - gpu.memory_gb) <= std::abs(*m - gpu.memory_gb) ? per_gpu : *m;
  }
  return gpu;
}

/// Why a product is not one of the wanted offers (nullptr: it is).
const char* unwanted(simdjson::dom::object a, std::string_view region) {
  const auto is = [&](std::string_view key, std::string_view want, bool required) {
    const std::string_view v = json_string(a, key);
    return v.empty() ? !required : v == want;
  };
  if (!is("operatingSystem", "Linux", true)) return "not Linux";
  if (!is("tenancy", "Shared", true)) return "not shared tenancy";
  if (!is("preInstalledSw", "NA", true)) return "with pre-installed software";
  if (!is("capacitystatus", "Used", false)) return "capacity reservations";
  if (!is("licenseModel", "No License required", false)) return "other licence models";
  if (!is("regionCode", region, false)) return "other regions";
  return nullptr;
}

/// The USD price of the dimension priced by the hour, or none.
/// A term's price dimensions: the rate by the hour, and a reservation's upfront fee (unit
/// "Quantity", "Upfront Fee"). An All Upfront reservation's rate is 0.
struct TermPrices {
  std::optional<double> hourly;
  double upfront = 0;
};

TermPrices term_prices(simdjson::dom::object term) {
  TermPrices t;
  simdjson::dom::object dims;
  if (term["priceDimensions"].get_object().get(dims) != simdjson::SUCCESS) return t;
  for (const auto field : dims) {
    simdjson::dom::object d;
    std::string_view usd;
    if (field.value.get_object().get(d) != simdjson::SUCCESS ||
        d["pricePerUnit"]["USD"].get_string().get(usd) != simdjson::SUCCESS)
      continue;
    const auto price = text::parse_double(usd);
    if (!price || *price < 0) continue;
    if (json_string(d, "unit") == "Quantity") {
      t.upfront += *price;
    } else if (const auto hours = hourly_unit(json_string(d, "unit")); hours && !t.hourly) {
      t.hourly = *price / *hours;
    }
  }
  return t;
}

/// The name's suffix and words of an AWS purchase option; none for an option gpucost does not read.
struct PurchaseOption {
  std::string_view option, suffix;
};
constexpr PurchaseOption kPurchaseOptions[] = {
    {"No Upfront", ""}, {"Partial Upfront", "-partial-upfront"}, {"All Upfront", "-all-upfront"}};

const PurchaseOption* purchase_option(std::string_view option) {
  for (const PurchaseOption& p : kPurchaseOptions)
    if (p.option == option) return &p;
  return nullptr;
}

}  // namespace

struct AwsOfferReader::State {
  std::string region, source, publication_date, offer_code;
  std::unordered_map<std::string, Product> wanted;
  SourceResult result;
  simdjson::dom::parser parser;
  OfferScanner scanner;

  State(std::string r, std::string s)
      : region(std::move(r)),
        source(std::move(s)),
        scanner(OfferScanner::Handlers{
            [this](std::string_view key, std::string_view value) { top_string(key, value); },
            [this](std::string_view sku, std::string_view object) { return product(sku, object); },
            [this](std::string_view sku) { return wanted.count(std::string(sku)) > 0; },
            [this](std::string_view type, std::string_view sku, std::string_view object) {
              return terms(type, sku, object);
            }}) {}

  void top_string(std::string_view key, std::string_view value) {
    if (key == "publicationDate") publication_date = date_part(value);
    if (key == "offerCode") offer_code = std::string(value);
  }

  Expected<simdjson::dom::object> parse(std::string_view what, std::string_view sku, std::string_view text) {
    simdjson::dom::object o;
    if (const auto err = parser.parse(text.data(), text.size()).get_object().get(o); err != simdjson::SUCCESS)
      return make_error(ErrorKind::format,
                        fmt::format("{}: {} {}: {}", source, what, sku, simdjson::error_message(err)));
    return o;
  }

  Status product(std::string_view sku, std::string_view text) {
    auto o = parse("product", sku, text);
    if (!o) return o.error();
    if (json_string(*o, "productFamily") != "Compute Instance") return {};
    simdjson::dom::object attrs;
    if ((*o)["attributes"].get_object().get(attrs) != simdjson::SUCCESS) return {};
    const std::string_view instance = json_string(attrs, "instanceType");
    const auto gpu = aws_instance_gpu(instance);
    if (!gpu) return skip(result, "other instance types"), Status{};
    if (const char* why = unwanted(attrs, region)) return skip(result, why), Status{};
    wanted[std::string(sku)] = Product{std::string(instance), gpus_from_attributes(attrs, *gpu)};
    return {};
  }

  Status terms(std::string_view type, std::string_view sku, std::string_view text) {
    auto o = parse("terms of", sku, text);
    if (!o) return o.error();
    const Product& p = wanted.at(std::string(sku));
    for (const auto field : *o) {
      simdjson::dom::object term;
      if (field.value.get_object().get(term) != simdjson::SUCCESS) continue;
      add_term(type, p, term);
    }
    return {};
  }

  void add_term(std::string_view type, const Product& p, simdjson::dom::object term) {
    OfferFacts f{*provider_row("aws"), p.instance, region, &p.gpu};
    f.date_seen = date_part(json_string(term, "effectiveDate"));
    f.source = source;
    const TermPrices prices = term_prices(term);
    if (type == "Reserved") {
      simdjson::dom::object a;
      if (term["termAttributes"].get_object().get(a) != simdjson::SUCCESS) return skip(result, "reservations");
      if (json_string(a, "OfferingClass") != "standard") return skip(result, "convertible reservations");
      const PurchaseOption* option = purchase_option(json_string(a, "PurchaseOption"));
      if (option == nullptr) return skip(result, "other purchase options");
      const std::string_view length = json_string(a, "LeaseContractLength");
      const auto kind = reserved_kind(length);
      if (!kind) return skip(result, "other reservation terms");
      f.kind = *kind;
      f.name_suffix = option->suffix;
      f.upfront = prices.upfront;
      f.term_years = length == "1yr" ? 1.0 : 3.0;
      f.note = fmt::format(
          "standard reserved instance, {}, {}: {}the hourly rate is billed for every hour of the term, used or not",
          length == "1yr" ? "1 year" : "3 years", option->option,
          prices.upfront > 0 ? fmt::format("{} USD paid at the start, and ", toml_number(prices.upfront)) : "");
    } else if (prices.hourly && *prices.hourly <= 0) {
      return skip(result, "not priced by the hour");  // an on-demand rate of 0 is no price
    }
    if (!prices.hourly || (*prices.hourly <= 0 && prices.upfront <= 0)) return skip(result, "not priced by the hour");
    f.price_per_hour = *prices.hourly;
    add_offer(result, make_offer(f));
  }
};

AwsOfferReader::AwsOfferReader(std::string region, std::string source_url)
    : m_state(std::make_unique<State>(std::move(region), std::move(source_url))) {}
AwsOfferReader::~AwsOfferReader() = default;

Status AwsOfferReader::feed(std::string_view chunk) {
  m_state->result.bytes += chunk.size();
  return m_state->scanner.feed(chunk);
}

void AwsOfferReader::reset() {
  State& s = *m_state;
  s.scanner.reset();
  s.wanted.clear();
  s.result = SourceResult{};
  s.publication_date.clear();
  s.offer_code.clear();
}

Expected<SourceResult> AwsOfferReader::finish() {
  State& s = *m_state;
  GPUCOST_TRY(s.scanner.finish());
  if (!s.offer_code.empty() && s.offer_code != "AmazonEC2")
    return make_error(ErrorKind::format,
                      fmt::format("{}: the offer file of {}, not of AmazonEC2", s.source, s.offer_code));
  // The list's publication date is when these prices were seen.
  if (!s.publication_date.empty())
    for (breakeven::CloudOffer& o : s.result.offers) o.date_seen = s.publication_date;
  s.result.pages = 1;
  return std::move(s.result);
}

std::string aws_region_index_url(std::string_view base) { return std::string(base) + std::string(kRegionIndexPath); }

Expected<std::string> aws_offer_url(std::string_view json, std::string_view base, std::string_view region) {
  const std::string source = aws_region_index_url(base);
  simdjson::dom::parser parser;
  simdjson::dom::object regions;
  if (const auto err = parser.parse(json.data(), json.size())["regions"].get_object().get(regions);
      err != simdjson::SUCCESS)
    return make_error(ErrorKind::format, fmt::format("{}: not a region index (no \"regions\" object): {}", source,
                                                     simdjson::error_message(err)));
  simdjson::dom::object r;
  std::string_view url;
  if (regions[region].get_object().get(r) != simdjson::SUCCESS ||
      r["currentVersionUrl"].get_string().get(url) != simdjson::SUCCESS) {
    std::string known;
    std::size_t n = 0;
    for (const auto field : regions)
      if (n++ < 8) known += fmt::format("{}{}", known.empty() ? "" : ", ", std::string_view(field.key));
    return make_error(ErrorKind::usage, fmt::format("AWS: region '{}' is not in the price list", region),
                      fmt::format("its regions: {}{}", known, n > 8 ? ", ..." : ""));
  }
  if (!url.starts_with("/"))
    return make_error(ErrorKind::format, fmt::format("{}: {}: currentVersionUrl is not a path", source, region));
  return std::string(base) + std::string(url);
}

Expected<SourceResult> fetch_aws(io::Fetcher& fetcher, std::string_view base, const std::vector<std::string>& regions) {
  SourceResult all;
  const auto index = fetcher.get(aws_region_index_url(base));
  if (!index) return index.error();
  ++all.pages;
  all.bytes += index->size();
  for (const std::string& region : regions) {
    auto url = aws_offer_url(*index, base, region);
    if (!url) return url.error();
    AwsOfferReader reader(region, *url);
    GPUCOST_TRY(fetcher.stream(
        *url, [&] { reader.reset(); }, [&](std::string_view chunk) { return reader.feed(chunk); }));
    auto r = reader.finish();
    if (!r) return r.error();
    for (breakeven::CloudOffer& o : r->offers) add_offer(all, std::move(o));
    for (const auto& [reason, n] : r->skipped) all.skipped[reason] += n;
    all.pages += r->pages;
    all.bytes += r->bytes;
  }
  return all;
}

}  // namespace gpucost::prices
