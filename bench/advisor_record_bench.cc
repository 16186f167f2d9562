// The cost of one WorkloadStats::Record (advisor/workload_stats.h), the
// work the advisor's statistics add to every read and write: single
// thread, serialized partition keys of the size `keywise bench` writes,
// uniform over --keys partitions (each a new key for the sketch: the
// slow path) and zipfian-like (a few hot keys: the fast path); and of one
// QueryShapes::Record (advisor/query_shapes.h), added to every SELECT,
// over 8 shapes of 3 tables.
//
//   build-release/bench/keywise_advisor_record_bench [keys] [records]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "advisor/workload_stats.h"

namespace {

double NanosPerRecord(const std::vector<std::string>& keys,
                      const std::vector<size_t>& stream) {
  keywise::advisor::WorkloadStats stats;
  const keywise::Uuid table = keywise::Uuid::Random();
  const auto start = std::chrono::steady_clock::now();
  for (size_t i : stream) {
    // Callers compute the token (PartitionToken): timed here too.
    stats.Record(table, keywise::advisor::KeyOp::kWrite, keys[i],
                 keywise::TokenOfKey(keys[i]));
  }
  const double ns = std::chrono::duration<double, std::nano>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  return ns / static_cast<double>(stream.size());
}

double NanosPerShapeRecord(size_t n) {
  keywise::advisor::QueryShapes shapes;
  const keywise::Uuid tables[3] = {keywise::Uuid::Random(),
                                   keywise::Uuid::Random(),
                                   keywise::Uuid::Random()};
  std::vector<std::string> texts;
  for (int i = 0; i < 8; ++i) {
    texts.push_back("WHERE k = ? AND c" + std::to_string(i) + " > ?");
  }
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < n; ++i) {
    shapes.Record(tables[i % 3], texts[i % 8], "SCAN", 10, 10, i % 5000);
  }
  const double ns = std::chrono::duration<double, std::nano>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  return ns / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n_keys = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000;
  const size_t n = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 5000000;
  std::vector<std::string> keys;
  for (size_t i = 0; i < n_keys; ++i) {
    keys.push_back(std::string(8, '\0') + std::to_string(i));  // a bigint
  }
  std::mt19937_64 rng(1);
  std::vector<size_t> uniform(n), skewed(n);
  std::uniform_int_distribution<size_t> any(0, n_keys - 1);
  for (size_t i = 0; i < n; ++i) {
    uniform[i] = any(rng);
    // 90% of the records on 10 keys.
    skewed[i] = rng() % 10 < 9 ? rng() % 10 : any(rng);
  }
  std::printf("WorkloadStats::Record, %zu records over %zu keys: "
              "uniform %.0f ns, skewed %.0f ns per record\n",
              n, n_keys, NanosPerRecord(keys, uniform),
              NanosPerRecord(keys, skewed));
  std::printf("QueryShapes::Record, %zu records over 8 shapes of 3 tables: "
              "%.0f ns per record\n",
              n, NanosPerShapeRecord(n));
  return 0;
}
