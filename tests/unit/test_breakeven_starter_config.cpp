// gpucost init's starter configuration: every key of the config table is in it, it loads back,
// its defaults are the config's, and what it fills (currency, electricity price, offer, idle
// power) comes from the machine's facts and the sourced data files only.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/breakeven/starter_config.hpp>
#include <gpucost/record/smi_probe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace gpucost;
using namespace gpucost::breakeven;
namespace fs = std::filesystem;

fs::path temp_dir() {
  static const test::ScratchDir kDir{"starter"};
  return kDir.path();
}

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The comments joined: "# a\n# b" reads "# a b" (the file wraps its comments at 100 columns).
std::string flat(const std::string& toml) {
  std::string out;
  for (std::size_t i = 0; i < toml.size(); ++i) {
    if (toml.compare(i, 3, "\n# ") == 0) {
      out += ' ';
      i += 2;
    } else {
      out += toml[i];
    }
  }
  return out;
}

std::string section_of(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string() : std::string(path.substr(0, dot));
}
std::string leaf_of(std::string_view path) {
  const auto dot = path.rfind('.');
  return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1));
}

/// The key lines of the file by section: "local.lifetime_years" -> "# lifetime_years = 3" (the
/// line as written, commented or not). Commented table headers ("# [[electricity.tou]]") do not
/// open a section.
std::map<std::string, std::vector<std::string>> key_lines(const std::string& toml) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(toml);
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.rfind('[', 0) == 0) {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    if (line.rfind("# [[", 0) == 0) {  // a commented example of an array of tables
      section = line.substr(4, line.find(']') - 4);
      continue;
    }
    std::string body = line.rfind("# ", 0) == 0 ? line.substr(2) : line;
    const auto eq = body.find(" =");
    if (eq == std::string::npos || body.find(' ') < eq) continue;  // prose, not "key = value"
    const std::string key = body.substr(0, eq);
    out[section.empty() ? key : section + "." + key].push_back(line);
  }
  return out;
}

/// The file with every commented key line of the table that has a value uncommented.
std::string uncomment_defaults(const std::string& toml) {
  std::set<std::string> leaves_by_section;
  for (const auto& k : config_keys()) leaves_by_section.insert(section_of(k.path) + "|" + leaf_of(k.path));
  std::istringstream in(toml);
  std::ostringstream out;
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.rfind('[', 0) == 0) section = line.substr(1, line.find(']') - 1);
    if (line.rfind("# ", 0) == 0) {
      const std::string body = line.substr(2);
      const auto eq = body.find(" = ");
      if (eq != std::string::npos && body.find(' ') == eq &&
          leaves_by_section.count(section + "|" + body.substr(0, eq)))
        line = body;
    }
    out << line << "\n";
  }
  return out.str();
}

MachineFacts rtx4090() {
  MachineFacts m;
  m.gpu_names = {"NVIDIA GeForce RTX 4090"};
  m.gpu_count = 1;
  m.idle_power_w = 29.2;
  m.idle_basis = "measured in the logs named above";
  m.source = "the logs (a.csv)";
  return m;
}

std::vector<std::string> names(const std::vector<CloudOffer>& offers) {
  std::vector<std::string> out;
  for (const auto& o : offers) out.push_back(o.name);
  return out;
}

}  // namespace

TEST_CASE("init: every config key has where to find its number", "[breakeven][init]") {
  for (const auto& k : config_keys()) {
    INFO(k.path);
    CHECK_FALSE(where_to_find(k.path).empty());
  }
}

TEST_CASE("init: every key of the config table is in the starter file, under its section", "[breakeven][init]") {
  for (const bool with_facts : {false, true}) {
    StarterOptions o;
    if (with_facts) {
      o.machine = rtx4090();
      o.country = "DE";
    }
    const auto lines = key_lines(starter_config(o).toml);
    for (const auto& k : config_keys()) {
      INFO(k.path << (with_facts ? " (with facts)" : ""));
      REQUIRE(lines.count(std::string(k.path)) == 1);
      CHECK(lines.at(std::string(k.path)).size() == 1);
    }
  }
}

