// LoadSampler: the requests this node coordinates, counted per table, with
// a uniform sample of their partition tokens (reservoir sampling, Vitter's
// Algorithm R) to tell where in the table they land. The load reports
// (tablet_load.h) are built from it, and load-based splits pick their
// split token from the samples, as CockroachDB and TiKV do.
//
// Contract: thread-safe. Record is on the coordinator's path: one short
// mutex section; it allocates only for a table's first requests of a
// window. Take closes the window and starts the next.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "common/token.h"
#include "common/uuid.h"

namespace keywise::cluster {

class LoadSampler {
 public:
  // Keeps up to `reservoir` tokens per table and window.
  explicit LoadSampler(size_t reservoir = 256) : reservoir_(reservoir) {}

  // One request (a partition read or written) of `table_id` at `token`.
  void Record(const Uuid& table_id, Token token);

  struct Window {
    uint64_t ops = 0;           // requests recorded
    std::vector<Token> sample;  // a uniform sample of their tokens
  };
  // What was recorded since the previous Take (or construction).
  std::map<Uuid, Window> Take();

 private:
  const size_t reservoir_;
  std::mutex mu_;
  std::map<Uuid, Window> tables_;  // guarded by mu_
  uint64_t rng_ = 0x9e3779b97f4a7c15ULL;  // guarded by mu_ (xorshift64)
};

}  // namespace keywise::cluster
