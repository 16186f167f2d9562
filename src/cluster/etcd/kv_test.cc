// Put, get, range, delete, transactions and compaction, against a real etcd
// and against FakeEtcdClient (which must behave the same).
#include <gtest/gtest.h>

#include "cluster/etcd/etcd_error.h"
#include "cluster/etcd/etcd_test_util.h"

namespace keywise::cluster {
namespace {

class EtcdKv : public ::testing::TestWithParam<ClientKind> {
 protected:
  void SetUp() override {
    client_ = NewClient(GetParam());
    prefix_ = TestPrefix();
  }
  std::string Key(const std::string& name) const { return prefix_ + name; }

  std::unique_ptr<EtcdClient> client_;
  std::string prefix_;
};

TEST_P(EtcdKv, PutGetRangeDelete) {
  auto r1 = client_->Put(Key("a"), "1", LeaseId::kNone);
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  auto r2 = client_->Put(Key("b"), "2", LeaseId::kNone);
  auto r3 = client_->Put(Key("a"), "3", LeaseId::kNone);
  ASSERT_TRUE(r2.ok() && r3.ok());
  EXPECT_EQ(*r2, *r1 + 1);
  EXPECT_EQ(*r3, *r2 + 1);

  auto a = client_->Get(Key("a"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->kvs.size(), 1u);
  EXPECT_EQ(a->kvs[0].value, "3");
  EXPECT_EQ(a->kvs[0].create_revision, *r1);
  EXPECT_EQ(a->kvs[0].mod_revision, *r3);
  EXPECT_EQ(a->kvs[0].version, 2);
  EXPECT_EQ(a->kvs[0].lease, LeaseId::kNone);
  EXPECT_GE(a->revision, *r3);

  auto absent = client_->Get(Key("nothing"));
  ASSERT_TRUE(absent.ok());
  EXPECT_TRUE(absent->kvs.empty());

  auto all = client_->Range(KeyRange::Prefix(prefix_), RangeOptions{});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->kvs.size(), 2u);
  EXPECT_EQ(all->kvs[0].key, Key("a"));
  EXPECT_EQ(all->kvs[1].key, Key("b"));
  EXPECT_EQ(all->count, 2);

  RangeOptions first;
  first.limit = 1;
  auto limited = client_->Range(KeyRange::Prefix(prefix_), first);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->kvs.size(), 1u);
  EXPECT_TRUE(limited->more);
  EXPECT_EQ(limited->count, 2);

  RangeOptions old;
  old.revision = *r1;
  auto before = client_->Range(KeyRange::Prefix(prefix_), old);
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->kvs.size(), 1u);
  EXPECT_EQ(before->kvs[0].value, "1");

  auto gone = client_->Delete(KeyRange::Single(Key("a")));
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_EQ(gone->deleted, 1);
  EXPECT_EQ(gone->revision, *r3 + 1);
  auto nothing = client_->Delete(KeyRange::Single(Key("a")));
  ASSERT_TRUE(nothing.ok());
  EXPECT_EQ(nothing->deleted, 0);
  EXPECT_EQ(nothing->revision, gone->revision);  // no write, no revision

  ASSERT_TRUE(client_->Put(Key("c"), "", LeaseId::kNone).ok());
  auto empty_value = client_->Get(Key("c"));
  ASSERT_TRUE(empty_value.ok());
  ASSERT_EQ(empty_value->kvs.size(), 1u);
  EXPECT_EQ(empty_value->kvs[0].value, "");
  auto rest = client_->Delete(KeyRange::Prefix(prefix_));
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->deleted, 2);
}

TEST_P(EtcdKv, BinaryKeysAndValuesRoundTrip) {
  const std::string key = Key(std::string("\0\xff\x01 k", 5));
  const std::string value("\xff\0\n\"{}", 6);
  ASSERT_TRUE(client_->Put(key, value, LeaseId::kNone).ok());
  auto read = client_->Get(key);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->kvs.size(), 1u);
  EXPECT_EQ(read->kvs[0].key, key);
  EXPECT_EQ(read->kvs[0].value, value);
}

TEST_P(EtcdKv, FutureRevisionIsInvalid) {
  RangeOptions future;
  future.revision = 1LL << 40;
  auto read = client_->Range(KeyRange::Single(Key("a")), future);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(read.status().message().find("future revision"), std::string::npos)
      << read.status().message();
}

