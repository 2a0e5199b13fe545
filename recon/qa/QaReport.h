// QaReport: the self-contained report of `tomowb-cli compare` and `tomowb-cli sweep` (issue #9,
// point 5): a folder with report.md (or report.html) and its pictures: PNG slices of A, B and
// A - B (diverging blue-white-red map, 0 = white, symmetric window), and SVG charts (line
// profiles through A, B and A - B, the difference histogram, the sweep's accuracy-against-speed
// Pareto chart). PNGs need libpng (TOMOWB_HAVE_PNG); without it the slices are written as PGM /
// PPM and the report says so. The folder is written atomically (AtomicDirectoryWriter).
#pragma once

#include <filesystem>
#include <string>

#include "recon/core/Volume.h"
#include "recon/qa/RunComparison.h"
#include "recon/qa/VariantSweep.h"

namespace tomowb::qa {

enum class ReportFormat { Markdown, Html };

struct CompareReportInput {
  std::string labelA = "A", labelB = "B";  // e.g. the variants or file names
  std::string pathA, pathB;
  const Volume* a = nullptr;
  const Volume* b = nullptr;
  RunComparison comparison;
  std::int64_t slice = -1;  // z slice shown; -1: the middle
};

// Writes report.md / report.html and the pictures into `folder` (new or empty, or replaced when
// `replace`). Returns the report file's path.
std::filesystem::path writeCompareReport(const std::filesystem::path& folder,
                                         const CompareReportInput& input, ReportFormat format,
                                         bool replace = false);
std::filesystem::path writeSweepReport(const std::filesystem::path& folder,
                                       const SweepResult& sweep, ReportFormat format,
                                       bool replace = false);

// Pictures, also used by the tests: an 8-bit grey PNG of one z slice windowed to [lo, hi], and
// a colour PNG of a difference slice on +-halfRange. Return the file written (".png", or ".pgm"
// / ".ppm" without libpng).
std::filesystem::path writeSlicePicture(const std::filesystem::path& pathWithoutExtension,
                                        const Volume& volume, std::int64_t z, double lo, double hi);
std::filesystem::path writeDifferencePicture(const std::filesystem::path& pathWithoutExtension,
                                             const Volume& a, const Volume& b, std::int64_t z,
                                             double halfRange);
// The diverging colour map: t in [-1, 1] -> RGB (blue, white at 0, red).
void divergingColour(double t, unsigned char rgb[3]);

std::string histogramSvg(const DifferenceHistogram& histogram, const std::string& title);
std::string paretoSvg(const SweepResult& sweep);

}  // namespace tomowb::qa
