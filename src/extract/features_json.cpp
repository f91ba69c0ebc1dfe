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

void write_incidents(std::string& b, const std::vector<WindowIncident>& incidents) {
  b.append(",\n  \"incidents\": [");
  for (std::size_t i = 0; i < incidents.size(); ++i) {
    const WindowIncident& w = incidents[i];
    b.append(i == 0 ? "\n    {\"ts\": " : ",\n    {\"ts\": ");
    io::append_json_string(b, format_utc(w.ts_ns));
    b.append(fmt::format(", \"ts_ns\": {}, \"kind\": ", w.ts_ns));
    io::append_json_string(b, w.kind);
    b.append(", \"bucket\": ");
    io::append_json_string(b, w.bucket);
    b.append(fmt::format(", \"code\": {}, \"downtime_s\": ", w.code));
    if (w.downtime_s) io::append_json_number(b, *w.downtime_s);
    else b.append("null");
    b.append("}");
  }
  b.append(incidents.empty() ? "]" : "\n  ]");
}

void write_profile(std::string& b, const EnergyProfile& p) {
  b.append(fmt::format(",\n  \"energy_profile\": {{\"bucket_s\": 60, \"first_minute\": {}, \"gpu_kwh\": [",
                       p.first_minute));
  for (std::size_t i = 0; i < p.kwh.size(); ++i) {
    if (i > 0) b.append(", ");
    io::append_json_number(b, p.kwh[i]);
  }
  b.append("]}");
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
  b.append("\n  ]");
  write_incidents(b, f.incidents);
  write_profile(b, f.energy_profile);
  b.append("\n}\n");
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

// Optional: documents written before incidents were listed have none.
Status read_incidents(simdjson::dom::element doc, Features& f, const std::string& path) {
  simdjson::dom::array list;
  if (doc["incidents"].get_array().get(list) != simdjson::SUCCESS) return {};
  for (simdjson::dom::element e : list) {
    WindowIncident w;
    std::string_view kind, bucket;
    std::int64_t code = -1;
    if (e["ts_ns"].get_int64().get(w.ts_ns) != simdjson::SUCCESS ||
        e["kind"].get_string().get(kind) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: an incidents[] entry lacks ts_ns or kind", path));
    w.kind = std::string(kind);
    if (e["bucket"].get_string().get(bucket) == simdjson::SUCCESS) w.bucket = std::string(bucket);
    if (e["code"].get_int64().get(code) == simdjson::SUCCESS) w.code = static_cast<int>(code);
    double down = 0;
    if (e["downtime_s"].get_double().get(down) == simdjson::SUCCESS) w.downtime_s = down;
    f.incidents.push_back(std::move(w));
  }
  return {};
}

// Optional: documents written before the profile existed have none (flat tariffs need none).
Status read_profile(simdjson::dom::element doc, Features& f, const std::string& path) {
  simdjson::dom::object profile;
  if (doc["energy_profile"].get_object().get(profile) != simdjson::SUCCESS) return {};
  simdjson::dom::array values;
  if (profile["first_minute"].get_int64().get(f.energy_profile.first_minute) != simdjson::SUCCESS ||
      profile["gpu_kwh"].get_array().get(values) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: energy_profile lacks first_minute or gpu_kwh", path));
  for (simdjson::dom::element v : values) {
    double d = 0;
    if (v.get_double().get(d) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: energy_profile.gpu_kwh holds a non-number", path));
    f.energy_profile.kwh.push_back(d);
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
  if (auto st = read_incidents(doc, f, path); !st) return st.error();
  if (auto st = read_profile(doc, f, path); !st) return st.error();
  return f;
}

}  // namespace gpucost::extract
