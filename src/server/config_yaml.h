// Readers of keywise.yaml values shared by the config's parsers
// (config.cc, config_tls.cc): each checks one value's type and form and
// returns ConfigError naming the key and the line ("Invalid yaml: KEY must
// be ..., got ... (keywise.yaml line 3)").
//
// Contract: internal to server/config*; pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace YAML {
class Node;
}  // namespace YAML

namespace keywise::config_yaml {

// " (keywise.yaml line 3)" for error messages.
std::string Where(const YAML::Node& node, const std::string& source);

Status TypeError(const std::string& key, const char* expected,
                 const YAML::Node& value, const std::string& source);

Status ReadInt(const std::string& key, const YAML::Node& value,
               const std::string& source, int* out);
Status ReadDouble(const std::string& key, const YAML::Node& value,
                  const std::string& source, double* out);
Status ReadString(const std::string& key, const YAML::Node& value,
                  const std::string& source, std::string* out);
// `true` or `false`, nothing else.
Status ReadBool(const std::string& key, const YAML::Node& value,
                const std::string& source, bool* out);
// A list of strings (a single string is a list of one).
Status ReadStringList(const std::string& key, const YAML::Node& value,
                      const std::string& source,
                      std::vector<std::string>* out);

}  // namespace keywise::config_yaml
