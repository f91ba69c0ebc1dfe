#include <gpucost/report/svg_chart.hpp>

#include <gpucost/report/html.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace gpucost::report {

namespace {

// The plot area inside an XYChart: room for the title and marker labels above, y labels left,
// x labels below.
constexpr double kLeft = 58, kRight = 14, kTitle = 22, kLabelRow = 12, kBottom = 22;
constexpr double kLabelCharPx = 6;      // width of a character of a marker label (10 px font)
constexpr double kCaptionRoomPx = 100;  // no x tick label this close to the caption
// Markers closer than this (px) with the same label are drawn as one: a storm of AER lines
// must not blow up the file.
constexpr double kMarkerMergePx = 4;
constexpr std::size_t kTitleLinesPerMarker = 6;
constexpr double kLegendCharPx = 6.2;   // width of a character of a legend name (11 px font)
constexpr double kLegendSwatchPx = 18;  // length of a legend's line swatch

std::string attr(std::string_view s) { return html_escape(s); }

struct PlotArea {
  double left, top, right, bottom;
};

PlotArea plot_area(const XYChart& c) {
  return {kLeft, kTitle + kLabelRow * c.marker_label_rows + 2, c.width - kRight, c.height - kBottom};
}

void open_svg(std::string& b, double width, double height, std::string_view title) {
  b += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" "
      "height=\"{1}\" role=\"img\" aria-label=\"{2}\">\n<title>{2}</title>\n",
      svg_number(width), svg_number(height), attr(title));
}

void chart_heading(std::string& b, const XYChart& c) {
  b += fmt::format("<text class=\"ct\" x=\"{}\" y=\"14\">{}{}</text>\n", svg_number(kLeft), attr(c.title),
                   c.y_unit.empty() ? std::string() : attr(fmt::format(" ({})", c.y_unit)));
  // Legend of the named series, right-aligned on the title line: a stroke of the series' own
  // colour (and dashes) before each name. The swatch is a line, not text: the stylesheet's grey
  // for .lg text would win over a fill attribute.
  double x = c.width - kRight;
  for (auto it = c.series.rbegin(); it != c.series.rend(); ++it) {
    if (it->name.empty()) continue;
    const double text_w = kLegendCharPx * static_cast<double>(it->name.size());
    const double swatch_end = x - text_w - 4, swatch_start = swatch_end - kLegendSwatchPx;
    b += fmt::format("<line x1=\"{}\" y1=\"10\" x2=\"{}\" y2=\"10\" stroke=\"{}\" stroke-width=\"2.5\"{}/>",
                     svg_number(swatch_start), svg_number(swatch_end), attr(it->colour),
                     it->dashed ? " stroke-dasharray=\"5 3\"" : "");
    b += fmt::format("<text class=\"lg\" x=\"{}\" y=\"14\" text-anchor=\"end\">{}</text>\n", svg_number(x),
                     attr(it->name));
    x = swatch_start - 12;
  }
}

void y_axis(std::string& b, const XYChart& c, const PlotArea& p, const LinearScale& ys) {
  for (const AxisTick& t : c.y_ticks) {
    const double y = ys(t.value);
    b += fmt::format("<line class=\"gr\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", svg_number(p.left), svg_number(y),
                     svg_number(p.right), svg_number(y));
    b += fmt::format("<text class=\"tl\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", svg_number(p.left - 4),
                     svg_number(y + 3.5), attr(t.label));
  }
}

void x_axis(std::string& b, const XYChart& c, const PlotArea& p, const LinearScale& xs) {
  b += fmt::format("<line class=\"ax\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", svg_number(p.left),
                   svg_number(p.bottom), svg_number(p.right));
  for (const AxisTick& t : c.x_ticks) {
    const double x = xs(t.value);
    b += fmt::format("<line class=\"ax\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", svg_number(x),
                     svg_number(p.bottom), svg_number(p.bottom + 4));
    if (!c.x_caption.empty() && x > p.right - kCaptionRoomPx) continue;
    b += fmt::format("<text class=\"tl\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", svg_number(x),
                     svg_number(p.bottom + 15), attr(t.label));
  }
  if (!c.x_caption.empty())
    b += fmt::format("<text class=\"tl\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", svg_number(p.right),
                     svg_number(p.bottom + 15), attr(c.x_caption));
}

