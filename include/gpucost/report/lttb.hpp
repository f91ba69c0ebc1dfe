// Largest-triangle-three-buckets (Sveinn Steinarsson, 2013): downsamples a line to a fixed
// number of points while keeping its peaks, troughs and steps, so a day of 1 Hz telemetry
// draws as a few hundred points that still look like the day.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace gpucost::report {

struct Point {
  double x = 0, y = 0;
};

/// The indices (ascending) of the points LTTB keeps out of `points` (sorted by x): the first,
/// the last, and from each of `threshold - 2` equal buckets in between the point that spans the
/// largest triangle with the point kept before it and the mean of the next bucket. Every index
/// when there are no more than `threshold` points; the first and last when threshold < 3.
std::vector<std::size_t> lttb_indices(std::span<const Point> points, std::size_t threshold);

/// The kept points themselves.
std::vector<Point> lttb(std::span<const Point> points, std::size_t threshold);

}  // namespace gpucost::report
