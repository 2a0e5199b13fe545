// CounterRng: a counter-based random generator (Philox4x32-10: Salmon, Moraes, Dror & Shaw,
// "Parallel random numbers: as easy as 1, 2, 3", SC 2011) and the few distributions the list-mode
// simulator draws from. Each stream is addressed by (seed, stream, substream): decay i of a
// simulation draws from its own stream whatever thread runs it, so results do not depend on the
// thread count or on the order in which chunks finish. A stream holds 2^32 blocks of four 32-bit
// words, far more than one decay uses.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

namespace tomowb::pet {

class CounterRng {
 public:
  CounterRng(std::uint64_t seed, std::uint64_t stream, std::uint32_t substream) noexcept
      : key0_(static_cast<std::uint32_t>(seed)),
        key1_(static_cast<std::uint32_t>(seed >> 32)),
        stream0_(static_cast<std::uint32_t>(stream)),
        stream1_(static_cast<std::uint32_t>(stream >> 32)),
        substream_(substream) {}

  std::uint32_t nextU32() noexcept {
    if (used_ == 4) refill();
    return words_[used_++];
  }
  // Uniform in [0, 1), 53 random bits.
  double uniform() noexcept {
    const std::uint64_t hi = nextU32() >> 5, lo = nextU32() >> 6;  // 27 + 26 bits
    return static_cast<double>((hi << 26) | lo) * 0x1.0p-53;
  }
  // Uniform in (0, 1]: safe under a logarithm.
  double uniformPositive() noexcept { return 1.0 - uniform(); }
  // Standard normal (Box-Muller; the second value is kept for the next call).
  double normal() noexcept {
    if (hasSpare_) {
      hasSpare_ = false;
      return spare_;
    }
    const double radius = std::sqrt(-2.0 * std::log(uniformPositive()));
    const double angle = 2.0 * std::numbers::pi * uniform();
    spare_ = radius * std::sin(angle);
    hasSpare_ = true;
    return radius * std::cos(angle);
  }
  // Exp(1).
  double exponential() noexcept { return -std::log(uniformPositive()); }

  // One Philox4x32-10 block: the counter (c0..c3) enciphered under the key (k0, k1).
  static void philox(std::uint32_t counter[4], std::uint32_t k0, std::uint32_t k1) noexcept {
    constexpr std::uint64_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
    constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
      const std::uint64_t p0 = kMul0 * counter[0], p1 = kMul1 * counter[2];
      const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
      const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
      counter[0] = hi1 ^ counter[1] ^ k0;
      counter[1] = lo1;
      counter[2] = hi0 ^ counter[3] ^ k1;
      counter[3] = lo0;
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
  }

 private:
  void refill() noexcept {
    words_[0] = block_++;
    words_[1] = substream_;
    words_[2] = stream0_;
    words_[3] = stream1_;
    philox(words_, key0_, key1_);
    used_ = 0;
  }

  std::uint32_t key0_, key1_, stream0_, stream1_, substream_;
  std::uint32_t block_ = 0;
  std::uint32_t words_[4] = {0, 0, 0, 0};
  int used_ = 4;
  double spare_ = 0.0;
  bool hasSpare_ = false;
};

// ln(k!) for k >= 0: a table below 10, Stirling's series above (error < 1e-10). lgamma would do,
// but it writes the global signgam, which threads may not share.
inline double logFactorial(double k) {
  static constexpr double kTable[10] = {0.0,
                                        0.0,
                                        0.69314718055994531,
                                        1.7917594692280550,
                                        3.1780538303479458,
                                        4.7874917427820458,
                                        6.5792512120101012,
                                        8.5251613610654147,
                                        10.604602902745251,
                                        12.801827480081469};
  if (k < 10) return kTable[static_cast<int>(k)];
  const double inverse = 1.0 / k, inverse2 = inverse * inverse;
  return k * std::log(k) - k + 0.5 * std::log(2 * std::numbers::pi * k) +
         inverse * (1.0 / 12 - inverse2 * (1.0 / 360 - inverse2 / 1260));
}

// Poisson(mean) for mean >= 0: multiplication of uniforms below 10, above it the transformed
// rejection with squeeze of Hoermann ("The transformed rejection method for generating Poisson
// random variables", Insurance: Mathematics and Economics 12, 1993).
inline std::int64_t samplePoisson(double mean, CounterRng& rng) {
  if (!(mean > 0)) return 0;
  if (mean < 10) {
    const double limit = std::exp(-mean);
    std::int64_t k = 0;
    double product = rng.uniform();
    while (product > limit) {
      product *= rng.uniform();
      ++k;
    }
    return k;
  }
  const double root = std::sqrt(mean), logMean = std::log(mean);
  const double b = 0.931 + 2.53 * root;
  const double a = -0.059 + 0.02483 * b;
  const double inverseAlpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = rng.uniform() - 0.5, v = rng.uniform();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<std::int64_t>(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inverseAlpha) - std::log(a / (us * us) + b) <=
        -mean + k * logMean - logFactorial(k))
      return static_cast<std::int64_t>(k);
  }
}

}  // namespace tomowb::pet
