#include "storage/fragment_purge.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace keywise {

int32_t GcBefore(int32_t now_seconds, int32_t gc_grace_seconds) {
  int64_t before = int64_t{now_seconds} - gc_grace_seconds;
  return static_cast<int32_t>(
      std::clamp<int64_t>(before, std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max()));
}

void PurgeFragment(RowFragment* f, int32_t gc_before, bool purge_deletion) {
  if (!f->liveness.IsEmpty() && f->liveness.IsExpiring() &&
      f->liveness.expiry < gc_before)
    f->liveness = LivenessInfo();
  if (purge_deletion && !f->deletion.IsLive() &&
      f->deletion.local_deletion_time < gc_before)
    f->deletion = DeletionTime();
  std::vector<Cell>& cells = f->cells;
  size_t out = 0;
  bool purging_slot = false;
  Cell purged;  // the purged cell whose older versions go with it
  for (size_t i = 0; i < cells.size(); i++) {
    Cell& c = cells[i];
    if (purging_slot && SameCellSlot(purged, c)) continue;
    purging_slot = false;
    const bool dead = c.tombstone || c.IsExpiring();
    if (dead && c.local_deletion_time < gc_before) {
      purged = c;
      purging_slot = true;
      continue;
    }
    if (out != i) cells[out] = std::move(c);
    out++;
  }
  cells.resize(out);
}

void ShadowFragment(RowFragment* f, const DeletionTime& outer) {
  if (outer.IsLive() || !outer.Supersedes(f->deletion)) return;
  if (!f->liveness.IsEmpty() && outer.Deletes(f->liveness.timestamp))
    f->liveness = LivenessInfo();
  std::erase_if(f->cells,
                [&](const Cell& c) { return outer.Deletes(c.timestamp); });
}

}  // namespace keywise
