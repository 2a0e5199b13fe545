// SfBenchCases.h — the exact geometries of the separable-footprint (SF) benchmark cases of issue
// #19, shared by the LEAP driver (bench/leap/leap_sf_bench.cpp) and our own SF benchmark (bench/),
// so that both measure the same problems. Plain numbers only: no dependency on LEAP, CUDA or the
// workbench.
//
// Conventions (stated once; each consumer maps them onto its own geometry description):
// - Units: mm and degrees. Right-handed world frame, z = rotation (table) axis, isocentre at the
// origin.
// - View k has source angle beta_k = startAngleDeg + k * 360 / viewsPerTurn degrees. For a helical
// case the
//   source z is zSource_k = (beta_k - beta_mid) / 360 * tableFeedPerTurnMm, beta_mid = the mean of
//   the first and last view's angle, so the helix is centred on the volume centre and moves towards
//   +z as beta grows (this is LEAP's convention: z_source_offset = -midAngle * helicalPitch).
// - Detector: nCols columns (channel, transaxial, fastest in memory) x nRows rows (axial, parallel
// to z);
//   projections are stored [view][row][col]. The detector centre (where the central ray through the
//   isocentre meets it) is at fractional column (nCols - 1) / 2 + colOffsetPixels and row
//   (nRows - 1) / 2 + rowOffsetPixels. Flat: colPitchMm is the column pitch on the flat panel. Arc
//   (cylindrical, radius SDD, centred on the source): colPitchMm is the arc length of one channel
//   at radius SDD, i.e. the channel's fan angle is colPitchMm / sddMm radians; rowPitchMm is the
//   row pitch at the detector in both shapes.
// - Volume: nx x ny x nz voxels of voxelXyMm x voxelXyMm x voxelZMm, centred on the isocentre,
// stored
//   x fastest: index (z * ny + y) * nx + x (LEAP's ZYX order).
// - Pair counts: "nominal pairs" = nx*ny*nz*views (the DESIGN's GUPS definition; used for the flat
// case
//   where every voxel is seen by every view). "In-beam pairs" (helical) = the number of (voxel,
//   view) pairs whose voxel centre projects inside the detector (column in [-0.5, nCols-0.5], row
//   in [-0.5, nRows-0.5]), counted by inBeamPairs() below; it is the figure to divide by for
//   helical G pairs/s.
#pragma once

#include <cmath>
#include <cstdint>

namespace tomowb::bench::sf {

enum class DetectorShape { Flat, Arc };

struct ConeCase {
  const char* name;
  const char* description;
  DetectorShape shape;
  int nViews;
  double viewsPerTurn;  // angular step = 360 / viewsPerTurn degrees
  double startAngleDeg;
  int nCols;
  int nRows;
  double sodMm;  // source to isocentre
  double sddMm;  // source to detector (the arc's radius for an arc detector)
  double colPitchMm;
  double rowPitchMm;
  double colOffsetPixels;
  double rowOffsetPixels;
  double tableFeedPerTurnMm;  // 0: circular orbit
  int nx, ny, nz;
  double voxelXyMm;
  double voxelZMm;

