// Test helpers for the storage engine: a small schema builder and an engine
// opened on a temp directory with a manual clock.
//
// Contract: test-only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/coding.h"
#include "storage/engine.h"
#include "testing/temp_dir.h"

namespace keywise::testing {

// Serialized CQL int / text values.
inline std::string Int(int32_t v) {
  std::string s;
  PutFixed32BE(&s, static_cast<uint32_t>(v));
  return s;
}
inline std::string Text(std::string_view v) { return std::string(v); }

struct ColumnSpec {
  std::string name;
  TypeKind type;
  ColumnKind kind = ColumnKind::kRegular;
  SortOrder order = SortOrder::kAsc;
};

// Creates keyspace `ks` if needed and table ks.`name`; returns its def.
TableDefPtr CreateTestTable(Engine& engine, const std::string& name,
                            const std::vector<ColumnSpec>& columns,
                            int versions = 1, int gc_grace_seconds = 864000);

class EngineFixture : public ::testing::Test {
 protected:
  static constexpr int64_t kStartMicros = 1700000000LL * 1000000;
  void SetUp() override { Reopen(); }
  void Reopen(CommitlogSync sync = CommitlogSync::kPeriodic) {
    engine_.reset();
    EngineOptions options;
    options.data_dir = dir_.str() + "/data";
    options.commitlog_sync = sync;
    options.memtable_bytes = 4 << 20;
    if (configure_) configure_(&options);
    auto opened = Engine::Open(options, clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    engine_ = std::move(opened).value();
  }
  int32_t Now() const { return clock_.NowSeconds(); }
  ReadOptions Read(bool reversed = false, int versions = 1) const {
    ReadOptions o;
    o.now_seconds = Now();
    o.reversed = reversed;
    o.versions = versions;
    return o;
  }

  // Set before SetUp (in the test's constructor): changes the options of
  // every Reopen.
  std::function<void(EngineOptions*)> configure_;
  TempDir dir_;
  ManualClock clock_{kStartMicros};
  std::unique_ptr<Engine> engine_;
};

}  // namespace keywise::testing