TEST_CASE("init: with nothing known, the file loads once the required keys are given", "[breakeven][init]") {
  StarterOptions o;
  o.notes = {"nvidia-smi not asked (--no-probe)"};
  const StarterConfig s = starter_config(o);
  CHECK(s.toml.find("nvidia-smi not asked (--no-probe)") != std::string::npos);
  CHECK(flat(s.toml).find("Set before breakeven can price: electricity.price_per_kwh, local.hardware_price, "
                          "cloud.rate_per_hour.") != std::string::npos);
  CHECK(s.notes.back() ==
        "set before breakeven can price: electricity.price_per_kwh, local.hardware_price, cloud.rate_per_hour");
  const fs::path p = write_file("nothing.toml", s.toml);
  // As written: breakeven names the first required key it lacks.
  const auto bare = load_config(p.string(), {});
  REQUIRE_FALSE(bare);
  CHECK(bare.error().message.find("missing required key 'electricity.price_per_kwh'") != std::string::npos);
  const auto loaded =
      load_config(p.string(), {"electricity.price_per_kwh=0.3", "local.hardware_price=3000", "cloud.rate_per_hour=1"});
  INFO((loaded ? "" : loaded.error().message));
  REQUIRE(loaded);
  // Nothing but the three is set: every other key is left at its default.
  CHECK(loaded->keys_set ==
        std::set<std::string>{"electricity.price_per_kwh", "local.hardware_price", "cloud.rate_per_hour"});
  CHECK(loaded->currency == "USD");
}

TEST_CASE("init: the defaults written are the config's own", "[breakeven][init]") {
  StarterOptions o;
  o.machine = rtx4090();
  const std::string uncommented = uncomment_defaults(starter_config(o).toml);
  const fs::path p = write_file("defaults.toml", uncommented);
  const auto loaded = load_config(p.string(), {"electricity.price_per_kwh=0.3", "local.hardware_price=3000"});
  INFO(uncommented);
  INFO((loaded ? "" : loaded.error().message));
  REQUIRE(loaded);
  const CostConfig d;
  for (const auto& k : config_keys()) {
    INFO(k.path);
    if (k.required) continue;
    if (k.path == "local.idle_power_w" || k.path == "cloud.offer") continue;  // filled from the facts
    // Written "# key =": unknown until set (never a 0 taken for a value), or a default in words.
    if (k.no_default || !k.default_words.empty()) {
      CHECK_FALSE(loaded->is_set(k.path));
      continue;
    }
    CHECK(key_value_text(*loaded, k.path) == key_value_text(d, k.path));
    CHECK(loaded->is_set(k.path));  // it was written out, and read
  }
}

TEST_CASE("init: from the logs of one RTX 4090, an offer of the same GPU and the idle power", "[breakeven][init]") {
  StarterOptions o;
  o.machine = rtx4090();
  const StarterConfig s = starter_config(o);
  // The confirmed price before the cheaper unconfirmed one.
  CHECK(s.toml.find("\noffer = \"vast-rtx4090\"\n") != std::string::npos);
  // The cheaper one says why it was not chosen.
  CHECK(flat(s.toml).find("runpod-rtx4090-community (0.34 USD/h per GPU: cheaper, but its price could not be "
                          "confirmed against its source)") != std::string::npos);
  CHECK(s.toml.find("\nidle_power_w = 29.2\n") != std::string::npos);
  CHECK(s.toml.find("GPUs: 1 x NVIDIA GeForce RTX 4090, from the logs (a.csv)") != std::string::npos);
  CHECK(s.toml.find("# rate_per_hour =\n") != std::string::npos);
  const fs::path p = write_file("rtx4090.toml", s.toml);
  const auto loaded = load_config(p.string(), {"electricity.price_per_kwh=0.3", "local.hardware_price=3000"});
  INFO((loaded ? "" : loaded.error().message));
  REQUIRE(loaded);
  CHECK(loaded->cloud_offer == "vast-rtx4090");
  CHECK(loaded->idle_power_w == Approx(29.2));
  CHECK(loaded->keys_set == std::set<std::string>{"electricity.price_per_kwh", "local.hardware_price",
                                                  "local.idle_power_w", "cloud.offer"});
}

