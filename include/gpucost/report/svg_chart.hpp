// Inline SVG charts for the HTML report, written as XML (every tag closed, attributes quoted)
// so the page parses as XHTML too. Coordinates are rounded to 0.1 px: deterministic output and
// small files.
#pragma once

#include <gpucost/report/lttb.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::report {

/// Maps [d0, d1] linearly onto [r0, r1]; a zero-width domain maps to the middle of the range.
struct LinearScale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  [[nodiscard]] double operator()(double v) const;
};

/// "12.3": one decimal, no "-0.0", no trailing ".0".
std::string svg_number(double v);

/// Round tick values (steps of 1, 2 or 5 x 10^k) covering [lo, hi], about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target);

/// A tick label: "0.25", "12", "1.5k".
std::string tick_label(double v);

/// The path data of a polyline: "M x y L x y ...", starting a new "M" at every i with
/// break_before[i] true (a gap in the data is not drawn across). `break_before` may be empty.
std::string svg_path(const std::vector<Point>& points, const LinearScale& x, const LinearScale& y,
                     const std::vector<bool>& break_before = {});

struct ChartSeries {
  std::string name;
  std::string colour;  ///< CSS colour
  std::vector<Point> points;
  std::vector<bool> break_before;
  bool dashed = false;
};

/// A shaded stretch of x (throttling), in data units.
struct ChartBand {
  double x0 = 0, x1 = 0;
  std::string title;
};

/// A vertical line with a short label above the plot and a tooltip (an event, T*).
struct ChartMarker {
  double x = 0;
  std::string label, title, colour;
};

/// A horizontal line across the plot (the temperature threshold).
struct ChartRule {
  double y = 0;
  std::string label, colour;
};

/// A labelled point (a crossing).
struct ChartDot {
  Point at;
  std::string label, colour;
  bool label_above = false;  ///< else below: two dots close together keep their labels apart
};

struct AxisTick {
  double value = 0;
  std::string label;
};

/// An x-y chart: axes with ticks and grid, series, bands, rules, markers and dots.
struct XYChart {
  std::string title, y_unit, x_caption;
  double width = 1200, height = 170;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;  ///< the data domain
  std::vector<AxisTick> x_ticks, y_ticks;
  std::vector<ChartSeries> series;
  std::vector<ChartBand> bands;
  std::vector<ChartRule> rules;
  std::vector<ChartMarker> markers;
  std::vector<ChartDot> dots;
  std::string band_colour = "#f4a26155";
  /// Rows of marker labels above the plot, each marker with its tooltip; 0 = bare lines (small
  /// files: the events are the same on every chart of a report).
  int marker_label_rows = 1;
};

std::string render_xy_chart(const XYChart& chart);

/// One segment of a horizontal stacked bar.
struct BarSegment {
  std::string label;
  double value = 0;
  std::string colour;
};

struct BarRow {
  std::string label;
  std::vector<BarSegment> segments;
};

/// Horizontal stacked bars on one value axis, with an optional dashed reference line.
struct BarChart {
  std::string title, unit;
  double width = 1200;
  std::vector<BarRow> rows;
  double reference = std::numeric_limits<double>::quiet_NaN();  ///< NaN = none
  std::string reference_label;
};

std::string render_bar_chart(const BarChart& chart);

/// A state of the strips: the character that stands for it, its legend text and colour.
struct StripState {
  char code = '.';
  std::string label, colour;
};

/// One row of a strip chart: equal bins from x0 to x1 (data units), one state character each.
struct StripRow {
  std::string label;
  double x0 = 0, x1 = 0;
  std::string bins;
};

/// Rows of coloured bins on one x axis from 0 to x1 (a distributed job's ranks over time), with
/// a legend of the states; a bin whose character is no state is left blank.
struct StripChart {
  std::string title, x_caption;
  double width = 1200;
  double x1 = 1;
  std::vector<AxisTick> x_ticks;
  std::vector<StripState> states;
  std::vector<StripRow> rows;
};

std::string render_strip_chart(const StripChart& chart);

/// Time ticks for a window of `span_s` seconds starting at `from_ns`: round UTC times
/// ("14:30", "06-12 00:00" past a day), as seconds since `from_ns`.
std::vector<AxisTick> time_ticks(std::int64_t from_ns, double span_s, int target);

}  // namespace gpucost::report
