#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "recon/core/Error.h"
#include "recon/phantom/CnrPhantom.h"
#include "recon/phantom/Voxelise.h"

namespace tomowb::phantom {
namespace {

TEST(CnrPhantom, DefaultLayoutPutsEveryDiameterOnEveryRing) {
  const CnrPhantom cnr;
  ASSERT_EQ(cnr.inserts().size(), 15u);
  const double water = kWaterAttenuationPerMm;
  for (std::size_t i = 0; i < cnr.inserts().size(); ++i) {
    const CnrInsert& insert = cnr.inserts()[i];
    const std::size_t ring = i / 5;
    EXPECT_NEAR(insert.centreMm.head<2>().norm(), cnr.params().ringRadiiMm[ring], 1e-9);
    EXPECT_EQ(insert.centreMm.z(), 0.0);
    EXPECT_EQ(insert.diameterMm, cnr.params().insertDiametersMm[i % 5]);
    EXPECT_EQ(insert.contrast, cnr.params().contrasts[ring]);
    EXPECT_NEAR(insert.valuePerMm, water * (1.0 + insert.contrast), 1e-15);
    EXPECT_NEAR(cnr.phantom().valueAt(insert.centreMm), insert.valuePerMm, 1e-15);
  }
  // Water inside, nothing outside the cylinder.
  EXPECT_NEAR(cnr.phantom().valueAt(Eigen::Vector3d(0.0, 0.0, 40.0)), water, 1e-15);
  EXPECT_EQ(cnr.phantom().valueAt(Eigen::Vector3d(0.0, 0.0, 51.0)), 0.0);
  EXPECT_EQ(cnr.phantom().valueAt(Eigen::Vector3d(101.0, 0.0, 0.0)), 0.0);
}

TEST(CnrPhantom, FirstInsertOfTheFirstRingSitsOnPlusX) {
  const CnrPhantom cnr;
  EXPECT_NEAR((cnr.inserts()[0].centreMm - Eigen::Vector3d(35.0, 0.0, 0.0)).norm(), 0.0, 1e-12);
  // The second lies counter-clockwise (positive y) seen from +z.
  EXPECT_GT(cnr.inserts()[1].centreMm.y(), 0.0);
}

TEST(CnrPhantom, InsertsAreWhereTheMasksSay) {
  const CnrPhantom cnr;
  // 0.5 mm voxels over the mid-plane slab; a voxel whose centre is at least half a voxel
  // diagonal inside an insert has all its samples inside, so it holds the insert's exact value.
  const Eigen::Vector3d voxel = Eigen::Vector3d::Constant(0.5);
  const Volume grid = Volume::centred(VolumeShape{401, 401, 37}, voxel);
  const Volume truth =
      voxelisePhantom(cnr.phantom(), grid.shape(), grid.voxelSizeMm(), grid.originMm(), 2);
  const double inset = 0.5 * voxel.norm();
  for (std::size_t i = 0; i < cnr.inserts().size(); ++i) {
    const CnrInsert& insert = cnr.inserts()[i];
    const auto inside = cnr.insertVoxels(grid, i, inset);
    // At least the volume of the inset sphere, less a shell of a voxel.
    const double r = 0.5 * insert.diameterMm - inset;
    ASSERT_GT(static_cast<double>(inside.size()),
              0.5 * 4.0 / 3.0 * std::numbers::pi * r * r * r / 0.125)
        << "insert " << i;
    for (std::int64_t index : inside)
      ASSERT_NEAR(truth.data()[index], insert.valuePerMm, 1e-6 * insert.valuePerMm)
          << "insert " << i;
    const auto background = cnr.backgroundVoxels(grid, i);
    ASSERT_GT(background.size(), 100u) << "insert " << i;
    for (std::int64_t index : background)
      ASSERT_NEAR(truth.data()[index], cnr.waterValuePerMm(), 1e-6 * cnr.waterValuePerMm())
          << "insert " << i;
  }
}

TEST(CnrPhantom, BackgroundAnnulusSurroundsItsInsert) {
  const CnrPhantom cnr;
  const Volume grid = Volume::centred(VolumeShape{201, 201, 21}, Eigen::Vector3d::Constant(1.0));
  const std::size_t i = 7;  // ring 1, 8 mm
  const CnrInsert& insert = cnr.inserts()[i];
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  const auto background = cnr.backgroundVoxels(grid, i);
  for (std::int64_t index : background) {
    const std::int64_t x = index % 201, y = (index / 201) % 201, z = index / (201 * 201);
    const Eigen::Vector3d p =
        grid.worldPosition(static_cast<double>(x), static_cast<double>(y), static_cast<double>(z));
    const double r = (p - insert.centreMm).head<2>().norm();
    EXPECT_GE(r, 4.0 + 3.0 - 1e-9);
    EXPECT_LE(r, 4.0 + 3.0 + 5.0 + 1e-9);
    EXPECT_LE(std::abs(p.z()), 4.0 + 1e-9);
    mean += p;
  }
  mean /= static_cast<double>(background.size());
  EXPECT_LT((mean - insert.centreMm).norm(), 1.0);
}

TEST(CnrPhantom, RejectsOverlappingInsertsNamingTheField) {
  CnrPhantomParams params;
  params.ringRadiiMm = {10.0, 60.0, 85.0};  // ring 0 too small for five inserts
  try {
    CnrPhantom{params};
    FAIL() << "no exception";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("cnr.ringRadiiMm"), std::string::npos) << error.what();
  }
}

TEST(CnrPhantom, RejectsInsertsOutsideTheCylinder) {
  CnrPhantomParams params;
  params.cylinderRadiusMm = 90.0;
  EXPECT_THROW(CnrPhantom{params}, ParameterError);
}

TEST(CnrPhantom, RejectsOneRingRadiusPerContrastMismatch) {
  CnrPhantomParams params;
  params.contrasts = {0.01, 0.02};
  try {
    CnrPhantom{params};
    FAIL() << "no exception";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("cnr.ringRadiiMm"), std::string::npos) << error.what();
  }
}

TEST(CnrPhantom, InsertVoxelsRejectsAnInsetBeyondTheRadius) {
  const CnrPhantom cnr;
  const Volume grid = Volume::centred(VolumeShape{8, 8, 8}, Eigen::Vector3d::Constant(1.0));
  EXPECT_THROW(cnr.insertVoxels(grid, 0, 1.5), ParameterError);
  EXPECT_THROW(cnr.insertVoxels(grid, 0, -0.1), ParameterError);
}

TEST(CnrPhantom, ColdInsertsAreAllowed) {
  CnrPhantomParams params;
  params.contrasts = {-0.01, 0.01, 0.03};
  const CnrPhantom cnr(params);
  EXPECT_LT(cnr.phantom().valueAt(cnr.inserts()[0].centreMm), cnr.waterValuePerMm());
}

}  // namespace
}  // namespace tomowb::phantom