TEST_CASE("init: --country gives the currency, and the price only from the sourced table", "[breakeven][init]") {
  SECTION("DE: EUR and Eurostat's figure; the USD offer's rate from the built-in ECB rates, with their date") {
    StarterOptions o;
    o.machine = rtx4090();
    o.country = "DE";
    const StarterConfig s = starter_config(o);
    CHECK(s.toml.find("\ncurrency = \"EUR\"\n") != std::string::npos);
    const ElectricityPrice* de = nullptr;
    for (const auto& p : electricity_prices())
      if (p.country == "DE") de = &p;
    REQUIRE(de != nullptr);
    CHECK(s.toml.find(fmt::format("\nprice_per_kwh = {:g}\n", de->price_per_kwh)) != std::string::npos);
    // EUR per USD = 1 / 1.1225 (USD per EUR on 2026-10-02) = 0.890869
    CHECK(s.toml.find("[exchange]\n") != std::string::npos);
    CHECK(s.toml.find("\nUSD = 0.890869\ndate = \"2026-10-02\"\n") != std::string::npos);
    CHECK(flat(s.toml).find("From the ECB euro reference rates of 2026-10-02 built into gpucost (gpucost offers update "
                            "refreshes them): 1 EUR = 1.1225 USD, so 1 USD = 1 / 1.1225 EUR.") != std::string::npos);
    CHECK(flat(s.toml).find("Set before breakeven can price: local.hardware_price.") != std::string::npos);
    CHECK(std::find(s.notes.begin(), s.notes.end(), "set before breakeven can price: local.hardware_price") !=
          s.notes.end());
    const fs::path p = write_file("de.toml", s.toml);
    const auto loaded = load_config(p.string(), {"local.hardware_price=3000"});
    INFO((loaded ? "" : loaded.error().message));
    REQUIRE(loaded);
    CHECK(loaded->currency == "EUR");
    CHECK(loaded->price_per_kwh == Approx(de->price_per_kwh));
    CHECK(loaded->exchange.at("USD") == Approx(1 / 1.1225).epsilon(1e-6));
    CHECK(loaded->exchange_date == "2026-10-02");
  }
  SECTION("DE with the newer rates of an update: theirs; with older ones: the built-in") {
    StarterOptions o;
    o.machine = rtx4090();
    o.country = "DE";
    EuroRates user;
    user.date = "2026-11-30";
    user.per_euro["USD"] = 1.25;
    o.user_rates = user;
    std::string toml = starter_config(o).toml;
    CHECK(toml.find("\nUSD = 0.8\ndate = \"2026-11-30\"\n") != std::string::npos);  // 1 / 1.25
    o.user_rates->date = "2026-09-30";
    toml = starter_config(o).toml;
    CHECK(toml.find("\nUSD = 0.890869\ndate = \"2026-10-02\"\n") != std::string::npos);
  }
  SECTION("JP: JPY per USD through the euro: 176.99 / 1.1225 = 157.675") {
    StarterOptions o;
    o.machine = rtx4090();
    o.country = "JP";
    const StarterConfig s = starter_config(o);
    CHECK(s.toml.find("\nUSD = 157.675\ndate = \"2026-10-02\"\n") != std::string::npos);
    CHECK(flat(s.toml).find("1 EUR = 176.99 JPY = 1.1225 USD, so 1 USD = 176.99 / 1.1225 JPY") != std::string::npos);
  }
  SECTION("AE: no ECB rate for AED: the rate is left to set, and named") {
    StarterOptions o;
    o.machine = rtx4090();
    o.country = "AE";
    const StarterConfig s = starter_config(o);
    CHECK(s.toml.find("\ncurrency = \"AED\"\n") != std::string::npos);
    CHECK(s.toml.find("# USD =\n# date = \"\"\n") != std::string::npos);
    CHECK(flat(s.toml).find("the ECB euro reference rates of 2026-10-02 built into gpucost have no AED") !=
          std::string::npos);
    CHECK(flat(s.toml).find("Set before breakeven can price: electricity.price_per_kwh, local.hardware_price, "
                            "exchange.USD.") != std::string::npos);
  }
  SECTION("US: USD, no figure: the file says where to find it") {
    StarterOptions o;
    o.country = "US";
    const StarterConfig s = starter_config(o);
    CHECK(s.toml.find("\ncurrency = \"USD\"\n") != std::string::npos);
    CHECK(s.toml.find("# price_per_kwh =\n") != std::string::npos);
    CHECK(flat(s.toml).find("data/electricity-prices.toml has no figure for US yet: it holds only averages read in a "
                            "statistics office's own publication") != std::string::npos);
    CHECK(flat(s.toml).find("Electric Power Monthly, table 5.6.A") != std::string::npos);
  }
  SECTION("DK: DKK; Eurostat's figure is in EUR, so it is quoted, not written") {
    StarterOptions o;
    o.country = "DK";
    const StarterConfig s = starter_config(o);
    CHECK(s.toml.find("\ncurrency = \"DKK\"\n") != std::string::npos);
    CHECK(s.toml.find("# price_per_kwh =\n") != std::string::npos);
    CHECK(flat(s.toml).find("0.3485 EUR/kWh, the average of DK in 2025-S1") != std::string::npos);
    CHECK(flat(s.toml).find("a figure in EUR, not in DKK") != std::string::npos);
  }
  SECTION("a country without a known currency keeps USD and says so") {
    StarterOptions o;
    o.country = "KE";
    const StarterConfig s = starter_config(o);
    CHECK(s.toml.find("# currency = \"USD\"\n") != std::string::npos);
    REQUIRE_FALSE(s.notes.empty());
    CHECK(s.notes.front() == "no currency known for country KE: currency stays USD; set it");
  }
}

