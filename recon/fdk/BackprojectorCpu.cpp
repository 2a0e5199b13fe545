#include "recon/fdk/BackprojectorCpu.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "recon/core/Error.h"

namespace tomowb::fdk {

namespace {

// Views per pass over the volume: the block's zero-padded projections (at most ~64 MiB) stay
// in cache-friendly reach while each volume row accumulates the block in registers.
constexpr std::int64_t kMaxViewsPerBlock = 32;
constexpr std::int64_t kBlockFloatBudget = 16ll << 20;
// Rows of the volume (one y, one z) handed to a thread at a time.
constexpr int kRowsPerChunk = 8;

// A block of views copied with a one-pixel zero border, so that bilinear taps just outside
// the detector read zeros without branches.
struct PaddedBlock {
  std::int64_t first = 0, count = 0;
  std::int64_t cols = 0, rows = 0, paddedCols = 0, paddedRows = 0;
  std::vector<float> pixels;
  const float* view(std::int64_t k) const { return pixels.data() + k * paddedCols * paddedRows; }
};

void fillPadded(const ProjectionStack& stack, std::int64_t first, std::int64_t count,
                PaddedBlock& block) {
  block.first = first;
  block.count = count;
  block.cols = stack.cols();
  block.rows = stack.rows();
  block.paddedCols = stack.cols() + 2;
  block.paddedRows = stack.rows() + 2;
  block.pixels.assign(static_cast<std::size_t>(count * block.paddedCols * block.paddedRows), 0.0f);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < count; ++k) {
    const float* src = stack.viewPixels(first + k).data();
    float* dst = block.pixels.data() + k * block.paddedCols * block.paddedRows;
    for (std::int64_t r = 0; r < block.rows; ++r)
      std::copy(src + r * block.cols, src + (r + 1) * block.cols,
                dst + (r + 1) * block.paddedCols + 1);
  }
}

// The view's projection matrix composed with voxel index -> world, so that
// (c w, r w, w) = M (ix, iy, iz, 1).
using VoxelMatrix = Eigen::Matrix<double, 3, 4>;

std::vector<VoxelMatrix> voxelMatrices(const ProjectionStack& stack, const Volume& volume) {
  std::vector<VoxelMatrix> out(static_cast<std::size_t>(stack.viewCount()));
  for (std::int64_t i = 0; i < stack.viewCount(); ++i) {
    const ProjectionMatrix p = stack.geometry().projectionMatrix(i);
    VoxelMatrix m;
    for (int axis = 0; axis < 3; ++axis) m.col(axis) = p.col(axis) * volume.voxelSizeMm()[axis];
    m.col(3) = p.leftCols<3>() * volume.originMm() + p.col(3);
    out[static_cast<std::size_t>(i)] = m;
  }
  return out;
}

// Per view of the block, for the current row (iy, iz): (cw, rw, w) at ix = 0 and per ix step.
template <typename Scalar>
struct RowSetup {
  std::vector<Scalar> base, step;
  void compute(const std::vector<VoxelMatrix>& matrices, const PaddedBlock& block, std::int64_t iy,
               std::int64_t iz) {
    base.resize(static_cast<std::size_t>(3 * block.count));
    step.resize(static_cast<std::size_t>(3 * block.count));
    for (std::int64_t k = 0; k < block.count; ++k) {
      const VoxelMatrix& m = matrices[static_cast<std::size_t>(block.first + k)];
      const Eigen::Vector3d b = m.col(3) + double(iy) * m.col(1) + double(iz) * m.col(2);
      for (int j = 0; j < 3; ++j) {
        base[static_cast<std::size_t>(3 * k + j)] = static_cast<Scalar>(b[j]);
        step[static_cast<std::size_t>(3 * k + j)] = static_cast<Scalar>(m(j, 0));
      }
    }
  }
};

template <typename Scalar>
void accumulateRowScalar(const RowSetup<Scalar>& setup, const PaddedBlock& block, bool cone,
                         std::int64_t nx, float* out) {
  const Scalar maxA = static_cast<Scalar>(block.cols + 1);
  const Scalar maxB = static_cast<Scalar>(block.rows + 1);
  for (std::int64_t x = 0; x < nx; ++x) {
    Scalar sum = 0;
    const Scalar xs = static_cast<Scalar>(x);
    for (std::int64_t k = 0; k < block.count; ++k) {
      const Scalar* b = &setup.base[static_cast<std::size_t>(3 * k)];
      const Scalar* s = &setup.step[static_cast<std::size_t>(3 * k)];
      const Scalar w = b[2] + xs * s[2];
      if (!(w > 0)) continue;
      const Scalar inv = Scalar(1) / w;
      const Scalar a = (b[0] + xs * s[0]) * inv + 1;  // +1: padded coordinates
      const Scalar r = (b[1] + xs * s[1]) * inv + 1;
      if (!(a >= 0 && a < maxA && r >= 0 && r < maxB)) continue;
      const Scalar fa = std::floor(a), fr = std::floor(r);
      const Scalar ta = a - fa, tr = r - fr;
      const float* p = block.view(k) + static_cast<std::int64_t>(fr) * block.paddedCols +
                       static_cast<std::int64_t>(fa);
      const Scalar top = p[0] + ta * (Scalar(p[1]) - p[0]);
      const Scalar bottom =
          p[block.paddedCols] + ta * (Scalar(p[block.paddedCols + 1]) - p[block.paddedCols]);
      Scalar value = top + tr * (bottom - top);
      if (cone) value *= inv * inv;
      sum += value;
    }
    out[x] += static_cast<float>(sum);
  }
}

__attribute__((target("avx2,fma"))) void accumulateRowAvx2(const RowSetup<float>& setup,
                                                           const PaddedBlock& block, bool cone,
                                                           std::int64_t nx, float* out) {
  const __m256 lane = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 zero = _mm256_setzero_ps();
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 maxA = _mm256_set1_ps(static_cast<float>(block.cols + 1));
  const __m256 maxB = _mm256_set1_ps(static_cast<float>(block.rows + 1));
  const __m256i pitch = _mm256_set1_epi32(static_cast<int>(block.paddedCols));
  for (std::int64_t x0 = 0; x0 < nx; x0 += 8) {
    const __m256 xs = _mm256_add_ps(_mm256_set1_ps(static_cast<float>(x0)), lane);
    __m256 acc = zero;
    for (std::int64_t k = 0; k < block.count; ++k) {
      const float* b = &setup.base[static_cast<std::size_t>(3 * k)];
      const float* s = &setup.step[static_cast<std::size_t>(3 * k)];
      const __m256 w = _mm256_fmadd_ps(xs, _mm256_set1_ps(s[2]), _mm256_set1_ps(b[2]));
      const __m256 aw = _mm256_fmadd_ps(xs, _mm256_set1_ps(s[0]), _mm256_set1_ps(b[0]));
      const __m256 rw = _mm256_fmadd_ps(xs, _mm256_set1_ps(s[1]), _mm256_set1_ps(b[1]));
      const __m256 inv = _mm256_div_ps(one, w);
      const __m256 a = _mm256_fmadd_ps(aw, inv, one);
      const __m256 r = _mm256_fmadd_ps(rw, inv, one);
      __m256 valid = _mm256_cmp_ps(w, zero, _CMP_GT_OQ);
      valid = _mm256_and_ps(valid, _mm256_cmp_ps(a, zero, _CMP_GE_OQ));
      valid = _mm256_and_ps(valid, _mm256_cmp_ps(a, maxA, _CMP_LT_OQ));
      valid = _mm256_and_ps(valid, _mm256_cmp_ps(r, zero, _CMP_GE_OQ));
      valid = _mm256_and_ps(valid, _mm256_cmp_ps(r, maxB, _CMP_LT_OQ));
      if (_mm256_movemask_ps(valid) == 0) continue;
      // Masked-out lanes are never loaded, so their (possibly garbage) indices are harmless.
      const __m256 safeA = _mm256_and_ps(a, valid);
      const __m256 safeR = _mm256_and_ps(r, valid);
      const __m256 fa = _mm256_floor_ps(safeA);
      const __m256 fr = _mm256_floor_ps(safeR);
      const __m256 ta = _mm256_sub_ps(safeA, fa);
      const __m256 tr = _mm256_sub_ps(safeR, fr);
      const __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(fr), pitch),
                                           _mm256_cvttps_epi32(fa));
      // Each bilinear row pair (p[i], p[i+1]) is one 64-bit element: four 4-lane gathers
      // of pairs instead of four 8-lane gathers of floats halve the elements loaded.
      const double* pairs = reinterpret_cast<const double*>(block.view(k));
      const __m256d lowMask = _mm256_castps_pd(
          _mm256_permutevar8x32_ps(valid, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)));
      const __m256d highMask = _mm256_castps_pd(
          _mm256_permutevar8x32_ps(valid, _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7)));
      const __m256d zeroPairs = _mm256_setzero_pd();
      const __m128i idxLow = _mm256_castsi256_si128(idx);
      const __m128i idxHigh = _mm256_extracti128_si256(idx, 1);
      const __m256i below = _mm256_add_epi32(idx, pitch);
      const __m128i belowLow = _mm256_castsi256_si128(below);
      const __m128i belowHigh = _mm256_extracti128_si256(below, 1);
      const __m256 topLow =
          _mm256_castpd_ps(_mm256_mask_i32gather_pd(zeroPairs, pairs, idxLow, lowMask, 4));
      const __m256 topHigh =
          _mm256_castpd_ps(_mm256_mask_i32gather_pd(zeroPairs, pairs, idxHigh, highMask, 4));
      const __m256 botLow =
          _mm256_castpd_ps(_mm256_mask_i32gather_pd(zeroPairs, pairs, belowLow, lowMask, 4));
      const __m256 botHigh =
          _mm256_castpd_ps(_mm256_mask_i32gather_pd(zeroPairs, pairs, belowHigh, highMask, 4));
      // [a0 b0 a1 b1 | a2 b2 a3 b3] and the high lanes -> a0..a7 and b0..b7 in lane order.
      const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
      const __m256 p00 = _mm256_permutevar8x32_ps(_mm256_shuffle_ps(topLow, topHigh, 0x88), order);
      const __m256 p01 = _mm256_permutevar8x32_ps(_mm256_shuffle_ps(topLow, topHigh, 0xDD), order);
      const __m256 p10 = _mm256_permutevar8x32_ps(_mm256_shuffle_ps(botLow, botHigh, 0x88), order);
      const __m256 p11 = _mm256_permutevar8x32_ps(_mm256_shuffle_ps(botLow, botHigh, 0xDD), order);
      const __m256 top = _mm256_fmadd_ps(ta, _mm256_sub_ps(p01, p00), p00);
      const __m256 bottom = _mm256_fmadd_ps(ta, _mm256_sub_ps(p11, p10), p10);
      __m256 value = _mm256_fmadd_ps(tr, _mm256_sub_ps(bottom, top), top);
      if (cone) value = _mm256_mul_ps(value, _mm256_mul_ps(inv, inv));
      acc = _mm256_add_ps(acc, _mm256_and_ps(value, valid));
    }
    if (x0 + 8 <= nx) {
      _mm256_storeu_ps(out + x0, _mm256_add_ps(_mm256_loadu_ps(out + x0), acc));
    } else {
      alignas(32) float tail[8];
      _mm256_store_ps(tail, acc);
      for (std::int64_t x = x0; x < nx; ++x) out[x] += tail[x - x0];
    }
  }
}

