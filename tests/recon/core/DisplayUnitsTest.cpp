// DisplayUnits: lengths with SI prefixes per modality, HU only for CT with a known water value.
#include <gtest/gtest.h>

#include <limits>

#include "recon/core/DisplayUnits.h"

namespace tomowb {
namespace {

TEST(DisplayUnits, FormatsLengthsInTheGivenUnit) {
  EXPECT_EQ(formatLength(1.23e-5, LengthUnit::Nanometre), "12.3 nm");
  EXPECT_EQ(formatLength(3.5e-8, LengthUnit::Angstrom), "0.35 \u00c5");
  EXPECT_EQ(formatLength(4.0, LengthUnit::Millimetre), "4.0 mm");
  EXPECT_EQ(formatLength(250.0, LengthUnit::Millimetre), "250 mm");
  EXPECT_EQ(formatLength(0.5, LengthUnit::Micrometre), "500 \u00b5m");
  EXPECT_EQ(formatLength(-2.5, LengthUnit::Millimetre), "-2.5 mm");
  EXPECT_EQ(formatLength(0.0, LengthUnit::Nanometre), "0.0 nm");
  EXPECT_EQ(formatLength(std::numeric_limits<double>::quiet_NaN(), LengthUnit::Millimetre), "-");
}

TEST(DisplayUnits, ChoosesTheLengthUnitByMagnitude) {
  EXPECT_EQ(lengthUnitFor(0.5), LengthUnit::Millimetre);
  EXPECT_EQ(lengthUnitFor(0.01), LengthUnit::Micrometre);
  EXPECT_EQ(lengthUnitFor(1e-7 * 3.5), LengthUnit::Nanometre);  // 0.35 nm
  EXPECT_EQ(lengthUnitFor(5e-8), LengthUnit::Angstrom);
  EXPECT_EQ(lengthUnitFor(0.0), LengthUnit::Millimetre);
}

TEST(DisplayUnits, ElectronTomographyShowsNanometresAndPlaneNames) {
  const DisplayUnits et = DisplayUnits::forModality(DataModality::ElectronTomography);
  EXPECT_EQ(et.lengthUnit(), LengthUnit::Nanometre);
  EXPECT_EQ(et.formatLength(1e-7), "0.10 nm");  // the review's "1e-07 mm" voxel
  EXPECT_EQ(et.viewNames()[0], "XY");
  EXPECT_EQ(et.viewNames()[2], "YZ");
  EXPECT_FALSE(et.huAvailable());
  EXPECT_EQ(et.valueUnit(), ValueUnit::Native);
  const DisplayUnits ct = DisplayUnits::forModality(DataModality::TransmissionCt);
  EXPECT_EQ(ct.lengthUnit(), LengthUnit::Millimetre);
  EXPECT_EQ(ct.viewNames()[0], "Axial");
}

TEST(DisplayUnits, HounsfieldOnlyForCtWithAKnownWaterValue) {
  DisplayUnits noWater = DisplayUnits::forModality(DataModality::TransmissionCt);
  noWater.setShowHu(true);
  EXPECT_FALSE(noWater.huAvailable());
  EXPECT_FALSE(noWater.showsHu());
  EXPECT_EQ(noWater.valueUnit(), ValueUnit::PerMm);
  EXPECT_DOUBLE_EQ(noWater.toDisplay(0.02), 0.02);

  DisplayUnits et = DisplayUnits::forModality(DataModality::ElectronTomography, 0.02);
  et.setShowHu(true);
  EXPECT_FALSE(et.showsHu());

  DisplayUnits ct = DisplayUnits::forModality(DataModality::TransmissionCt, 0.02);
  EXPECT_TRUE(ct.huAvailable());
  EXPECT_FALSE(ct.showsHu());  // native until asked
  ct.setShowHu(true);
  EXPECT_EQ(ct.valueUnit(), ValueUnit::Hounsfield);
  EXPECT_DOUBLE_EQ(ct.toDisplay(0.02), 0.0);
  EXPECT_DOUBLE_EQ(ct.toDisplay(0.0), -1000.0);
  EXPECT_NEAR(ct.toNative(40.0), 0.0208, 1e-12);
  EXPECT_NEAR(ct.widthToNative(400.0), 0.008, 1e-12);
  EXPECT_NEAR(ct.widthToDisplay(0.008), 400.0, 1e-9);
  EXPECT_EQ(ct.formatValue(0.0208), "40 HU");
}

TEST(DisplayUnits, PetValuesInBecquerelPerMlOrCounts) {
  DisplayUnits pet = DisplayUnits::forModality(DataModality::Pet);
  EXPECT_EQ(pet.valueSymbol(), "Bq/ml");
  EXPECT_EQ(pet.formatValue(12000.0), "12000 Bq/ml");
  pet.setPetCounts(true);
  EXPECT_EQ(pet.valueUnit(), ValueUnit::Counts);
}

TEST(DisplayUnits, HuPlausibilityRejectsTiltSeriesValues) {
  EXPECT_TRUE(huPlausible(0.0, 0.05, 0.0206));     // air to bone-like attenuation
  EXPECT_FALSE(huPlausible(-1e5, 2e7, 0.0206));    // an ET tomogram's arbitrary values
  EXPECT_FALSE(huPlausible(-0.03, 0.02, 0.0206));  // below -2000 HU
  EXPECT_FALSE(huPlausible(0.0, 0.05, 0.0));       // no water value
}

}  // namespace
}  // namespace tomowb
