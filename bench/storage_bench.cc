// keywise_storage_bench: storage-engine figures for docs/performance.md.
//
// Measures, through the Engine API only (no CQL, no network):
//   write   single-row INSERT (pk bigint, ck int, v blob of --value-size)
//           in random pk order, one thread, periodic commit-log sync;
//   read    point GET of random existing rows;
//   head    the first 100 rows of a 1,000,000-row partition vs of a 100-row
//           partition.
// It also prints the average encoded key and value sizes, so that db_bench
// can be run with equal sizes (bench/storage_vs_db_bench.sh does both).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>

#include "common/clock.h"
#include "common/coding.h"
#include "schema/catalog.h"
#include "storage/engine.h"
#include "storage/storage_key.h"

namespace keywise {
namespace {

using Clock = std::chrono::steady_clock;

std::string Bigint(int64_t v) {
  std::string s;
  PutFixed64BE(&s, static_cast<uint64_t>(v));
  return s;
}
std::string Int(int32_t v) {
  std::string s;
  PutFixed32BE(&s, static_cast<uint32_t>(v));
  return s;
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

TableDefPtr MakeTable(Engine& engine, const std::string& name) {
  (void)engine.catalog().CreateKeyspace(
      KeyspaceDef{"bench", {{"class", "SimpleStrategy"},
                            {"replication_factor", "1"}}, true},
      IfNotExists::kYes);
  TableDef def;
  def.keyspace = "bench";
  def.name = name;
  def.columns = {
      {"pk", CqlType::Of(TypeKind::kBigint), ColumnKind::kPartitionKey, 0},
      {"ck", CqlType::Of(TypeKind::kInt), ColumnKind::kClustering, 0},
      {"v", CqlType::Of(TypeKind::kBlob), ColumnKind::kRegular, 0}};
  auto st = engine.catalog().CreateTable(def, IfNotExists::kNo);
  if (!st.ok()) {
    std::fprintf(stderr, "create table: %s\n", st.ToString().c_str());
    std::exit(1);
  }
  return engine.catalog().GetTable("bench", name).value();
}

PartitionUpdate Insert(const TableDefPtr& t, ColumnId v, int64_t pk, int ck,
                       const std::string& value, int64_t ts) {
  PartitionUpdate u{t, {Bigint(pk)}};
  RowWrite row{{Int(ck)}, {}};
  row.fragment.liveness = RowMarker(ts);
  row.fragment.cells.push_back(LiveCell(v, value, ts));
  u.rows.push_back(std::move(row));
  return u;
}

int Main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "/tmp/keywise-storage-bench";
  int64_t rows = argc > 2 ? std::atoll(argv[2]) : 1000000;
  int value_size = argc > 3 ? std::atoi(argv[3]) : 100;
  std::string cmd = "rm -rf '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) return 1;

  EngineOptions options;
  options.data_dir = dir;
  auto opened = Engine::Open(options, SystemClock::Default());
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  std::unique_ptr<Engine> engine = std::move(opened).value();
  TableDefPtr table = MakeTable(*engine, "kv");
  ColumnId v = table->FindColumn("v")->id;
  TimestampGenerator timestamps(SystemClock::Default());

  std::mt19937_64 rng(42);
  std::vector<int64_t> keys(rows);
  std::iota(keys.begin(), keys.end(), 0);
  std::shuffle(keys.begin(), keys.end(), rng);
  std::string value(value_size, '\0');
  for (char& c : value) c = static_cast<char>(rng());

  // Encoded sizes of one row, for db_bench's --key_size / --value_size.
  {
    PartitionUpdate u = Insert(table, v, keys[0], 0, value, 1);
    std::string key;
    KeyLayout layout(*table);
    std::string pk = u.partition_key[0];
    layout.AppendPartitionPrefix(TokenOfKey(pk), pk, &key);
    key.push_back(static_cast<char>(KeySection::kRow));
    layout.AppendClustering(u.rows[0].clustering, &key);
    std::string val;
    EncodeRowFragment(u.rows[0].fragment, &val);
    std::printf("encoded_key_bytes %zu\nencoded_value_bytes %zu\n", key.size(),
                val.size());
  }

  auto t0 = Clock::now();
  for (int64_t i = 0; i < rows; i++) {
    Status st = engine->Apply(
        {Insert(table, v, keys[i], 0, value, timestamps.Next())});
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.ToString().c_str());
      return 1;
    }
  }
  auto t1 = Clock::now();
  std::printf("write_ops_per_sec %.0f\n", rows / Seconds(t0, t1));

