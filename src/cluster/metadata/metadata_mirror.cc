#include "cluster/metadata/metadata_mirror.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "common/log.h"

namespace keywise::cluster {

MetadataMirror::MetadataMirror(EtcdClient* etcd, std::string prefix,
                               Callback callback)
    : etcd_(etcd), prefix_(std::move(prefix)), callback_(std::move(callback)) {}

MetadataMirror::~MetadataMirror() {
  Stop();
}

Status MetadataMirror::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  return Resync();
}

void MetadataMirror::Stop() {
  std::unique_ptr<WatchHandle> watch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    watch = std::move(watch_);
  }
  watch.reset();  // waits for a running callback
}

int64_t MetadataMirror::revision() const {
  std::lock_guard<std::mutex> lock(mu_);
  return revision_;
}

Status MetadataMirror::Resync() {
  KW_ASSIGN_OR_RETURN(RangeResult all,
                      etcd_->Range(KeyRange::Prefix(prefix_), RangeOptions{}));
  copy_.clear();
  for (KeyValue& kv : all.kvs) {
    std::string key = kv.key;
    copy_.emplace(std::move(key), std::move(kv));
  }
  revision_ = all.revision;
  callback_(copy_, revision_);
  KW_ASSIGN_OR_RETURN(
      watch_, etcd_->Watch(KeyRange::Prefix(prefix_), revision_ + 1,
                           [this](WatchUpdate u) { OnUpdate(std::move(u)); }));
  return Status::OK();
}

void MetadataMirror::OnUpdate(WatchUpdate update) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stopped_) return;
  switch (update.kind) {
    case WatchUpdateKind::kEvents:
      for (WatchEvent& e : update.events) {
        if (e.type == WatchEventType::kDelete) {
          copy_.erase(e.kv.key);
        } else {
          std::string key = e.kv.key;
          copy_[std::move(key)] = std::move(e.kv);
        }
      }
      revision_ = update.revision;
      callback_(copy_, revision_);
      return;
    case WatchUpdateKind::kConnectionLost:
      LogWarn("cluster", "Lost the metadata watch: " + update.error.ToString() +
                             "; reconnecting");
      return;
    case WatchUpdateKind::kResumed:
      LogInfo("cluster", "Metadata watch resumed at revision " +
                             std::to_string(update.revision));
      return;
    case WatchUpdateKind::kCompacted: {
      // The watch has ended: read everything again and watch anew. The old
      // handle is being destroyed from its own callback, which the watch
      // allows; it must not be destroyed under our lock by Resync.
      std::unique_ptr<WatchHandle> old = std::move(watch_);
      for (int delay_ms = 100; !stopped_;
           delay_ms = std::min(delay_ms * 2, 2000)) {
        Status st = Resync();
        if (st.ok()) break;
        LogWarn("cluster",
                "Cannot re-read the cluster metadata after "
                "compaction: " +
                    st.ToString());
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        lock.lock();
      }
      lock.unlock();
      old.reset();
      return;
    }
  }
}

}  // namespace keywise::cluster