TEST_CASE("init: country codes", "[breakeven][init]") {
  CHECK(*normalise_country("de") == "DE");
  CHECK(*normalise_country(" GB ") == "GB");
  CHECK(*normalise_country("UK") == "GB");
  CHECK(*normalise_country("EL") == "GR");
  CHECK_FALSE(normalise_country("DEU"));
  CHECK_FALSE(normalise_country("D1"));
  CHECK(*currency_of_country("GB") == "GBP");
  CHECK(*currency_of_country("HR") == "EUR");
  CHECK_FALSE(currency_of_country("XX"));
}

TEST_CASE("init: data/electricity-prices.toml parses, each figure with its source and date", "[breakeven][init]") {
  const auto parsed = parse_electricity_prices(
      read_file(std::string(GPUCOST_SOURCE_DIR) + "/data/electricity-prices.toml"), "data/electricity-prices.toml");
  INFO((parsed ? "" : parsed.error().message));
  REQUIRE(parsed);
  REQUIRE_FALSE(parsed->empty());
  CHECK(parsed->size() == electricity_prices().size());
  std::set<std::string> seen;
  for (const auto& p : *parsed) {
    INFO(p.country);
    CHECK(normalise_country(p.country));
    CHECK(*normalise_country(p.country) == p.country);
    CHECK(seen.insert(p.country).second);  // one figure per country
    CHECK(p.currency.size() == 3);
    CHECK(p.price_per_kwh > 0);
    CHECK(p.price_per_kwh < 2);  // currency units, not cents
    CHECK_FALSE(p.source.empty());
    CHECK(p.date_seen.size() == 10);
    CHECK_FALSE(p.period.empty());
  }
  CHECK_FALSE(parse_electricity_prices("[[price]]\ncountry = \"DE\"\n", "x.toml"));
}

