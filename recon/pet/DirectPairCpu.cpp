// The CPU DIRECT pair and the float64 per-view operators (DirectPair.h).
#include <omp.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <vector>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/pet/DirectPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::pet {

namespace {

// One output slice z of view v: gather into acc (ny x nx, float64). Forward: acc(j) = sum_i
// in(j + o_i) k_{c(j + o_i)}(-o_i); back: acc(j) = sum_i k_{c(j)}(o_i) in(j + o_i).
template <typename In>
void gatherSlice(const DirectKernels& kernels, int view, bool forward, const In* in, std::int64_t z,
                 std::vector<double>& acc) {
  const VolumeShape& s = kernels.grid().shape;
  const std::int64_t nx = s.nx, ny = s.ny, nz = s.nz;
  std::fill(acc.begin(), acc.end(), 0.0);
  const std::span<const KernelOffset> offsets = kernels.offsets(view);
  const auto n = static_cast<std::int64_t>(offsets.size());
  const double* values = kernels.values(view).data();
  const std::uint16_t* classes = kernels.classMap(kernels.views().azimuthOf(view)).data();
  const bool single = kernels.classCount() == 1;
  for (std::int64_t i = 0; i < n; ++i) {
    const KernelOffset& o = offsets[static_cast<std::size_t>(i)];
    const std::int64_t sz = z + o.dz;
    if (sz < 0 || sz >= nz) continue;
    const std::int64_t y0 = std::max<std::int64_t>(0, -o.dy), y1 = std::min(ny, ny - o.dy);
    const std::int64_t x0 = std::max<std::int64_t>(0, -o.dx), x1 = std::min(nx, nx - o.dx);
    // The value column of this offset: forward looks up the flipped offset at the source's class.
    const std::int64_t column = forward ? n - 1 - i : i;
    const In* src = in + sz * ny * nx;
    for (std::int64_t y = y0; y < y1; ++y) {
      double* out = acc.data() + y * nx;
      const In* row = src + (y + o.dy) * nx + o.dx;
      if (single) {
        const double w = values[column];
        for (std::int64_t x = x0; x < x1; ++x) out[x] += w * double(row[x]);
      } else if (forward) {
        const std::uint16_t* cls = classes + (y + o.dy) * nx + o.dx;
        for (std::int64_t x = x0; x < x1; ++x)
          out[x] += values[cls[x] * n + column] * double(row[x]);
      } else {
        const std::uint16_t* cls = classes + y * nx;
        for (std::int64_t x = x0; x < x1; ++x)
          out[x] += values[cls[x] * n + column] * double(row[x]);
      }
    }
  }
}

// `packed`: view k of the list is block k of the projections (else block views[k]).
template <typename In, typename Out>
void forwardViews(const DirectKernels& kernels, std::span<const std::int64_t> views, const In* x,
                  Out* y, bool packed = false) {
  const VolumeShape& s = kernels.grid().shape;
  const std::int64_t perView = s.voxelCount(), slice = s.nx * s.ny;
  const auto count = static_cast<std::int64_t>(views.size());
#pragma omp parallel
  {
    std::vector<double> acc(static_cast<std::size_t>(slice));
#pragma omp for collapse(2) schedule(dynamic, 1)
    for (std::int64_t k = 0; k < count; ++k)
      for (std::int64_t z = 0; z < s.nz; ++z) {
        const auto v = static_cast<int>(views[static_cast<std::size_t>(k)]);
        gatherSlice(kernels, v, true, x, z, acc);
        Out* out = y + (packed ? k : v) * perView + z * slice;
        for (std::int64_t j = 0; j < slice; ++j) out[j] = static_cast<Out>(acc[j]);
      }
  }
}

template <typename In, typename Out>
void backViews(const DirectKernels& kernels, std::span<const std::int64_t> views, const In* z,
               Out* b, bool packed = false) {
  const VolumeShape& s = kernels.grid().shape;
  const std::int64_t perView = s.voxelCount(), slice = s.nx * s.ny;
#pragma omp parallel
  {
    std::vector<double> acc(static_cast<std::size_t>(slice)), sum(acc.size());
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t zz = 0; zz < s.nz; ++zz) {
      std::fill(sum.begin(), sum.end(), 0.0);
      for (std::size_t k = 0; k < views.size(); ++k) {
        const std::int64_t v = views[k];
        gatherSlice(kernels, static_cast<int>(v), false,
                    z + (packed ? std::int64_t(k) : v) * perView, zz, acc);
        for (std::int64_t j = 0; j < slice; ++j) sum[j] += acc[j];
      }
      Out* out = b + zz * slice;
      for (std::int64_t j = 0; j < slice; ++j) out[j] = static_cast<Out>(double(out[j]) + sum[j]);
    }
  }
}

std::vector<std::int64_t> allViews(int count) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

class CpuDirectPair final : public DirectPair {
 public:
  CpuDirectPair(const DirectProblem& problem, std::shared_ptr<const DirectKernels> kernels,
                std::string forwardName, std::string adjointName)
      : direct_(problem),
        kernels_(std::move(kernels)),
        forwardName_(std::move(forwardName)),
        adjointName_(std::move(adjointName)) {
    problem_.geometry = nullptr;
    problem_.grid = problem.grid;
    problem_.gpu = problem.gpu;
  }

  const std::string& forwardName() const noexcept override { return forwardName_; }
  const std::string& adjointName() const noexcept override { return adjointName_; }
  bool matched() const noexcept override { return true; }
  std::string device() const override { return ops_.describe(); }
  const op::ArrayOps& ops() const noexcept override { return ops_; }
  const op::ProjectorProblem& problem() const noexcept override { return problem_; }
  const DirectKernels& kernels() const noexcept override { return *kernels_; }
  const DirectProblem& directProblem() const noexcept override { return direct_; }

