// Helpers the separable-footprint tests share (SeparableFootprintTest.cpp for flat detectors,
// SeparableFootprintArcTest.cpp for arc detectors): the models, random vectors, the float64
// zero-mean adjoint figure and the explicit-transpose check.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "recon/core/VolumeGrid.h"
#include "recon/geometry/Geometry.h"
#include "recon/projector/sf/SeparableFootprintProjector.h"

namespace tomowb::projector::sftest {

inline const SfModel kTrA2{SfAxialFootprint::Rectangle, SfAmplitude::A2};
inline const SfModel kTtA2{SfAxialFootprint::Trapezoid, SfAmplitude::A2};
inline const SfModel kTrA1{SfAxialFootprint::Rectangle, SfAmplitude::A1};
inline const SfModel kTtA1{SfAxialFootprint::Trapezoid, SfAmplitude::A1};

inline std::string nameOf(const SfModel& m) {
  return std::string(m.axial == SfAxialFootprint::Rectangle ? "SF-TR" : "SF-TT") +
         (m.amplitude == SfAmplitude::A1 ? "-A1" : "-A2");
}

inline std::vector<double> randomVector(std::mt19937_64& rng, std::size_t n, double low) {
  std::uniform_real_distribution<double> value(low, 1.0);
  std::vector<double> x(n);
  for (double& v : x) v = value(rng);
  return x;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

inline std::size_t pixelsOf(const Geometry& g) {
  return static_cast<std::size_t>(g.viewCount() * g.detector().cols * g.detector().rows);
}

// |<A x, y> - <x, A^T y>| / (|A x| |y|) in float64, zero-mean vectors. The scale is the
// Cauchy-Schwarz bound of both products: with zero-mean vectors <A x, y> itself can fall near zero
// by cancellation, and a mismatch relative to it then measured float64 rounding as 1.2e-11 in 2 %
// of random seeds (SeparableFootprintArc, SF-TR-A1 on the helix).
inline double adjointMismatch(const Geometry& g, const VolumeGrid& grid, const SfModel& model,
                              std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<double> x =
      randomVector(rng, static_cast<std::size_t>(grid.shape.voxelCount()), -1);
  const std::vector<double> y = randomVector(rng, pixelsOf(g), -1);
  std::vector<double> ax(pixelsOf(g)), aty(x.size(), 0.0);
  sfForward(x, grid, g, ax, model);
  sfBackproject(y, g, aty, grid, model);
  const double forwardDot = dot(ax, y), backDot = dot(x, aty);
  EXPECT_GT(std::abs(forwardDot), 0.0);
  const double scale = std::sqrt(dot(ax, ax) * dot(y, y));
  EXPECT_GT(scale, 0.0);
  return std::abs(forwardDot - backDot) / scale;
}

inline double maxRelativeDifference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
    largest = std::max(largest, std::abs(a[i]));
  }
  return worst / largest;
}

inline double sum(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return s;
}

// A column by column from forward projections of unit voxels, A^T row by row from
// backprojections of unit pixels: they agree to float64 rounding, and every weight is >= 0.
inline void expectExplicitTranspose(const Geometry& g, const VolumeGrid& grid,
                                    const std::string& label) {
  const auto n = static_cast<std::size_t>(grid.shape.voxelCount()), m = pixelsOf(g);
  for (const SfModel& model : {kTrA2, kTtA2, kTrA1, kTtA1}) {
    std::vector<double> a(m * n), b(m * n);  // a[i * n + j] = A_ij, b[i * n + j] = (A^T)_ji
    std::vector<double> unit(n, 0.0), column(m);
    for (std::size_t j = 0; j < n; ++j) {
      unit[j] = 1;
      sfForward(unit, grid, g, column, model);
      unit[j] = 0;
      for (std::size_t i = 0; i < m; ++i) a[i * n + j] = column[i];
    }
    std::vector<double> pixel(m, 0.0), row(n);
    for (std::size_t i = 0; i < m; ++i) {
      pixel[i] = 1;
      std::fill(row.begin(), row.end(), 0.0);
      sfBackproject(pixel, g, row, grid, model);
      pixel[i] = 0;
      for (std::size_t j = 0; j < n; ++j) b[i * n + j] = row[j];
    }
    double largest = 0, worst = 0, smallest = 0;
    std::size_t nonzero = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      largest = std::max(largest, std::abs(a[k]));
      worst = std::max(worst, std::abs(a[k] - b[k]));
      smallest = std::min(smallest, a[k]);
      nonzero += a[k] != 0 ? 1 : 0;
    }
    std::cout << "[ measured ] " << label << " " << nameOf(model) << " max|A - (A^T)^T| / max|A| "
              << worst / largest << ", " << nonzero << " nonzero of " << a.size() << "\n";
    EXPECT_LE(worst, 1e-14 * largest) << label << " " << nameOf(model);
    EXPECT_GE(smallest, 0.0) << nameOf(model);
    EXPECT_GT(nonzero, a.size() / 20) << nameOf(model);
  }
}

}  // namespace tomowb::projector::sftest
