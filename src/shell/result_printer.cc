#include "shell/result_printer.h"

#include <algorithm>
#include <cstdio>

#include "client/requests.h"
#include "protocol/consistency.h"
#include "schema/value_codec.h"

namespace keywise::shell {
namespace {

void Pad(std::string* out, size_t n) { out->append(n, ' '); }

std::string Hex4(ErrorCode code) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04x", static_cast<unsigned>(code));
  return buf;
}

// The python driver's `summary` of each ERROR class.
const char* Summary(ErrorCode code) {
  switch (code) {
    case ErrorCode::kServerError: return "Server error";
    case ErrorCode::kProtocolError: return "Protocol error";
    case ErrorCode::kBadCredentials: return "Bad credentials";
    case ErrorCode::kUnavailable: return "Unavailable exception";
    case ErrorCode::kOverloaded: return "Coordinator node overloaded";
    case ErrorCode::kIsBootstrapping: return "Coordinator node is bootstrapping";
    case ErrorCode::kTruncateError: return "Error during truncate";
    case ErrorCode::kWriteTimeout:
    case ErrorCode::kReadTimeout:
      return "Coordinator node timed out waiting for replica nodes' responses";
    case ErrorCode::kCasWriteUnknown:
      return "The result of a compare-and-set is unknown";
    case ErrorCode::kReadFailure: return "Replica(s) failed to execute read";
    case ErrorCode::kFunctionFailure: return "User Defined Function failure";
    case ErrorCode::kWriteFailure: return "Replica(s) failed to execute write";
    case ErrorCode::kSyntaxError: return "Syntax error in CQL query";
    case ErrorCode::kUnauthorized: return "Unauthorized";
    case ErrorCode::kInvalid: return "Invalid query";
    case ErrorCode::kConfigError: return "Query invalid because of configuration issue";
    case ErrorCode::kAlreadyExists: return "Already exists";
    case ErrorCode::kUnprepared: return "Unknown prepared statement";
    default: return "Unknown";
  }
}

std::string SummaryMessage(const client::ServerError& e) {
  return "Error from server: code=" + Hex4(e.code) + " [" + Summary(e.code) +
         "] message=\"" + e.message + "\"";
}

std::string Cl(const client::ServerError& e) {
  return "'" + std::string(protocol::ConsistencyName(e.consistency)) + "'";
}

}  // namespace

size_t DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string FormatCell(const client::ColumnSpec& column,
                       const std::optional<std::string>& value) {
  if (!value) return "null";
  if (ValidateValue(*column.type, *value).ok()) {
    return FormatValue(*column.type, *value);
  }
  // cqlsh shows undecodable bytes as their repr; hex is the closest.
  return FormatValue(*CqlType::Of(TypeKind::kBlob), *value);
}

std::string RenderRows(const std::vector<client::ColumnSpec>& columns,
                       const std::vector<client::Row>& rows, bool with_header,
                       bool expanded, int row_offset) {
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (const client::Row& row : rows) {
    std::vector<std::string> line;
    line.reserve(columns.size());
    for (size_t c = 0; c < columns.size(); ++c) {
      line.push_back(FormatCell(columns[c], c < row.size() ? row[c] : std::nullopt));
    }
    cells.push_back(std::move(line));
  }
  std::string out;
  if (expanded && !rows.empty()) {
    size_t name_w = 0, value_w = 0;
    for (const auto& c : columns) name_w = std::max(name_w, DisplayWidth(c.name));
    for (const auto& line : cells) {
      for (const auto& v : line) value_w = std::max(value_w, DisplayWidth(v));
    }
    for (size_t r = 0; r < cells.size(); ++r) {
      out += "@ Row " + std::to_string(row_offset + r + 1) + "\n";
      out += "-" + std::string(name_w, '-') + "-+-" + std::string(value_w, '-') + "-\n";
      for (size_t c = 0; c < columns.size(); ++c) {
        out += " " + columns[c].name;
        Pad(&out, name_w - DisplayWidth(columns[c].name));
        out += " | " + cells[r][c] + "\n";
      }
      out += "\n";
    }
    return out;
  }
  std::vector<size_t> widths;
  for (const auto& c : columns) widths.push_back(DisplayWidth(c.name));
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) {
      widths[c] = std::max(widths[c], DisplayWidth(line[c]));
    }
  }
  if (with_header || rows.empty()) {
    std::string header = " ";
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) header += " | ";
      header += columns[c].name;
      Pad(&header, widths[c] - DisplayWidth(columns[c].name));
    }
    while (!header.empty() && header.back() == ' ') header.pop_back();
    out += header + "\n-";
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) out += "-+-";
      out.append(widths[c], '-');
    }
    out += "-\n";
  }
  if (rows.empty()) return out + "\n";
  for (const auto& line : cells) {
    out += " ";
    for (size_t c = 0; c < line.size(); ++c) {
      if (c > 0) out += " | ";
      Pad(&out, widths[c] - DisplayWidth(line[c]));
      out += line[c];
    }
    out += "\n";
  }
  return out;
}