TEST_P(EtcdKv, TxnCreateIfAbsent) {
  const std::string key = Key("leader");
  const std::vector<Compare> absent = {
      Compare::CreateRevision(key, CompareOp::kEqual, 0)};
  auto first = client_->Txn(absent, {TxnOp::Put(key, "n1")},
                            {TxnOp::Range(KeyRange::Single(key))});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->succeeded);
  ASSERT_EQ(first->results.size(), 1u);
  EXPECT_EQ(first->results[0].kind, TxnOpKind::kPut);

  auto second = client_->Txn(absent, {TxnOp::Put(key, "n2")},
                             {TxnOp::Range(KeyRange::Single(key))});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(second->succeeded);
  EXPECT_EQ(second->revision, first->revision);  // nothing written
  ASSERT_EQ(second->results.size(), 1u);
  EXPECT_EQ(second->results[0].kind, TxnOpKind::kRange);
  ASSERT_EQ(second->results[0].kvs.size(), 1u);
  EXPECT_EQ(second->results[0].kvs[0].value, "n1");
  EXPECT_EQ(second->results[0].kvs[0].mod_revision, first->revision);
}

TEST_P(EtcdKv, TxnCompareAndSetOnModRevisionValueAndVersion) {
  const std::string schema = Key("schema");
  auto written = client_->Put(schema, "v1", LeaseId::kNone);
  ASSERT_TRUE(written.ok());

  // The DDL pattern: succeed only if nobody wrote since we read.
  auto cas = client_->Txn(
      {Compare::ModRevision(schema, CompareOp::kEqual, *written)},
      {TxnOp::Put(schema, "v2"), TxnOp::Put(Key("log/2"), "ddl")}, {});
  ASSERT_TRUE(cas.ok()) << cas.status().ToString();
  EXPECT_TRUE(cas->succeeded);
  EXPECT_EQ(cas->revision, *written + 1);  // two puts, one revision
  EXPECT_EQ(cas->results.size(), 2u);

  auto stale =
      client_->Txn({Compare::ModRevision(schema, CompareOp::kEqual, *written)},
                   {TxnOp::Put(schema, "v3")}, {});
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->succeeded);
  EXPECT_TRUE(stale->results.empty());

  auto by_value = client_->Txn(
      {Compare::Value(schema, CompareOp::kEqual, "v2"),
       Compare::Version(schema, CompareOp::kEqual, 2),
       Compare::ModRevision(schema, CompareOp::kLess, cas->revision + 1)},
      {TxnOp::Delete(KeyRange::Prefix(prefix_))}, {});
  ASSERT_TRUE(by_value.ok());
  EXPECT_TRUE(by_value->succeeded);
  ASSERT_EQ(by_value->results.size(), 1u);
  EXPECT_EQ(by_value->results[0].deleted, 2);

  auto read = client_->Get(schema);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->kvs.empty());
}

TEST_P(EtcdKv, RefusedRequestsComeBackAsInvalid) {
  const std::string key = Key("dup");
  auto dup = client_->Txn({}, {TxnOp::Put(key, "1"), TxnOp::Put(key, "2")}, {});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(dup.status().message().find("duplicate key"), std::string::npos)
      << dup.status().message();
  const std::string start =
      GetParam() == ClientKind::kReal ? "etcd: /v3/kv/txn at " : "etcd: ";
  EXPECT_EQ(dup.status().message().rfind(start, 0), 0u)
      << dup.status().message();

  auto no_lease = client_->Put(key, "v", static_cast<LeaseId>(12345));
  ASSERT_FALSE(no_lease.ok());
  EXPECT_TRUE(IsLeaseNotFound(no_lease.status()))
      << no_lease.status().ToString();
}

TEST_P(EtcdKv, CompactedRevisionsCannotBeRead) {
  auto first = client_->Put(Key("c"), "1", LeaseId::kNone);
  auto second = client_->Put(Key("c"), "2", LeaseId::kNone);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_TRUE(client_->Compact(*second).ok());
  RangeOptions old;
  old.revision = *first;
  auto read = client_->Range(KeyRange::Single(Key("c")), old);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(IsCompacted(read.status())) << read.status().ToString();
  const Status again = client_->Compact(*first);
  EXPECT_TRUE(IsCompacted(again)) << again.ToString();
}

INSTANTIATE_TEST_SUITE_P(Both, EtcdKv,
                         ::testing::Values(ClientKind::kReal,
                                           ClientKind::kFake),
                         ClientKindName);

}  // namespace
}  // namespace keywise::cluster
