#include <gpucost/report/lttb.hpp>

#include <algorithm>
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

LttbStream::LttbStream(std::size_t count, std::size_t threshold) : m_count(count), m_threshold(threshold) {
  m_all = count <= threshold || count <= 2;
  if (!m_all && threshold >= 3) {
    m_buckets = threshold - 2;
    m_bucket_size = static_cast<double>(count - 2) / static_cast<double>(m_buckets);
  }
  if (!m_all) m_kept.reserve(std::min(count, std::max<std::size_t>(threshold, 2)));
}

std::size_t LttbStream::bucket_begin(std::size_t b) const { return bucket_start(b, m_bucket_size); }

std::size_t LttbStream::bucket_end(std::size_t b) const {
  return std::min(bucket_start(b + 1, m_bucket_size), m_count - 1);
}

std::size_t LttbStream::next_end(std::size_t b) const {
  const std::size_t begin = bucket_end(b);
  const std::size_t end = b + 1 == m_buckets ? m_count : std::min(bucket_start(b + 2, m_bucket_size), m_count - 1);
  return std::max(end, begin + 1);
}

void LttbStream::add(const Point& p, std::size_t tag) {
  const std::size_t i = m_given++;
  if (m_all) {
    m_kept.push_back(Kept{i, p, tag});
    return;
  }
  if (m_buckets == 0) {  // threshold < 3: the first point and the last
    if (i == 0 || i + 1 == m_count) m_kept.push_back(Kept{i, p, tag});
    return;
  }
  if (i == 0) {
    m_kept.push_back(Kept{i, p, tag});
    m_previous = p;
    return;
  }
  m_window.push_back(Kept{i, p, tag});
  while (m_bucket < m_buckets && m_given == next_end(m_bucket)) finish_bucket();
  if (i + 1 == m_count) m_kept.push_back(m_window.back());  // the last point
}

// The bucket's points and its next bucket's are all here: keep the point of the largest
// triangle, as lttb_indices() does (the same sums in the same order), and drop the bucket.
void LttbStream::finish_bucket() {
  const std::size_t begin = bucket_begin(m_bucket), end = bucket_end(m_bucket);
  Point mean;
  std::size_t n = 0;
  for (const Kept& k : m_window) {
    if (k.index < end) continue;
    mean.x += k.point.x;
    mean.y += k.point.y;
    ++n;
  }
  const auto count = static_cast<double>(n);
  const Point next{mean.x / count, mean.y / count};
  const Kept* best = nullptr;
  double best_area = -1;
  for (const Kept& k : m_window) {
    if (k.index < begin || k.index >= end) continue;
    const double area = doubled_area(m_previous, k.point, next);
    if (area > best_area) {
      best_area = area;
      best = &k;
    }
  }
  if (best != nullptr) {
    m_kept.push_back(*best);
    m_previous = best->point;
  }
  m_window.erase(m_window.begin(),
                 std::find_if(m_window.begin(), m_window.end(), [&](const Kept& k) { return k.index >= end; }));
  ++m_bucket;
}

std::vector<Point> lttb(std::span<const Point> points, std::size_t threshold) {
  std::vector<Point> out;
  for (std::size_t i : lttb_indices(points, threshold)) out.push_back(points[i]);
  return out;
}

}  // namespace gpucost::report
