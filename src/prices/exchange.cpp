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
    r.per_euro[std::string(code)] = *rate;
  }
  if (r.per_euro.empty() || r.date.size() != 10)
    return make_error(ErrorKind::format, fmt::format("{}: no rates for a day in the document", source));
  return r;
}

std::string exchange_toml(const ExchangeRates& rates) {
  std::string out = std::string("# Reference rates: units of each currency per 1 EUR") +
                    " (gpucost converts between any two through it).\n[exchange]\n";
  out += fmt::format("base = {}\ndate = {}\nsource = {}\n", toml_string("EUR"), toml_string(rates.date),
                     toml_string(rates.source));
  for (const auto& [code, rate] : rates.per_euro) out += fmt::format("{} = {}\n", code, toml_float(rate));
  return out;
}

}  // namespace gpucost::prices