TEST_CASE("init: offers of the same GPU model", "[breakeven][init]") {
  // Whole words: an A10 is no A10G, an L40S no L4; memory sizes aside.
  CHECK(names(same_gpu_offers("NVIDIA A10", 1, std::nullopt, "USD")) == std::vector<std::string>{"lambda-a10"});
  CHECK(names(same_gpu_offers("NVIDIA A10G", 1, std::nullopt, "USD")) ==
        std::vector<std::string>{"aws-g5.xlarge", "aws-g5.12xlarge"});
  const auto l40s = same_gpu_offers("NVIDIA L40S", 1, std::nullopt, "USD");
  REQUIRE_FALSE(l40s.empty());
  for (const auto& o : l40s) CHECK(o.gpu_model == "L40S");
  CHECK(names(same_gpu_offers("NVIDIA L4", 1, std::nullopt, "USD")) ==
        std::vector<std::string>{"gcp-g2-standard-4", "aws-g6.xlarge"});
  // An 80 GB A100 is not priced with a 40 GB one; a 40 GB A100 fits the 80 GB offers too.
  for (const auto& o : same_gpu_offers("NVIDIA A100-SXM4-80GB", 1, 81920.0, "USD")) CHECK(o.gpu_memory_gb >= 80);
  bool forty = false;
  for (const auto& o : same_gpu_offers("NVIDIA A100-PCIE-40GB", 1, 40960.0, "USD"))
    forty = forty || o.gpu_memory_gb == 40;
  CHECK(forty);
  // Eight GPUs: only on-demand instances that hold eight (or per-GPU offers), confirmed prices
  // first, each group cheapest first for eight.
  const auto eight = same_gpu_offers("NVIDIA H100 80GB HBM3", 8, 81559.0, "USD");
  REQUIRE_FALSE(eight.empty());
  for (std::size_t i = 0; i < eight.size(); ++i) {
    CHECK(eight[i].fits(8));
    CHECK(eight[i].kind == OfferKind::on_demand);
    if (i > 0) CHECK((eight[i - 1].confirmed || !eight[i].confirmed));
    if (i > 0 && eight[i - 1].confirmed == eight[i].confirmed) CHECK(eight[i - 1].rate_for(8) <= eight[i].rate_for(8));
  }
  CHECK(same_gpu_offers("Tesla V100-SXM2-16GB", 1, std::nullopt, "USD").empty());
}

