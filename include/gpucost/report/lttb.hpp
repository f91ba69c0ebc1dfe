// Largest-triangle-three-buckets (Sveinn Steinarsson, 2013): downsamples a line to a fixed
// number of points while keeping its peaks, troughs and steps, so a day of 1 Hz telemetry
// draws as a few hundred points that still look like the day.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// lttb_indices() over points given one at a time: it holds two buckets (about 2 x count /
/// threshold points), not the whole line, and keeps the same points. Each point carries a tag
/// (the caller's, e.g. how many gaps came before it), kept with it.
class LttbStream {
 public:
  struct Kept {
    std::size_t index = 0;  ///< the point's position among those given
    Point point;
    std::size_t tag = 0;
  };
  /// `count`: how many points add() will be given.
  LttbStream(std::size_t count, std::size_t threshold);
  void add(const Point& p, std::size_t tag);
  /// The kept points in order, complete once `count` points were given.
  [[nodiscard]] const std::vector<Kept>& kept() const { return m_kept; }

 private:
  [[nodiscard]] std::size_t bucket_begin(std::size_t b) const;
  [[nodiscard]] std::size_t bucket_end(std::size_t b) const;  // of the points the bucket chooses from
  [[nodiscard]] std::size_t next_end(std::size_t b) const;    // of the points its next mean is taken over
  void finish_bucket();

  std::size_t m_count, m_threshold, m_buckets = 0, m_bucket = 0, m_given = 0;
  double m_bucket_size = 0;
  bool m_all = false;          // every point is kept (count <= threshold or count <= 2)
  std::vector<Kept> m_window;  // points from the current bucket's begin, in order
  Point m_previous;            // the point kept last
  std::vector<Kept> m_kept;
};

}  // namespace gpucost::report
