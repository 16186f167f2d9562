#include "bench_tool/key_distribution.h"

#include <cmath>

namespace keywise::bench {
namespace {

// log1p(x) / x, and its series near 0.
double Helper1(double x) {
  if (std::abs(x) > 1e-8) return std::log1p(x) / x;
  return 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

// expm1(x) / x, and its series near 0.
double Helper2(double x) {
  if (std::abs(x) > 1e-8) return std::expm1(x) / x;
  return 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

double Uniform01(Rng& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace

std::optional<DistributionKind> ParseDistribution(std::string_view name) {
  if (name == "uniform") return DistributionKind::kUniform;
  if (name == "zipfian" || name == "zipf") return DistributionKind::kZipfian;
  if (name == "sequential" || name == "monotonic") {
    return DistributionKind::kSequential;
  }
  return std::nullopt;
}

uint64_t UniformDistribution::Next(Rng& rng) {
  // Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32.
  return static_cast<uint64_t>((static_cast<unsigned __int128>(rng()) * n_) >>
                               64);
}

ZipfianDistribution::ZipfianDistribution(uint64_t n, double exponent)
    : n_(n), exponent_(exponent) {
  h_integral_x1_ = HIntegral(1.5) - 1;
  h_integral_n_ = HIntegral(static_cast<double>(n_) + 0.5);
  s_ = 2 - HIntegralInverse(HIntegral(2.5) - H(2));
}

double ZipfianDistribution::H(double x) const {
  return std::exp(-exponent_ * std::log(x));
}

double ZipfianDistribution::HIntegral(double x) const {
  double log_x = std::log(x);
  return Helper2((1 - exponent_) * log_x) * log_x;
}

double ZipfianDistribution::HIntegralInverse(double x) const {
  double t = x * (1 - exponent_);
  if (t < -1) t = -1;
  return std::exp(Helper1(t) * x);
}

uint64_t ZipfianDistribution::Next(Rng& rng) {
  for (;;) {
    double u =
        h_integral_n_ + Uniform01(rng) * (h_integral_x1_ - h_integral_n_);
    double x = HIntegralInverse(u);
    double kd = std::floor(x + 0.5);
    if (kd < 1) kd = 1;
    if (kd > static_cast<double>(n_)) kd = static_cast<double>(n_);
    if (kd - x <= s_ || u >= HIntegral(kd + 0.5) - H(kd)) {
      return static_cast<uint64_t>(kd) - 1;
    }
  }
}

uint64_t SequentialDistribution::Next(Rng&) {
  return next_.fetch_add(1, std::memory_order_relaxed) % n_;
}

std::unique_ptr<KeyDistribution> MakeDistribution(DistributionKind kind,
                                                  uint64_t n, double exponent) {
  switch (kind) {
    case DistributionKind::kUniform:
      return std::make_unique<UniformDistribution>(n);
    case DistributionKind::kZipfian:
      return std::make_unique<ZipfianDistribution>(n, exponent);
    case DistributionKind::kSequential:
      return std::make_unique<SequentialDistribution>(n);
  }
  return nullptr;
}

}  // namespace keywise::bench
