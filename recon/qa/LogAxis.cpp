#include "recon/qa/LogAxis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tomowb::qa {

std::string logTickLabel(double value) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", value);
  return b;
}

LogAxis logAxisFor(const std::vector<double>& values) {
  double smallest = INFINITY, largest = 0;
  for (double v : values)
    if (std::isfinite(v) && v > 0) smallest = std::min(smallest, v), largest = std::max(largest, v);
  LogAxis axis;
  if (!(largest > 0)) smallest = largest = 1;  // nothing to show: 0.1 .. 10
  // Decades as integers, so a value on a decade (1e-12) gets the decades on both sides.
  int first = static_cast<int>(std::floor(std::log10(smallest) + 1e-9));
  int last = static_cast<int>(std::ceil(std::log10(largest) - 1e-9));
  if (std::pow(10.0, first) > smallest) --first;  // rounding at the edge
  if (std::pow(10.0, last) < largest) ++last;
  if (last - first < 1) --first, ++last;  // every value on one decade: one decade each side
  if (last - first < 2 && smallest == largest) {
    // A single value inside a decade: keep it off the edges.
    if (smallest / std::pow(10.0, first) < 2) --first;
    if (std::pow(10.0, last) / largest < 2) ++last;
  }
  axis.lo = std::pow(10.0, first);
  axis.hi = std::pow(10.0, last);
  const int decades = last - first;
  const int step = std::max(1, (decades + 5) / 6);  // at most about 7 decade ticks
  for (int d = first; d <= last; d += step) {
    const double decade = std::pow(10.0, d);
    axis.ticks.push_back(decade);
    if (decades <= 1 && d < last)
      for (double m : {2.0, 5.0}) axis.ticks.push_back(m * decade);
  }
  std::sort(axis.ticks.begin(), axis.ticks.end());
  for (double t : axis.ticks) axis.labels.push_back(logTickLabel(t));
  return axis;
}

}  // namespace tomowb::qa
