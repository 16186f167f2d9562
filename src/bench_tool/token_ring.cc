#include "bench_tool/token_ring.h"

#include <cstdlib>

#include "schema/value_codec.h"

namespace keywise::bench {
namespace {

int32_t ReadInt(std::string_view b, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) {
    v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  }
  return static_cast<int32_t>(v);
}

// The elements of a serialized set<text> (v3+: [int n] then [int len][bytes]
// each).
Result<std::vector<std::string>> SetOfText(std::string_view b) {
  std::vector<std::string> out;
  if (b.size() < 4) return Status::ProtocolError("short set");
  const int32_t n = ReadInt(b, 0);
  size_t at = 4;
  for (int32_t i = 0; i < n; ++i) {
    if (b.size() < at + 4) return Status::ProtocolError("short set");
    const int32_t len = ReadInt(b, at);
    at += 4;
    if (len < 0 || b.size() < at + static_cast<size_t>(len)) {
      return Status::ProtocolError("short set element");
    }
    out.emplace_back(b.substr(at, static_cast<size_t>(len)));
    at += static_cast<size_t>(len);
  }
  return out;
}

}  // namespace

Result<TokenRing> TokenRing::Discover(client::Session& session,
                                      const std::string& session_host,
                                      const std::vector<std::string>& hosts) {
  auto index_of = [&](const std::string& address) {
    for (size_t i = 0; i < hosts.size(); ++i) {
      if (hosts[i] == address) return static_cast<int>(i);
    }
    return -1;
  };
  TokenRing ring;
  ring.host_ids_.resize(hosts.size());
  auto add = [&](int host, const std::optional<std::string>& tokens,
                 const std::optional<std::string>& host_id) -> Status {
    if (host < 0) return Status::OK();
    if (host_id) {
      std::optional<Uuid> id = Uuid::FromBytes(*host_id);
      if (!id) return Status::ProtocolError("host_id is not a uuid");
      ring.host_ids_[static_cast<size_t>(host)] = *id;
    }
    if (!tokens) return Status::OK();
    KW_ASSIGN_OR_RETURN(std::vector<std::string> list, SetOfText(*tokens));
    for (const std::string& t : list) {
      ring.ring_[std::strtoll(t.c_str(), nullptr, 10)] = host;
    }
    return Status::OK();
  };
  client::Reply local =
      session.Query("SELECT tokens, host_id FROM system.local",
                    client::QueryParams{});
  if (!local.ok()) return local.status;
  for (const client::Row& row : local.result.rows) {
    KW_RETURN_IF_ERROR(add(index_of(session_host), row.at(0), row.at(1)));
  }
  client::Reply peers =
      session.Query("SELECT rpc_address, tokens, host_id FROM system.peers",
                    client::QueryParams{});
  if (!peers.ok()) return peers.status;
  for (const client::Row& row : peers.result.rows) {
    if (!row.at(0)) continue;
    KW_ASSIGN_OR_RETURN(std::string address, DecodeInet(*row.at(0)));
    KW_RETURN_IF_ERROR(add(index_of(address), row.at(1), row.at(2)));
  }
  return ring;
}

int TokenRing::OwnerOf(Token token) const {
  if (ring_.empty()) return -1;
  auto it = ring_.lower_bound(token.value);
  return it == ring_.end() ? ring_.begin()->second : it->second;
}

}  // namespace keywise::bench
