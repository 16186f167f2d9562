#include "protocol/node_event.h"

#include "protocol/body_writer.h"
#include "schema/value_codec.h"

namespace keywise::protocol {

Result<std::string> EncodeNodeEvent(const NodeEvent& event) {
  KW_ASSIGN_OR_RETURN(std::string address, EncodeInet(event.address));
  std::string out;
  BodyWriter writer(&out);
  writer.WriteReplyString(event.type);
  writer.WriteReplyString(event.change);
  Inet inet;
  inet.addr.address = std::move(address);
  inet.port = event.port;
  KW_RETURN_IF_ERROR(writer.WriteInet(inet));
  return out;
}

}  // namespace keywise::protocol
