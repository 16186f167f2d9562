#include "storage/partition_key.h"

#include "common/coding.h"

namespace keywise {

Status ValidateKeyComponentSize(size_t bytes) {
  if (bytes > kMaxKeyComponentSize) {
    return Status::Invalid("Key length of " + std::to_string(bytes) +
                           " is longer than maximum of 65535");
  }
  return Status::OK();
}

std::string SerializePartitionKey(const std::vector<std::string>& components) {
  if (components.size() == 1) return components[0];
  std::string out;
  size_t total = 0;
  for (const std::string& c : components) total += c.size() + 3;
  out.reserve(total);
  for (const std::string& c : components) {
    PutFixed16BE(&out, static_cast<uint16_t>(c.size()));
    out.append(c);
    out.push_back('\0');
  }
  return out;
}

Result<std::vector<std::string>> SplitPartitionKey(std::string_view serialized,
                                                   size_t num_components) {
  std::vector<std::string> parts;
  if (num_components <= 1) {
    parts.emplace_back(serialized);
    return parts;
  }
  parts.reserve(num_components);
  std::string_view in = serialized;
  for (size_t i = 0; i < num_components; i++) {
    uint16_t len;
    uint8_t eoc;
    if (!GetFixed16BE(&in, &len) || in.size() < len) {
      return Status::ServerError("Malformed partition key: component " +
                                 std::to_string(i) + " is truncated");
    }
    parts.emplace_back(in.substr(0, len));
    in.remove_prefix(len);
    if (!GetByte(&in, &eoc) || eoc != 0) {
      return Status::ServerError("Malformed partition key: component " +
                                 std::to_string(i) +
                                 " lacks its 0x00 end-of-component byte");
    }
  }
  if (!in.empty()) {
    return Status::ServerError("Malformed partition key: " +
                               std::to_string(in.size()) + " trailing bytes");
  }
  return parts;
}

}  // namespace keywise
