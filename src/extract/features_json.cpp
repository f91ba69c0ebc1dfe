// The gpucost.features document: written by extract, read by breakeven.
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/extract/extract.hpp>

#include <gpucost/core/time.hpp>
#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>
#include <simdjson.h>

namespace gpucost::extract {

namespace {

void write_set(std::string& b, const IndicatorSet& set, bool host, const char* indent) {
  b.append("{");
  bool first = true;
  for (const IndicatorDef& def : catalogue()) {
    if (host ? def.scope == Scope::gpu_only : def.scope == Scope::host_only) continue;
    const auto it = set.find(std::string(def.key));
    if (it == set.end()) continue;
    b.append(first ? "\n" : ",\n");
    first = false;
    b.append(indent);
    io::append_json_string(b, def.key);
    b.append(": {\"id\": ");
    io::append_json_string(b, def.id);
    b.append(", \"value\": ");
    if (it->second.value) io::append_json_number(b, *it->second.value);
    else b.append("null");
    b.append(", \"unit\": ");
    io::append_json_string(b, def.unit);
    if (!it->second.value) {
      b.append(", \"reason\": ");
      io::append_json_string(b, it->second.reason);
    }
    b.append("}");
  }
  b.append("\n");
  b.append(indent, std::char_traits<char>::length(indent) - 2);
  b.append("}");
}

}  // namespace

std::string features_to_json(const Features& f) {
  std::string b;
  b.append(fmt::format("{{\n  \"schema\": \"{}\",\n  \"version\": {},\n  \"window\": {{\"from\": ", kFeaturesSchema,
                       kFeaturesVersion));
  io::append_json_string(b, format_utc(f.from_ns));
  b.append(", \"to\": ");
  io::append_json_string(b, format_utc(f.to_ns));
  b.append(fmt::format(", \"from_ns\": {}, \"to_ns\": {}, \"wall_s\": ", f.from_ns, f.to_ns));
  io::append_json_number(b, f.wall_s());
  b.append(", \"chosen_by\": ");
  io::append_json_string(b, f.chosen_by);
  b.append("},\n  \"host\": {\"name\": ");
  io::append_json_string(b, f.host);
  b.append(", \"indicators\": ");
  write_set(b, f.host_indicators, true, "    ");
  b.append("},\n  \"gpus\": [");
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    b.append(i == 0 ? "\n" : ",\n");
    b.append(fmt::format("    {{\"gpu\": {}, \"indicators\": ", f.gpus[i].gpu));
    write_set(b, f.gpus[i].indicators, false, "        ");
    b.append("}");
  }
  b.append("\n  ]\n}\n");
  return b;
}

bool is_features_document(std::string_view head) {
  const std::size_t at = head.find("\"schema\"");
  return at != std::string_view::npos && at < 200 && head.find(kFeaturesSchema) != std::string_view::npos &&
         head.find("\"type\"") > head.find(kFeaturesSchema);
}

namespace {

Status read_set(simdjson::dom::object obj, IndicatorSet& out, const std::string& path) {
  for (auto [key, val] : obj) {
    simdjson::dom::object ind;
    if (val.get_object().get(ind) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: indicator '{}' is not an object", path, key));
    IndicatorValue v;
    simdjson::dom::element value;
    if (ind["value"].get(value) == simdjson::SUCCESS && !value.is_null()) {
      double d = 0;
      if (value.get_double().get(d) != simdjson::SUCCESS)
        return make_error(ErrorKind::schema, fmt::format("{}: indicator '{}' has a non-numeric value", path, key));
      v.value = d;
    } else {
      std::string_view reason;
      if (ind["reason"].get_string().get(reason) == simdjson::SUCCESS) v.reason = std::string(reason);
    }
    out[std::string(key)] = std::move(v);
  }
  return {};
}

}  // namespace

Expected<Features> features_from_json(std::string_view text, const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text.data(), text.size()).get(doc) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: not valid JSON", path));
  std::string_view schema;
  std::int64_t version = 0;
  if (doc["schema"].get_string().get(schema) != simdjson::SUCCESS || schema != kFeaturesSchema)
    return make_error(ErrorKind::schema, fmt::format("{}: not a gpucost.features document", path));
  if (doc["version"].get_int64().get(version) != simdjson::SUCCESS || version != kFeaturesVersion)
    return make_error(ErrorKind::schema, fmt::format("{}: gpucost.features version {} is not supported", path, version),
                      "re-run `gpucost extract` with this version of gpucost");
  Features f;
  simdjson::dom::object window;
  if (doc["window"].get_object().get(window) != simdjson::SUCCESS ||
      window["from_ns"].get_int64().get(f.from_ns) != simdjson::SUCCESS ||
      window["to_ns"].get_int64().get(f.to_ns) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: window.from_ns/to_ns missing", path));
  std::string_view chosen, host;
  if (window["chosen_by"].get_string().get(chosen) == simdjson::SUCCESS) f.chosen_by = std::string(chosen);
  simdjson::dom::object host_obj, host_ind;
  if (doc["host"].get_object().get(host_obj) != simdjson::SUCCESS ||
      host_obj["indicators"].get_object().get(host_ind) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: host.indicators missing", path));
  if (host_obj["name"].get_string().get(host) == simdjson::SUCCESS) f.host = std::string(host);
  if (auto st = read_set(host_ind, f.host_indicators, path); !st) return st.error();
  simdjson::dom::array gpus;
  if (doc["gpus"].get_array().get(gpus) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: gpus missing", path));
  for (simdjson::dom::element g : gpus) {
    GpuFeatures gf;
    std::int64_t idx = 0;
    simdjson::dom::object ind;
    if (g["gpu"].get_int64().get(idx) != simdjson::SUCCESS || g["indicators"].get_object().get(ind) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: a gpus[] entry lacks gpu or indicators", path));
    gf.gpu = static_cast<int>(idx);
    if (auto st = read_set(ind, gf.indicators, path); !st) return st.error();
    f.gpus.push_back(std::move(gf));
  }
  return f;
}

}  // namespace gpucost::extract
