#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "recon/core/Error.h"
#include "recon/fdk/BackprojectorCpu.h"
#include "recon/projector/ProjectorVariants.h"
#include "recon/projector/siddon/SiddonProjector.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb {
namespace {

std::string refusal(VariantRegistry& registry, KernelVariant variant) {
  try {
    registry.add(std::move(variant));
  } catch (const ParameterError& e) {
    return e.what();
  }
  return {};
}

KernelVariant fdkVariant(const std::string& name) {
  KernelVariant v;
  v.name = name;
  v.role = VariantRole::FdkBackprojector;
  v.backproject = fdk::backprojectCpu;
  return v;
}

TEST(VariantRegistry, RefusesAVariantWhoseRoleAndFunctionsDisagree) {
  VariantRegistry r;
  KernelVariant noRole = fdkVariant("x.none");
  noRole.role = VariantRole::Unset;
  EXPECT_NE(refusal(r, noRole).find("'x.none' (no role): has no role"), std::string::npos);

  KernelVariant fdkWithoutFunction = fdkVariant("x.fdk");
  fdkWithoutFunction.backproject = nullptr;
  EXPECT_NE(refusal(r, fdkWithoutFunction).find("has no backproject function"), std::string::npos);

  KernelVariant forwardAsBack = projector::josephForwardCpuVariant();
  forwardAsBack.role = VariantRole::Backprojector;
  EXPECT_NE(refusal(r, forwardAsBack).find("has no backprojectViews function"), std::string::npos);

  KernelVariant forwardWithAdjoint = projector::josephForwardCpuVariant();
  forwardWithAdjoint.adjointOf = "et.fp.other";
  EXPECT_FALSE(refusal(r, forwardWithAdjoint).empty());

  KernelVariant projectorWithoutModel = projector::voxelBackprojectCpuVariant();
  projectorWithoutModel.model.clear();
  EXPECT_NE(refusal(r, projectorWithoutModel).find("needs its model"), std::string::npos);

  EXPECT_TRUE(r.all().empty());
  EXPECT_EQ(refusal(r, fdkVariant("x.fdk")), "");
  EXPECT_NE(refusal(r, fdkVariant("x.fdk")).find("registered twice"), std::string::npos);
}

TEST(VariantRegistry, ListsByRoleInRegistrationOrderWhateverTheNames) {
  VariantRegistry r;
  r.add(fdkVariant("zzz"));  // no prefix says what it is: the role does
  r.add(projector::josephForwardCpuVariant());
  r.add(fdkVariant("aaa"));
  r.add(projector::voxelBackprojectCpuVariant());
  const auto fdk = r.withRole(VariantRole::FdkBackprojector);
  ASSERT_EQ(fdk.size(), 2u);
  EXPECT_EQ(fdk[0]->name, "zzz");
  EXPECT_EQ(fdk[1]->name, "aaa");
  ASSERT_EQ(r.withRole(VariantRole::ForwardProjector).size(), 1u);
  ASSERT_EQ(r.withRole(VariantRole::Backprojector).size(), 1u);
}

TEST(VariantRegistry, DefaultForAProblemFallsBackToTheCpuWhenTheDevicesDefaultRefusesIt) {
  VariantRegistry r;
  KernelVariant cpu = fdkVariant("fdk.bp.cpu");
  KernelVariant gpu = fdkVariant("fdk.bp.fast");
  gpu.needsGpu = true;
  gpu.supports = [](const Geometry& g, const VolumeGrid&) -> std::optional<std::string> {
    if (g.viewCount() > 2) return std::string("fdk.bp.fast: no helices");
    return std::nullopt;
  };
  r.add(cpu);
  r.add(gpu);
  const auto geometryWith = [](int views) {
    std::vector<View> list(static_cast<std::size_t>(views));
    for (int i = 0; i < views; ++i) {
      list[std::size_t(i)].source = {100.0 * std::cos(i), 100.0 * std::sin(i), double(i)};
      list[std::size_t(i)].u = {-std::sin(i), std::cos(i), 0.0};
      list[std::size_t(i)].v = {0.0, 0.0, 1.0};
      list[std::size_t(i)].detectorCentre = -list[std::size_t(i)].source;
    }
    return Geometry(BeamKind::Cone, {4, 4}, list);
  };
  const VolumeGrid grid = VolumeGrid::centred({2, 2, 2}, Eigen::Vector3d::Ones());
  std::string why = "stale";
  EXPECT_EQ(
      r.defaultFor(VariantRole::FdkBackprojector, VariantDevice::Gpu, geometryWith(2), grid, &why)
          .name,
      "fdk.bp.fast");
  EXPECT_TRUE(why.empty());
  EXPECT_EQ(
      r.defaultFor(VariantRole::FdkBackprojector, VariantDevice::Gpu, geometryWith(5), grid, &why)
          .name,
      "fdk.bp.cpu");
  EXPECT_EQ(why, "fdk.bp.fast: no helices");
}

// A supports() that cannot even analyse the geometry (it throws) refuses with the error's
// message: asking which variants take a problem never fails (the window fills its lists with it).
TEST(VariantRegistry, ASupportsThatThrowsRefusesWithTheErrorsMessage) {
  KernelVariant v = fdkVariant("fdk.bp.throws");
  const VolumeGrid grid = VolumeGrid::centred({2, 2, 2}, Eigen::Vector3d::Ones());
  const Geometry g;
  EXPECT_FALSE(refusalOf(v, g, grid));  // no supports(): takes anything
  v.supports = [](const Geometry&, const VolumeGrid&) -> std::optional<std::string> {
    throw ParameterError("projectionMatrix", "view 3 has a cylindrical detector");
  };
  const std::optional<std::string> why = refusalOf(v, g, grid);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("view 3 has a cylindrical detector"), std::string::npos) << *why;
}