std::string FormatReplyError(const client::Reply& reply, const std::string& host) {
  using client::ReplySource;
  switch (reply.source) {
    case ReplySource::kOk:
      return "";
    case ReplySource::kTimeout:
      return "OperationTimedOut: errors={'" + host +
             "': 'Client request timeout. See Session.execute[_async](timeout)'}, "
             "last_host=" + host;
    case ReplySource::kConnection:
      return "NoHostAvailable: ('Unable to complete the operation against any "
             "hosts', {<Host: " + host + ">: ConnectionShutdown('" +
             reply.status.message() + "')})";
    case ReplySource::kProtocol:
      return "ProtocolError: " + reply.status.message();
    case ReplySource::kServer:
      break;
  }
  const client::ServerError& e = reply.error;
  const std::string summary = SummaryMessage(e);
  switch (e.code) {
    case ErrorCode::kInvalid:
      return "InvalidRequest: " + summary;
    case ErrorCode::kUnauthorized:
      return "Unauthorized: " + summary;
    case ErrorCode::kAlreadyExists:
      if (e.table.empty()) return "AlreadyExists: Keyspace '" + e.keyspace + "' already exists";
      return "AlreadyExists: Table '" + e.keyspace + "." + e.table + "' already exists";
    case ErrorCode::kUnavailable:
      return "Unavailable: " + summary + " info={'consistency': " + Cl(e) +
             ", 'required_replicas': " + std::to_string(e.required) +
             ", 'alive_replicas': " + std::to_string(e.alive) + "}";
    case ErrorCode::kWriteTimeout:
      return "WriteTimeout: " + summary + " info={'consistency': " + Cl(e) +
             ", 'required_responses': " + std::to_string(e.required) +
             ", 'received_responses': " + std::to_string(e.received) +
             ", 'write_type': '" + e.write_type + "'}";
    case ErrorCode::kReadTimeout:
      return "ReadTimeout: " + summary + " info={'consistency': " + Cl(e) +
             ", 'required_responses': " + std::to_string(e.required) +
             ", 'received_responses': " + std::to_string(e.received) + "}";
    case ErrorCode::kReadFailure:
      return "ReadFailure: " + summary + " info={'consistency': " + Cl(e) +
             ", 'required_responses': " + std::to_string(e.required) +
             ", 'received_responses': " + std::to_string(e.received) +
             ", 'failures': " + std::to_string(e.failures) + "}";
    case ErrorCode::kWriteFailure:
      return "WriteFailure: " + summary + " info={'consistency': " + Cl(e) +
             ", 'required_responses': " + std::to_string(e.required) +
             ", 'received_responses': " + std::to_string(e.received) +
             ", 'failures': " + std::to_string(e.failures) + "}";
    case ErrorCode::kFunctionFailure:
      return "FunctionFailure: " + summary;
    // The driver keeps these as ErrorMessage objects; cqlsh prints the class
    // name and the server's message alone.
    case ErrorCode::kSyntaxError:
      return "SyntaxException: " + e.message;
    case ErrorCode::kConfigError:
      return "ConfigurationException: " + e.message;
    case ErrorCode::kServerError:
      return "ServerError: " + e.message;
    case ErrorCode::kProtocolError:
      return "ProtocolException: " + e.message;
    case ErrorCode::kTruncateError:
      return "TruncateError: " + e.message;
    case ErrorCode::kOverloaded:
      return "OverloadedErrorMessage: " + e.message;
    case ErrorCode::kIsBootstrapping:
      return "IsBootstrappingErrorMessage: " + e.message;
    case ErrorCode::kUnprepared:
      return "PreparedQueryNotFound: " + e.message;
    case ErrorCode::kBadCredentials:
      return "AuthenticationFailed: " + e.message;
    default:
      return "ErrorMessage: " + summary;
  }
}

}  // namespace keywise::shell
