// WindowLevel: see the header. Statistics use a fixed-bin histogram between min and max; 4096
// bins put the percentile within 1/4096 of the range, well below a grey level of an 8-bit
// display.
#include "render/WindowLevel.h"

#include <QSettings>
#include <algorithm>
#include <cmath>
#include <limits>

namespace tomowb::render {

WindowLevel WindowLevel::fromRange(double lower, double upper) {
  if (!(upper > lower)) {
    const double centre = std::isfinite(lower) ? lower : 0.0;
    return {1.0, centre};
  }
  return {upper - lower, 0.5 * (lower + upper)};
}

double VolumeStatistics::percentile(double percent) const {
  if (finiteCount == 0) return 0.0;
  if (percent <= 0.0 || !(max > min)) return min;
  if (percent >= 100.0) return max;
  const double target = percent / 100.0 * static_cast<double>(finiteCount);
  double cumulative = 0.0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double next = cumulative + static_cast<double>(counts[i]);
    if (next >= target && counts[i] > 0) {
      const double fraction = (target - cumulative) / static_cast<double>(counts[i]);
      return min + (static_cast<double>(i) + fraction) * binWidth;
    }
    cumulative = next;
  }
  return max;
}

VolumeStatistics computeStatistics(std::span<const float> allValues, int bins) {
  VolumeStatistics s;
  bins = std::max(bins, 1);
  // Window/level and histograms need the distribution, not every voxel: above kMaxSamples the
  // statistics come from an evenly strided sample. A 512^3 volume then costs ~10 ms instead of
  // ~150 ms on the GUI thread (two cores), which matters when a run's first preview arrives.
  // 2^20 samples put the 0.1 % tails on a thousand values each.
  constexpr std::size_t kMaxSamples = std::size_t{1} << 20;
  std::vector<float> sample;
  std::span<const float> values = allValues;
  if (allValues.size() > kMaxSamples) {
    const std::size_t stride = (allValues.size() + kMaxSamples - 1) / kMaxSamples;
    const auto count = static_cast<std::int64_t>((allValues.size() + stride - 1) / stride);
    sample.resize(static_cast<std::size_t>(count));
    // In parallel: the strided reads touch a cache line per sample (512 MiB for 512^3).
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < count; ++k)
      sample[static_cast<std::size_t>(k)] = allValues[static_cast<std::size_t>(k) * stride];
    values = sample;
  }
  const std::int64_t n = static_cast<std::int64_t>(values.size());
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  double sum = 0.0;
  std::int64_t count = 0;
#pragma omp parallel for reduction(min : lo) reduction(max : hi) reduction(+ : sum, count)
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = values[static_cast<std::size_t>(i)];
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, static_cast<double>(v));
    hi = std::max(hi, static_cast<double>(v));
    sum += v;
    ++count;
  }
  s.finiteCount = count;
  s.counts.assign(static_cast<std::size_t>(bins), 0);
  if (count == 0) return s;
  s.min = lo;
  s.max = hi;
  s.mean = sum / static_cast<double>(count);
  s.binWidth = hi > lo ? (hi - lo) / bins : 1.0;
  const double mean = s.mean, scale = 1.0 / s.binWidth;
  double squares = 0.0;
  std::vector<std::int64_t>& counts = s.counts;
#pragma omp parallel reduction(+ : squares)
  {
    std::vector<std::int64_t> local(static_cast<std::size_t>(bins), 0);
#pragma omp for nowait
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = values[static_cast<std::size_t>(i)];
      if (!std::isfinite(v)) continue;
      const double d = v - mean;
      squares += d * d;
      const auto bin =
          std::min<std::int64_t>(static_cast<std::int64_t>((v - lo) * scale), bins - 1);
      ++local[static_cast<std::size_t>(bin)];
    }
#pragma omp critical
    for (int b = 0; b < bins; ++b)
      counts[static_cast<std::size_t>(b)] += local[static_cast<std::size_t>(b)];
  }
  s.stddev = std::sqrt(squares / static_cast<double>(count));
  return s;
}

std::vector<WindowLevelPreset> builtinWindowLevelPresets() {
  using M = WindowLevelMethod;
  return {
      {"Percentile 0.1-99.9 %", M::Percentile, 1, 0, 0.1, 99.9, 3},
      {"Percentile 1-99 %", M::Percentile, 1, 0, 1.0, 99.0, 3},
      {"Mean \u00b1 3\u03c3", M::MeanSigma, 1, 0, 0.1, 99.9, 3},
      {"Full range", M::FullRange, 1, 0, 0.1, 99.9, 3},
      {"Difference (zero-centred)", M::Difference, 1, 0, 0.1, 99.9, 3},
      {"CT soft tissue 400/40", M::Fixed, 400, 40, 0.1, 99.9, 3, true},
      {"CT lung 1500/-600", M::Fixed, 1500, -600, 0.1, 99.9, 3, true},
      {"CT bone 2500/480", M::Fixed, 2500, 480, 0.1, 99.9, 3, true},
      {"CT brain 80/40", M::Fixed, 80, 40, 0.1, 99.9, 3, true},
  };
}