/// Bands in pixels, widened to at least 1 px and merged where they touch.
std::vector<std::pair<double, double>> band_pixels(const std::vector<ChartBand>& bands, const LinearScale& xs,
                                                   const PlotArea& p) {
  std::vector<std::pair<double, double>> px;
  for (const ChartBand& band : bands) {
    double a = std::clamp(xs(band.x0), p.left, p.right), z = std::clamp(xs(band.x1), p.left, p.right);
    if (z - a < 1) z = std::min(a + 1, p.right);
    px.emplace_back(a, z);
  }
  std::sort(px.begin(), px.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& [a, z] : px) {
    if (!merged.empty() && a <= merged.back().second + 1)
      merged.back().second = std::max(merged.back().second, z);
    else
      merged.emplace_back(a, z);
  }
  return merged;
}

void bands(std::string& b, const XYChart& c, const PlotArea& p, const LinearScale& xs) {
  if (c.bands.empty()) return;
  const std::string title = c.bands.front().title;
  b += fmt::format("<g fill=\"{}\"><title>{}</title>", attr(c.band_colour), attr(title));
  for (const auto& [a, z] : band_pixels(c.bands, xs, p))
    b += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", svg_number(a), svg_number(p.top),
                     svg_number(z - a), svg_number(p.bottom - p.top));
  b += "</g>\n";
}

void rules(std::string& b, const XYChart& c, const PlotArea& p, const LinearScale& ys) {
  for (const ChartRule& r : c.rules) {
    const double y = ys(r.y);
    if (y < p.top || y > p.bottom) continue;
    b += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-dasharray=\"6 3\"/>",
                     svg_number(p.left), svg_number(y), svg_number(p.right), attr(r.colour));
    b += fmt::format("<text class=\"tl\" x=\"{}\" y=\"{}\" text-anchor=\"end\" style=\"fill:{}\">{}</text>\n",
                     svg_number(p.right - 2), svg_number(y - 3), attr(r.colour), attr(r.label));
  }
}

void series(std::string& b, const XYChart& c, const LinearScale& xs, const LinearScale& ys) {
  for (const ChartSeries& s : c.series) {
    if (s.points.empty()) continue;
    b += fmt::format("<path fill=\"none\" stroke=\"{}\" stroke-width=\"1.3\"{} d=\"{}\"/>\n", attr(s.colour),
                     s.dashed ? " stroke-dasharray=\"7 4\"" : "", svg_path(s.points, xs, ys, s.break_before));
  }
}

/// Markers sorted by x; neighbours with the same label within kMarkerMergePx become one whose
/// tooltip lists them.
struct MergedMarker {
  double px;
  const ChartMarker* first;
  std::vector<const ChartMarker*> all;
};

std::vector<MergedMarker> merge_markers(const std::vector<ChartMarker>& markers, const LinearScale& xs) {
  std::vector<const ChartMarker*> sorted;
  for (const ChartMarker& m : markers) sorted.push_back(&m);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const ChartMarker* a, const ChartMarker* b) { return a->x < b->x; });
  std::vector<MergedMarker> out;
  for (const ChartMarker* m : sorted) {
    const double px = xs(m->x);
    auto same = std::find_if(out.rbegin(), out.rend(), [&](const MergedMarker& o) {
      return o.first->label == m->label && px - o.px < kMarkerMergePx;
    });
    if (same != out.rend())
      same->all.push_back(m);
    else
      out.push_back(MergedMarker{px, m, {m}});
  }
  return out;
}

std::string marker_title(const MergedMarker& m) {
  std::string t;
  for (std::size_t i = 0; i < m.all.size() && i < kTitleLinesPerMarker; ++i) t += (i ? "\n" : "") + m.all[i]->title;
  if (m.all.size() > kTitleLinesPerMarker) t += fmt::format("\n... and {} more", m.all.size() - kTitleLinesPerMarker);
  return t;
}

