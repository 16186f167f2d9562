// Helpers shared by this folder's tests: one etcd per test binary, clients,
// and a recorder for watch updates.
//
// Contract: test-only. SharedEtcd() starts etcd on first use and fails the
// calling test (ADD_FAILURE) when it cannot; tests keep apart by using
// their own key prefix (TestPrefix()). WatchRecorder is thread-safe.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/etcd/http_etcd_client.h"
#include "testing/etcd_process.h"

namespace keywise::cluster {

// The etcd of this test binary, started on first use.
testing::EtcdProcess& SharedEtcd();

// A client of `endpoints` with test-sized timeouts (2 s per call, 300 ms
// to connect, watches retry from 50 ms). REQUIRES: endpoints are valid.
std::unique_ptr<HttpEtcdClient> NewTestClient(
    std::vector<std::string> endpoints);

// Which EtcdClient a parameterized test runs against.
enum class ClientKind { kReal, kFake };

// A client of SharedEtcd() or a fresh FakeEtcdClient.
std::unique_ptr<EtcdClient> NewClient(ClientKind kind);

// "Real" / "Fake", for test names.
std::string ClientKindName(const ::testing::TestParamInfo<ClientKind>& info);

// "/kwtest/<suite>.<test>/": a key prefix no other test uses.
std::string TestPrefix();

// Collects watch updates and lets a test wait for them.
class WatchRecorder {
 public:
  // A callback that records into this recorder, which must outlive the
  // watch.
  WatchCallback Callback();

  // Waits until `done(updates so far)` holds; returns whether it did within
  // `timeout`.
  bool WaitFor(const std::function<bool(const std::vector<WatchUpdate>&)>& done,
               std::chrono::milliseconds timeout);
  // Waits until at least `count` events were recorded.
  bool WaitForEvents(size_t count, std::chrono::milliseconds timeout);

  std::vector<WatchUpdate> updates() const;
  // The events of every kEvents update, in delivery order.
  std::vector<WatchEvent> events() const;
  // How many updates of `kind` arrived.
  size_t Count(WatchUpdateKind kind) const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<WatchUpdate> updates_;  // guarded by mu_
};

}  // namespace keywise::cluster
