// The reference case of docs/cost-model.md's worked example, shared by the breakeven tests that
// work their figures by hand from it: C_L = 1.863710, C_C = 3.166667, H* = 1082.77 h/year.
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>

namespace gpucost::testing {

/// Price 0.30/kWh, hardware 3000, lifetime 3 y, 2044 h/y, cooling 1.2, system 100 W, wage 50/h,
/// maintenance 10 h/y, cloud 2.0/h, speed ratio 2.0, cold start 300 s, increment 60 s, minimum
/// 600 s, fixed 0.5 per job; residual 0 and line 0.12 (defaults).
inline breakeven::CostConfig reference_config() {
  breakeven::CostConfig c;
  c.price_per_kwh = 0.30;
  c.hardware_price = 3000;
  c.lifetime_years = 3;
  c.use_hours_per_year = 2044;
  c.cooling_factor = 1.2;
  c.system_power_w = 100;
  c.hourly_wage = 50;
  c.maintenance_hours_per_year = 10;
  c.rate_per_hour = 2.0;
  c.speed_ratio = 2.0;
  c.cold_start_s = 300;
  c.billing_increment_s = 60;
  c.billing_minimum_s = 600;
  c.fixed_per_job = 0.5;
  return c;
}

/// W = 2 h on two GPUs, E = 0.5 + 0.4 = 0.9 kWh, u = 0.6 and 0.9 -> ū = 0.75.
inline breakeven::JobInputs reference_job() {
  breakeven::JobInputs j;
  j.wall_h = 2.0;
  j.energy_kwh = {0.5, 0.4};
  j.util = {0.6, 0.9};
  return j;
}

}  // namespace gpucost::testing
