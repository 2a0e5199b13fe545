// EmissionTable: the alias table draws voxels in proportion to their activity.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "recon/core/Error.h"
#include "recon/core/VolumeGrid.h"
#include "recon/pet/EmissionTable.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

TEST(EmissionTable, DrawsVoxelsInProportionToActivity) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  Volume activity = VolumeGrid::centred({5, 4, 3}, Eigen::Vector3d(2, 2, 2)).makeVolume();
  std::uniform_real_distribution<float> value(0.0f, 10.0f);
  for (float& v : activity.voxels()) v = value(rng) < 3.0f ? 0.0f : value(rng);
  activity.at(2, 2, 2) = 50.0f;
  const EmissionTable table = buildEmissionTable(activity);
  double total = 0;
  for (float v : activity.voxels()) total += v;
  EXPECT_NEAR(table.totalActivityBq, total * 8e-3, 1e-9 * total);
  std::vector<double> counts(std::size_t(activity.voxelCount()), 0.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int draws = 2000000;
  for (int i = 0; i < draws; ++i) counts[std::size_t(table.pick(u(rng), u(rng)))] += 1;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double expected = draws * activity.voxels()[i] / total;
    if (expected == 0) {
      EXPECT_EQ(counts[i], 0) << "voxel " << i << " has no activity";
      continue;
    }
    EXPECT_NEAR(counts[i], expected, 5 * std::sqrt(expected) + 1) << "voxel " << i;
  }
}

TEST(EmissionTable, RefusesMapsWithoutActivityOrWithNegativeValues) {
  Volume activity = VolumeGrid::centred({2, 2, 2}, Eigen::Vector3d::Ones()).makeVolume();
  EXPECT_THROW(buildEmissionTable(activity), ParameterError);
  activity.at(1, 1, 1) = -2;
  EXPECT_THROW(buildEmissionTable(activity), ParameterError);
  activity.at(1, 1, 1) = std::nanf("");
  EXPECT_THROW(buildEmissionTable(activity), ParameterError);
}

}  // namespace
}  // namespace tomowb::pet
