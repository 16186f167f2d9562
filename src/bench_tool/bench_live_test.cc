// `keywise bench` end to end: starts `keywise server` on a free port with a
// temporary data directory and runs short write and read workloads with
// --json. Fails when the keywise binary is missing or the server does not
// answer.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "testing/live_node.h"

namespace keywise::bench {
namespace {

using BenchRun = testing::CommandRun;

// The number after "key": in a flat JSON object.
std::optional<double> JsonNumber(const std::string& json,
                                 const std::string& key) {
  size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return std::nullopt;
  const char* start = json.c_str() + at + key.size() + 3;
  char* end = nullptr;
  double v = std::strtod(start, &end);
  if (end == start) return std::nullopt;
  return v;
}

// A live node and `keywise bench --json` against it (stdout only: the
// progress lines go to stderr).
class BenchNode : public testing::LiveNode {
 public:
  BenchNode() : LiveNode(KEYWISE_BINARY) {}
  BenchRun Bench(const std::string& args) {
    return testing::RunCommand(std::string(KEYWISE_BINARY) + " bench --port " +
                               std::to_string(port()) + " --json --quiet " +
                               args + " 2>/dev/null");
  }
};

void ExpectCleanReport(const BenchRun& r, double ops) {
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_EQ(r.out.front(), '{') << r.out;
  EXPECT_EQ(JsonNumber(r.out, "ops"), ops) << r.out;
  EXPECT_EQ(JsonNumber(r.out, "errors"), 0) << r.out;
  EXPECT_GT(JsonNumber(r.out, "ops_per_sec").value_or(0), 0) << r.out;
  double p50 = JsonNumber(r.out, "p50_ms").value_or(-1);
  double p99 = JsonNumber(r.out, "p99_ms").value_or(-1);
  double p999 = JsonNumber(r.out, "p999_ms").value_or(-1);
  EXPECT_GT(p50, 0) << r.out;
  EXPECT_LE(p50, p99) << r.out;
  EXPECT_LE(p99, p999) << r.out;
  EXPECT_GT(JsonNumber(r.out, "cpu_seconds").value_or(-1), 0) << r.out;
  EXPECT_GT(JsonNumber(r.out, "cpu_per_op_us").value_or(-1), 0) << r.out;
}

TEST(BenchLive, WriteThenRead) {
  if (!std::filesystem::exists(KEYWISE_BINARY))
    FAIL() << "no binary at " KEYWISE_BINARY;
  BenchNode node;
  ASSERT_TRUE(node.ready()) << "the server does not answer queries";

  BenchRun write = node.Bench(
      "--workload write --ops 2000 --concurrency 32 --connections 2 "
      "--partitions 50 --rows-per-partition 20");
  ExpectCleanReport(write, 2000);

  BenchRun read = node.Bench(
      "--workload read --ops 2000 --concurrency 32 --connections 2 "
      "--partitions 50 --rows-per-partition 20 --distribution zipfian");
  ExpectCleanReport(read, 2000);
  EXPECT_EQ(JsonNumber(read.out, "load_rows"), 1000) << read.out;
  // Every read finds its row: the load wrote all 1000.
  EXPECT_EQ(JsonNumber(read.out, "not_found"), 0) << read.out;
  EXPECT_EQ(JsonNumber(read.out, "rows"), 2000) << read.out;
}

TEST(BenchLive, ScanBothOrdersAndFixedRate) {
  if (!std::filesystem::exists(KEYWISE_BINARY))
    FAIL() << "no binary at " KEYWISE_BINARY;
  BenchNode node;
  ASSERT_TRUE(node.ready()) << "the server does not answer queries";
  for (const char* order : {"asc", "desc"}) {
    BenchRun scan = node.Bench(
        std::string("--workload scan --ops 200 --scan-rows 10 --partitions 20 "
                    "--rows-per-partition 30 --order ") +
        order);
    ExpectCleanReport(scan, 200);
    EXPECT_EQ(JsonNumber(scan.out, "rows"), 2000) << scan.out;
  }
  // 400 ops at 1000/s take about 0.4 s.
  auto start = std::chrono::steady_clock::now();
  BenchRun paced = node.Bench("--workload timeseries --ops 400 --rate 1000");
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ExpectCleanReport(paced, 400);
  EXPECT_GE(seconds, 0.35);
  EXPECT_NEAR(JsonNumber(paced.out, "ops_per_sec").value_or(0), 1000, 150)
      << paced.out;
}

}  // namespace
}  // namespace keywise::bench