  std::unique_ptr<op::Array> makeVolume() const override {
    return std::make_unique<op::HostVolumeArray>(problem_.grid.makeVolume());
  }
  std::unique_ptr<op::Array> makeProjections() const override {
    return std::make_unique<HostBlockArray>(
        productOrThrow("histo-images", {problem_.grid.shape.voxelCount(), direct_.views.count()}));
  }
  std::unique_ptr<const op::Array> useVolume(const Volume& volume) const override {
    if (volume.shape() != problem_.grid.shape)
      throw ParameterError("volume", "its shape differs from the reconstruction grid's");
    return std::make_unique<op::HostVolumeArray>(&volume);
  }
  std::unique_ptr<const op::Array> useHistoImages(const HistoImages& histo) const override {
    checkHisto(histo);
    return std::make_unique<HostBlockArray>(histo.data(), histo.values().size());
  }
  HistoImages takeHistoImages(const op::Array& array) const override {
    HistoImages out(problem_.grid, direct_.views);
    std::copy_n(array.data(), out.values().size(), out.data());
    return out;
  }
  Volume takeVolume(std::unique_ptr<op::Array> volume) const override {
    return std::move(dynamic_cast<op::HostVolumeArray&>(*volume)).take();
  }

  void forward(const op::Array& volume, op::Array& projections, std::span<const std::int64_t> views,
               JobContext& context) override {
    context.throwIfCancelled();
    const std::vector<std::int64_t> all =
        views.empty() ? allViews(direct_.views.count()) : std::vector<std::int64_t>();
    forwardViews(*kernels_, views.empty() ? std::span<const std::int64_t>(all) : views,
                 volume.data(), projections.data());
  }
  void adjoint(const op::Array& projections, op::Array& volume, std::span<const std::int64_t> views,
               JobContext& context) override {
    context.throwIfCancelled();
    const std::vector<std::int64_t> all =
        views.empty() ? allViews(direct_.views.count()) : std::vector<std::int64_t>();
    backViews(*kernels_, views.empty() ? std::span<const std::int64_t>(all) : views,
              projections.data(), volume.data());
  }

 private:
  void checkHisto(const HistoImages& histo) const {
    if (histo.grid().shape != problem_.grid.shape || histo.views().count() != direct_.views.count())
      throw ParameterError("histo-images", "their grid or views differ from the problem's");
  }

  DirectProblem direct_;
  op::ProjectorProblem problem_;
  std::shared_ptr<const DirectKernels> kernels_;
  std::string forwardName_, adjointName_;
  op::HostArrayOps ops_;
};

}  // namespace

op::ViewSelection DirectPair::select(std::span<const std::int64_t> views) const noexcept {
  return {views, directProblem().views.count(), problem().grid.shape.voxelCount()};
}

std::unique_ptr<const op::Array> DirectPair::useProjections(const ProjectionStack&) const {
  throw ParameterError("projections", "a DIRECT pair works on histo-images, not CT projections");
}

HostBlockArray::HostBlockArray(std::size_t size) : size_(size) {
  const std::uint64_t bytes = productOrThrow("array", {static_cast<std::int64_t>(size), 4});
  checkHostAllocation(bytes, "histo-images");
  allocateOrExplain(bytes, "histo-images", [&] { owned_.resize(size); });
}

float* HostBlockArray::data() noexcept {
  assert(!borrowed_);
  return owned_.data();
}

std::unique_ptr<DirectPair> makeCpuDirectPair(const DirectProblem& problem,
                                              std::shared_ptr<const DirectKernels> kernels,
                                              std::string forwardName, std::string adjointName) {
  return std::make_unique<CpuDirectPair>(problem, std::move(kernels), std::move(forwardName),
                                         std::move(adjointName));
}

void directForwardView(const DirectKernels& kernels, int view, std::span<const double> x,
                       std::span<double> y) {
  [[maybe_unused]] const std::int64_t perView = kernels.grid().shape.voxelCount();
  assert(std::int64_t(x.size()) == perView && std::int64_t(y.size()) == perView);
  const std::int64_t v = view;
  forwardViews(kernels, std::span<const std::int64_t>(&v, 1), x.data(), y.data(), true);
}

void directBackView(const DirectKernels& kernels, int view, std::span<const double> z,
                    std::span<double> b) {
  [[maybe_unused]] const std::int64_t perView = kernels.grid().shape.voxelCount();
  assert(std::int64_t(z.size()) == perView && std::int64_t(b.size()) == perView);
  const std::int64_t v = view;
  backViews(kernels, std::span<const std::int64_t>(&v, 1), z.data(), b.data(), true);
}

std::unique_ptr<DirectPair> bindDirectPair(const VariantRegistry& registry,
                                           const std::string& forwardName,
                                           const std::string& adjointName,
                                           const DirectProblem& problem) {
  const KernelVariant& forward = registry.require(forwardName);
  const KernelVariant& back = registry.require(adjointName);
  if (forward.role != VariantRole::PetForwardProjector)
    throw ParameterError("projectors", "'" + forwardName + "' is not a DIRECT forward projector");
  if (back.role != VariantRole::PetBackprojector)
    throw ParameterError("projectors", "'" + adjointName + "' is not a DIRECT backprojector");
  std::string why;
  std::unique_ptr<op::ProjectorPair> pair = forward.bindDirectPair(forward, back, problem, why);
  if (!pair) throw ParameterError("projectors", forwardName + " + " + adjointName + ": " + why);
  return std::unique_ptr<DirectPair>(static_cast<DirectPair*>(pair.release()));
}

}  // namespace tomowb::pet