/// The label row (0 = nearest the plot) of each marker: the first row where it does not overlap
/// the label before it; -1 (no label, the tooltip stays) when every row is taken.
std::vector<int> label_rows(const std::vector<MergedMarker>& merged, const std::vector<std::string>& labels, int rows) {
  std::vector<double> row_end(static_cast<std::size_t>(std::max(rows, 0)), -1e9);
  std::vector<int> out;
  for (std::size_t i = 0; i < merged.size(); ++i) {
    const double half = kLabelCharPx * static_cast<double>(labels[i].size()) / 2;
    int chosen = -1;
    for (std::size_t r = 0; r < row_end.size() && chosen < 0; ++r)
      if (merged[i].px - half > row_end[r] + 3) chosen = static_cast<int>(r);
    if (chosen >= 0) row_end[static_cast<std::size_t>(chosen)] = merged[i].px + half;
    out.push_back(chosen);
  }
  return out;
}

/// Markers as bare lines, one path per colour: the compact form for every chart but one.
void marker_lines(std::string& b, const std::vector<MergedMarker>& merged, const PlotArea& p) {
  std::map<std::string, std::string> paths;  // colour -> path data
  for (const MergedMarker& m : merged)
    paths[m.first->colour] += fmt::format("M{} {}V{}", svg_number(m.px), svg_number(p.top), svg_number(p.bottom));
  for (const auto& [colour, d] : paths)
    b += fmt::format("<path stroke=\"{}\" stroke-width=\"1.2\" d=\"{}\"/>\n", attr(colour), d);
}

void markers(std::string& b, const XYChart& c, const PlotArea& p, const LinearScale& xs) {
  std::vector<MergedMarker> merged;
  for (MergedMarker& m : merge_markers(c.markers, xs))
    if (m.px >= p.left - 0.5 && m.px <= p.right + 0.5) merged.push_back(std::move(m));
  if (c.marker_label_rows == 0) return marker_lines(b, merged, p);
  std::vector<std::string> labels;
  for (const MergedMarker& m : merged)
    labels.push_back(m.all.size() > 1 ? fmt::format("{}×{}", m.first->label, m.all.size()) : m.first->label);
  const std::vector<int> rows = label_rows(merged, labels, c.marker_label_rows);
  for (std::size_t i = 0; i < merged.size(); ++i) {
    const MergedMarker& m = merged[i];
    const std::string& colour = m.first->colour;
    const double label_y = p.top - 4 - kLabelRow * rows[i];
    b += fmt::format("<g class=\"mk\"><title>{}</title>", attr(marker_title(m)));
    b += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.2\"/>",
                     svg_number(m.px), svg_number(rows[i] < 0 ? p.top : label_y + 2), svg_number(p.bottom),
                     attr(colour));
    if (rows[i] >= 0)
      b += fmt::format("<text class=\"ml\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{}\">{}</text>",
                       svg_number(m.px), svg_number(label_y), attr(colour), attr(labels[i]));
    b += "</g>\n";
  }
}

/// The box a dot's label takes on the chart (11 px text: about 6.5 px a character, 9 px above
/// its baseline and 3 below).
struct LabelBox {
  double left = 0, top = 0, right = 0, bottom = 0;
  [[nodiscard]] bool overlaps(const LabelBox& o) const {
    return left < o.right && o.left < right && top < o.bottom && o.top < bottom;
  }
};

constexpr double kLabelCharWidth = 6.5, kLabelAscent = 9, kLabelDescent = 3, kLabelStep = 14;

