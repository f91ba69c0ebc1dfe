// AWS Price List bulk API:
// https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/using-the-aws-price-list-bulk-api.html
// The EC2 region index names each region's offer file (hundreds of MB of JSON); the file is
// streamed through the OfferScanner, which hands over one product or one SKU's terms at a time.
// The savings plans have their own index and one price file per region (products in an array,
// each plan's rates for every instance under "terms"."savingsPlan"), streamed the same way:
// https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-service-price-list-file-for-savings-plans.html
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

/// What the readers of both price files keep: the scanner, the parser of the objects it hands
/// over, the offers, and the file's publication date (when its prices were seen).
struct AwsPriceFileReader::State {
  std::string region, source, publication_date;
  SourceResult result;
  simdjson::dom::parser parser;
  OfferScanner scanner;

  State(std::string r, std::string s, OfferScanner::Handlers handlers)
      : region(std::move(r)), source(std::move(s)), scanner(std::move(handlers)) {}
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  virtual ~State() = default;

  virtual void top_string(std::string_view key, std::string_view value) {
    if (key == "publicationDate") publication_date = date_part(value);
  }
  /// Forgets what the file's own reading kept (a retried download).
  virtual void forget() = 0;
  /// What the whole file must be, once read.
  [[nodiscard]] virtual Status check_file() const { return {}; }

  Expected<simdjson::dom::object> parse(std::string_view what, std::string_view sku, std::string_view text) {
    simdjson::dom::object o;
    if (const auto err = parser.parse(text.data(), text.size()).get_object().get(o); err != simdjson::SUCCESS)
      return make_error(ErrorKind::format, fmt::format("{}: {}{}{}: {}", source, what, sku.empty() ? "" : " ", sku,
                                                       simdjson::error_message(err)));
    return o;
  }
};

namespace {

/// A region's EC2 offer file.
struct Ec2OfferFile final : AwsPriceFileReader::State {
  std::string offer_code;
  std::unordered_map<std::string, Product> wanted;

  Ec2OfferFile(std::string r, std::string s)
      : State(std::move(r), std::move(s),
              OfferScanner::Handlers{
                  [this](std::string_view key, std::string_view value) { top_string(key, value); },
                  [this](std::string_view sku, std::string_view object) { return product(sku, object); },
                  [this](std::string_view sku) { return wanted.count(std::string(sku)) > 0; },
                  [this](std::string_view type, std::string_view sku, std::string_view object) {
                    return terms(type, sku, object);
                  }}) {}