  double angleStepDeg() const { return 360.0 / viewsPerTurn; }
  double angleDeg(int k) const { return startAngleDeg + k * angleStepDeg(); }
  double midAngleDeg() const { return 0.5 * (angleDeg(0) + angleDeg(nViews - 1)); }
  double sourceZMm(int k) const {
    return (angleDeg(k) - midAngleDeg()) / 360.0 * tableFeedPerTurnMm;
  }
  double centreCol() const { return 0.5 * (nCols - 1) + colOffsetPixels; }
  double centreRow() const { return 0.5 * (nRows - 1) + rowOffsetPixels; }
  // Helical pitch as the ratio of table feed per turn to the detector's z coverage at the
  // isocentre.
  double pitch() const { return tableFeedPerTurnMm / (nRows * rowPitchMm * sodMm / sddMm); }
  double turns() const { return nViews / viewsPerTurn; }
  std::uint64_t voxels() const { return std::uint64_t(nx) * std::uint64_t(ny) * std::uint64_t(nz); }
  std::uint64_t projectionCells() const {
    return std::uint64_t(nViews) * std::uint64_t(nRows) * std::uint64_t(nCols);
  }
  std::uint64_t nominalPairs() const { return voxels() * std::uint64_t(nViews); }
};

// GE LightSpeed "ge1" (MIRT sino_geom('ge1')), arc detector, as in the seed (Wu & Fessler) and
// reference/sf-projectors.md sections 2 and 5.
inline constexpr int kGeRows = 64;
inline constexpr double kGeRowPitchMm = 1.096436;  // 0.625 mm at the isocentre
inline constexpr double kGeSodMm = 541.0;
inline constexpr double kGeSddMm = 949.075;
// Pitch 1: table feed per turn = rows * row pitch * SOD / SDD = 40.000 mm (39.99997).
inline constexpr double kGeFeedPerTurnMm = kGeRows * kGeRowPitchMm * kGeSodMm / kGeSddMm;

// Table I: one helical turn forward. Same image as Table II (512x512x640, 400 mm in z); one turn's
// 40 mm helix sits at the volume's centre, so most slices are outside the beam (see inBeamPairs).
inline constexpr ConeCase kGeHelical1Turn{
    "ge_helical_1turn",
    "GE ge1 arc detector, helical pitch 1, 1 turn (984 views) of 888x64, 512x512x640 image",
    DetectorShape::Arc,
    984,
    984.0,
    0.0,
    888,
    kGeRows,
    kGeSodMm,
    kGeSddMm,
    1.0239,
    kGeRowPitchMm,
    1.25,
    0.0,
    kGeFeedPerTurnMm,
    512,
    512,
    640,
    0.9766,
    0.625};

// Table II: 8 helical turns (7872 views), forward and back. The source travels 8 x 40 = 320 mm; the
// image's z extent, 640 x 0.625 = 400 mm, covers the helix (+-160 mm) plus the half cone at the
// isocentre (+-20 mm): the digest's suggested 512x512x640 at 0.9766 x 0.9766 x 0.625 mm. End slices
// are seen by fewer views.
inline constexpr ConeCase kGeHelical8Turns{
    "ge_helical_8turns",
    "GE ge1 arc detector, helical pitch 1, 8 turns (7872 views) of 888x64, 512x512x640 image",
    DetectorShape::Arc,
    7872,
    984.0,
    0.0,
    888,
    kGeRows,
    kGeSodMm,
    kGeSddMm,
    1.0239,
    kGeRowPitchMm,
    1.25,
    0.0,
    kGeFeedPerTurnMm,
    512,
    512,
    640,
    0.9766,
    0.625};

// Flat-panel circular CBCT (workbench native): magnification 1.5, detector pixel 0.75 mm = 0.5 mm
// at the isocentre = the voxel size. The 256 mm cube lies wholly in the field of view: its corners'
// radius 181 mm < FOV radius 1000 * sin(atan(384 / 1500)) = 248 mm, and its top near corner
// projects to 128 * 1500 / (1000 - 181) = 234 mm < 288 mm (half the detector height). Every voxel
// is seen in every view, so nominal pairs = 512^3 * 720 = 9.66e10.
inline constexpr ConeCase kFlatCircular720{
    "flat_circular_720",
    "flat panel circular, 720 views of 1024x768 (0.75 mm), SOD 1000 SDD 1500, 512^3 at 0.5 mm",
    DetectorShape::Flat,
    720,
    720.0,
    0.0,
    1024,
    768,
    1000.0,
    1500.0,
    0.75,
    0.75,
    0.0,
    0.0,
    0.0,
    512,
    512,
    512,
    0.5,
    0.5};

// Small cases for the adjoint test <Ax, y> = <x, A^T y> with zero-mean random vectors.
// Flat circular, 64^3 at 4 mm, 32 views of 96x96 at 6 mm (4 mm at the isocentre).
inline constexpr ConeCase kAdjointFlat64{
    "adjoint_flat_64",
    "adjoint test: flat circular, 32 views of 96x96 (6 mm), SOD 1000 SDD 1500, 64^3 at 4 mm",
    DetectorShape::Flat,
    32,
    32.0,
    0.0,
    96,
    96,
    1000.0,
    1500.0,
    6.0,
    6.0,
    0.0,
    0.0,
    0.0,
    64,
    64,
    64,
    4.0,
    4.0};

// A scaled GE geometry: same SOD/SDD, channel offset and voxel-to-cell ratios as the full case (so
// the same LEAP code paths run), 111 channels of 8 x 1.0239 mm, 16 rows of 4 x 1.096436 mm, pitch
// 1, one turn of 32 views, 64^3 at 7.8125 x 7.8125 x 2.5 mm (500 x 500 x 160 mm).
inline constexpr double kAdjArcRowPitchMm = 4.0 * kGeRowPitchMm;
inline constexpr ConeCase kAdjointArcHelical64{
    "adjoint_arc_helical_64",
    "adjoint test: GE-like arc helical pitch 1, 32 views of 111x16, 64^3 at 7.8125x7.8125x2.5 mm",
    DetectorShape::Arc,
    32,
    32.0,
    0.0,
    111,
    16,
    kGeSodMm,
    kGeSddMm,
    8.0 * 1.0239,
    kAdjArcRowPitchMm,
    1.25,
    0.0,
    16 * kAdjArcRowPitchMm* kGeSodMm / kGeSddMm,
    64,
    64,
    64,
    7.8125,
    2.5};

inline constexpr ConeCase kTimedCases[] = {kGeHelical1Turn, kGeHelical8Turns, kFlatCircular720};
inline constexpr ConeCase kAdjointCases[] = {kAdjointFlat64, kAdjointArcHelical64};

// The number of (voxel, view) pairs whose voxel centre projects inside the detector (see the header
// comment). O(views * nx * ny), using OpenMP if the includer compiles with it. Mirroring the column
// axis (which side the 1.25-channel offset lies on) changes the count by well under 0.1% for the GE
// cases.
inline std::uint64_t inBeamPairs(const ConeCase& c) {
  const double kPi = 3.14159265358979323846;
  const double x0 = -0.5 * (c.nx - 1) * c.voxelXyMm;
  const double y0 = -0.5 * (c.ny - 1) * c.voxelXyMm;
  const double z0 = -0.5 * (c.nz - 1) * c.voxelZMm;
  const double rowLo = (-0.5 - c.centreRow()) * c.rowPitchMm / c.sddMm;  // (z - zs) / r bounds
  const double rowHi = (c.nRows - 0.5 - c.centreRow()) * c.rowPitchMm / c.sddMm;
  // Column test as perp / depth in [tanLo, tanHi] (depth > 0): the tangent of the fan angle for an
  // arc (channel arc length / SDD), the flat detector coordinate over SDD for a flat panel.
  const bool arc = c.shape == DetectorShape::Arc;
  const double colLo = (-0.5 - c.centreCol()) * c.colPitchMm / c.sddMm;
  const double colHi = (c.nCols - 0.5 - c.centreCol()) * c.colPitchMm / c.sddMm;
  const double tanLo = arc ? std::tan(colLo) : colLo;
  const double tanHi = arc ? std::tan(colHi) : colHi;
  const double invDz = 1.0 / c.voxelZMm;
  std::uint64_t total = 0;
#pragma omp parallel for reduction(+ : total) schedule(dynamic, 16)
  for (int k = 0; k < c.nViews; ++k) {
    const double b = c.angleDeg(k) * kPi / 180.0;
    const double cb = std::cos(b), sb = std::sin(b);
    const double zs = c.sourceZMm(k);
    std::uint64_t n = 0;
    for (int iy = 0; iy < c.ny; ++iy) {
      const double y = y0 + iy * c.voxelXyMm;
      for (int ix = 0; ix < c.nx; ++ix) {
        const double x = x0 + ix * c.voxelXyMm;
        const double along = x * cb + y * sb;  // towards the source
        const double perp = -x * sb + y * cb;
        const double depth = c.sodMm - along;  // in-plane distance along the central ray
        if (depth <= 0.0 || perp < tanLo * depth || perp > tanHi * depth) continue;
        // The row scales with the in-plane source distance on an arc, with the depth on a flat
        // panel.
        const double r = arc ? std::sqrt(perp * perp + depth * depth) : depth;
        // z - zs in [rowLo * r, rowHi * r]  ->  slice index range
        long kLo = long(std::ceil((zs + rowLo * r - z0) * invDz));
        long kHi = long(std::floor((zs + rowHi * r - z0) * invDz));
        if (kLo < 0) kLo = 0;
        if (kHi > c.nz - 1) kHi = c.nz - 1;
        if (kHi >= kLo) n += std::uint64_t(kHi - kLo + 1);
      }
    }
    total += n;
  }
  return total;
}

}  // namespace tomowb::bench::sf
