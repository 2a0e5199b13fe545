#include "recon/operator/AdjointTest.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace tomowb::op {

AdjointCheck checkAdjoint(ProjectorPair& pair, std::uint64_t seed, JobContext& context) {
  const ArrayOps& ops = pair.ops();
  std::unique_ptr<Array> x = pair.makeVolume();
  std::unique_ptr<Array> y = pair.makeProjections();
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  {
    std::vector<float> host(x->size());
    for (float& v : host) v = value(generator);
    ops.upload(host, *x);
    host.assign(y->size(), 0.0f);
    for (float& v : host) v = value(generator);
    ops.upload(host, *y);
  }
  std::unique_ptr<Array> ax = pair.makeProjections();
  pair.forward(*x, *ax, {}, context);
  std::unique_ptr<Array> by = pair.makeVolume();
  pair.adjoint(*y, *by, {}, context);

  AdjointCheck check;
  check.forwardDot = ops.dot(*ax, *y);
  check.backDot = ops.dot(*x, *by);
  const double scale = std::max(std::sqrt(ops.dot(*ax, *ax) * ops.dot(*y, *y)),
                                std::sqrt(ops.dot(*x, *x) * ops.dot(*by, *by)));
  check.relativeError = scale > 0 ? std::abs(check.forwardDot - check.backDot) / scale : 0.0;
  return check;
}

}  // namespace tomowb::op
