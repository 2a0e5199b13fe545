// MeasurementText: lengths and areas of the measurement tools (ruler, ROI area) as text, in the
// SI unit that suits their size, so an electron-tomography ruler reads "42.5 nm" rather than
// "4.25e-05 mm" (reference/ux-review-2026-11.md 9.9). Plain std::string: the slice overlays and
// the measurement table share it.
#pragma once

#include <string>

namespace tomowb::metrics {

// Four significant digits below 1000, whole units above: "12.35 mm", "0.5 mm", "35 µm",
// "42.5 nm", "1234 mm" (no metres: CT users read mm). A smaller prefix takes over below 0.1 of
// the larger unit. "-" for a length that is not finite.
std::string lengthText(double mm);

// An area in mm², µm² or nm², the unit chosen by the same rule on its square root, digits as
// above: "123.4 mm²", "0.25 mm²", "350 µm²", "12000 nm²".
std::string areaText(double mm2);

}  // namespace tomowb::metrics
