#include "server/live_settings.h"

#include <charconv>
#include <cstdio>

#include "schema/system_keyspace_names.h"
#include "system/local_table.h"

namespace keywise::server {

LiveSettings::LiveSettings(Engine* engine, tracing::Tracer* tracer,
                           int32_t tracing_ttl_seconds)
    : engine_(engine),
      tracer_(tracer),
      tracing_ttl_seconds_(tracing_ttl_seconds),
      timestamps_(engine->clock()) {}

Result<double> LiveSettings::ParseProbability(const std::string& text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  double p = 0;
  auto [ptr, ec] = std::from_chars(begin, end, p);
  if (begin == end || ec != std::errc() || ptr != end ||
      !tracing::Sampler::IsValidProbability(p)) {
    return Status::Invalid("Invalid value '" + text + "' for setting " +
                           std::string(kTraceProbabilitySetting) +
                           ": it must be a number from 0 to 1 (the fraction "
                           "of requests traced)");
  }
  return p;
}

std::string LiveSettings::FormatProbability(double p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", p);
  return text;
}

Status LiveSettings::WriteRow(std::string_view name, const std::string& value) {
  TableDefPtr table = engine_->catalog().snapshot()->FindTable(
      kViewsKeyspaceName, "settings");
  if (table == nullptr) {
    return Status::ServerError("The system_views.settings table is missing");
  }
  return engine_->Apply({system::SettingsUpdate(
      table, std::string(name), value, timestamps_.Next())});
}

Status LiveSettings::Publish() {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(
      WriteRow(kTraceProbabilitySetting,
               FormatProbability(tracer_->sampler().probability())));
  return WriteRow(kTracingTtlSetting, std::to_string(tracing_ttl_seconds_));
}

Status LiveSettings::Set(const std::string& name, const std::string& value) {
  if (name != kTraceProbabilitySetting) {
    const bool known = name == kTracingTtlSetting;
    return Status::Invalid(
        (known ? "Setting '" + name + "' cannot be changed while the node runs"
               : "Unknown setting '" + name + "'") +
        "; only " + std::string(kTraceProbabilitySetting) +
        " can be changed through system_views.settings");
  }
  KW_ASSIGN_OR_RETURN(const double p, ParseProbability(value));
  std::lock_guard<std::mutex> lock(mu_);
  tracer_->sampler().Set(p);
  return WriteRow(kTraceProbabilitySetting, FormatProbability(p));
}

}  // namespace keywise::server