  // db_bench readrandom reopens its database, which flushes the recovered
  // memtable to an SST file; read from SST files here too.
  if (!engine->Flush().ok()) return 1;

  ReadOptions ro;
  ro.now_seconds = SystemClock::Default().NowSeconds();
  LiveRow row;
  // Point GETs of random existing rows; returns ops/s.
  // `key_space` > 1 draws keys from a range that many times larger, so only
  // 1/key_space of the reads find a row.
  auto read_phase = [&](const char* name, double key_space) {
    std::uniform_int_distribution<int64_t> key(
        0, static_cast<int64_t>(rows * key_space) - 1);
    int64_t found_count = 0;
    auto start = Clock::now();
    for (int64_t i = 0; i < rows; i++) {
      bool found = false;
      Status st = engine->GetRow(*table, {Bigint(key(rng))}, {Int(0)}, ro,
                                 &row, &found, nullptr);
      if (!st.ok()) std::exit(1);
      found_count += found;
    }
    std::printf("%s %.0f\n%s_found %.3f\n", name,
                rows / Seconds(start, Clock::now()), name,
                static_cast<double>(found_count) / rows);
  };
  // Rows written once are single merge operands in upper levels, so a GET
  // also probes the levels below; a major compaction turns them into plain
  // values at the bottom level.
  read_phase("read_ops_per_sec", 1.0);
  // db_bench fillrandom draws keys with repetition, so its readrandom finds
  // about 1 - 1/e = 63% of them; this phase reads with the same hit rate.
  read_phase("read_63pct_found_ops_per_sec", 1.582);
  if (!engine->CompactAll().ok()) return 1;
  read_phase("read_after_compaction_ops_per_sec", 1.0);

  // Head of a large vs a small partition.
  TableDefPtr wide = MakeTable(*engine, "wide");
  ColumnId wv = wide->FindColumn("v")->id;
  std::string small_value(16, 'v');
  auto fill = [&](int64_t pk, int n) {
    std::vector<PartitionUpdate> batch;
    for (int ck = 0; ck < n; ck++) {
      batch.push_back(Insert(wide, wv, pk, ck, small_value, timestamps.Next()));
      if (batch.size() == 1000 || ck == n - 1) {
        if (!engine->Apply(batch).ok()) std::exit(1);
        batch.clear();
      }
    }
  };
  fill(1, 1000000);
  fill(2, 100);
  if (!engine->Flush().ok()) return 1;
  if (!engine->CompactAll().ok()) return 1;
  auto head = [&](int64_t pk) {
    const int kIters = 20000;
    auto start = Clock::now();
    int64_t total = 0;
    for (int i = 0; i < kIters; i++) {
      auto reader = engine->ReadPartition(*wide, {Bigint(pk)}, {}, {}, ro);
      if (!reader.ok()) std::exit(1);
      for (int n = 0; n < 100 && (*reader)->Next(&row); n++) total++;
    }
    if (total != int64_t{kIters} * 100) std::exit(1);
    return Seconds(start, Clock::now()) / kIters * 1e6;
  };
  head(1);  // warm up
  head(2);
  double big = head(1), small = head(2);
  std::printf("head100_of_1M_rows_us %.2f\nhead100_of_100_rows_us %.2f\n"
              "head100_ratio %.3f\n",
              big, small, big / small);
  return engine->Close().ok() ? 0 : 1;
}

}  // namespace
}  // namespace keywise

int main(int argc, char** argv) { return keywise::Main(argc, argv); }
