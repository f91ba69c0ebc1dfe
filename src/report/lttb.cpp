#include <gpucost/report/lttb.hpp>

#include <cmath>

namespace gpucost::report {

namespace {

/// Bucket b (0-based) of the inner points covers [bucket_start(b), bucket_start(b + 1)).
std::size_t bucket_start(std::size_t bucket, double bucket_size) {
  return static_cast<std::size_t>(std::floor(static_cast<double>(bucket) * bucket_size)) + 1;
}

Point mean_of(std::span<const Point> points, std::size_t begin, std::size_t end) {
  Point m;
  for (std::size_t i = begin; i < end; ++i) {
    m.x += points[i].x;
    m.y += points[i].y;
  }
  const auto n = static_cast<double>(end - begin);
  return Point{m.x / n, m.y / n};
}

/// Twice the triangle's area: the factor 1/2 does not change which point is largest.
double doubled_area(const Point& a, const Point& b, const Point& c) {
  return std::fabs((a.x - c.x) * (b.y - a.y) - (a.x - b.x) * (c.y - a.y));
}

}  // namespace

std::vector<std::size_t> lttb_indices(std::span<const Point> points, std::size_t threshold) {
  const std::size_t n = points.size();
  std::vector<std::size_t> kept;
  if (n <= threshold || n <= 2) {
    kept.resize(n);
    for (std::size_t i = 0; i < n; ++i) kept[i] = i;
    return kept;
  }
  if (threshold < 3) return {0, n - 1};
  const std::size_t buckets = threshold - 2;
  const double bucket_size = static_cast<double>(n - 2) / static_cast<double>(buckets);
  kept.reserve(threshold);
  kept.push_back(0);
  std::size_t previous = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t begin = bucket_start(b, bucket_size);
    const std::size_t end = std::min(bucket_start(b + 1, bucket_size), n - 1);
    // The next bucket's mean; the last bucket looks at the last point.
    const std::size_t next_begin = end;
    const std::size_t next_end = b + 1 == buckets ? n : std::min(bucket_start(b + 2, bucket_size), n - 1);
    const Point next = mean_of(points, next_begin, std::max(next_end, next_begin + 1));
    std::size_t best = begin;
    double best_area = -1;
    for (std::size_t i = begin; i < end; ++i) {
      const double area = doubled_area(points[previous], points[i], next);
      if (area > best_area) {
        best_area = area;
        best = i;
      }
    }
    kept.push_back(best);
    previous = best;
  }
  kept.push_back(n - 1);
  return kept;
}

std::vector<Point> lttb(std::span<const Point> points, std::size_t threshold) {
  std::vector<Point> out;
  for (std::size_t i : lttb_indices(points, threshold)) out.push_back(points[i]);
  return out;
}

}  // namespace gpucost::report
