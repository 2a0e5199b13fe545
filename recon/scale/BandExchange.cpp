// BandExchange: see the header.
#include "recon/scale/BandExchange.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "recon/core/Error.h"

namespace tomowb::scale {

BandOverlap BandOverlap::of(const std::vector<RowBand>& bands, int rank) {
  BandOverlap o;
  if (bands.empty()) return o;
  std::int64_t first = bands.front().first, last = bands.front().last;
  for (const RowBand& b : bands) {
    first = std::min(first, b.first);
    last = std::max(last, b.last);
  }
  const RowBand& own = bands[static_cast<std::size_t>(rank)];
  for (std::int64_t row = first; row <= last; ++row) {
    int holders = 0, lowest = -1;
    for (std::size_t k = 0; k < bands.size(); ++k)
      if (bands[k].contains(row)) {
        if (lowest < 0) lowest = static_cast<int>(k);
        ++holders;
      }
    if (holders < 2) continue;
    if (own.contains(row)) o.mine.push_back({row - own.first, o.sharedRowCount, lowest == rank});
    ++o.sharedRowCount;
  }
  return o;
}

namespace {

// The selection's views in order (all of them when the list is empty).
std::vector<std::int64_t> viewsOf(const op::ViewSelection& s) {
  if (!s.views.empty()) return {s.views.begin(), s.views.end()};
  std::vector<std::int64_t> all(static_cast<std::size_t>(s.viewCount));
  for (std::int64_t v = 0; v < s.viewCount; ++v) all[static_cast<std::size_t>(v)] = v;
  return all;
}

}  // namespace

// The inner pair's operations, with the reductions the solver relies on made over every rank.
class ExchangingPair::Ops final : public op::ArrayOps {
 public:
  Ops(ExchangingPair& pair, const op::ArrayOps& inner) : pair_(pair), inner_(inner) {}
  op::MemorySpace space() const noexcept override { return inner_.space(); }
  std::string describe() const override { return inner_.describe(); }
  void upload(std::span<const float> host, op::Array& to) const override {
    inner_.upload(host, to);
  }
  void download(const op::Array& from, std::span<float> host) const override {
    inner_.download(from, host);
  }
  void fill(op::Array& a, float value) const override { inner_.fill(a, value); }
  void copy(const op::Array& from, op::Array& to) const override { inner_.copy(from, to); }
  void axpy(double alpha, const op::Array& x, op::Array& y) const override {
    inner_.axpy(alpha, x, y);
  }
  void xpby(const op::Array& x, double beta, op::Array& y) const override {
    inner_.xpby(x, beta, y);
  }
  void addProduct(const op::Array& c, const op::Array& u, op::Array& x) const override {
    inner_.addProduct(c, u, x);
  }
  // The threshold relative to the largest sum of the whole problem, not of this rank's part.
  void invertSums(op::Array& a, double relativeThreshold, double scale) const override {
    const double local = inner_.maxValue(a);
    const double global = pair_.comm_.maximum(local);
    const double threshold = local > 0 ? relativeThreshold * global / local : relativeThreshold;
    inner_.invertSums(a, threshold, scale);
  }
  void clampMasked(op::Array& x, const op::Array* mask, float lower, float upper) const override {
    inner_.clampMasked(x, mask, lower, upper);
  }
  void indicator(const op::Array* mask, op::Array& a) const override { inner_.indicator(mask, a); }
  double dot(const op::Array& /*a*/, const op::Array& /*b*/) const override {
    throw ParameterError("method",
                         "only SIRT, OS-SIRT and SART run with their slabs shared by ranks");
  }
  double maxValue(const op::Array& a) const override {
    return pair_.comm_.maximum(inner_.maxValue(a));
  }
  op::ResidualNorms weightResidual(const op::Array& b, const op::Array& w, op::Array& r,
                                   const op::ViewSelection& views) const override;
  void multiply(const op::Array& c, op::Array& x) const override { inner_.multiply(c, x); }
  double hyperbolaPenalty(const op::Array& /*x*/, const VolumeShape& /*shape*/, double /*delta*/,
                          double /*beta*/, op::Array& /*gradient*/,
                          op::Array* /*curvature*/) const override {
    throw ParameterError("method", "PWLS does not run with its slabs shared by ranks");
  }
  void sqsStep(op::Array& /*x*/, const op::Array& /*descent*/, double /*scale*/,
               const op::Array* /*penaltyGradient*/, const op::Array& /*denominator*/,
               const op::Array* /*curvature*/, const op::Array* /*mask*/, float /*lower*/,
               float /*upper*/) const override {
    throw ParameterError("method", "PWLS does not run with its slabs shared by ranks");
  }
  op::PoissonSums poissonRatio(const op::Array& /*d*/, op::Array& /*q*/, const op::Array* /*m*/,
                               const op::Array* /*b*/,
                               const op::ViewSelection& /*views*/) const override {
    throw ParameterError("method", "EM does not run with its slabs shared by ranks");
  }
  void relaxedEmStep(op::Array& /*x*/, const op::Array& /*backprojected*/,
                     const op::Array& /*subsetSensitivity*/, const op::Array& /*stepSensitivity*/,
                     double /*lambda*/) const override {
    throw ParameterError("method", "EM does not run with its slabs shared by ranks");
  }

