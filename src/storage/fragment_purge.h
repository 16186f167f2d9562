// Purging and shadowing of row fragments: what a compaction drops, and what
// a raw read (raw_reader.h) leaves out of its answer, by the same rules.
//
// Contract: pure functions over normalized fragments (row_fragment.h); no
// clock is read here: callers pass gc_before = now - gc_grace_seconds.
#pragma once

#include <cstdint>

#include "storage/row_fragment.h"

namespace keywise {

// The local deletion time below which tombstones and expired data may be
// purged: now_seconds - gc_grace_seconds, clamped to int32.
int32_t GcBefore(int32_t now_seconds, int32_t gc_grace_seconds);

// Drops purgeable deletions from `f`: cell tombstones and expired cells
// whose local deletion time is before `gc_before` (each with every older
// version of its cell), an expired row marker likewise, and the fragment's
// own deletion when `purge_deletion`. Keeps `f` normalized only when it was
// and versions were already cut; callers normalize afterwards.
void PurgeFragment(RowFragment* f, int32_t gc_before, bool purge_deletion);

// Drops the row marker and the cells that `outer` (a partition or range
// deletion covering the row) deletes, without storing `outer` in the
// fragment: what reads would skip anyway. The fragment's own deletion is
// kept, as the compaction filter keeps it. A normalized fragment stays
// normalized.
void ShadowFragment(RowFragment* f, const DeletionTime& outer);

}  // namespace keywise
