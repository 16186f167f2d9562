// MetadataMirror: a copy, in this node's memory, of every key of the
// cluster under /keywise/<cluster>/ in etcd, kept current by one watch.
// The cluster's views (topology, schema, tablet maps) are derived from it.
//
// Contract: Start reads the whole prefix, hands it to the callback, then
// watches from the next revision and calls the callback after each batch
// of changes, on the watch's thread, one call at a time, never after
// Stop returns. A watch that loses its connection keeps reconnecting (the
// copy stays as it was: the node goes on with what it knew); one whose
// history was compacted reads the prefix again. The callback receives the
// whole copy and the revision it reflects.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cluster/etcd/etcd_client.h"

namespace keywise::cluster {

// Key -> value as last written, with its revisions.
using MetadataCopy = std::map<std::string, KeyValue>;

class MetadataMirror {
 public:
  using Callback =
      std::function<void(const MetadataCopy& copy, int64_t revision)>;

  // `etcd` must outlive the mirror.
  MetadataMirror(EtcdClient* etcd, std::string prefix, Callback callback);
  ~MetadataMirror();

  // Reads the prefix (calling the callback once with it) and starts the
  // watch. Errors when etcd cannot be read.
  Status Start();
  void Stop();

  // The revision of the last copy handed to the callback.
  int64_t revision() const;

 private:
  Status Resync();  // REQUIRES: mu_ held
  void OnUpdate(WatchUpdate update);

  EtcdClient* const etcd_;
  const std::string prefix_;
  const Callback callback_;

  mutable std::mutex mu_;
  MetadataCopy copy_;                   // guarded by mu_
  int64_t revision_ = 0;                // guarded by mu_
  std::unique_ptr<WatchHandle> watch_;  // guarded by mu_
  bool stopped_ = false;                // guarded by mu_
};

}  // namespace keywise::cluster
