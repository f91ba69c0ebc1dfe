// NVML's clock event ("throttle") reason bits (nvml.h, nvmlClocksEventReason*): the bits of the
// throttle_mask metric, as nvidia-smi --query-gpu prints clocks_event_reasons.active and as prep
// builds it from nvidia-smi -q's reasons; extract times each reason from it.
#pragma once

#include <cstdint>

namespace gpucost::throttle {

inline constexpr std::uint64_t kGpuIdle = 0x1;
inline constexpr std::uint64_t kApplicationsClocksSetting = 0x2;
inline constexpr std::uint64_t kSwPowerCap = 0x4;
inline constexpr std::uint64_t kHwSlowdown = 0x8;
inline constexpr std::uint64_t kSyncBoost = 0x10;
inline constexpr std::uint64_t kSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t kDisplayClockSetting = 0x100;

}  // namespace gpucost::throttle
