// WindowLevel: statistics and presets on data with known answers; presets persist in QSettings.
#include <gtest/gtest.h>

#include <QSettings>
#include <QTemporaryDir>
#include <cmath>
#include <limits>
#include <vector>

#include "render/WindowLevel.h"

namespace tomowb::render {
namespace {

// 0, 1, ..., 9999: every percentile p is 99.99 * p (to one bin).
std::vector<float> ramp() {
  std::vector<float> v(10000);
  for (int i = 0; i < 10000; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(WindowLevel, StatisticsOfARamp) {
  const auto s = computeStatistics(ramp());
  EXPECT_EQ(s.finiteCount, 10000);
  EXPECT_EQ(s.min, 0.0);
  EXPECT_EQ(s.max, 9999.0);
  EXPECT_NEAR(s.mean, 4999.5, 1e-9);
  // Population standard deviation of 0..N-1: sqrt((N^2 - 1) / 12).
  EXPECT_NEAR(s.stddev, std::sqrt((1e8 - 1) / 12.0), 1e-6);
  const double bin = 9999.0 / 4096;
  EXPECT_NEAR(s.percentile(0.1), 10.0, bin);
  EXPECT_NEAR(s.percentile(50.0), 5000.0, bin);
  EXPECT_NEAR(s.percentile(99.9), 9990.0, bin);
  EXPECT_EQ(s.percentile(0.0), 0.0);
  EXPECT_EQ(s.percentile(100.0), 9999.0);
}

TEST(WindowLevel, PercentilePresetIgnoresOutliersAndNonFiniteValues) {
  std::vector<float> v = ramp();
  v[0] = -1e6f;  // one outlier in 10000 is below 0.1 %
  v[1] = std::numeric_limits<float>::quiet_NaN();
  v[2] = std::numeric_limits<float>::infinity();
  const auto s = computeStatistics(v);
  EXPECT_EQ(s.finiteCount, 9998);
  const WindowLevel wl = defaultWindowLevel(s);
  const double bin = (9999.0 + 1e6) / 4096;
  EXPECT_NEAR(wl.lower(), 12.0, bin);
  EXPECT_NEAR(wl.upper(), 9990.0, bin);
}

TEST(WindowLevel, MeanSigmaFullRangeAndDifferencePresets) {
  // Half the values -1, half +3: mean 1, sigma 2.
  std::vector<float> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i % 2 == 0 ? -1.0f : 3.0f;
  const auto s = computeStatistics(v);
  EXPECT_NEAR(s.mean, 1.0, 1e-12);
  EXPECT_NEAR(s.stddev, 2.0, 1e-12);
  WindowLevelPreset meanSigma{"m", WindowLevelMethod::MeanSigma};
  const WindowLevel ms = applyPreset(meanSigma, s);
  EXPECT_NEAR(ms.lower(), -5.0, 1e-9);
  EXPECT_NEAR(ms.upper(), 7.0, 1e-9);
  const WindowLevel full = applyPreset({"f", WindowLevelMethod::FullRange}, s);
  EXPECT_NEAR(full.lower(), -1.0, 1e-12);
  EXPECT_NEAR(full.upper(), 3.0, 1e-12);
  const WindowLevel diff = applyPreset({"d", WindowLevelMethod::Difference}, s);
  EXPECT_EQ(diff.level, 0.0);
  EXPECT_NEAR(diff.window, 6.0, 4.0 / 4096 * 2);  // +-max(|p0.1|, |p99.9|) = +-3
  const WindowLevel bone = applyPreset(builtinWindowLevelPresets()[7], s);
  EXPECT_EQ(bone, (WindowLevel{2500, 480}));
}

TEST(WindowLevel, ConstantOrEmptyDataGivesAUsableWindow) {
  const std::vector<float> constant(100, 5.0f);
  const WindowLevel wl = defaultWindowLevel(computeStatistics(constant));
  EXPECT_GT(wl.window, 0.0);
  EXPECT_EQ(wl.level, 5.0);
  const WindowLevel none = defaultWindowLevel(computeStatistics({}));
  EXPECT_GT(none.window, 0.0);
}

TEST(WindowLevel, PresetsRoundTripThroughQSettings) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  QSettings settings(dir.filePath("presets.ini"), QSettings::IniFormat);
  EXPECT_EQ(loadWindowLevelPresets(settings), builtinWindowLevelPresets());
  auto presets = builtinWindowLevelPresets();
  presets.push_back({"My liver", WindowLevelMethod::Fixed, 150, 90});
  presets.erase(presets.begin() + 1);
  saveWindowLevelPresets(settings, presets);
  settings.sync();
  QSettings again(dir.filePath("presets.ini"), QSettings::IniFormat);
  EXPECT_EQ(loadWindowLevelPresets(again), presets);
}

}  // namespace
}  // namespace tomowb::render