bool detectAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

enum class Precision { Single, Double };

void backprojectBlocks(const ProjectionStack& filtered, Volume& volume, JobContext& context,
                       Precision precision) {
  if (filtered.empty() || volume.empty()) throw ParameterError("backprojection", "empty input");
  requireFlatDetectors(filtered.geometry(), "FDK backprojection");
  const auto started = std::chrono::steady_clock::now();
  const bool cone = filtered.geometry().beam() == BeamKind::Cone;
  const std::vector<VoxelMatrix> matrices = voxelMatrices(filtered, volume);
  const std::int64_t paddedView = (filtered.cols() + 2) * (filtered.rows() + 2);
  const bool avx2 =
      precision == Precision::Single && detectAvx2() && paddedView < (std::int64_t{1} << 31) - 1;
  const std::int64_t viewsPerBlock =
      std::clamp<std::int64_t>(kBlockFloatBudget / paddedView, 1, kMaxViewsPerBlock);
  const std::int64_t nx = volume.nx(), ny = volume.ny(), nz = volume.nz();
  const std::int64_t rowCount = ny * nz;
  const CancelToken& cancel = context.cancelToken();
  PaddedBlock block;
  auto lastPreview = started;
  const char* variantName = precision == Precision::Double ? "fdk.bp.cpu-f64" : "fdk.bp.cpu";
  for (std::int64_t first = 0; first < filtered.viewCount(); first += viewsPerBlock) {
    context.throwIfCancelled();
    const auto blockStarted = std::chrono::steady_clock::now();
    fillPadded(filtered, first, std::min(viewsPerBlock, filtered.viewCount() - first), block);
#pragma omp parallel
    {
      RowSetup<float> single;
      RowSetup<double> dual;
#pragma omp for schedule(dynamic, kRowsPerChunk)
      for (std::int64_t row = 0; row < rowCount; ++row) {
        if (cancel.requested()) continue;
        const std::int64_t iy = row % ny, iz = row / ny;
        float* out = volume.data() + row * nx;
        if (precision == Precision::Double) {
          dual.compute(matrices, block, iy, iz);
          accumulateRowScalar(dual, block, cone, nx, out);
        } else {
          single.compute(matrices, block, iy, iz);
          if (avx2)
            accumulateRowAvx2(single, block, cone, nx, out);
          else
            accumulateRowScalar(single, block, cone, nx, out);
        }
      }
    }
    context.throwIfCancelled();
    // One telemetry event per view block, so throughput plots move during the run (the FDK
    // report sums them).
    context.publishTelemetry(
        {"fdk.backproject", variantName,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - blockStarted).count(),
         double(volume.voxelCount()) * double(block.count), 0.0});
    // The partial sum is a usable preview (every voxel has seen the same views): hand it out
    // at most every 250 ms, and after the last block (the GUI's sink throttles further and
    // drops previews whose copy would cost more than a few per cent of the run).
    const std::int64_t doneViews = first + block.count;
    if (context.wantsIntermediates() &&
        (doneViews == filtered.viewCount() ||
         std::chrono::steady_clock::now() - lastPreview > std::chrono::milliseconds(250))) {
      context.publishIntermediate(volume,
                                  "backprojected " + std::to_string(doneViews) + " of " +
                                      std::to_string(filtered.viewCount()) + " views",
                                  double(filtered.viewCount()) / double(doneViews));
      lastPreview = std::chrono::steady_clock::now();
    }
    context.reportProgress("backproject",
                           double(first + block.count) / double(filtered.viewCount()));
  }
}

}  // namespace

bool cpuBackprojectorUsesAvx2() {
  return detectAvx2();
}

void backprojectCpu(const ProjectionStack& filtered, Volume& volume, JobContext& context) {
  backprojectBlocks(filtered, volume, context, Precision::Single);
}

void backprojectCpuReference(const ProjectionStack& filtered, Volume& volume, JobContext& context) {
  backprojectBlocks(filtered, volume, context, Precision::Double);
}

}  // namespace tomowb::fdk
