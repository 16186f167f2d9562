#include "server/config_yaml.h"

#include <yaml-cpp/yaml.h>

#include <charconv>

namespace keywise::config_yaml {

std::string Where(const YAML::Node& node, const std::string& source) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return " (" + source + ")";
  return " (" + source + " line " + std::to_string(mark.line + 1) + ")";
}

Status TypeError(const std::string& key, const char* expected,
                 const YAML::Node& value, const std::string& source) {
  std::string got = value.IsScalar()     ? "'" + value.Scalar() + "'"
                    : value.IsSequence() ? "a list"
                                         : "a map";
  return Status::ConfigError("Invalid yaml: " + key + " must be " + expected +
                             ", got " + got + Where(value, source));
}

Status ReadInt(const std::string& key, const YAML::Node& value,
               const std::string& source, int* out) {
  if (!value.IsScalar()) return TypeError(key, "an integer", value, source);
  const std::string& text = value.Scalar();
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;
  int parsed = 0;
  auto [ptr, ec] = std::from_chars(begin, end, parsed);
  if (ec == std::errc::result_out_of_range) {
    return Status::ConfigError("Invalid yaml: " + key + " is out of range: " +
                               text + Where(value, source));
  }
  if (ec != std::errc() || ptr != end || begin == end) {
    return TypeError(key, "an integer", value, source);
  }
  *out = parsed;
  return Status::OK();
}

Status ReadDouble(const std::string& key, const YAML::Node& value,
                  const std::string& source, double* out) {
  if (!value.IsScalar()) return TypeError(key, "a number", value, source);
  const std::string& text = value.Scalar();
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;
  double parsed = 0;
  auto [ptr, ec] = std::from_chars(begin, end, parsed);
  if (ec != std::errc() || ptr != end || begin == end) {
    return TypeError(key, "a number", value, source);
  }
  *out = parsed;
  return Status::OK();
}

Status ReadString(const std::string& key, const YAML::Node& value,
                  const std::string& source, std::string* out) {
  if (!value.IsScalar()) return TypeError(key, "a string", value, source);
  *out = value.Scalar();
  return Status::OK();
}

Status ReadBool(const std::string& key, const YAML::Node& value,
                const std::string& source, bool* out) {
  if (!value.IsScalar()) return TypeError(key, "true or false", value, source);
  const std::string& text = value.Scalar();
  if (text == "true") {
    *out = true;
  } else if (text == "false") {
    *out = false;
  } else {
    return TypeError(key, "true or false", value, source);
  }
  return Status::OK();
}

Status ReadStringList(const std::string& key, const YAML::Node& value,
                      const std::string& source,
                      std::vector<std::string>* out) {
  std::vector<std::string> items;
  if (value.IsScalar()) {
    items.push_back(value.Scalar());
  } else if (value.IsSequence()) {
    for (const YAML::Node& item : value) {
      if (!item.IsScalar()) return TypeError(key, "a list", value, source);
      items.push_back(item.Scalar());
    }
  } else {
    return TypeError(key, "a list", value, source);
  }
  *out = std::move(items);
  return Status::OK();
}

}  // namespace keywise::config_yaml
