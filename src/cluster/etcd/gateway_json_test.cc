// The gateway's wire rules without an etcd: base64, prefix ends, endpoints,
// omitted defaults, int64 as strings, errors. The bodies are shaped like
// the ones etcd 3.4 sent (docs/cluster_etcd.md).
#include "cluster/etcd/gateway_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/etcd/base64.h"
#include "cluster/etcd/etcd_endpoint.h"
#include "cluster/etcd/etcd_error.h"

namespace keywise::cluster {
namespace {

TEST(Base64, RoundTripsEveryByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  for (size_t len = 0; len <= bytes.size(); len += 37) {
    const std::string part = bytes.substr(0, len);
    auto decoded = Base64Decode(Base64Encode(part));
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, part);
  }
  EXPECT_EQ(Base64Encode("/kw/a"), "L2t3L2E=");
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(*Base64Decode("aGVsbG8="), "hello");
  EXPECT_EQ(*Base64Decode("AA=="), std::string(1, '\0'));
}

TEST(Base64, RejectsMalformedText) {
  EXPECT_FALSE(Base64Decode("abc").ok());
  EXPECT_FALSE(Base64Decode("ab!=").ok());
  EXPECT_FALSE(Base64Decode("ab c").ok());
}

TEST(KeyRange, PrefixEndIncrementsTheLastByteBelowFF) {
  EXPECT_EQ(PrefixEnd("/kw/"), "/kw0");
  EXPECT_EQ(PrefixEnd("a\xff"), "b");
  EXPECT_EQ(PrefixEnd("\xff\xff"), std::string(1, '\0'));
  EXPECT_EQ(PrefixEnd(""), std::string(1, '\0'));
  const KeyRange all = KeyRange::Prefix("");
  EXPECT_EQ(all.key, std::string(1, '\0'));
  EXPECT_EQ(all.range_end, std::string(1, '\0'));
  EXPECT_TRUE(KeyRange::Single("k").is_single());
}

TEST(EtcdEndpoint, ParsesHostPortAndUrls) {
  auto plain = ParseEtcdEndpoint("127.0.0.1:2379");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->host, "127.0.0.1");
  EXPECT_EQ(plain->port, 2379);
  EXPECT_FALSE(plain->tls);
  auto url = ParseEtcdEndpoint("http://etcd-1:2379/");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "etcd-1");
  EXPECT_FALSE(url->tls);
  auto https = ParseEtcdEndpoint("https://etcd-1:2379/");
  ASSERT_TRUE(https.ok());
  EXPECT_EQ(https->host, "etcd-1");
  EXPECT_EQ(https->port, 2379);
  EXPECT_TRUE(https->tls);
  EXPECT_EQ(https->ToString(), "etcd-1:2379");
  auto https_v6 = ParseEtcdEndpoint("https://[::1]:2379");
  ASSERT_TRUE(https_v6.ok());
  EXPECT_EQ(https_v6->host, "::1");
  EXPECT_TRUE(https_v6->tls);
  auto v6 = ParseEtcdEndpoint("[::1]:23790");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->ToString(), "[::1]:23790");
  for (const char* bad :
       {"localhost", "host:", "host:0", "host:70000", "::1:2379", "https://h",
        "https://http://h:1", "ftp://h:2379", ":2379"}) {
    const auto parsed = ParseEtcdEndpoint(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), ErrorCode::kConfigError) << bad;
  }
}

TEST(GatewayJson, RangeReadsStringsAndOmittedDefaults) {
  auto missing = DecodeRangeResponse(
      R"({"header":{"cluster_id":"1","member_id":"2","revision":"4","raft_term":"2"}})");
  ASSERT_TRUE(missing.ok()) << missing.status().ToString();
  EXPECT_EQ(missing->revision, 4);
  EXPECT_TRUE(missing->kvs.empty());
  EXPECT_FALSE(missing->more);
  EXPECT_EQ(missing->count, 0);

  auto found = DecodeRangeResponse(
      R"({"header":{"revision":"9"},"kvs":[{"key":"L2t3L2E=","create_revision":"2",)"
      R"("mod_revision":7,"version":"3","value":"aGVsbG8=","lease":"7587"}],)"
      R"("more":true,"count":"2"})");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->kvs.size(), 1u);
  const KeyValue& kv = found->kvs[0];
  EXPECT_EQ(kv.key, "/kw/a");
  EXPECT_EQ(kv.value, "hello");
  EXPECT_EQ(kv.create_revision, 2);
  EXPECT_EQ(kv.mod_revision, 7);
  EXPECT_EQ(kv.version, 3);
  EXPECT_EQ(kv.lease, static_cast<LeaseId>(7587));
  EXPECT_TRUE(found->more);
  EXPECT_EQ(found->count, 2);
}

TEST(GatewayJson, MalformedBodiesAreServerErrors) {
  for (const char* body : {"", "[]", R"({"header":{"revision":"x"}})",
                           R"({"kvs":[{"key":"%%%%"}]})", "{"}) {
    const auto decoded = DecodeRangeResponse(body);
    ASSERT_FALSE(decoded.ok()) << body;
    EXPECT_EQ(decoded.status().code(), ErrorCode::kServerError);
    EXPECT_EQ(decoded.status().message().rfind("etcd: malformed", 0), 0u)
        << decoded.status().message();
  }
}