std::size_t utf8_characters(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

/// Where a dot's label goes: on its side (above or below), else the other, else a row further
/// out, until it meets no label placed before it; inside the plot (a dot near the origin has no
/// room below the axis), left of the dot when the right edge is near. The baseline and left edge.
std::pair<double, double> place_label(const ChartDot& d, double x, double y, const PlotArea& p,
                                      std::vector<LabelBox>& placed) {
  const double width = kLabelCharWidth * static_cast<double>(utf8_characters(d.label));
  const double left = x + 6 + width <= p.right ? x + 6 : std::max(p.left, x - 6 - width);
  const double above = y - 8, below = y + 14;
  std::vector<double> baselines = d.label_above ? std::vector{above, below} : std::vector{below, above};
  for (int row = 1; row <= 4; ++row) {
    baselines.push_back(above - row * kLabelStep);
    baselines.push_back(below + row * kLabelStep);
  }
  const auto box_at = [&](double base) {
    return LabelBox{left, base - kLabelAscent, left + width, base + kLabelDescent};
  };
  const auto inside = [&](const LabelBox& box) { return box.top >= p.top && box.bottom <= p.bottom; };
  std::optional<double> chosen;
  for (const double base : baselines) {
    const LabelBox box = box_at(base);
    if (!inside(box)) continue;
    if (!chosen) chosen = base;  // the first that fits the plot, should every one meet a label
    if (std::none_of(placed.begin(), placed.end(), [&](const LabelBox& o) { return o.overlaps(box); })) {
      chosen = base;
      break;
    }
  }
  const double base = chosen.value_or(baselines.front());
  placed.push_back(box_at(base));
  return {base, left};
}

/// The dots, then their labels over them, each with a white halo: the lines under a label do not
/// cross its text, and two dots close together keep both labels readable.
void dots(std::string& b, const XYChart& c, const PlotArea& p, const LinearScale& xs, const LinearScale& ys) {
  for (const ChartDot& d : c.dots)
    b += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\" stroke=\"#fff\" stroke-width=\"1\"/>",
                     svg_number(xs(d.at.x)), svg_number(ys(d.at.y)), attr(d.colour));
  std::vector<LabelBox> placed;
  for (const ChartDot& d : c.dots) {
    const auto [base, left] = place_label(d, xs(d.at.x), ys(d.at.y), p, placed);
    b += fmt::format(
        "<text class=\"tl\" x=\"{}\" y=\"{}\" style=\"fill:{};stroke:#fff;stroke-width:3px;paint-order:stroke\">{}"
        "</text>\n",
        svg_number(left), svg_number(base), attr(d.colour), attr(d.label));
  }
}

std::string two_digits(unsigned v) { return fmt::format("{:02}", v); }

}  // namespace

double LinearScale::operator()(double v) const {
  if (d1 == d0) return (r0 + r1) / 2;
  return r0 + (v - d0) / (d1 - d0) * (r1 - r0);
}

std::string svg_number(double v) {
  const double rounded = std::round(v * 10) / 10;
  if (rounded == 0) return "0";  // also -0
  std::string s = fmt::format("{:.1f}", rounded);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo) || target < 1 || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * magnitude;
  std::vector<double> ticks;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1)
    ticks.push_back(k * step + 0.0);  // + 0.0: no -0
  return ticks;
}

std::string tick_label(double v) {
  if (std::fabs(v) < 1e-12) return "0";
  if (std::fabs(v) >= 10000) return fmt::format("{:g}k", std::round(v / 100) / 10);
  return fmt::format("{:.6g}", v);
}

std::string svg_path(const std::vector<Point>& points, const LinearScale& x, const LinearScale& y,
                     const std::vector<bool>& break_before) {
  std::string d;
  d.reserve(points.size() * 12);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const bool move = i == 0 || (i < break_before.size() && break_before[i]);
    d += move ? (i == 0 ? "M" : " M") : "L";
    d += svg_number(x(points[i].x));
    d += ' ';
    d += svg_number(y(points[i].y));
  }
  return d;
}

std::string render_xy_chart(const XYChart& c) {
  const PlotArea p = plot_area(c);
  const LinearScale xs{c.x0, c.x1, p.left, p.right};
  const LinearScale ys{c.y0, c.y1, p.bottom, p.top};
  std::string b;
  open_svg(b, c.width, c.height, c.title);
  chart_heading(b, c);
  bands(b, c, p, xs);
  y_axis(b, c, p, ys);
  x_axis(b, c, p, xs);
  rules(b, c, p, ys);
  series(b, c, xs, ys);
  markers(b, c, p, xs);
  dots(b, c, p, xs, ys);
  b += "</svg>\n";
  return b;
}

namespace {

/// A legend entry drawn as a coloured square before its text.
struct LegendBox {
  std::string_view label, colour;
};

/// Legend squares left to right from (x, baseline y); `char_px` is the width allowed a character.
void box_legend(std::string& b, const std::vector<LegendBox>& boxes, double x, double y, double char_px) {
  for (const LegendBox& l : boxes) {
    b += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>", svg_number(x),
                     svg_number(y - 9), attr(l.colour));
    b += fmt::format("<text class=\"lg\" x=\"{}\" y=\"{}\">{}</text>\n", svg_number(x + 14), svg_number(y),
                     attr(l.label));
    x += 30 + char_px * static_cast<double>(l.label.size());
  }
}

}  // namespace

