// Syntax error messages in the shape Cassandra 4 produces:
//   line L:C <message> (<snippet>)
// The snippet spans from 10 stream tokens before the offending one to 2
// after it (whitespace and comments count as tokens), brackets the
// offending token, joins lines without separators, and marks a cut at
// either end with "...". When the offending token is the end of input no
// snippet is printed (Cassandra cannot place one there).
#include <algorithm>

#include "cql/parser_internal.h"

namespace keywise::cql {
namespace {

// Splits like Java's String.split("\n"): trailing empty pieces are dropped.
std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  while (lines.size() > 1 && lines.back().empty()) lines.pop_back();
  return lines;
}

}  // namespace

const Token* Parser::StreamToken(size_t stream_index) const {
  auto by_index = [](const Token& t, size_t i) { return t.stream_index < i; };
  for (const std::vector<Token>* v : {&tokens_, &hidden_}) {
    auto it = std::lower_bound(v->begin(), v->end(), stream_index, by_index);
    if (it != v->end() && it->stream_index == stream_index) return &*it;
  }
  return nullptr;
}

size_t Parser::ByteColumn(const Token& token) const {
  if (token.offset == 0) return 0;
  const size_t newline = text_.rfind('\n', token.offset - 1);
  return newline == std::string_view::npos ? token.offset
                                           : token.offset - newline - 1;
}

std::string Parser::Snippet(const Token& offending) const {
  if (offending.kind == TokenKind::kEof) return "";
  size_t index = offending.stream_index;
  size_t size = tokens_.back().stream_index + 1;
  const Token* from = StreamToken(index >= 10 ? index - 10 : 0);
  const Token* to = StreamToken(std::min(size - 1, index + 2));
  if (from == nullptr || to == nullptr) return "";
  std::vector<std::string> lines = SplitLines(text_);
  auto line_ok = [&](const Token* t) {
    return t->line >= 1 && static_cast<size_t>(t->line) <= lines.size();
  };
  if (!line_ok(from) || !line_ok(to) || !line_ok(&offending)) return "";
  // Token columns count UTF-16 units; cutting the lines needs bytes.
  size_t to_end = ByteColumn(*to) + to->raw.size();
  bool include_start = from->offset == 0;
  bool include_end = static_cast<size_t>(to->line) == lines.size() &&
                     to_end == lines.back().size();
  std::string& to_line = lines[to->line - 1];
  if (to_end < to_line.size()) to_line.resize(to_end);
  std::string& off_line = lines[offending.line - 1];
  size_t open = ByteColumn(offending);
  size_t close = open + offending.raw.size();
  if (close > off_line.size()) return "";
  off_line.insert(close, "]");
  off_line.insert(open, "[");
  std::string& from_line = lines[from->line - 1];
  if (ByteColumn(*from) > from_line.size()) return "";
  from_line.erase(0, ByteColumn(*from));
  std::string out = " (";
  if (!include_start) out += "...";
  for (int i = from->line - 1; i <= to->line - 1; ++i) out += lines[i];
  if (!include_end) out += "...";
  out += ")";
  return out;
}

Status Parser::ErrorHere(const std::string& what) const {
  const Token& tok = Peek();
  return Status::SyntaxError("line " + std::to_string(tok.line) + ":" +
                             std::to_string(tok.column) + " " + what +
                             Snippet(tok));
}

Status Parser::NoViableAlt() const {
  return ErrorHere("no viable alternative at input '" + Peek().raw + "'");
}

Status Parser::Mismatch(std::string_view expecting) const {
  return ErrorHere("mismatched input '" + Peek().raw + "' expecting " +
                   std::string(expecting));
}

}  // namespace keywise::cql
