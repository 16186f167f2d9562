#include "storage/cell.h"

namespace keywise {

bool LivenessInfo::Supersedes(const LivenessInfo& o) const {
  if (timestamp != o.timestamp) return timestamp > o.timestamp;
  if (IsExpired() != o.IsExpired()) return IsExpired();
  if (IsExpiring() == o.IsExpiring()) return expiry > o.expiry;
  return IsExpiring();
}

bool CellWins(const Cell& a, const Cell& b) {
  if (a.timestamp != b.timestamp) return a.timestamp > b.timestamp;
  bool a_ldt = a.local_deletion_time != kNoDeletionTime;
  bool b_ldt = b.local_deletion_time != kNoDeletionTime;
  if (a_ldt || b_ldt) {
    if (a_ldt != b_ldt) return a_ldt;
    bool a_tomb = !a.IsExpiring(), b_tomb = !b.IsExpiring();
    if (a_tomb != b_tomb) return a_tomb;
    if (a.local_deletion_time != b.local_deletion_time)
      return a.local_deletion_time > b.local_deletion_time;
  }
  return a.value.compare(b.value) >= 0;  // unsigned byte order
}

bool CellOrderLess(const Cell& a, const Cell& b) {
  if (a.column != b.column) return a.column < b.column;
  if (int c = a.path.compare(b.path); c != 0) return c < 0;
  if (a == b) return false;
  return CellWins(a, b);
}

}  // namespace keywise

