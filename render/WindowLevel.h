// WindowLevel: window/level (width and centre of the displayed grey range) and the presets of
// reference/ux-and-robustness.md, section 1.3: fixed CT presets in HU (soft tissue 400/40, lung
// 1500/-600, bone 2500/480, brain 80/40), data-driven presets for unit-less output (0.1-99.9 %
// percentile as Slicer, mean +- 3 sigma, full range) and a zero-centred "difference" preset for
// kernel QA. The data-driven presets are computed from a VolumeStatistics (one pass over the
// voxels, NaN and Inf skipped, with a fine histogram for percentiles). The preset list is
// user-editable and persisted with QSettings (group "windowLevel").
#pragma once

#include <QString>
#include <cstdint>
#include <span>
#include <vector>

class QSettings;

namespace tomowb::render {

struct WindowLevel {
  double window = 1.0;  // width of the displayed range (> 0)
  double level = 0.5;   // centre of the displayed range
  double lower() const noexcept { return level - 0.5 * window; }
  double upper() const noexcept { return level + 0.5 * window; }
  static WindowLevel fromRange(double lower, double upper);
  bool operator==(const WindowLevel&) const = default;
};

// Summary of the finite voxels of a volume (or any float data).
struct VolumeStatistics {
  std::int64_t finiteCount = 0;
  double min = 0.0, max = 0.0, mean = 0.0, stddev = 0.0;
  // counts[i] holds the values in [min + i*binWidth, min + (i+1)*binWidth) (the last bin
  // includes max).
  std::vector<std::int64_t> counts;
  double binWidth = 0.0;

  // The value below which `percent` % of the finite values lie, interpolated linearly inside
  // its histogram bin (exact to one bin width). 0 -> min, 100 -> max.
  double percentile(double percent) const;
};

// One pass over the data (parallel). Non-finite values are not counted. `bins` >= 1. Above
// 2^22 values an evenly strided sample of 2^22 of them is used (counts and finiteCount are
// then those of the sample).
VolumeStatistics computeStatistics(std::span<const float> values, int bins = 4096);

enum class WindowLevelMethod {
  Fixed,       // window/level as given (CT presets in HU, user presets)
  Percentile,  // lowPercent..highPercent of the histogram
  MeanSigma,   // mean +- sigmas * stddev
  FullRange,   // min..max
  Difference,  // zero-centred: level 0, window 2 * max(|p(low)|, |p(high)|)
};

struct WindowLevelPreset {
  QString name;
  WindowLevelMethod method = WindowLevelMethod::Fixed;
  double window = 1.0, level = 0.0;             // Fixed
  double lowPercent = 0.1, highPercent = 99.9;  // Percentile, Difference
  double sigmas = 3.0;                          // MeanSigma
  // A Fixed window/level in Hounsfield units (the CT presets): it applies only to data shown in
  // HU, and its numbers are converted to the stored values (ViewArea).
  bool hounsfield = false;
  bool operator==(const WindowLevelPreset&) const = default;
};

// The built-in list, in menu order: the data-driven presets first (the 0.1-99.9 % percentile is
// the default), then the CT presets in HU.
std::vector<WindowLevelPreset> builtinWindowLevelPresets();

// The preset's window/level for data with these statistics. A degenerate range (constant data,
// no finite voxel) gives a window of 1 around the value, never 0.
WindowLevel applyPreset(const WindowLevelPreset& preset, const VolumeStatistics& statistics);

// The default W/L of a volume without one in its header: the 0.1-99.9 % percentile.
WindowLevel defaultWindowLevel(const VolumeStatistics& statistics);

// The user's list from settings group "windowLevel" (array "presets"), or the built-in list
// when none was saved.
std::vector<WindowLevelPreset> loadWindowLevelPresets(QSettings& settings);
void saveWindowLevelPresets(QSettings& settings, const std::vector<WindowLevelPreset>& presets);

QString methodKey(WindowLevelMethod method);

}  // namespace tomowb::render
