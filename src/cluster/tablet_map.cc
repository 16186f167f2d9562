#include "cluster/tablet_map.h"

#include <algorithm>

namespace keywise::cluster {
namespace {

// Token value + 2^63 as an unsigned number (order preserving).
uint64_t Unbias(Token token) {
  return static_cast<uint64_t>(token.value) ^ (uint64_t{1} << 63);
}
Token Bias(uint64_t u) {
  return Token{static_cast<int64_t>(u ^ (uint64_t{1} << 63))};
}

}  // namespace

TabletId TabletMap::TabletOf(Token token) const {
  if (log2_count == 0) return 0;
  return static_cast<TabletId>(Unbias(token) >> (64 - log2_count));
}

Token TabletMap::LastToken(TabletId id) const {
  if (id + 1 >= count()) return Token{INT64_MAX};
  const uint64_t next = (static_cast<uint64_t>(id) + 1) << (64 - log2_count);
  return Token{Bias(next).value - 1};
}

Token TabletMap::FirstToken(TabletId id) const {
  if (id == 0) return kMinimumToken;
  return Bias(static_cast<uint64_t>(id) << (64 - log2_count));
}

const char* TransitionStageName(TransitionStage stage) {
  switch (stage) {
    case TransitionStage::kWriteBoth:
      return "write_both";
    case TransitionStage::kReadNew:
      return "read_new";
  }
  return "write_both";
}

bool ParseTransitionStage(const std::string& name, TransitionStage* stage) {
  if (name == "write_both") {
    *stage = TransitionStage::kWriteBoth;
  } else if (name == "read_new") {
    *stage = TransitionStage::kReadNew;
  } else {
    return false;
  }
  return true;
}

void TabletInfo::Begin(const Uuid& leaving, const Uuid& pending) {
  TabletTransition t;
  t.leaving = leaving;
  t.pending = pending;
  t.after = replicas;
  for (Uuid& r : t.after) {
    if (r == leaving) r = pending;
  }
  transition = std::move(t);
}

void TabletInfo::Finish() {
  if (!transition) return;
  replicas = transition->after;
  transition.reset();
}

bool HasReplica(const std::vector<Uuid>& replicas, const Uuid& node) {
  return std::find(replicas.begin(), replicas.end(), node) != replicas.end();
}

uint32_t Log2Ceil(uint32_t n) {
  uint32_t k = 0;
  while (k < kMaxTabletLog2 && (uint32_t{1} << k) < n) ++k;
  return k;
}

uint32_t InitialTabletLog2(int configured, size_t data_nodes) {
  const size_t wanted = configured > 0 ? static_cast<size_t>(configured)
                                       : std::max<size_t>(2 * data_nodes, 1);
  return Log2Ceil(static_cast<uint32_t>(
      std::min<size_t>(wanted, size_t{1} << kMaxTabletLog2)));
}

}  // namespace keywise::cluster