std::string render_bar_chart(const BarChart& c) {
  constexpr double label_w = 120, row_h = 34, bar_h = 22, top = 30, axis_h = 24, legend_h = 22, right = 120;
  double total_max = std::isnan(c.reference) ? 0 : c.reference;
  for (const BarRow& r : c.rows) {
    double t = 0;
    for (const BarSegment& s : r.segments) t += std::max(0.0, s.value);
    total_max = std::max(total_max, t);
  }
  if (!(total_max > 0)) total_max = 1;
  const auto ticks = nice_ticks(0, total_max, 6);
  const double domain_max = std::max(total_max, ticks.empty() ? total_max : ticks.back());
  const double plot_bottom = top + row_h * static_cast<double>(c.rows.size());
  const double height = plot_bottom + axis_h + legend_h + 6;
  const LinearScale xs{0, domain_max, label_w, c.width - right};
  std::string b;
  open_svg(b, c.width, height, c.title);
  b += fmt::format("<text class=\"ct\" x=\"{}\" y=\"14\">{}{}</text>\n", svg_number(label_w), attr(c.title),
                   c.unit.empty() ? std::string() : attr(fmt::format(" ({})", c.unit)));
  for (double t : ticks) {
    const double x = xs(t);
    b += fmt::format("<line class=\"gr\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", svg_number(x), svg_number(top),
                     svg_number(plot_bottom));
    b += fmt::format("<text class=\"tl\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", svg_number(x),
                     svg_number(plot_bottom + 15), tick_label(t));
  }
  std::vector<const BarSegment*> legend;
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const BarRow& r = c.rows[i];
    const double y = top + row_h * static_cast<double>(i) + (row_h - bar_h) / 2;
    b += fmt::format("<text class=\"rl\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", svg_number(label_w - 8),
                     svg_number(y + bar_h / 2 + 4), attr(r.label));
    double at = 0;
    for (const BarSegment& s : r.segments) {
      const double v = std::max(0.0, s.value);
      b += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>\n",
                       svg_number(xs(at)), svg_number(y), svg_number(xs(at + v) - xs(at)), svg_number(bar_h),
                       attr(s.colour), attr(fmt::format("{}: {:.2f} {}", s.label, s.value, c.unit)));
      at += v;
      if (std::none_of(legend.begin(), legend.end(), [&](const BarSegment* l) { return l->label == s.label; }))
        legend.push_back(&s);
    }
    b += fmt::format("<text class=\"tl\" x=\"{}\" y=\"{}\">{:.2f} {}</text>\n", svg_number(xs(at) + 6),
                     svg_number(y + bar_h / 2 + 4), at, attr(c.unit));
  }
  if (!std::isnan(c.reference)) {
    const double x = xs(c.reference);
    b += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#b00020\" stroke-dasharray=\"5 3\" "
        "stroke-width=\"1.5\"/>",
        svg_number(x), svg_number(top - 4), svg_number(plot_bottom));
    b += fmt::format("<text class=\"tl\" x=\"{}\" y=\"{}\" style=\"fill:#b00020\">{}</text>\n", svg_number(x + 4),
                     svg_number(top - 6), attr(c.reference_label));
  }
  std::vector<LegendBox> boxes;
  for (const BarSegment* s : legend) boxes.push_back(LegendBox{s->label, s->colour});
  box_legend(b, boxes, label_w, plot_bottom + axis_h + 12, 7.0);
  b += "</svg>\n";
  return b;
}

