#include "shell/trace_printer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace keywise::shell {
namespace {

// 2024-05-01 12:00:00 UTC.
constexpr int64_t kStart = 1714564800;

class TraceTimeZone : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    saved_ = tz ? std::optional<std::string>(tz) : std::nullopt;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (saved_) {
      setenv("TZ", saved_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  std::optional<std::string> saved_;
};

TEST_F(TraceTimeZone, CqlshTable) {
  TraceSessionRow t;
  t.id = *Uuid::Parse("8a88b3b6-eac2-11f1-89d9-6f0d686131c4");
  t.request = "Execute CQL3 query";
  t.coordinator = "127.0.0.1";
  t.client = "127.0.0.9";
  t.started_at_millis = kStart * 1000 + 123;
  t.duration = 1500;
  t.events.push_back(
      {"Parsing SELECT 1", "io-7", "127.0.0.1", kStart * 1000000 + 123040, 40});
  t.events.push_back({"Read 1 live row", "replica-9", "127.0.0.2",
                      kStart * 1000000 + 124000, 12});
  EXPECT_EQ(RenderTrace(t),
            "\nTracing session: 8a88b3b6-eac2-11f1-89d9-6f0d686131c4\n\n"
            " activity                    | timestamp                  | "
            "source    | source_elapsed | client\n"
            "-----------------------------+----------------------------+---"
            "--------+----------------+-----------\n"
            "          Execute CQL3 query | 2024-05-01 12:00:00.123000 | "
            "127.0.0.1 |              0 | 127.0.0.9\n"
            "     Parsing SELECT 1 [io-7] | 2024-05-01 12:00:00.123040 | "
            "127.0.0.1 |             40 | 127.0.0.9\n"
            " Read 1 live row [replica-9] | 2024-05-01 12:00:00.124000 | "
            "127.0.0.2 |             12 | 127.0.0.9\n"
            "            Request complete | 2024-05-01 12:00:00.124500 | "
            "127.0.0.1 |           1500 | 127.0.0.9\n"
            "\n");
}

TEST_F(TraceTimeZone, UnfinishedSessionHasNoCompleteRow) {
  TraceSessionRow t;
  t.request = "Execute CQL3 query";
  t.started_at_millis = kStart * 1000;
  const std::string text = RenderTrace(t);
  EXPECT_NE(text.find("Execute CQL3 query"), std::string::npos);
  EXPECT_EQ(text.find("Request complete"), std::string::npos);
}

}  // namespace
}  // namespace keywise::shell