  void top_string(std::string_view key, std::string_view value) override {
    State::top_string(key, value);
    if (key == "offerCode") offer_code = std::string(value);
  }
  void forget() override {
    wanted.clear();
    offer_code.clear();
  }
  [[nodiscard]] Status check_file() const override {
    if (!offer_code.empty() && offer_code != "AmazonEC2")
      return make_error(ErrorKind::format,
                        fmt::format("{}: the offer file of {}, not of AmazonEC2", source, offer_code));
    return {};
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

// ---- savings plans -----------------------------------------------------------------------------

constexpr std::string_view kSavingsPlanIndexPath =
    "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json";

/// What a savings plan product says: which plan ("compute", "ec2-instance") and how it is paid.
struct PlanProduct {
  std::string_view family;
  const PurchaseOption* option = nullptr;
};

std::string_view plan_family(std::string_view product_family) {
  if (product_family == "ComputeSavingsPlans") return "compute";
  if (product_family == "EC2InstanceSavingsPlans") return "ec2-instance";
  return {};
}

/// The purchase option a plan's description names ("1 year No Upfront Compute Savings Plan").
const PurchaseOption* option_in(std::string_view description) {
  for (const PurchaseOption& p : kPurchaseOptions)
    if (description.find(p.option) != std::string_view::npos) return &p;
  return nullptr;
}

/// The instance of a rate's usage type when it is shared-tenancy instance time: "BoxUsage:p4d.24xlarge"
/// (us-east-1) or with the region's prefix, "USW2-BoxUsage:p4d.24xlarge"; empty otherwise
/// (DedicatedUsage, HostBoxUsage, ...).
std::string_view box_usage_instance(std::string_view usage) {
  const std::size_t at = usage.find("BoxUsage:");
  if (at == std::string_view::npos || (at > 0 && usage[at - 1] != '-')) return {};
  if (usage.substr(0, at).find(':') != std::string_view::npos) return {};
  return usage.substr(at + 9);
}

/// A region's savings plan price file.
struct SavingsPlanFile final : AwsPriceFileReader::State {
  std::unordered_map<std::string, PlanProduct> products;  // by SKU

  SavingsPlanFile(std::string r, std::string s)
      : State(std::move(r), std::move(s),
              OfferScanner::Handlers{[this](std::string_view key, std::string_view value) { top_string(key, value); },
                                     [this](std::string_view, std::string_view object) { return product(object); },
                                     [](std::string_view) { return true; },
                                     [this](std::string_view type, std::string_view, std::string_view object) {
                                       return type == "savingsPlan" ? plan(object) : Status{};
                                     }}) {}

  void forget() override { products.clear(); }

  Status product(std::string_view object) {
    auto o = parse("a savings plan product", {}, object);
    if (!o) return o.error();
    simdjson::dom::object attrs;
    const std::string_view option =
        (*o)["attributes"].get_object().get(attrs) == simdjson::SUCCESS ? json_string(attrs, "purchaseOption") : "";
    products[std::string(json_string(*o, "sku"))] =
        PlanProduct{plan_family(json_string(*o, "productFamily")), purchase_option(option)};
    return {};
  }

  /// The plan's product: its family and purchase option from "products", else from its description.
  PlanProduct plan_product(std::string_view sku, std::string_view description) const {
    PlanProduct p;
    if (const auto it = products.find(std::string(sku)); it != products.end()) p = it->second;
    if (p.family.empty())
      p.family = description.find("EC2 Instance Savings Plan") != std::string_view::npos ? "ec2-instance"
                 : description.find("Compute Savings Plan") != std::string_view::npos    ? "compute"
                                                                                         : "";
    if (p.option == nullptr) p.option = option_in(description);
    return p;
  }

  Status plan(std::string_view object) {
    auto o = parse("a savings plan", {}, object);
    if (!o) return o.error();
    const std::string_view description = json_string(*o, "description");
    const PlanProduct p = plan_product(json_string(*o, "sku"), description);
    if (p.family.empty()) return skip(result, "other savings plans"), Status{};
    if (p.option == nullptr) return skip(result, "other purchase options"), Status{};
    std::int64_t years = 0;
    if ((*o)["leaseContractLength"]["duration"].get_int64().get(years) != simdjson::SUCCESS) {
      std::string_view text_years;  // a number, or its text
      if ((*o)["leaseContractLength"]["duration"].get_string().get(text_years) == simdjson::SUCCESS)
        years = text::parse_int(text_years).value_or(0);
    }
    if (years != 1 && years != 3) return skip(result, "other savings plan terms"), Status{};
    simdjson::dom::array rates;
    if ((*o)["rates"].get_array().get(rates) != simdjson::SUCCESS) return skip(result, "plans without rates"), Status{};
    const std::string suffix = fmt::format("-{}-{}y{}", p.family, years, p.option->suffix);
    const std::string note = fmt::format(
        "{} Savings Plan, {} year{}, {}: the plan's rate for this instance, paid for every hour of the term, used "
        "or not (an upfront payment is part of the rate, spread over the term)",
        p.family == "compute" ? "Compute" : "EC2 Instance", years, years == 1 ? "" : "s", p.option->option);
    const std::string date = date_part(json_string(*o, "effectiveDate"));
    for (const auto element : rates) {
      simdjson::dom::object rate;
      if (element.get_object().get(rate) != simdjson::SUCCESS) continue;
      add_rate(rate, static_cast<double>(years), suffix, note, date);
    }
    return {};
  }

  void add_rate(simdjson::dom::object rate, double years, std::string_view suffix, std::string_view note,
                const std::string& date) {
    if (json_string(rate, "discountedServiceCode") != "AmazonEC2") return skip(result, "other services");
    if (json_string(rate, "discountedOperation") != "RunInstances") return skip(result, "not Linux");
    const std::string_view instance = box_usage_instance(json_string(rate, "discountedUsageType"));
    if (instance.empty()) return skip(result, "not shared tenancy");
    const auto gpu = aws_instance_gpu(instance);
    if (!gpu) return skip(result, "other instance types");
    const std::string_view where = json_string(rate, "discountedRegionCode");
    if (!where.empty() && where != region) return skip(result, "other regions");
    if (!hourly_unit(json_string(rate, "unit"))) return skip(result, "not priced by the hour");
    std::string_view price_text;
    if (rate["discountedRate"]["price"].get_string().get(price_text) != simdjson::SUCCESS)
      return skip(result, "not priced by the hour");
    const auto price = text::parse_double(price_text);
    if (!price || *price <= 0) return skip(result, "not priced by the hour");
    OfferFacts f{*provider_row("aws"), instance, region, &*gpu};
    f.kind = breakeven::OfferKind::savings_plan;
    f.price_per_hour = *price;
    f.term_years = years;
    f.name_suffix = suffix;
    f.note = std::string(note);
    f.date_seen = date;
    f.source = source;
    add_offer(result, make_offer(f));
  }
};

}  // namespace

AwsPriceFileReader::AwsPriceFileReader(AwsPriceFile file, std::string region, std::string source_url) {
  if (file == AwsPriceFile::ec2_offers)
    m_state = std::make_unique<Ec2OfferFile>(std::move(region), std::move(source_url));
  else
    m_state = std::make_unique<SavingsPlanFile>(std::move(region), std::move(source_url));
}
AwsPriceFileReader::~AwsPriceFileReader() = default;

Status AwsPriceFileReader::feed(std::string_view chunk) {
  m_state->result.bytes += chunk.size();
  return m_state->scanner.feed(chunk);
}

void AwsPriceFileReader::reset() {
  State& s = *m_state;
  s.scanner.reset();
  s.forget();
  s.result = SourceResult{};
  s.publication_date.clear();
}

Expected<SourceResult> AwsPriceFileReader::finish() {
  State& s = *m_state;
  GPUCOST_TRY(s.scanner.finish());
  GPUCOST_TRY(s.check_file());
  // The list's publication date is when these prices were seen.
  if (!s.publication_date.empty())
    for (breakeven::CloudOffer& o : s.result.offers) o.date_seen = s.publication_date;
  s.result.pages = 1;
  return std::move(s.result);
}

std::string aws_savings_plan_index_url(std::string_view base) {
  return std::string(base) + std::string(kSavingsPlanIndexPath);
}

Expected<std::string> aws_savings_plan_url(std::string_view json, std::string_view base, std::string_view region) {
  const std::string source = aws_savings_plan_index_url(base);
  simdjson::dom::parser parser;
  simdjson::dom::array regions;
  if (const auto err = parser.parse(json.data(), json.size())["regions"].get_array().get(regions);
      err != simdjson::SUCCESS)
    return make_error(ErrorKind::format, fmt::format("{}: not a savings plan region index (no \"regions\" array): {}",
                                                     source, simdjson::error_message(err)));
  for (const auto element : regions) {
    simdjson::dom::object r;
    if (element.get_object().get(r) != simdjson::SUCCESS || json_string(r, "regionCode") != region) continue;
    const std::string_view url = json_string(r, "versionUrl");
    if (!url.starts_with("/"))
      return make_error(ErrorKind::format, fmt::format("{}: {}: versionUrl is not a path", source, region));
    return std::string(base) + std::string(url);
  }
  return std::string();
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

namespace {

/// An index, fetched and counted in `all`.
Expected<std::string> fetch_index(io::Fetcher& fetcher, const std::string& url, SourceResult& all) {
  auto index = fetcher.get(url);
  if (!index) return index.error();
  ++all.pages;
  all.bytes += index->size();
  return index;
}

/// One region's price file, streamed through its reader, its offers and counts added to `all`.
Status read_price_file(io::Fetcher& fetcher, AwsPriceFile file, const std::string& region, const std::string& url,
                       SourceResult& all) {
  AwsPriceFileReader reader(file, region, url);
  GPUCOST_TRY(fetcher.stream(
      url, [&] { reader.reset(); }, [&](std::string_view chunk) { return reader.feed(chunk); }));
  auto r = reader.finish();
  if (!r) return r.error();
  for (breakeven::CloudOffer& o : r->offers) add_offer(all, std::move(o));
  for (const auto& [reason, n] : r->skipped) all.skipped[reason] += n;
  all.pages += r->pages;
  all.bytes += r->bytes;
  return {};
}

}  // namespace

Expected<SourceResult> fetch_aws(io::Fetcher& fetcher, std::string_view base, const std::vector<std::string>& regions) {
  SourceResult all;
  const auto offers_index = fetch_index(fetcher, aws_region_index_url(base), all);
  if (!offers_index) return offers_index.error();
  for (const std::string& region : regions) {
    auto url = aws_offer_url(*offers_index, base, region);
    if (!url) return url.error();
    GPUCOST_TRY(read_price_file(fetcher, AwsPriceFile::ec2_offers, region, *url, all));
  }
  // The savings plans' own index and files; a region it does not list is counted, not an error.
  const auto plans_index = fetch_index(fetcher, aws_savings_plan_index_url(base), all);
  if (!plans_index) return plans_index.error();
  for (const std::string& region : regions) {
    auto url = aws_savings_plan_url(*plans_index, base, region);
    if (!url) return url.error();
    if (url->empty())
      skip(all, "regions without savings plans");
    else
      GPUCOST_TRY(read_price_file(fetcher, AwsPriceFile::savings_plans, region, *url, all));
  }
  return all;
}

}  // namespace gpucost::prices