WindowLevel applyPreset(const WindowLevelPreset& preset, const VolumeStatistics& statistics) {
  switch (preset.method) {
    case WindowLevelMethod::Fixed:
      return {preset.window > 0.0 ? preset.window : 1.0, preset.level};
    case WindowLevelMethod::Percentile:
      return WindowLevel::fromRange(statistics.percentile(preset.lowPercent),
                                    statistics.percentile(preset.highPercent));
    case WindowLevelMethod::MeanSigma:
      return WindowLevel::fromRange(statistics.mean - preset.sigmas * statistics.stddev,
                                    statistics.mean + preset.sigmas * statistics.stddev);
    case WindowLevelMethod::FullRange:
      return WindowLevel::fromRange(statistics.min, statistics.max);
    case WindowLevelMethod::Difference: {
      const double extent = std::max(std::abs(statistics.percentile(preset.lowPercent)),
                                     std::abs(statistics.percentile(preset.highPercent)));
      return {extent > 0.0 ? 2.0 * extent : 1.0, 0.0};
    }
  }
  return {};
}

WindowLevel defaultWindowLevel(const VolumeStatistics& statistics) {
  return applyPreset(builtinWindowLevelPresets().front(), statistics);
}

QString methodKey(WindowLevelMethod method) {
  switch (method) {
    case WindowLevelMethod::Fixed:
      return "fixed";
    case WindowLevelMethod::Percentile:
      return "percentile";
    case WindowLevelMethod::MeanSigma:
      return "meanSigma";
    case WindowLevelMethod::FullRange:
      return "fullRange";
    case WindowLevelMethod::Difference:
      return "difference";
  }
  return "fixed";
}

namespace {
WindowLevelMethod methodFromKey(const QString& key) {
  for (auto m :
       {WindowLevelMethod::Fixed, WindowLevelMethod::Percentile, WindowLevelMethod::MeanSigma,
        WindowLevelMethod::FullRange, WindowLevelMethod::Difference})
    if (methodKey(m) == key) return m;
  return WindowLevelMethod::Fixed;
}
}  // namespace

std::vector<WindowLevelPreset> loadWindowLevelPresets(QSettings& settings) {
  settings.beginGroup("windowLevel");
  const int n = settings.beginReadArray("presets");
  std::vector<WindowLevelPreset> presets;
  for (int i = 0; i < n; ++i) {
    settings.setArrayIndex(i);
    WindowLevelPreset p;
    p.name = settings.value("name").toString();
    p.method = methodFromKey(settings.value("method").toString());
    p.window = settings.value("window", 1.0).toDouble();
    p.level = settings.value("level", 0.0).toDouble();
    p.lowPercent = settings.value("lowPercent", 0.1).toDouble();
    p.highPercent = settings.value("highPercent", 99.9).toDouble();
    p.sigmas = settings.value("sigmas", 3.0).toDouble();
    // Lists saved before the flag existed: their CT presets are the built-in ones, named "CT ...".
    p.hounsfield =
        settings
            .value("hounsfield", p.method == WindowLevelMethod::Fixed && p.name.startsWith("CT "))
            .toBool();
    if (!p.name.isEmpty()) presets.push_back(p);
  }
  settings.endArray();
  settings.endGroup();
  if (presets.empty()) presets = builtinWindowLevelPresets();
  return presets;
}

void saveWindowLevelPresets(QSettings& settings, const std::vector<WindowLevelPreset>& presets) {
  settings.beginGroup("windowLevel");
  settings.remove("presets");
  settings.beginWriteArray("presets", static_cast<int>(presets.size()));
  for (int i = 0; i < static_cast<int>(presets.size()); ++i) {
    const WindowLevelPreset& p = presets[static_cast<std::size_t>(i)];
    settings.setArrayIndex(i);
    settings.setValue("name", p.name);
    settings.setValue("method", methodKey(p.method));
    settings.setValue("window", p.window);
    settings.setValue("level", p.level);
    settings.setValue("lowPercent", p.lowPercent);
    settings.setValue("highPercent", p.highPercent);
    settings.setValue("sigmas", p.sigmas);
    settings.setValue("hounsfield", p.hounsfield);
  }
  settings.endArray();
  settings.endGroup();
}

}  // namespace tomowb::render
