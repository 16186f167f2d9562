#include "tracing/sampler.h"

#include <random>

namespace keywise::tracing {

double Sampler::NextUniform() {
  // splitmix64, seeded once per thread: cheap and good enough for
  // choosing requests (not for anything secret).
  thread_local uint64_t state = std::random_device{}() |
                                (uint64_t{std::random_device{}()} << 32);
  state += 0x9E3779B97F4A7C15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace keywise::tracing
