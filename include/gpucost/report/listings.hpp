// The catalogues a user lists: the indicators (extract --list) and the cloud offers
// (gpucost offers list, breakeven --list-clouds), as an aligned table or as JSON.
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/gpu_speed.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpucost::report {

std::string indicator_catalogue_table();
std::string indicator_catalogue_json();

/// The offers with their age in days to `today` (YYYY-MM-DD; empty: not counted).
std::string cloud_offers_table(const std::vector<breakeven::CloudOffer>& offers, std::string_view today);
std::string cloud_offers_json(const std::vector<breakeven::CloudOffer>& offers, std::string_view today);

/// The GPU table (gpucost gpus): model, memory, board power, idle power, dense TFLOPS, precision, source;
/// a figure the table lacks is "-" (null in JSON).
std::string gpu_table_text(const std::vector<breakeven::GpuSpeed>& gpus);
std::string gpu_table_json(const std::vector<breakeven::GpuSpeed>& gpus);
/// `gpucost gpus --speed`: the speed range of one GPU over another, what each bound rests on and
/// the sources of the figures (text, or JSON schema gpucost.gpu-speed).
std::string gpu_speed_text(const breakeven::SpeedRange& range);
std::string gpu_speed_json(const breakeven::SpeedRange& range);

}  // namespace gpucost::report
