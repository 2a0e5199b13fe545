// LogAxis: the range and ticks of a logarithmic chart axis, for the QA reports' SVG charts
// (QaReport) and the window's charts (render/ChartView). It survives degenerate data: every value
// equal, a single value, or none positive still give a range of at least one decade around the
// values, ticks inside the range in increasing order, and labels in the data's own units ("0.05",
// "1e-12"), never in log10 units.
#pragma once

#include <string>
#include <vector>

namespace tomowb::qa {

struct LogAxis {
  double lo = 0.1, hi = 10;   // the axis range (lo < hi, both > 0)
  std::vector<double> ticks;  // in [lo, hi], increasing
  std::vector<std::string> labels;
};

// The axis for these values (non-positive and non-finite ones are ignored): from the decade at or
// below the smallest to the decade at or above the largest, widened to at least one decade; ticks
// at the decades (every k-th when there are many), with 2 and 5 between them over one decade.
LogAxis logAxisFor(const std::vector<double>& values);

// A tick label: "%g" with 3 significant digits ("0.05", "2e-13", "1").
std::string logTickLabel(double value);

}  // namespace tomowb::qa
