// The messages a Connection answers itself on its loop, apart from
// statements (connection.h): OPTIONS, STARTUP, the login handshake of
// PasswordAuthenticator (AUTHENTICATE, AUTH_RESPONSE, AUTH_SUCCESS) and
// REGISTER, and the protocol errors of frames out of turn.
#include <algorithm>
#include <cctype>

#include "protocol/compression.h"
#include "protocol/schema_change.h"
#include "protocol/tablet_route.h"
#include "server/connection.h"
#include "server/login_service.h"
#include "server/request.h"
#include "server/response.h"

namespace keywise::server {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;
using protocol::Opcode;

// STARTUP's CQL_VERSION check, as Cassandra's StartupMessage does it.
Status CheckCqlVersion(const protocol::StringMap& options) {
  auto it = options.find("CQL_VERSION");
  if (it == options.end()) {
    return Status::ProtocolError("Missing value CQL_VERSION in STARTUP message");
  }
  const std::string& v = it->second;
  size_t i = 0;
  int parts = 0;
  int major = 0;
  while (true) {
    size_t start = i;
    int value = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
      value = std::min(value * 10 + (v[i] - '0'), 1000000);
      ++i;
    }
    if (i == start) break;
    if (parts++ == 0) major = value;
    if (i < v.size() && v[i] == '.' && parts < 3) {
      ++i;
      continue;
    }
    break;
  }
  const bool suffix_ok = i == v.size() || v[i] == '-';
  if (parts < 2 || !suffix_ok) {
    return Status::ProtocolError("Invalid version value: " + v);
  }
  if (major < 3) {
    return Status::ProtocolError(
        "CQL version " + v +
        " is not supported by the binary protocol (supported version are >= "
        "3.0.0)");
  }
  return Status::OK();
}

}  // namespace

void Connection::Answer(RequestFrame frame) {
  const Opcode opcode = frame.header.opcode;
  if (phase_ == Phase::kUninitialized) {
    if (opcode == Opcode::kOptions) return OnOptions(frame);
    if (opcode == Opcode::kStartup) return OnStartup(frame);
    return ReplyError(frame, Status::ProtocolError(
                                 std::string("Unexpected message ") +
                                 OpcodeName(opcode) +
                                 ", expecting STARTUP or OPTIONS"));
  }
  if (frame.header.version != version_) {
    const Status error = Status::ProtocolError(
        "Invalid message version. Got " +
        std::to_string(frame.header.version) +
        " but previous messages on this connection had version " +
        std::to_string(version_));
    frame.header.version = version_;  // answer in the connection's version
    return ReplyError(frame, error);
  }
  if (phase_ == Phase::kAuthenticating) {
    if (opcode == Opcode::kAuthResponse) return OnAuthResponse(frame);
    return ReplyError(frame, Status::ProtocolError(
                                 std::string("Unexpected message ") +
                                 OpcodeName(opcode) +
                                 ", expecting SASL_RESPONSE"));
  }
  switch (opcode) {
    case Opcode::kOptions:
      return OnOptions(frame);
    case Opcode::kAuthResponse:
      // Logged in again, maybe as another role (Cassandra does the same).
      if (shared_->options.login != nullptr) return OnAuthResponse(frame);
      break;
    case Opcode::kStartup:
      return ReplyError(frame, Status::ProtocolError(
                                   "Unexpected message STARTUP, the "
                                   "connection is already initialized"));
    case Opcode::kRegister:
      return OnRegister(frame);
    default:
      break;
  }
  return ReplyError(frame, Status::ProtocolError(
                               std::string("Unexpected message ") +
                               OpcodeName(opcode)));
}

void Connection::OnOptions(const RequestFrame& frame) {
  protocol::StringMultimap supported;
  supported["CQL_VERSION"] = {"3.4.5"};
  supported["COMPRESSION"] = {"snappy", "lz4"};
  supported["PROTOCOL_VERSIONS"] = {"3/v3", "4/v4", "5/v5"};
  // ScyllaDB's extension: tablet-aware drivers that send it back in STARTUP
  // learn a partition's tablet when they reach a node without a replica.
  supported[protocol::kTabletsRoutingV1Option] = {""};
  Queue(EncodeEnvelope(frame.header.version, 0, frame.header.stream,
                       Opcode::kSupported, EncodeSupported(supported),
                       compression_));
}

void Connection::OnStartup(const RequestFrame& frame) {
  const uint8_t version = frame.header.version;
  if (frame.header.flags & protocol::kFlagCompression) {
    return ReplyError(frame, Status::ProtocolError(
                                 "STARTUP cannot be compressed: compression "
                                 "is negotiated by it"));
  }
  std::string_view body = frame.body;
  if (frame.header.flags & protocol::kFlagCustomPayload) {
    if (Status st = SkipCustomPayload(version, &body); !st.ok()) {
      return ReplyError(frame, st);
    }
  }
  Result<protocol::StringMap> options = DecodeStartup(body);
  if (!options.ok()) return ReplyError(frame, options.status());
  if (Status st = CheckCqlVersion(*options); !st.ok()) {
    return ReplyError(frame, st);
  }
  protocol::Compression compression = protocol::Compression::kNone;
  if (auto it = options->find("COMPRESSION"); it != options->end()) {
    std::string name = it->second;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
      return static_cast<char>(std::tolower(c));
    });
    Result<protocol::Compression> parsed = protocol::ParseCompressionName(name);
    if (!parsed.ok()) return ReplyError(frame, parsed.status());
    compression = *parsed;
    if (version >= 5 && compression == protocol::Compression::kSnappy) {
      return ReplyError(frame, Status::ProtocolError(
                                   "Snappy compression is not supported in "
                                   "protocol V5"));
    }
  }
  client_.tablet_routing = options->contains(protocol::kTabletsRoutingV1Option);
  // READY (or AUTHENTICATE) goes out in the framing the client used for
  // STARTUP; what STARTUP negotiated applies from the next frame on.
  if (shared_->options.login != nullptr) {
    Queue(EncodeEnvelope(version, 0, frame.header.stream, Opcode::kAuthenticate,
                         EncodeAuthenticate(kPasswordAuthenticatorClass),
                         protocol::Compression::kNone));
    phase_ = Phase::kAuthenticating;
  } else {
    Queue(EncodeEnvelope(version, 0, frame.header.stream, Opcode::kReady, "",
                         protocol::Compression::kNone));
    phase_ = Phase::kReady;
  }
  version_ = version;
  if (version >= 5) {
    // v5 compresses whole segments (lz4 only); envelopes stay plain.
    segment_format_ = compression == protocol::Compression::kLz4
                          ? protocol::SegmentFormat::kLz4
                          : protocol::SegmentFormat::kUncompressed;
    parser_.SwitchToSegments(segment_format_);
    segments_out_ = true;
  } else {
    compression_ = compression;
  }
}

