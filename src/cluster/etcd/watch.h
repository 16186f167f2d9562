// What a watch reports: batches of events in revision order, and notices
// about the watch itself.
//
// Contract: a watch covers a KeyRange from a start revision (inclusive; 0 =
// from the next write on). Its callback runs on the watch's own thread, one
// call at a time, never after the WatchHandle is destroyed (destruction
// waits for a running call). After kCompacted no further call comes: the
// events from the requested revision are gone, so the caller re-reads the
// range at head and starts a new watch from that read's revision + 1.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "cluster/etcd/etcd_types.h"
#include "common/status.h"

namespace keywise::cluster {

enum class WatchEventType { kPut, kDelete };

struct WatchEvent {
  WatchEventType type = WatchEventType::kPut;
  // kPut: the key as written. kDelete: key and mod_revision (the revision of
  // the delete) only. A lease expiry shows up as a kDelete.
  KeyValue kv;
};

enum class WatchUpdateKind {
  kEvents,          // events: one or more, ascending mod_revision
  kConnectionLost,  // the stream broke (error says why); reconnecting
  kResumed,         // the stream is back from `revision`; nothing was missed
  kCompacted,       // `revision` = etcd's compact revision; the watch ended
};

struct WatchUpdate {
  WatchUpdateKind kind = WatchUpdateKind::kEvents;
  std::vector<WatchEvent> events;  // kEvents only
  // kEvents: the store revision when etcd sent the batch; kResumed: the
  // first revision the resumed watch delivers; kCompacted: the compact
  // revision.
  int64_t revision = 0;
  Status error;  // kConnectionLost only
};

using WatchCallback = std::function<void(WatchUpdate update)>;

// Owns a running watch; destroying it stops the watch. May be destroyed from
// inside the watch's own callback.
class WatchHandle {
 public:
  virtual ~WatchHandle() = default;
};

}  // namespace keywise::cluster
