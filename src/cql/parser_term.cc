// Terms: literals, bind markers, collections, tuples, casts, function calls,
// and arithmetic on them (Cassandra 4's termAddition / termMultiplication /
// termGroup: * / % bind tighter than + -, unary minus tightest).
#include "cql/parser_internal.h"

namespace keywise::cql {
namespace {

bool StartsTerm(const Token& t) {
  if (IsLiteralStart(t)) return true;
  switch (t.kind) {
    case TokenKind::kLParen:
    case TokenKind::kLBracket:
    case TokenKind::kLBrace:
    case TokenKind::kMinus:
    case TokenKind::kIdentifier:
    case TokenKind::kQuotedIdentifier:
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<Term> Parser::ParseBindMarker() {
  Term t;
  t.kind = TermKind::kBindMarker;
  if (Accept(TokenKind::kBindMarker)) {
    t.bind_index = bind_count_++;
    return t;
  }
  KW_RETURN_IF_ERROR(Expect(TokenKind::kColon));
  if (!At(TokenKind::kIdentifier) && !At(TokenKind::kQuotedIdentifier)) {
    return Mismatch("IDENT");
  }
  t.bind_name = Next().text;
  t.bind_index = bind_count_++;
  return t;
}

Term Parser::Operation(char op, std::vector<Term> operands) {
  Term t;
  t.kind = TermKind::kFunctionCall;
  t.op = op;
  t.function.keyspace = "system";
  t.function.name = OperatorFunctionName(op);
  t.elements = std::move(operands);
  return t;
}

bool Parser::OperandAt(size_t ahead) const {
  const Token& t = Peek(ahead);
  if (IsLiteralStart(t)) return true;
  switch (t.kind) {
    case TokenKind::kLParen:
    case TokenKind::kLBracket:
    case TokenKind::kLBrace:
    case TokenKind::kMinus:
    case TokenKind::kBindMarker:
    case TokenKind::kColon:
      return true;
    case TokenKind::kIdentifier:
      if (t.text == "true" || t.text == "false" || t.text == "null" ||
          t.text == "nan" || t.text == "infinity") {
        return true;
      }
      [[fallthrough]];
    case TokenKind::kQuotedIdentifier:
      // A function call; a bare name is a column (`[1] + l` prepends).
      return At(TokenKind::kLParen, ahead + 1) ||
             (At(TokenKind::kDot, ahead + 1) &&
              At(TokenKind::kLParen, ahead + 3));
    default:
      return false;
  }
}

std::optional<char> Parser::AdditiveOperatorAt() const {
  if (At(TokenKind::kPlus) && OperandAt(1)) return '+';
  if (At(TokenKind::kMinus) && OperandAt(1)) return '-';
  // `a -1`: the lexer made "-1" one number; it means a - 1.
  if ((At(TokenKind::kInteger) || At(TokenKind::kFloat)) &&
      Peek().text.starts_with("-")) {
    return '-';
  }
  return std::nullopt;
}

Result<Term> Parser::ParseTerm() {
  DepthGuard guard(&depth_);
  if (depth_ > kMaxDepth) return ErrorHere("nesting too deep");
  KW_ASSIGN_OR_RETURN(Term left, ParseTermProduct());
  ChainDepth chain(&depth_);
  while (std::optional<char> op = AdditiveOperatorAt()) {
    if (!chain.Add(kMaxDepth)) return ErrorHere("nesting too deep");
    if (At(TokenKind::kPlus) || At(TokenKind::kMinus)) {
      Next();
    } else {
      SplitSign();  // "-1": the operator and 1
    }
    KW_ASSIGN_OR_RETURN(Term right, ParseTermProduct());
    std::vector<Term> operands;
    operands.push_back(std::move(left));
    operands.push_back(std::move(right));
    left = Operation(*op, std::move(operands));
  }
  return left;
}

Result<Term> Parser::ParseTermProduct() {
  KW_ASSIGN_OR_RETURN(Term left, ParseTermGroup());
  ChainDepth chain(&depth_);
  while ((At(TokenKind::kStar) || At(TokenKind::kSlash) ||
          At(TokenKind::kPercent)) &&
         OperandAt(1)) {
    if (!chain.Add(kMaxDepth)) return ErrorHere("nesting too deep");
    const char op = Next().raw[0];
    KW_ASSIGN_OR_RETURN(Term right, ParseTermGroup());
    std::vector<Term> operands;
    operands.push_back(std::move(left));
    operands.push_back(std::move(right));
    left = Operation(op, std::move(operands));
  }
  return left;
}

Result<Term> Parser::ParseTermGroup() {
  if (At(TokenKind::kMinus) && !AtKeyword("nan", 1) &&
      !AtKeyword("infinity", 1)) {
    Next();
    KW_ASSIGN_OR_RETURN(Term operand, ParseSimpleTerm());
    std::vector<Term> operands;
    operands.push_back(std::move(operand));
    return Operation('n', std::move(operands));
  }
  return ParseSimpleTerm();
}

Result<Term> Parser::ParseSimpleTerm() {
  DepthGuard guard(&depth_);
  if (depth_ > kMaxDepth) return ErrorHere("nesting too deep");
  const Token& tok = Peek();
  switch (tok.kind) {
    case TokenKind::kString:
      return Term::Literal(LiteralKind::kString, Next().text);
    case TokenKind::kInteger:
      return Term::Literal(LiteralKind::kInteger, Next().text);
    case TokenKind::kFloat:
      return Term::Literal(LiteralKind::kFloat, Next().text);
    case TokenKind::kUuid:
      return Term::Literal(LiteralKind::kUuid, Next().text);
    case TokenKind::kBlob:
      return Term::Literal(LiteralKind::kBlob, Next().text);
    case TokenKind::kDuration:
      return Term::Literal(LiteralKind::kDuration, Next().text);
    case TokenKind::kBindMarker:
    case TokenKind::kColon:
      return ParseBindMarker();
    case TokenKind::kMinus: {
      // Only `-NaN` and `-Infinity`; "-1" is lexed as one token.
      if (AtKeyword("nan", 1) || AtKeyword("infinity", 1)) {
        Next();
        return Term::Literal(LiteralKind::kFloat,
                             Next().text == "nan" ? "-NaN" : "-Infinity");
      }
      return NoViableAlt();
    }
    case TokenKind::kLBracket: {
      Next();
      Term t;
      t.kind = TermKind::kList;
      KW_RETURN_IF_ERROR(ParseCommaList<Term>(
          TokenKind::kRBracket, [&] { return ParseTerm(); }, &t.elements));
      return t;
    }
    case TokenKind::kLBrace: {
      Next();
      Term t;
      t.kind = TermKind::kMap;
      if (Accept(TokenKind::kRBrace)) return t;
      // {field: v, ...} is a user type literal.
      if (AtName() && At(TokenKind::kColon, 1)) {
        t.kind = TermKind::kUserType;
        do {
          KW_ASSIGN_OR_RETURN(std::string field, ParseName());
          KW_RETURN_IF_ERROR(Expect(TokenKind::kColon));
          KW_ASSIGN_OR_RETURN(Term v, ParseTerm());
          t.field_names.push_back(std::move(field));
          t.elements.push_back(std::move(v));
        } while (Accept(TokenKind::kComma));
        KW_RETURN_IF_ERROR(Expect(TokenKind::kRBrace));
        return t;
      }
      KW_ASSIGN_OR_RETURN(Term first, ParseTerm());
      bool is_map = At(TokenKind::kColon);
      t.kind = is_map ? TermKind::kMap : TermKind::kSet;
      t.elements.push_back(std::move(first));
      if (is_map) {
        Next();
        KW_ASSIGN_OR_RETURN(Term v, ParseTerm());
        t.elements.push_back(std::move(v));
      }
      while (Accept(TokenKind::kComma)) {
        KW_ASSIGN_OR_RETURN(Term k, ParseTerm());
        t.elements.push_back(std::move(k));
        if (is_map) {
          KW_RETURN_IF_ERROR(Expect(TokenKind::kColon));
          KW_ASSIGN_OR_RETURN(Term v, ParseTerm());
          t.elements.push_back(std::move(v));
        }
      }
      KW_RETURN_IF_ERROR(Expect(TokenKind::kRBrace));
      return t;
    }
    case TokenKind::kLParen: {
      Next();
      // `(type) term` is a cast when a type and ')' are followed by a term.
      if (AtName()) {
        size_t saved = pos_;
        int saved_binds = bind_count_;
        auto type = ParseType();
        if (type.ok() && At(TokenKind::kRParen) && StartsTerm(Peek(1))) {
          Next();
          Term t;
          t.kind = TermKind::kCast;
          t.cast_type = std::move(type).value();
          KW_ASSIGN_OR_RETURN(Term v, ParseSimpleTerm());  // binds tightest
          t.elements.push_back(std::move(v));
          return t;
        }
        pos_ = saved;
        bind_count_ = saved_binds;
      }
      Term t;
      t.kind = TermKind::kTuple;
      do {
        KW_ASSIGN_OR_RETURN(Term e, ParseTerm());
        t.elements.push_back(std::move(e));
      } while (Accept(TokenKind::kComma));
      KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
      return t;
    }
    case TokenKind::kIdentifier:
      if (tok.text == "true" || tok.text == "false") {
        return Term::Literal(LiteralKind::kBoolean, Next().text);
      }
      if (tok.text == "null") {
        Next();
        return Term();
      }
      if (tok.text == "nan") {
        Next();
        return Term::Literal(LiteralKind::kFloat, "NaN");
      }
      if (tok.text == "infinity") {
        Next();
        return Term::Literal(LiteralKind::kFloat, "Infinity");
      }
      [[fallthrough]];
    case TokenKind::kQuotedIdentifier: {
      // A function call: name(...) or ks.name(...); token() is allowed
      // although `token` is reserved.
      bool callable = AtName() || tok.Is("token");
      bool qualified =
          At(TokenKind::kDot, 1) && AtName(2) && At(TokenKind::kLParen, 3);
      if (!callable || (!At(TokenKind::kLParen, 1) && !qualified)) {
        return NoViableAlt();
      }
      Term t;
      t.kind = TermKind::kFunctionCall;
      t.function.name = Next().text;
      if (qualified) {
        Next();
        t.function.keyspace = std::move(t.function.name);
        t.function.name = Next().text;
      }
      KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
      KW_RETURN_IF_ERROR(ParseCommaList<Term>(
          TokenKind::kRParen, [&] { return ParseTerm(); }, &t.elements));
      return t;
    }
    default:
      return NoViableAlt();
  }
}

}  // namespace keywise::cql