TEST(VariantRegistry, DefaultsLiveInOnePlaceAndSayWhatIsMissing) {
  const VariantRegistry& builtins = VariantRegistry::builtins();
  EXPECT_EQ(builtins.defaultFor(VariantRole::FdkBackprojector, VariantDevice::Cpu).name,
            "fdk.bp.cpu");
  EXPECT_EQ(builtins.defaultFor(VariantRole::ForwardProjector, VariantDevice::Cpu).name,
            "et.fp.cpu");
  EXPECT_EQ(builtins.defaultFor(VariantRole::Backprojector, VariantDevice::Cpu).name,
            "et.bp.cpu-voxel");
  const KernelVariant& matched =
      builtins.defaultFor(VariantRole::Backprojector, VariantDevice::Cpu, true);
  EXPECT_EQ(matched.adjointOf,
            builtins.defaultFor(VariantRole::ForwardProjector, VariantDevice::Cpu, true).name);
  // Every default has the role it is the default of, on the device it is the default for.
  for (const VariantDevice device : {VariantDevice::Cpu, VariantDevice::Gpu})
    for (const VariantRole role :
         {VariantRole::FdkBackprojector, VariantRole::ForwardProjector, VariantRole::Backprojector})
      for (const bool m : {false, true}) {
        const KernelVariant* v = nullptr;
        try {
          v = &builtins.defaultFor(role, device, m);
        } catch (const ParameterError&) {
          EXPECT_EQ(device, VariantDevice::Gpu) << "only a CUDA-less build lacks defaults";
          continue;
        }
        EXPECT_EQ(v->role, role) << v->name;
        EXPECT_EQ(v->needsGpu, device == VariantDevice::Gpu) << v->name;
        if (m && role == VariantRole::Backprojector)
          EXPECT_EQ(v->adjointOf,
                    builtins.defaultFor(VariantRole::ForwardProjector, device, m).name);
      }
  // The float64 references: CPU, exact, and the backprojector the transpose of the forward one.
  const KernelVariant& fdkReference = builtins.referenceFor(VariantRole::FdkBackprojector);
  EXPECT_EQ(fdkReference.name, "fdk.bp.cpu-f64");
  const KernelVariant& forwardReference = builtins.referenceFor(VariantRole::ForwardProjector);
  const KernelVariant& backReference = builtins.referenceFor(VariantRole::Backprojector);
  EXPECT_EQ(backReference.adjointOf, forwardReference.name);
  for (const KernelVariant* v : {&fdkReference, &forwardReference, &backReference}) {
    EXPECT_FALSE(v->needsGpu) << v->name;
    EXPECT_EQ(v->accuracyClass, qa::AccuracyClass::Exact) << v->name;
  }
  VariantRegistry empty;
  EXPECT_THROW(empty.referenceFor(VariantRole::ForwardProjector), ParameterError);
  try {
    empty.defaultFor(VariantRole::FdkBackprojector, VariantDevice::Gpu);
    FAIL() << "an empty registry had a default";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("no default FDK backprojector on the GPU"),
              std::string::npos)
        << e.what();
  }
}

TEST(VariantRegistry, EachProjectorModelHasItsOwnReference) {
  VariantRegistry r;
  r.add(projector::josephForwardCpuVariant());
  r.add(projector::josephBackprojectCpuVariant());
  r.add(projector::voxelBackprojectCpuVariant());
  projector::registerSiddonPair(r);
  EXPECT_EQ(r.referenceFor(VariantRole::ForwardProjector, "siddon").name, "et.fp.cpu-siddon");
  EXPECT_EQ(r.referenceFor(VariantRole::Backprojector, "siddon").name, "et.bp.cpu-siddon");
  EXPECT_EQ(r.referenceFor(VariantRole::ForwardProjector, "joseph").name, "et.fp.cpu");
  EXPECT_EQ(r.referenceFor(VariantRole::Backprojector, "joseph").name, "et.bp.cpu-matched");
  // A model without a CPU matched pair (the voxel-driven backprojector) or none: the role's own.
  EXPECT_EQ(r.referenceFor(VariantRole::Backprojector, "voxel").name, "et.bp.cpu-matched");
  EXPECT_EQ(r.referenceFor(VariantRole::ForwardProjector, "").name, "et.fp.cpu");
}

}  // namespace
}  // namespace tomowb
