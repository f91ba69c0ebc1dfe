// Prometheus text exposition of one breakeven run, for node_exporter's textfile collector:
// the headline figures and the indicators (host and per GPU) as gpucost_* gauges in base
// units. Metric names, labels and conversions: docs/outputs.md.
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/features.hpp>

#include <span>
#include <string>
#include <string_view>

namespace gpucost::outputs {

/// How an indicator becomes a metric: gpucost_host_<suffix> and gpucost_gpu_<suffix>{gpu=...},
/// value x scale / divisor (kWh -> J, us -> s, GB/s -> B/s); dividing keeps 20 us exactly 2e-05 s.
/// An empty suffix = covered by a headline metric.
struct PromIndicator {
  std::string_view key;     ///< catalogue key
  std::string_view suffix;  ///< metric name after gpucost_host_ / gpucost_gpu_
  double scale = 1.0;
  double divisor = 1.0;
};

std::span<const PromIndicator> prom_indicators();

/// The whole textfile: HELP and TYPE lines, then the samples of each family. Indicators
/// without a value (null) are left out, never written as 0.
std::string prometheus_textfile(const breakeven::Result& result, const breakeven::CostConfig& config,
                                const extract::Features& features);

/// breakeven --follow's own two gauges, after the textfile (or alone while nothing can be priced):
/// gpucost_up (1: the figures are of the last update; 0: none could be priced, e.g. no sample
/// yet) and gpucost_last_update_timestamp_seconds (`now_ns`), labelled with the host.
std::string prometheus_live_metrics(std::string_view host, bool up, std::int64_t now_ns);

}  // namespace gpucost::outputs