Result<std::string_view> Connection::PlainBody(const RequestFrame& frame,
                                               std::string* storage) const {
  // Frames answered here on the I/O thread, not by RequestHandler, are
  // decompressed here too: drivers compress every frame after STARTUP
  // (v3/v4), REGISTER and AUTH_RESPONSE included.
  std::string_view body = frame.body;
  if (version_ < 5 && (frame.header.flags & protocol::kFlagCompression)) {
    constexpr size_t kMaxPlainBody = size_t{1} << 20;
    Result<std::string> decompressed =
        compression_ == protocol::Compression::kLz4
            ? protocol::DecompressLz4Body(body, kMaxPlainBody)
        : compression_ == protocol::Compression::kSnappy
            ? protocol::DecompressSnappyBody(body, kMaxPlainBody)
            : Result<std::string>(Status::ProtocolError(
                  "Received a compressed frame but no compression was "
                  "negotiated in STARTUP"));
    if (!decompressed.ok()) return decompressed.status();
    *storage = std::move(*decompressed);
    body = *storage;
  }
  if (frame.header.flags & protocol::kFlagCustomPayload) {
    KW_RETURN_IF_ERROR(SkipCustomPayload(version_, &body));
  }
  return body;
}

void Connection::OnAuthResponse(const RequestFrame& frame) {
  std::string storage;
  Result<std::string_view> body = PlainBody(frame, &storage);
  if (!body.ok()) return ReplyError(frame, body.status());
  Result<std::string> token = DecodeAuthResponse(*body);
  if (!token.ok()) return ReplyError(frame, token.status());
  // One login at a time per connection: a client cannot pipeline guesses.
  if (login_in_flight_) {
    return ReplyError(frame, Status::ProtocolError(
                                 "Unexpected message AUTH_RESPONSE: the "
                                 "previous one is still being checked"));
  }
  LoginService* login = shared_->options.login;
  Result<std::chrono::milliseconds> delay = login->Admit(client_.address);
  if (!delay.ok()) return ReplyError(frame, delay.status());
  login_in_flight_ = true;
  auto check = [self = shared_from_this(), header = frame.header,
                token = std::move(*token)]() mutable {
    if (self->closed_) {
      self->shared_->options.login->Abandon(self->client_.address);
      self->login_in_flight_ = false;
      return;
    }
    self->shared_->options.login->Login(
        std::move(token), self->client_.address,
        [self, header](Result<std::string> user) mutable {
          asio::post(self->stream_.get_executor(),
                     [self, header, user = std::move(user)]() mutable {
                       self->OnLoggedIn(header, std::move(user));
                     });
        });
  };
  if (delay->count() == 0) return check();
  // An address that keeps failing waits before its check.
  auto timer =
      std::make_shared<asio::steady_timer>(stream_.get_executor(), *delay);
  timer->async_wait([timer, check = std::move(check)](const error_code&) mutable {
    check();
  });
}

void Connection::OnLoggedIn(const protocol::FrameHeader& header,
                            Result<std::string> user) {
  login_in_flight_ = false;
  if (closed_) return;
  if (!user.ok()) {
    // The stage stays: still authenticating (the client may try again;
    // drivers close), or ready as the role logged in before.
    return ReplyError(RequestFrame{header, {}}, user.status());
  }
  client_.user = std::move(*user);
  Queue(EncodeEnvelope(version_, 0, header.stream, Opcode::kAuthSuccess,
                       EncodeAuthSuccess(), compression_));
  phase_ = Phase::kReady;
}

void Connection::OnRegister(const RequestFrame& frame) {
  std::string storage;
  Result<std::string_view> body = PlainBody(frame, &storage);
  if (!body.ok()) return ReplyError(frame, body.status());
  Result<std::vector<std::string>> events = DecodeRegister(*body);
  if (!events.ok()) return ReplyError(frame, events.status());
  uint8_t mask = 0;
  for (const std::string& e : *events) {
    if (e == protocol::kSchemaChangeEvent) {
      mask |= EventRegistry::kSchema;
    } else if (e == protocol::kTopologyChangeEvent) {
      mask |= EventRegistry::kTopology;
    } else if (e == protocol::kStatusChangeEvent) {
      mask |= EventRegistry::kStatus;
    } else {
      return ReplyError(frame, Status::ProtocolError("Invalid value '" + e +
                                                     "' for Type"));
    }
  }
  if (mask != 0) shared_->events.Add(shared_from_this(), mask);
  Queue(EncodeEnvelope(version_, 0, frame.header.stream, Opcode::kReady, "",
                       compression_));
}

}  // namespace keywise::server
