#include "cluster/metadata/tablet_map.h"

#include <algorithm>

namespace keywise::cluster {
namespace {

// The token whose value + 2^63, as an unsigned number, is `u`.
Token Bias(uint64_t u) {
  return Token{static_cast<int64_t>(u ^ (uint64_t{1} << 63))};
}

}  // namespace

TabletId TabletMap::TabletOf(Token token) const {
  auto it = std::lower_bound(
      tablets.begin(), tablets.end(), token,
      [](const TabletInfo& t, Token tok) { return t.last_token < tok; });
  if (it == tablets.end()) return count() - 1;  // invalid map; stay in range
  return static_cast<TabletId>(it - tablets.begin());
}

Token TabletMap::FirstToken(TabletId id) const {
  if (id == 0) return kMinimumToken;
  return Token{tablets[id - 1].last_token.value + 1};
}

void TabletMap::SetEvenBoundaries() {
  const uint32_t k = Log2Ceil(count());
  for (TabletId id = 0; id < count(); ++id) {
    if (id + 1 == count()) {
      tablets[id].last_token = Token{INT64_MAX};
      break;
    }
    const uint64_t next = (static_cast<uint64_t>(id) + 1) << (64 - k);
    tablets[id].last_token = Token{Bias(next).value - 1};
  }
}

Status TabletMap::CheckBoundaries() const {
  if (tablets.empty()) return Status::Invalid("a tablet map needs a tablet");
  for (size_t i = 1; i < tablets.size(); ++i) {
    if (tablets[i].last_token <= tablets[i - 1].last_token) {
      return Status::Invalid("tablet last tokens must ascend");
    }
  }
  if (tablets.back().last_token.value != INT64_MAX) {
    return Status::Invalid("the last tablet must end at the maximum token");
  }
  return Status::OK();
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

void TabletInfo::Begin(const Uuid& leaving, const Uuid& pending,
                       const Uuid& id) {
  TabletTransition t;
  t.leaving = leaving;
  t.pending = pending;
  t.id = id;
  t.after = replicas;
  if (leaving == Uuid()) {
    t.after.push_back(pending);
  } else if (pending == Uuid()) {
    t.after.erase(std::find(t.after.begin(), t.after.end(), leaving));
  } else {
    for (Uuid& r : t.after) {
      if (r == leaving) r = pending;
    }
  }
  transition = std::move(t);
}

bool TabletInfo::HeldBy(const Uuid& node) const {
  return HasReplica(replicas, node) || PendingReplica() == node;
}

void TabletInfo::Finish() {
  if (!transition) return;
  replicas = transition->after;
  transition.reset();
}

Status SplitTablet(TabletMap* map, TabletId id, const std::vector<Token>& at) {
  if (id >= map->count()) return Status::Invalid("no such tablet");
  const TabletInfo whole = map->tablets[id];
  if (whole.transition) {
    return Status::Invalid("a moving tablet cannot be split");
  }
  if (at.empty()) return Status::Invalid("a split needs a split token");
  Token low = map->FirstToken(id);
  for (Token t : at) {
    if (t < low || t >= whole.last_token) {
      return Status::Invalid("split token " + std::to_string(t.value) +
                             " is outside the tablet or out of order");
    }
    low = Token{t.value + 1};
  }
  std::vector<TabletInfo> parts;
  for (Token t : at) {
    TabletInfo part = whole;
    part.last_token = t;
    parts.push_back(std::move(part));
  }
  parts.push_back(whole);
  map->tablets.erase(map->tablets.begin() + id);
  map->tablets.insert(map->tablets.begin() + id, parts.begin(), parts.end());
  return Status::OK();
}

Status MergeTablets(TabletMap* map, TabletId left) {
  if (left + 1 >= map->count()) return Status::Invalid("no such tablets");
  TabletInfo& a = map->tablets[left];
  const TabletInfo& b = map->tablets[left + 1];
  if (a.transition || b.transition) {
    return Status::Invalid("a moving tablet cannot be merged");
  }
  std::vector<Uuid> ra = a.replicas, rb = b.replicas;
  std::sort(ra.begin(), ra.end());
  std::sort(rb.begin(), rb.end());
  if (ra != rb) {
    return Status::Invalid("tablets with different replicas cannot merge");
  }
  a.last_token = b.last_token;
  map->tablets.erase(map->tablets.begin() + left + 1);
  return Status::OK();
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
