#include "cluster/etcd/etcd_test_util.h"

#include <gtest/gtest.h>

#include "cluster/etcd/fake/fake_etcd_client.h"

namespace keywise::cluster {

testing::EtcdProcess& SharedEtcd() {
  // Stopped by its destructor when the test binary exits.
  static testing::EtcdProcess etcd;
  static const bool started = [] {
    const bool ok = etcd.Start();
    if (!ok) {
      ADD_FAILURE() << "could not start " << testing::EtcdProcess::Binary()
                    << " (run scripts/setup.sh); log: " << etcd.log_path();
    }
    return ok;
  }();
  (void)started;
  return etcd;
}

std::unique_ptr<HttpEtcdClient> NewTestClient(
    std::vector<std::string> endpoints) {
  EtcdClientOptions options;
  options.endpoints = std::move(endpoints);
  options.request_timeout = std::chrono::milliseconds(2000);
  options.connect_timeout = std::chrono::milliseconds(300);
  options.watch_retry_min = std::chrono::milliseconds(50);
  options.watch_retry_max = std::chrono::milliseconds(200);
  auto client = HttpEtcdClient::Create(std::move(options));
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return std::move(client).value();
}

std::unique_ptr<EtcdClient> NewClient(ClientKind kind) {
  if (kind == ClientKind::kFake) return std::make_unique<FakeEtcdClient>();
  EXPECT_TRUE(SharedEtcd().Healthy());
  return NewTestClient({SharedEtcd().endpoint()});
}

std::string ClientKindName(const ::testing::TestParamInfo<ClientKind>& info) {
  return info.param == ClientKind::kReal ? "Real" : "Fake";
}

std::string TestPrefix() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string("/kwtest/") + info->test_suite_name() + "." +
         info->name() + "/";
}

WatchCallback WatchRecorder::Callback() {
  return [this](WatchUpdate update) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      updates_.push_back(std::move(update));
    }
    cv_.notify_all();
  };
}

bool WatchRecorder::WaitFor(
    const std::function<bool(const std::vector<WatchUpdate>&)>& done,
    std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return done(updates_); });
}

bool WatchRecorder::WaitForEvents(size_t count,
                                  std::chrono::milliseconds timeout) {
  return WaitFor(
      [count](const std::vector<WatchUpdate>& updates) {
        size_t n = 0;
        for (const WatchUpdate& update : updates) n += update.events.size();
        return n >= count;
      },
      timeout);
}

std::vector<WatchUpdate> WatchRecorder::updates() const {
  std::lock_guard<std::mutex> lock(mu_);
  return updates_;
}

std::vector<WatchEvent> WatchRecorder::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<WatchEvent> out;
  for (const WatchUpdate& update : updates_) {
    out.insert(out.end(), update.events.begin(), update.events.end());
  }
  return out;
}

size_t WatchRecorder::Count(WatchUpdateKind kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const WatchUpdate& update : updates_) n += update.kind == kind;
  return n;
}

}  // namespace keywise::cluster
