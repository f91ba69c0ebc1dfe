#include <gpucost/prices/exchange.hpp>

#include <gpucost/core/text.hpp>

#include "toml_write.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <pugixml.hpp>

#include <string>

namespace gpucost::prices {

namespace {

bool currency_code(std::string_view code) {
  if (code.size() != 3) return false;
  for (const char c : code)
    if (c < 'A' || c > 'Z') return false;
  return true;
}

/// The Cube element that carries the day: <Cube time='2010-04-20'>, wherever the envelope puts it.
pugi::xml_node day_cube(const pugi::xml_node& root) {
  return root.find_node([](const pugi::xml_node& n) {
    const std::string_view name = n.name();
    return (name == "Cube" || name.ends_with(":Cube")) && !n.attribute("time").empty();
  });
}

}  // namespace

Expected<ExchangeRates> parse_ecb_rates(std::string_view xml, std::string_view source) {
  pugi::xml_document doc;
  // parse_default: no DOCTYPE, only the predefined entities; nothing is fetched.
  const pugi::xml_parse_result res = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_auto);
  if (!res)
    return make_error(ErrorKind::format,
                      fmt::format("{}: not XML: {} at byte {}", source, res.description(), res.offset));
  const pugi::xml_node day = day_cube(doc);
  if (!day) return make_error(ErrorKind::format, fmt::format("{}: no <Cube time='...'> element", source));
  ExchangeRates r;
  r.date = day.attribute("time").value();
  r.source = std::string(source);
  for (const pugi::xml_node c : day.children()) {
    const std::string_view code = c.attribute("currency").value();
    const auto rate = text::parse_double(c.attribute("rate").value());
    if (!currency_code(code) || !rate || !(*rate > 0)) continue;
    r.per_base[std::string(code)] = *rate;
  }
  if (r.per_base.empty() || r.date.size() != 10)
    return make_error(ErrorKind::format, fmt::format("{}: no rates for a day in the document", source));
  return r;
}

std::optional<double> cross_rate(const ExchangeRates& rates, std::string_view from, std::string_view to) {
  const auto per_base = [&](std::string_view code) -> std::optional<double> {
    if (code == rates.base) return 1.0;
    const auto it = rates.per_base.find(std::string(code));
    if (it == rates.per_base.end()) return std::nullopt;
    return it->second;
  };
  const auto f = per_base(from), t = per_base(to);
  if (!f || !t) return std::nullopt;
  return *t / *f;
}

std::string exchange_toml(const ExchangeRates& rates) {
  std::string out = "# Reference rates: units of each currency per 1 " + rates.base +
                    " (gpucost converts between any two through it).\n[exchange]\n";
  out += fmt::format("base = {}\ndate = {}\nsource = {}\n", toml_string(rates.base), toml_string(rates.date),
                     toml_string(rates.source));
  for (const auto& [code, rate] : rates.per_base) out += fmt::format("{} = {}\n", code, toml_float(rate));
  return out;
}

Expected<std::optional<ExchangeRates>> parse_exchange_table(std::string_view toml_text, std::string_view origin) {
  toml::table tbl;
  try {
    tbl = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    return make_error(ErrorKind::config, fmt::format("{}:{}:{}: {}", origin, e.source().begin.line,
                                                     e.source().begin.column, e.description()));
  }
  const toml::table* ex = tbl["exchange"].as_table();
  if (ex == nullptr) return std::optional<ExchangeRates>{};
  ExchangeRates r;
  const auto base = (*ex)["base"].value<std::string>();
  if (!base || !currency_code(*base))
    return make_error(ErrorKind::config,
                      fmt::format("{}: [exchange]: 'base' is missing or not a currency code", origin));
  r.base = *base;
  r.date = (*ex)["date"].value_or(std::string());
  r.source = (*ex)["source"].value_or(std::string());
  for (const auto& [key, node] : *ex) {
    const std::string_view code = key.str();
    if (code == "base" || code == "date" || code == "source") continue;
    const auto rate = node.value<double>();
    if (!currency_code(code) || !rate || !(*rate > 0))
      return make_error(ErrorKind::config,
                        fmt::format("{}: [exchange]: '{}' is not a currency code with a positive rate", origin, code));
    r.per_base[std::string(code)] = *rate;
  }
  return std::optional<ExchangeRates>(std::move(r));
}

}  // namespace gpucost::prices
