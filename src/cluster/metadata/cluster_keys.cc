#include "cluster/metadata/cluster_keys.h"

namespace keywise::cluster {

bool ClusterKeys::HostIdOf(std::string_view key, std::string_view prefix,
                           Uuid* host_id) const {
  if (key.substr(0, prefix.size()) != prefix) return false;
  std::optional<Uuid> id = Uuid::Parse(key.substr(prefix.size()));
  if (!id) return false;
  *host_id = *id;
  return true;
}

}  // namespace keywise::cluster