TEST_CASE("init: nvidia-smi's GPU list", "[breakeven][init]") {
  const auto two = parse_smi_gpu_list(
      "NVIDIA H100 80GB HBM3, 81559 MiB, 700.00 W\r\n"
      "NVIDIA H100 80GB HBM3, 81559 MiB, 700.00 W\n");
  REQUIRE(two);
  CHECK(two->gpu_count == 2);
  CHECK(two->gpu_names == std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
  CHECK(*two->gpu_memory_mib == 81559);
  CHECK(*two->gpu_power_limit_w == 700);
  const auto na = parse_smi_gpu_list("NVIDIA A100-SXM4-40GB MIG 1g.5gb, [N/A], [N/A]\n");
  REQUIRE(na);
  CHECK(na->gpu_count == 1);
  CHECK_FALSE(na->gpu_memory_mib);
  CHECK_FALSE(na->gpu_power_limit_w);
  const auto bad = parse_smi_gpu_list(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
      "driver is installed and running.\n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.rfind("nvidia-smi printed no GPU: NVIDIA-SMI has failed", 0) == 0);
  CHECK_FALSE(parse_smi_gpu_list(""));
}

TEST_CASE("init: nvidia-smi is run with the query and a timeout", "[breakeven][init]") {
  const auto script = [](const std::string& name, const std::string& body) {
    const fs::path p = write_file(name, "#!/bin/sh\n" + body);
    ::chmod(p.c_str(), 0755);
    return p.string();
  };
  const std::string ok = script("smi-ok",
                                "[ \"$1\" = --query-gpu=name,memory.total,power.limit ] && "
                                "[ \"$2\" = --format=csv,noheader ] || exit 5\n"
                                "echo 'NVIDIA GeForce RTX 4090, 24564 MiB, 450.00 W'\n");
  const auto m = record::probe_nvidia_smi(ok, 10'000);
  INFO((m ? "" : m.error().message));
  REQUIRE(m);
  CHECK(m->gpu_names == std::vector<std::string>{"NVIDIA GeForce RTX 4090"});
  CHECK(m->gpu_count == 1);
  CHECK(m->source == "nvidia-smi on this machine");

  const auto failed = record::probe_nvidia_smi(script("smi-fail", "echo 'No devices were found'\nexit 6\n"), 10'000);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message == "nvidia-smi failed (exit status 6): No devices were found");

  const auto hung = record::probe_nvidia_smi(script("smi-hang", "sleep 30\n"), 300);
  REQUIRE_FALSE(hung);
  CHECK(hung.error().message == "nvidia-smi did not answer within 0.3 s");
  // Its output closed, but it does not exit.
  const auto lingers = record::probe_nvidia_smi(
      script("smi-linger", "echo 'NVIDIA L4, 23034 MiB, 72.00 W'\nexec >&- 2>&-\nsleep 30\n"), 300);
  REQUIRE_FALSE(lingers);
  CHECK(lingers.error().message == "nvidia-smi did not answer within 0.3 s");
}

TEST_CASE("init: the machine facts of the logs, by hand", "[breakeven][init]") {
  extract::Features f;
  for (const auto& [gpu, idle_w] : std::vector<std::pair<int, double>>{{0, 20.0}, {1, 9.25}}) {
    extract::GpuFeatures g;
    g.gpu = gpu;
    extract::set_value(g.indicators, "idle_power_w", idle_w);  // an interval's mean: not the idle state
    f.gpus.push_back(g);
  }
  InputStats telemetry, trace;
  telemetry.format = Format::query_csv;
  telemetry.fingerprint.gpus = {"NVIDIA GeForce RTX 4090"};
  trace.format = Format::kineto;  // a profiler names the GPU it ran on, maybe elsewhere: left out
  trace.fingerprint.gpus = {"NVIDIA H100 80GB HBM3"};
  MachineFacts m = machine_facts_from_logs(f, {telemetry, trace});
  CHECK(m.gpu_names == std::vector<std::string>{"NVIDIA GeForce RTX 4090"});
  CHECK(m.gpu_count == 2);
  CHECK_FALSE(m.idle_power_w.has_value());  // from the samples (idle_power_from_samples), not F054
  CHECK(m.source.empty());
}

TEST_CASE("init: the idle power from the samples at 0 % utilisation, by hand", "[breakeven][init]") {
  // A 4090 idling at 19-26 W, with a pause inside the job at 90.4 W: the 10th percentile of 11
  // samples is the 2nd lowest (rank floor(0.1 x 10) = 1), 19.6 W; the mean would be 28.4 W.
  const std::vector<double> gpu0{26.0, 19.1, 21.0, 90.4, 19.6, 22.5, 24.0, 20.2, 25.1, 23.3, 21.7};
  // A second GPU of 5 samples: rank floor(0.1 x 4) = 0, its lowest, 30 W.
  const std::vector<double> gpu1{31.0, 30.0, 33.0, 32.0, 30.5};
  const auto one = idle_power_from_samples({gpu0});
  REQUIRE(one.has_value());
  CHECK(one->watts == Approx(19.6));
  CHECK(one->samples == 11);
  CHECK(one->low_w == Approx(19.1));
  CHECK(one->high_w == Approx(90.4));
  CHECK(idle_power_basis(*one) ==
        "measured in the logs named above: the 10th percentile of the power of each GPU's samples at 0 % utilisation "
        "(11 samples, 19.1 .. 90.4 W); the rest of the machine idles on top of it");
  const auto two = idle_power_from_samples({gpu0, gpu1});
  REQUIRE(two.has_value());
  CHECK(two->watts == Approx(49.6));  // 19.6 + 30
  CHECK(two->samples == 16);
  CHECK(two->gpus == 2);
  CHECK(idle_power_basis(*two).find("summed over 2 GPUs") != std::string::npos);
  // Fewer than kMinIdleSamples on one GPU: no measurement that would look whole.
  CHECK_FALSE(idle_power_from_samples({gpu0, {30.0, 31.0, 32.0, 33.0}}).has_value());
  CHECK_FALSE(idle_power_from_samples({}).has_value());
}

TEST_CASE("init: without a measurement, the GPU table's idle figure times the GPU count", "[breakeven][init]") {
  StarterOptions o;
  o.machine.gpu_names = {"H100 SXM"};
  o.machine.gpu_count = 8;
  const StarterConfig s = starter_config(o);
  const GpuSpeed* h100 = find_gpu_speed("H100 SXM");
  REQUIRE(h100 != nullptr);
  REQUIRE(h100->idle_w.has_value());
  CHECK(s.toml.find(fmt::format("\nidle_power_w = {:g}\n", *h100->idle_w * 8)) != std::string::npos);
  CHECK(flat(s.toml).find("from the GPU table (data/gpu-speed.toml): H100 SXM idles at") != std::string::npos);
}