 private:
  // The samples of an unchanging projection array (the data, the row weights) on the rows this
  // rank does not count, [view][row of `mine`][col], copied once.
  const std::vector<float>& uncountedRows(const op::Array& a) const {
    auto found = cache_.find(&a);
    if (found != cache_.end()) return found->second;
    const BandOverlap& o = pair_.overlap_;
    const op::ViewSelection all = pair_.inner_->select({});
    std::vector<float> host;
    const float* samples = a.data();
    if (a.space() != op::MemorySpace::Host) {
      host.resize(a.size());
      inner_.download(a, host);
      samples = host.data();
    }
    const auto cols = static_cast<std::size_t>(pair_.cols_);
    std::vector<float> rows;
    for (std::int64_t v = 0; v < all.viewCount; ++v)
      for (const BandOverlap::SharedRow& s : o.mine) {
        if (s.counted) continue;
        const float* row = samples + static_cast<std::size_t>(v * all.pixelsPerView) +
                           static_cast<std::size_t>(s.bandRow) * cols;
        rows.insert(rows.end(), row, row + cols);
      }
    return cache_.emplace(&a, std::move(rows)).first->second;
  }

  ExchangingPair& pair_;
  const op::ArrayOps& inner_;
  mutable std::map<const op::Array*, std::vector<float>> cache_;
};

op::ResidualNorms ExchangingPair::Ops::weightResidual(const op::Array& b, const op::Array& w,
                                                      op::Array& r,
                                                      const op::ViewSelection& views) const {
  // The rows another rank counts: their share of this rank's sums, from r's content on entry
  // (the forward projection, whose shared rows the last exchange summed).
  const BandOverlap& o = pair_.overlap_;
  double residual2 = 0, weighted2 = 0;
  const auto uncounted = static_cast<std::size_t>(
      std::count_if(o.mine.begin(), o.mine.end(), [](const auto& s) { return !s.counted; }));
  if (uncounted > 0) {
    const std::vector<std::int64_t> list = viewsOf(views);
    if (list != pair_.lastViews_)
      throw Error("internal: the residual of views that were not the last forward projection's");
    const std::vector<float>& bRows = uncountedRows(b);
    const std::vector<float>& wRows = uncountedRows(w);
    const auto cols = static_cast<std::size_t>(pair_.cols_);
    const auto slots = static_cast<std::size_t>(o.sharedRowCount);
    for (std::size_t k = 0; k < list.size(); ++k) {
      std::size_t u = static_cast<std::size_t>(list[k]) * uncounted * cols;
      for (const BandOverlap::SharedRow& s : o.mine) {
        if (s.counted) continue;
        const float* y =
            pair_.lastSums_.data() + (k * slots + static_cast<std::size_t>(s.slot)) * cols;
        for (std::size_t c = 0; c < cols; ++c, ++u) {
          const double d = static_cast<double>(bRows[u]) - static_cast<double>(y[c]);
          residual2 += d * d;
          weighted2 += static_cast<double>(wRows[u]) * d * d;
        }
      }
    }
  }
  const op::ResidualNorms local = inner_.weightResidual(b, w, r, views);
  double uncoveredSquares = 0;
  if (!pair_.uncoveredSquares_.empty())
    for (const std::int64_t v : viewsOf(views))
      uncoveredSquares += pair_.uncoveredSquares_[static_cast<std::size_t>(v)];
  double sums[2] = {std::max(0.0, local.residual2 - residual2) + uncoveredSquares,
                    std::max(0.0, local.weighted2 - weighted2)};
  pair_.comm_.sum(std::span<double>(sums, 2));
  return {sums[0], sums[1]};
}

ExchangingPair::ExchangingPair(std::unique_ptr<op::ProjectorPair> inner,
                               const std::vector<RowBand>& bands, Communicator& comm,
                               std::int64_t detectorCols)
    : inner_(std::move(inner)),
      comm_(comm),
      overlap_(BandOverlap::of(bands, comm.rank())),
      cols_(detectorCols) {
  const RowBand& own = bands[static_cast<std::size_t>(comm.rank())];
  const op::ViewSelection all = inner_->select({});
  if (all.pixelsPerView != own.rows() * cols_)
    throw ParameterError("projectors", inner_->forwardName() +
                                           " keeps projections in a layout of its own: its "
                                           "slabs cannot be shared by ranks");
  ops_ = std::make_unique<Ops>(*this, inner_->ops());
}

ExchangingPair::~ExchangingPair() = default;

const op::ArrayOps& ExchangingPair::ops() const noexcept {
  return *ops_;
}

void ExchangingPair::forward(const op::Array& volume, op::Array& projections,
                             std::span<const std::int64_t> views, JobContext& context) {
  inner_->forward(volume, projections, views, context);
  const op::ViewSelection selection = inner_->select(views);
  lastViews_ = viewsOf(selection);
  if (overlap_.sharedRowCount == 0) return;  // nothing to exchange (every rank still agrees)
  const auto cols = static_cast<std::size_t>(cols_);
  const auto slots = static_cast<std::size_t>(overlap_.sharedRowCount);
  lastSums_.assign(lastViews_.size() * slots * cols, 0.0f);
  float* samples = projections.data();
  if (projections.space() != op::MemorySpace::Host) {
    staging_.resize(projections.size());
    inner_->ops().download(projections, staging_);
    samples = staging_.data();
  }
  const auto rowOf = [&](std::size_t k, const BandOverlap::SharedRow& s) {
    return samples + static_cast<std::size_t>(lastViews_[k] * selection.pixelsPerView) +
           static_cast<std::size_t>(s.bandRow) * cols;
  };
  for (std::size_t k = 0; k < lastViews_.size(); ++k)
    for (const BandOverlap::SharedRow& s : overlap_.mine)
      std::memcpy(lastSums_.data() + (k * slots + static_cast<std::size_t>(s.slot)) * cols,
                  rowOf(k, s), cols * sizeof(float));
  comm_.sum(lastSums_);
  exchangedBytes_ += lastSums_.size() * sizeof(float);
  for (std::size_t k = 0; k < lastViews_.size(); ++k)
    for (const BandOverlap::SharedRow& s : overlap_.mine)
      std::memcpy(rowOf(k, s),
                  lastSums_.data() + (k * slots + static_cast<std::size_t>(s.slot)) * cols,
                  cols * sizeof(float));
  if (projections.space() != op::MemorySpace::Host) inner_->ops().upload(staging_, projections);
}

}  // namespace tomowb::scale
