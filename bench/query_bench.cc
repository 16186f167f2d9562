// keywise_query_bench: query-layer figures for docs/performance.md.
//
// In-process, no network, one thread, all data flushed and compacted:
//   get       a prepared point GET (`SELECT * FROM t WHERE pk = ? AND ck = ?`)
//             through QueryProcessor::Execute vs the bare Engine::GetRow of
//             the same rows; prints the overhead ratio (target <= 1.25);
//   limit     `SELECT ... WHERE pk = ? LIMIT 10` on a 1,000,000-row
//             partition vs on a 100-row partition (target: about equal,
//             i.e. the read stops after ~10 rows), and LIMIT 1000 vs LIMIT
//             10 on the big partition (cost proportional to rows returned).
//
//   keywise_query_bench DIR [ROWS_BIG]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "common/clock.h"
#include "common/coding.h"
#include "query/query_processor.h"
#include "storage/engine.h"

namespace keywise {
namespace {

using SteadyClock = std::chrono::steady_clock;

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

void Check(const Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
    std::exit(1);
  }
}

template <typename T>
T Must(Result<T> r, const char* what) {
  Check(r.status(), what);
  return std::move(r).value();
}

double Elapsed(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

// Writes `rows` rows (ck 0..rows-1) into partition `pk` straight through the
// engine, 1000 rows per Apply.
void Load(Engine& engine, const TableDefPtr& table, int64_t pk, int rows) {
  const ColumnDef* v = table->FindColumn("v");
  std::vector<PartitionUpdate> batch;
  int64_t ts = 1;
  for (int ck = 0; ck < rows; ck += 1000) {
    PartitionUpdate u;
    u.table = table;
    u.partition_key = {Bigint(pk)};
    for (int i = ck; i < rows && i < ck + 1000; ++i) {
      RowWrite row;
      row.clustering = {Int(i)};
      row.fragment.liveness = RowMarker(ts);
      row.fragment.cells.push_back(
          LiveCell(v->id, std::string(100, 'x'), ts));
      ++ts;
      u.rows.push_back(std::move(row));
    }
    Check(engine.Apply({u}), "apply");
  }
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [ROWS_BIG]\n", argv[0]);
    return 2;
  }
  const int big_rows = argc > 2 ? std::atoi(argv[2]) : 1000000;
  EngineOptions options;
  options.data_dir = argv[1];
  auto engine = Must(Engine::Open(options, SystemClock::Default()), "open");
  query::QueryProcessor processor(engine.get());
  query::ClientState client;
  auto run = [&](const std::string& cql) {
    Check(processor.Process(cql, {}, &client).status(), cql.c_str());
  };
  run("CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}");
  run("USE bench");
  run("CREATE TABLE t (pk bigint, ck int, v blob, PRIMARY KEY (pk, ck))");
  TableDefPtr table = Must(engine->catalog().GetTable("bench", "t"), "table");

  // Point-GET data: 100,000 partitions of 10 rows.
  const int kPartitions = 100000;
  for (int64_t pk = 0; pk < kPartitions; ++pk) Load(*engine, table, pk, 10);
  // LIMIT data: one big and one small partition.
  Load(*engine, table, -1, big_rows);
  Load(*engine, table, -2, 100);
  Check(engine->Flush(), "flush");
  Check(engine->CompactAll(), "compact");

  std::mt19937_64 rng(42);
  const int kGets = 200000;
  std::vector<std::pair<int64_t, int32_t>> keys(kGets);
  for (auto& k : keys) {
    k = {static_cast<int64_t>(rng() % kPartitions),
         static_cast<int32_t>(rng() % 10)};
  }

  // Bare storage reads vs the same reads as a prepared CQL statement,
  // alternated over several rounds after a warm-up pass, so that caches
  // and machine noise treat both alike; the best round of each is kept.
  ReadOptions read;
  read.now_seconds = SystemClock::Default().NowSeconds();
  LiveRow row;
  std::vector<Cell> statics;
  auto storage_round = [&]() {
    int found = 0;
    auto start = SteadyClock::now();
    for (const auto& [pk, ck] : keys) {
      bool hit = false;
      Check(engine->GetRow(*table, {Bigint(pk)}, {Int(ck)}, read, &row, &hit,
                           &statics),
            "get");
      found += hit;
    }
    double s = Elapsed(start);
    if (found != kGets) {
      std::fprintf(stderr, "storage found %d of %d\n", found, kGets);
      std::exit(1);
    }
    return s;
  };
  query::PreparedPtr get = Must(
      processor.Prepare("SELECT * FROM t WHERE pk = ? AND ck = ?", client),
      "prepare");
  query::QueryOptions qo;
  qo.values.resize(2);
  auto cql_round = [&]() {
    int64_t rows_returned = 0;
    auto start = SteadyClock::now();
    for (const auto& [pk, ck] : keys) {
      qo.values[0] = query::Value::Of(Bigint(pk));
      qo.values[1] = query::Value::Of(Int(ck));
      query::QueryResult r =
          Must(processor.Execute(get, qo, &client), "execute");
      rows_returned += std::get<query::RowsResult>(r.result).row_count;
    }
    double s = Elapsed(start);
    if (rows_returned != kGets) {
      std::fprintf(stderr, "cql returned %lld of %d rows\n",
                   static_cast<long long>(rows_returned), kGets);
      std::exit(1);
    }
    return s;
  };
  storage_round();  // warm-up
  cql_round();
  double storage_s = 1e100, cql_s = 1e100;
  for (int round = 0; round < 3; ++round) {
    storage_s = std::min(storage_s, storage_round());
    cql_s = std::min(cql_s, cql_round());
  }
  std::printf("get_storage_us %.3f\n", storage_s / kGets * 1e6);
  std::printf("get_cql_us %.3f\n", cql_s / kGets * 1e6);
  std::printf("get_overhead_ratio %.3f\n", cql_s / storage_s);

  // LIMIT on a big vs a small partition.
  auto limit_us = [&](int64_t pk, int limit, int iterations) {
    query::PreparedPtr p = Must(
        processor.Prepare("SELECT ck, v FROM t WHERE pk = ? LIMIT " +
                              std::to_string(limit),
                          client),
        "prepare limit");
    query::QueryOptions o;
    o.values = {query::Value::Of(Bigint(pk))};
    auto s = SteadyClock::now();
    for (int i = 0; i < iterations; ++i) {
      query::QueryResult r = Must(processor.Execute(p, o, &client), "limit");
      if (std::get<query::RowsResult>(r.result).row_count != limit) {
        std::fprintf(stderr, "LIMIT %d returned another count\n", limit);
        std::exit(1);
      }
    }
    return Elapsed(s) / iterations * 1e6;
  };
  double big10 = limit_us(-1, 10, 20000);
  double small10 = limit_us(-2, 10, 20000);
  double big1000 = limit_us(-1, 1000, 500);
  std::printf("limit10_big_partition_us %.3f\n", big10);
  std::printf("limit10_small_partition_us %.3f\n", small10);
  std::printf("limit10_big_vs_small_ratio %.3f\n", big10 / small10);
  std::printf("limit1000_big_partition_us %.3f\n", big1000);
  std::printf("limit1000_vs_limit10_ratio %.3f\n", big1000 / big10);
  Check(engine->Close(), "close");
  return 0;
}

}  // namespace
}  // namespace keywise

int main(int argc, char** argv) { return keywise::Main(argc, argv); }
