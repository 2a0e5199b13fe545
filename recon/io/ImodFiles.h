// IMOD's small text files beside a tilt series (reference/sirt-et.md, section 8; IMOD's man pages
// of tilt, xfproduct and newstack):
//   NAME.rawtlt / NAME.tlt  one tilt angle in degrees per line, in stack order (nominal / refined)
//   NAME.xtilt              one x-axis tilt in degrees per line (IMOD's XTILTFILE)
//   NAME.xf                 one 2-D linear transform per line: A11 A12 A21 A22 DX DY
// Blank lines and spaces or tabs around the numbers are tolerated; anything else (a word, a
// missing or extra number, a non-finite value) is a FormatError naming the file and the line.
// An .xf line may also be IMOD's fixed-width form (6 fields of 12 characters) where two numbers
// touch. Files are at most 16 MiB and 2^20 entries.
//
// The .xf convention (IMOD's newstack / cubinterp): the transform maps a raw-stack pixel to the
// aligned one, x' = A11 x + A12 y + DX, y' = A21 x + A22 y + DY, in pixels about the image centre,
// where x is the column and y the row (the file's line order) and the centre is at column nx/2,
// row ny/2 counting pixels from 0 (IMOD's 1-based centre nx/2 + 1). That is half a pixel beyond
// the geometric centre (nx-1)/2 that our Geometry uses: XfTransform::aboutGeometricCentre()
// converts. The alignment is never applied by resampling: TiltSeriesFiles folds it into the views.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tomowb::io {

// x' = a x + shift, about IMOD's centre (above), in pixels.
struct XfTransform {
  Eigen::Matrix2d a = Eigen::Matrix2d::Identity();
  Eigen::Vector2d shiftPixels = Eigen::Vector2d::Zero();

  // The same map in coordinates about the geometric centre ((n-1)/2, our Geometry's): with
  // x_imod = x_geo - h, h = (1/2, 1/2), x'_geo = A x_geo + D + (I - A) h.
  Eigen::Vector2d shiftAboutGeometricCentre() const;
};

// "Natural" parameters of A (the part that is not a shift): A = s R(rotation) S, where
// magnification s = sqrt(|det A|), stretch = ratio of A's singular values (>= 1; 1 for a
// similarity) and skewRad = the angle by which A's images of the x and y axes depart from 90
// degrees. A mirrored A (det < 0) is flagged.
struct XfDecomposition {
  double rotationRad = 0;  // of the closest similarity: atan2(A21 - A12, A11 + A22)
  double magnification = 1;
  double stretch = 1;
  double skewRad = 0;
  bool mirrored = false;
};
XfDecomposition decompose(const Eigen::Matrix2d& a);

std::vector<double> readTiltAnglesDeg(const std::filesystem::path& path);  // .tlt / .rawtlt
std::vector<double> readXAxisTiltsDeg(const std::filesystem::path& path);  // .xtilt
std::vector<XfTransform> readXf(const std::filesystem::path& path);

// Atomic writers. .tlt lines hold "%.4f"; .xf lines IMOD's layout, 7 decimals for A and 4 for D.
void writeTiltAnglesDeg(const std::filesystem::path& path, const std::vector<double>& anglesDeg);
void writeXf(const std::filesystem::path& path, const std::vector<XfTransform>& transforms);

// FormatError naming `listFile` (and the stack) unless `count` entries match the stack's views:
// "x.xf: has 60 entries but the stack x.st has 61 views".
void requireViewCount(const std::filesystem::path& listFile, std::size_t count,
                      const std::filesystem::path& stack, std::int64_t views);

}  // namespace tomowb::io
