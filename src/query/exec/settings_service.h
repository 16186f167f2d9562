// SettingsService: the node settings that may change while it runs, as
// system_views.settings lists them. ScyllaDB lets the live-updatable rows
// of its config table be changed with UPDATE; Keywise does the same for
// its system_views.settings (docs/tracing.md: trace_probability).
//
// Contract: thread-safe. Set changes the setting on this node only (as
// `nodetool settraceprobability` does) and shows the new value in
// system_views.settings; an error (code Invalid) changes nothing.
#pragma once

#include <string>

#include "common/status.h"

namespace keywise::query {

class SettingsService {
 public:
  virtual ~SettingsService() = default;
  // Sets setting `name` to `value` (the text system_views.settings shows).
  // Invalid for a setting that cannot change at run time, an unknown one,
  // or a value it does not accept, with a message saying which.
  virtual Status Set(const std::string& name, const std::string& value) = 0;
};

}  // namespace keywise::query
