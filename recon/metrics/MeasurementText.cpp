// MeasurementText: see the header.
#include "recon/metrics/MeasurementText.h"

#include <cmath>
#include <cstdio>

namespace tomowb::metrics {

namespace {

struct Prefix {
  double perMm;  // units per mm
  const char* name;
};
constexpr Prefix kMillimetre{1.0, "mm"};
constexpr Prefix kMicrometre{1e3, "\u00b5m"};
constexpr Prefix kNanometre{1e6, "nm"};

// The unit for a length of this size: mm down to 0.1 mm, µm down to 0.1 µm, then nm.
Prefix prefixFor(double lengthMm) {
  const double magnitude = std::abs(lengthMm);
  if (magnitude == 0.0 || magnitude >= 0.1) return kMillimetre;
  return magnitude >= 1e-4 ? kMicrometre : kNanometre;
}

std::string format(double value, const char* unit, const char* suffix) {
  char text[64];
  std::snprintf(text, sizeof text, std::abs(value) < 1000.0 ? "%.4g %s%s" : "%.0f %s%s", value,
                unit, suffix);
  return text;
}

}  // namespace

std::string lengthText(double mm) {
  if (!std::isfinite(mm)) return "-";
  const Prefix p = prefixFor(mm);
  return format(mm * p.perMm, p.name, "");
}

std::string areaText(double mm2) {
  if (!std::isfinite(mm2)) return "-";
  const Prefix p = prefixFor(std::sqrt(std::abs(mm2)));
  return format(mm2 * p.perMm * p.perMm, p.name, "\u00b2");
}

}  // namespace tomowb::metrics