TEST(GatewayJson, TxnWithoutSucceededFieldFailed) {
  auto txn = DecodeTxnResponse(
      R"({"header":{"revision":"6"},"responses":[{"response_range":)"
      R"({"header":{"revision":"6"},"kvs":[{"key":"YQ==","create_revision":"6",)"
      R"("mod_revision":"6","version":"1","value":"dg=="}],"count":"1"}}]})");
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  EXPECT_FALSE(txn->succeeded);
  EXPECT_EQ(txn->revision, 6);
  ASSERT_EQ(txn->results.size(), 1u);
  EXPECT_EQ(txn->results[0].kind, TxnOpKind::kRange);
  ASSERT_EQ(txn->results[0].kvs.size(), 1u);
  EXPECT_EQ(txn->results[0].kvs[0].value, "v");

  auto put = DecodeTxnResponse(
      R"({"header":{"revision":"7"},"succeeded":true,"responses":[)"
      R"({"response_put":{"header":{"revision":"7"}}},)"
      R"({"response_delete_range":{"header":{"revision":"7"},"deleted":"2"}}]})");
  ASSERT_TRUE(put.ok());
  EXPECT_TRUE(put->succeeded);
  EXPECT_EQ(put->results[0].kind, TxnOpKind::kPut);
  EXPECT_EQ(put->results[1].kind, TxnOpKind::kDelete);
  EXPECT_EQ(put->results[1].deleted, 2);
}

TEST(GatewayJson, TxnRequestSendsEveryOperandAndInt64AsString) {
  const std::string body =
      EncodeTxnRequest({Compare::CreateRevision("a", CompareOp::kEqual, 0),
                        Compare::Value("b", CompareOp::kNotEqual, "x")},
                       {TxnOp::Put("a", "v", static_cast<LeaseId>(12))},
                       {TxnOp::Range(KeyRange::Prefix("/p/"))});
  const auto json = nlohmann::json::parse(body);
  EXPECT_EQ(json["compare"][0]["target"], "CREATE");
  EXPECT_EQ(json["compare"][0]["result"], "EQUAL");
  EXPECT_EQ(json["compare"][0]["create_revision"], "0");
  EXPECT_EQ(json["compare"][1]["target"], "VALUE");
  EXPECT_EQ(json["compare"][1]["result"], "NOT_EQUAL");
  EXPECT_EQ(json["compare"][1]["value"], "eA==");
  EXPECT_EQ(json["success"][0]["request_put"]["lease"], "12");
  EXPECT_EQ(json["failure"][0]["request_range"]["range_end"], "L3Aw");
}

TEST(GatewayJson, WatchItems) {
  auto created = DecodeWatchStreamItem(
      R"({"result":{"header":{"revision":"9"},"created":true}})");
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(created->created);
  EXPECT_EQ(created->revision, 9);

  auto events = DecodeWatchStreamItem(
      R"({"result":{"header":{"revision":"11"},"events":[)"
      R"({"kv":{"key":"YQ==","create_revision":"10","mod_revision":"10","version":"1","value":"MQ=="}},)"
      R"({"type":"DELETE","kv":{"key":"YQ==","mod_revision":"11"}}]}})");
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->events.size(), 2u);
  EXPECT_EQ(events->events[0].type, WatchEventType::kPut);
  EXPECT_EQ(events->events[0].kv.value, "1");
  EXPECT_EQ(events->events[1].type, WatchEventType::kDelete);
  EXPECT_EQ(events->events[1].kv.mod_revision, 11);
  EXPECT_EQ(events->events[1].kv.version, 0);

  auto compacted = DecodeWatchStreamItem(
      R"({"result":{"header":{},"canceled":true,"compact_revision":"8"}})");
  ASSERT_TRUE(compacted.ok());
  EXPECT_TRUE(compacted->canceled);
  EXPECT_EQ(compacted->compact_revision, 8);

  auto error = DecodeWatchStreamItem(
      R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader","http_status":"Service Unavailable"}})");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().code(), ErrorCode::kUnavailable);
}

TEST(GatewayJson, KeepAliveWithoutTtlMeansTheLeaseIsGone) {
  auto alive = DecodeKeepAliveResponse(
      "{\"result\":{\"header\":{\"revision\":\"3\"},\"ID\":\"42\",\"TTL\":"
      "\"5\"}}\n");
  ASSERT_TRUE(alive.ok()) << alive.status().ToString();
  EXPECT_EQ(alive->count(), 5);
  auto gone = DecodeKeepAliveResponse(
      "{\"result\":{\"header\":{\"revision\":\"3\"},\"ID\":\"42\"}}\n");
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->count(), 0);
}

TEST(EtcdError, GatewayErrorsKeepEtcdsMessageAndMapTheCode) {
  const Status lease = GatewayErrorStatus(
      "/v3/kv/put at h:1", 404,
      R"({"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":5})");
  EXPECT_EQ(lease.code(), ErrorCode::kInvalid);
  EXPECT_TRUE(IsLeaseNotFound(lease));
  EXPECT_EQ(lease.message(),
            "etcd: /v3/kv/put at h:1: etcdserver: requested lease not found "
            "(gRPC code 5)");
  const Status compacted = GatewayErrorStatus(
      "r", 400,
      R"({"error":"x","message":"etcdserver: mvcc: required revision has been compacted","code":11})");
  EXPECT_TRUE(IsCompacted(compacted));
  EXPECT_EQ(compacted.code(), ErrorCode::kInvalid);
  const Status no_leader = GatewayErrorStatus(
      "r", 503, R"({"message":"etcdserver: no leader","code":14})");
  EXPECT_EQ(no_leader.code(), ErrorCode::kUnavailable);
  const Status html = GatewayErrorStatus("r", 502, "<html>bad gateway</html>");
  EXPECT_EQ(html.code(), ErrorCode::kServerError);
  EXPECT_EQ(html.message(), "etcd: r: HTTP 502: <html>bad gateway</html>");
}

}  // namespace
}  // namespace keywise::cluster