namespace {

constexpr double kStripLabelW = 150, kStripRowH = 26, kStripBarH = 18, kStripTop = 24;

/// A row's bins, runs of one state as one rect each (a tooltip names the state and its stretch).
void strip_row(std::string& b, const StripChart& c, const StripRow& r, const LinearScale& xs, double y) {
  b += fmt::format("<text class=\"rl\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", svg_number(kStripLabelW - 8),
                   svg_number(y + kStripBarH / 2 + 4), attr(r.label));
  const double bin = (r.x1 - r.x0) / static_cast<double>(std::max<std::size_t>(r.bins.size(), 1));
  for (std::size_t i = 0; i < r.bins.size();) {
    std::size_t j = i;
    while (j < r.bins.size() && r.bins[j] == r.bins[i]) ++j;
    const auto state =
        std::find_if(c.states.begin(), c.states.end(), [&](const StripState& s) { return s.code == r.bins[i]; });
    if (state != c.states.end()) {
      const double from = r.x0 + bin * static_cast<double>(i), to = r.x0 + bin * static_cast<double>(j);
      b += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>\n",
                       svg_number(xs(from)), svg_number(y), svg_number(xs(to) - xs(from)), svg_number(kStripBarH),
                       attr(state->colour),
                       attr(fmt::format("{}: {}, {:.2f} .. {:.2f} {}", r.label, state->label, from, to, c.x_caption)));
    }
    i = j;
  }
}

}  // namespace

std::string render_strip_chart(const StripChart& c) {
  constexpr double axis_h = 30, legend_h = 22, right = 20;
  const double plot_bottom = kStripTop + kStripRowH * static_cast<double>(c.rows.size());
  const double height = plot_bottom + axis_h + legend_h;
  const LinearScale xs{0, c.x1 > 0 ? c.x1 : 1, kStripLabelW, c.width - right};
  std::string b;
  open_svg(b, c.width, height, c.title);
  b += fmt::format("<text class=\"ct\" x=\"{}\" y=\"14\">{}</text>\n", svg_number(kStripLabelW), attr(c.title));
  for (const AxisTick& t : c.x_ticks) {
    const double x = xs(t.value);
    b += fmt::format("<line class=\"gr\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", svg_number(x),
                     svg_number(kStripTop - 2), svg_number(plot_bottom));
    b += fmt::format("<text class=\"tl\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", svg_number(x),
                     svg_number(plot_bottom + 14), attr(t.label));
  }
  for (std::size_t i = 0; i < c.rows.size(); ++i)
    strip_row(b, c, c.rows[i], xs, kStripTop + kStripRowH * static_cast<double>(i) + (kStripRowH - kStripBarH) / 2);
  b += fmt::format("<text class=\"tl\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", svg_number(c.width - right),
                   svg_number(plot_bottom + 28), attr(c.x_caption));
  std::vector<LegendBox> boxes;
  for (const StripState& s : c.states) boxes.push_back(LegendBox{s.label, s.colour});
  box_legend(b, boxes, kStripLabelW, plot_bottom + axis_h + 12, kLegendCharPx);
  b += "</svg>\n";
  return b;
}

std::vector<AxisTick> time_ticks(std::int64_t from_ns, double span_s, int target) {
  static constexpr std::array<double, 20> kSteps = {1,   2,    5,    10,   15,    30,    60,    120,   300,    600,
                                                    900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800};
  std::vector<AxisTick> ticks;
  if (!(span_s > 0) || target < 1) return ticks;
  double step = kSteps.back();
  for (double s : kSteps)
    if (s >= span_s / target) {
      step = s;
      break;
    }
  const double from_s = static_cast<double>(from_ns) / 1e9;
  const bool with_date = span_s > 86400;
  for (double t = std::ceil(from_s / step) * step; t <= from_s + span_s + 1e-6; t += step) {
    using namespace std::chrono;
    const sys_seconds at{seconds{static_cast<std::int64_t>(t)}};
    const auto day = floor<days>(at);
    const year_month_day ymd{day};
    const hh_mm_ss hms{at - day};
    std::string label = with_date ? fmt::format("{}-{} ", two_digits(static_cast<unsigned>(ymd.month())),
                                                two_digits(static_cast<unsigned>(ymd.day())))
                                  : std::string();
    label += fmt::format("{}:{}", two_digits(static_cast<unsigned>(hms.hours().count())),
                         two_digits(static_cast<unsigned>(hms.minutes().count())));
    if (step < 60) label += fmt::format(":{}", two_digits(static_cast<unsigned>(hms.seconds().count())));
    ticks.push_back(AxisTick{t - from_s, std::move(label)});
  }
  return ticks;
}

}  // namespace gpucost::report
