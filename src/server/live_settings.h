// LiveSettings: this node's rows of system_views.settings that describe
// tracing, and the one that may change while the node runs:
//
//   trace_probability    the Sampler's probability (0 to 1; changeable:
//                        UPDATE system_views.settings SET value = '0.05'
//                        WHERE name = 'trace_probability');
//   tracing_ttl_seconds  the TTL of trace rows (read at start).
//
// Every other setting is refused with InvalidRequest naming it, and so is
// a value that is not a number from 0 to 1. The change holds on this node
// until it restarts (then trace_probability from the config applies), as
// `nodetool settraceprobability` does in Cassandra.
//
// Contract: thread-safe; Set calls are serialized. The engine and the
// tracer outlive it. Publish after the system keyspaces are installed
// (SystemKeyspaces::Install rewrites the table).
#pragma once

#include <mutex>
#include <string>

#include "common/clock.h"
#include "query/exec/settings_service.h"
#include "storage/engine.h"
#include "tracing/tracer.h"

namespace keywise::server {

inline constexpr std::string_view kTraceProbabilitySetting =
    "trace_probability";
inline constexpr std::string_view kTracingTtlSetting = "tracing_ttl_seconds";

class LiveSettings final : public query::SettingsService {
 public:
  LiveSettings(Engine* engine, tracing::Tracer* tracer,
               int32_t tracing_ttl_seconds);

  // Writes the rows with the current values.
  Status Publish();

  Status Set(const std::string& name, const std::string& value) override;

  // The probability in `text` ("0.05"); Invalid with the setting's message
  // when it is not a number from 0 to 1.
  static Result<double> ParseProbability(const std::string& text);
  // A probability as the settings table shows it ("0.05", "1").
  static std::string FormatProbability(double p);

 private:
  Status WriteRow(std::string_view name, const std::string& value);

  Engine* const engine_;
  tracing::Tracer* const tracer_;
  const int32_t tracing_ttl_seconds_;
  std::mutex mu_;  // serializes Set
  TimestampGenerator timestamps_;
};

}  // namespace keywise::server
