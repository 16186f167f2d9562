// KeyDistribution: how `keywise bench` picks the next key index in [0, n).
//
//   uniform     every index equally likely;
//   zipfian     index k (0-based) with probability proportional to
//               1 / (k + 1)^s, by rejection-inversion sampling (Hörmann and
//               Derflinger 1996), exact for any exponent s > 0 and O(1) per
//               draw without a table; index 0 is the hottest;
//   sequential  0, 1, 2, ... wrapping at n: the monotonic hot-spot case
//               (every write lands at the end of the key range).
//
// Contract: a distribution object is used by one thread at a time except
// Sequential, whose counter is atomic so that all io threads share one
// sequence. Next() takes that thread's random generator.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string_view>

namespace keywise::bench {

using Rng = std::mt19937_64;

enum class DistributionKind : uint8_t { kUniform, kZipfian, kSequential };

std::optional<DistributionKind> ParseDistribution(std::string_view name);

class KeyDistribution {
 public:
  virtual ~KeyDistribution() = default;
  // REQUIRES: n() > 0.
  virtual uint64_t Next(Rng& rng) = 0;
  virtual uint64_t n() const = 0;
};

class UniformDistribution final : public KeyDistribution {
 public:
  explicit UniformDistribution(uint64_t n) : n_(n) {}
  uint64_t Next(Rng& rng) override;
  uint64_t n() const override { return n_; }

 private:
  uint64_t n_;
};

class ZipfianDistribution final : public KeyDistribution {
 public:
  // REQUIRES: n > 0, exponent > 0.
  ZipfianDistribution(uint64_t n, double exponent);
  uint64_t Next(Rng& rng) override;
  uint64_t n() const override { return n_; }

 private:
  double H(double x) const;
  double HIntegral(double x) const;
  double HIntegralInverse(double x) const;

  uint64_t n_;
  double exponent_;
  double h_integral_x1_;
  double h_integral_n_;
  double s_;
};

class SequentialDistribution final : public KeyDistribution {
 public:
  explicit SequentialDistribution(uint64_t n) : n_(n) {}
  uint64_t Next(Rng& rng) override;
  uint64_t n() const override { return n_; }

 private:
  uint64_t n_;
  std::atomic<uint64_t> next_{0};
};

std::unique_ptr<KeyDistribution> MakeDistribution(DistributionKind kind,
                                                  uint64_t n, double exponent);

}  // namespace keywise::bench
