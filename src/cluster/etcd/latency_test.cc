// Call latencies against the local etcd, printed for docs/cluster_etcd.md
// (and checked only loosely: a call over loopback must not take seconds).
// One client, one call at a time, keep-alive connections.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "cluster/etcd/etcd_test_util.h"

namespace keywise::cluster {
namespace {

using Clock = std::chrono::steady_clock;
using Micros = std::chrono::duration<double, std::micro>;

constexpr int kCalls = 200;

// Runs `call` kCalls times (after 10 warm-up calls) and prints p50, p99
// and mean in microseconds; returns p50.
double Measure(const char* name, const std::function<void(int)>& call) {
  for (int i = 0; i < 10; ++i) call(i);
  std::vector<double> micros;
  for (int i = 0; i < kCalls; ++i) {
    const auto start = Clock::now();
    call(i);
    micros.push_back(Micros(Clock::now() - start).count());
  }
  std::sort(micros.begin(), micros.end());
  double sum = 0;
  for (double m : micros) sum += m;
  const double p50 = micros[micros.size() / 2];
  const double p99 = micros[micros.size() * 99 / 100];
  std::printf("etcd latency %-22s p50 %7.0f us  p99 %7.0f us  mean %7.0f us\n",
              name, p50, p99, sum / micros.size());
  return p50;
}

TEST(EtcdLatency, PrintsCallLatencies) {
  ASSERT_TRUE(SharedEtcd().Healthy());
  auto client = NewTestClient({SharedEtcd().endpoint()});
  const std::string key = TestPrefix() + "k";
  ASSERT_TRUE(client->Put(key, "0", LeaseId::kNone).ok());
  auto lease = client->GrantLease(std::chrono::seconds(60));
  ASSERT_TRUE(lease.ok());

  std::vector<double> p50s;
  p50s.push_back(Measure("put", [&](int i) {
    ASSERT_TRUE(client->Put(key, std::to_string(i), LeaseId::kNone).ok());
  }));
  p50s.push_back(Measure("get (linearizable)",
                         [&](int) { ASSERT_TRUE(client->Get(key).ok()); }));
  RangeOptions local;
  local.serializable = true;
  p50s.push_back(Measure("get (serializable)", [&](int) {
    ASSERT_TRUE(client->Range(KeyRange::Single(key), local).ok());
  }));
  auto read = client->Get(key);
  ASSERT_TRUE(read.ok() && read->kvs.size() == 1);
  int64_t mod_revision = read->kvs[0].mod_revision;
  p50s.push_back(Measure("txn (CAS on mod_rev)", [&](int i) {
    auto txn = client->Txn(
        {Compare::ModRevision(key, CompareOp::kEqual, mod_revision)},
        {TxnOp::Put(key, std::to_string(i))}, {});
    ASSERT_TRUE(txn.ok() && txn->succeeded);
    mod_revision = txn->revision;
  }));
  p50s.push_back(Measure("keepalive", [&](int) {
    auto ttl = client->KeepAliveOnce(lease->id);
    ASSERT_TRUE(ttl.ok() && ttl->count() > 0);
  }));

  WatchRecorder recorder;
  auto watch = client->Watch(KeyRange::Single(key), 0, recorder.Callback());
  ASSERT_TRUE(watch.ok());
  size_t seen = 0;
  p50s.push_back(Measure("put -> watch event", [&](int i) {
    ASSERT_TRUE(client->Put(key, std::to_string(i), LeaseId::kNone).ok());
    ASSERT_TRUE(recorder.WaitForEvents(++seen, std::chrono::seconds(2)));
  }));
  ASSERT_TRUE(client->RevokeLease(lease->id).ok());
  for (double p50 : p50s) EXPECT_LT(p50, 200000.0);  // 200 ms
}

}  // namespace
}  // namespace keywise::cluster
