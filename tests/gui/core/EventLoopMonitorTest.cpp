// The responsiveness figures' percentile (responsiveness.json, issue #21 point 11): nearest rank,
// whatever the order of the samples.
#include <gtest/gtest.h>

#include <vector>

#include "gui/core/EventLoopMonitor.h"

namespace tomowb::gui {
namespace {

TEST(EventLoopMonitor, NearestRankPercentileOfUnsortedSamples) {
  EXPECT_EQ(nearestRankPercentile({}, 99), 0.0);
  const std::vector<double> v = {7, 1, 10, 3, 5, 2, 9, 4, 8, 6};
  EXPECT_EQ(nearestRankPercentile(v, 50), 5.0);
  EXPECT_EQ(nearestRankPercentile(v, 95), 10.0);
  EXPECT_EQ(nearestRankPercentile(v, 90), 9.0);
  EXPECT_EQ(nearestRankPercentile(v, 0), 1.0);
  EXPECT_EQ(nearestRankPercentile(v, 100), 10.0);
  EXPECT_EQ(nearestRankPercentile({42}, 99.9), 42.0);
}

}  // namespace
}  // namespace tomowb::gui
