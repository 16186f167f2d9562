// The watch side of FakeEtcdClient: watcher threads, replay, disconnects.
#include <algorithm>

#include "cluster/etcd/etcd_error.h"
#include "cluster/etcd/fake/fake_etcd_store.h"

namespace keywise::cluster {

bool RangeContains(const KeyRange& range, std::string_view key) {
  if (range.is_single()) return key == range.key;
  if (key < std::string_view(range.key)) return false;
  const bool unbounded = range.range_end == std::string(1, '\0');
  return unbounded || key < std::string_view(range.range_end);
}

void FakeWatcher::Start(const std::shared_ptr<FakeWatcher>& self) {
  self->thread_ = std::thread([self] { self->Run(); });
}

void FakeWatcher::Push(WatchUpdate update) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(update));
  }
  cv_.notify_all();
}

void FakeWatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void FakeWatcher::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    WatchUpdate update = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    callback_(std::move(update));
    lock.lock();
  }
}

Result<std::shared_ptr<FakeWatcher>> FakeEtcdClient::Store::AddWatcher(
    const KeyRange& range, int64_t start_revision, WatchCallback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(CheckReachableLocked());
  auto watcher = std::make_shared<FakeWatcher>(std::move(callback));
  FakeWatcher::Start(watcher);
  if (start_revision > 0 && start_revision < compact_revision_) {
    WatchUpdate compacted;
    compacted.kind = WatchUpdateKind::kCompacted;
    compacted.revision = compact_revision_;
    watcher->Push(std::move(compacted));
    return watcher;
  }
  Watching watching{
      range, watcher, start_revision > 0 ? start_revision : revision_ + 1, {}};
  WatchUpdate replay;
  replay.revision = revision_;
  for (const LogEntry& entry : log_) {
    if (entry.revision < watching.next_revision) continue;
    for (const WatchEvent& event : entry.events) {
      if (RangeContains(range, event.kv.key)) replay.events.push_back(event);
    }
  }
  if (!replay.events.empty()) {
    watching.next_revision = revision_ + 1;
    watcher->Push(std::move(replay));
  }
  watchers_.push_back(std::move(watching));
  return watcher;
}

void FakeEtcdClient::Store::RemoveWatcher(const FakeWatcher* watcher) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(watchers_, [watcher](const Watching& w) {
    return w.watcher.get() == watcher;
  });
}

void FakeEtcdClient::Store::CommitLocked(int64_t rev,
                                         std::vector<WatchEvent> events) {
  if (events.empty()) return;
  revision_ = rev;
  for (Watching& w : watchers_) {
    if (rev < w.next_revision) continue;
    WatchUpdate update;
    update.revision = rev;
    for (const WatchEvent& event : events) {
      if (RangeContains(w.range, event.kv.key)) update.events.push_back(event);
    }
    if (update.events.empty()) continue;
    if (reachable_) {
      w.next_revision = rev + 1;
      w.watcher->Push(std::move(update));
    } else {
      w.held.push_back(std::move(update));
    }
  }
  log_.push_back({rev, std::move(events)});
}

void FakeEtcdClient::Store::Disconnect() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!reachable_) return;
  reachable_ = false;
  for (Watching& w : watchers_) {
    WatchUpdate lost;
    lost.kind = WatchUpdateKind::kConnectionLost;
    lost.error = EtcdUnavailable("fake: disconnected");
    w.watcher->Push(std::move(lost));
  }
}

void FakeEtcdClient::Store::Reconnect() {
  std::lock_guard<std::mutex> lock(mu_);
  if (reachable_) return;
  reachable_ = true;
  for (Watching& w : watchers_) {
    WatchUpdate resumed;
    resumed.kind = WatchUpdateKind::kResumed;
    resumed.revision = w.next_revision;
    w.watcher->Push(std::move(resumed));
    for (WatchUpdate& update : w.held) {
      w.next_revision = update.revision + 1;
      w.watcher->Push(std::move(update));
    }
    w.held.clear();
  }
}

}  // namespace keywise::cluster
