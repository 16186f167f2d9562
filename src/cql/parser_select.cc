// SELECT and its selectors.
#include "cql/parser_internal.h"

namespace keywise::cql {
namespace {

Selector SelectorOperation(char op, std::vector<Selector> operands) {
  Selector s;
  s.kind = SelectorKind::kFunction;
  s.function.keyspace = "system";
  s.function.name = OperatorFunctionName(op);
  s.args = std::move(operands);
  return s;
}

}  // namespace

// Cassandra 4's selectionAddition / selectionMultiplication /
// selectionGroup: arithmetic over selectors, * / % tighter than + -.
Result<Selector> Parser::ParseSelector() {
  DepthGuard guard(&depth_);
  if (depth_ > kMaxDepth) return ErrorHere("nesting too deep");
  KW_ASSIGN_OR_RETURN(Selector left, ParseSelectorProduct());
  ChainDepth chain(&depth_);
  for (;;) {
    char op = 0;
    if (At(TokenKind::kPlus) || At(TokenKind::kMinus)) {
      op = Next().raw[0];
    } else if ((At(TokenKind::kInteger) || At(TokenKind::kFloat)) &&
               Peek().text.starts_with("-")) {
      op = '-';  // `a -1`: the lexer made "-1" one number
      SplitSign();
    } else {
      return left;
    }
    if (!chain.Add(kMaxDepth)) return ErrorHere("nesting too deep");
    KW_ASSIGN_OR_RETURN(Selector right, ParseSelectorProduct());
    std::vector<Selector> operands;
    operands.push_back(std::move(left));
    operands.push_back(std::move(right));
    left = SelectorOperation(op, std::move(operands));
  }
}

Result<Selector> Parser::ParseSelectorProduct() {
  KW_ASSIGN_OR_RETURN(Selector left, ParseSelectorGroup());
  ChainDepth chain(&depth_);
  while (At(TokenKind::kStar) || At(TokenKind::kSlash) ||
         At(TokenKind::kPercent)) {
    if (!chain.Add(kMaxDepth)) return ErrorHere("nesting too deep");
    const char op = Next().raw[0];
    KW_ASSIGN_OR_RETURN(Selector right, ParseSelectorGroup());
    std::vector<Selector> operands;
    operands.push_back(std::move(left));
    operands.push_back(std::move(right));
    left = SelectorOperation(op, std::move(operands));
  }
  return left;
}

Result<Selector> Parser::ParseSelectorGroup() {
  DepthGuard guard(&depth_);
  if (depth_ > kMaxDepth) return ErrorHere("nesting too deep");
  if (At(TokenKind::kMinus) && !AtKeyword("nan", 1) &&
      !AtKeyword("infinity", 1)) {
    Next();
    KW_ASSIGN_OR_RETURN(Selector operand, ParseSelectorGroup());
    std::vector<Selector> operands;
    operands.push_back(std::move(operand));
    return SelectorOperation('n', std::move(operands));
  }
  return ParseSimpleSelector();
}

Result<Selector> Parser::ParseSimpleSelector() {
  Selector sel;
  // A literal.
  if (IsLiteralStart(Peek())) {
    sel.kind = SelectorKind::kTerm;
    KW_ASSIGN_OR_RETURN(sel.term, ParseSimpleTerm());
    return sel;
  }
  if (At(TokenKind::kLParen) || At(TokenKind::kLBracket) ||
      At(TokenKind::kLBrace)) {
    // A term (a tuple or collection literal, a type hint on a literal:
    // `(int) 2`), else Cassandra 4's selectionTupleOrNestedSelector,
    // selectionTypeHint, selectionList or selectionMapOrSet: `(a + b)`
    // groups, `(a, b)` is a tuple of selectors, `(int) a` a type hint.
    const size_t saved = pos_;
    const int saved_binds = bind_count_;
    const size_t saved_splits = sign_splits_.size();
    Result<Term> term = ParseSimpleTerm();
    // A one-element "tuple" (`(1 + 2) * i`) groups, as a nested selector.
    if (term.ok() &&
        !(term->kind == TermKind::kTuple && term->elements.size() == 1)) {
      sel.kind = SelectorKind::kTerm;
      sel.term = std::move(term).value();
      return sel;
    }
    pos_ = saved;
    bind_count_ = saved_binds;
    UndoSignSplits(saved_splits);
    if (!At(TokenKind::kLParen)) {
      KW_ASSIGN_OR_RETURN(sel, ParseCollectionSelector());
      return ParseSelectorModifiers(std::move(sel));
    }
    if (std::optional<TypeName> hint = ParseSelectorTypeHint()) {
      sel.kind = SelectorKind::kTypeHint;
      sel.cast_type = std::move(*hint);
      KW_ASSIGN_OR_RETURN(Selector arg, ParseSimpleSelector());
      sel.args.push_back(std::move(arg));
      return sel;
    }
    Next();
    KW_ASSIGN_OR_RETURN(sel, ParseSelector());
    if (At(TokenKind::kComma)) {
      Selector tuple;
      tuple.kind = SelectorKind::kTuple;
      tuple.args.push_back(std::move(sel));
      while (Accept(TokenKind::kComma)) {
        KW_ASSIGN_OR_RETURN(Selector e, ParseSelector());
        tuple.args.push_back(std::move(e));
      }
      sel = std::move(tuple);
    }
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    return ParseSelectorModifiers(std::move(sel));
  }
  bool call = At(TokenKind::kLParen, 1);
  if (call && AtKeyword("count") &&
      (At(TokenKind::kStar, 2) ||
       (At(TokenKind::kInteger, 2) && Peek(2).text == "1")) &&
      At(TokenKind::kRParen, 3)) {
    Next();
    Next();
    Next();
    Next();
    sel.kind = SelectorKind::kCountRows;
    return sel;
  }
  if (call && (AtKeyword("writetime") || AtKeyword("ttl"))) {
    sel.kind = AtKeyword("ttl") ? SelectorKind::kTtl : SelectorKind::kWriteTime;
    Next();
    Next();
    KW_ASSIGN_OR_RETURN(sel.column, ParseName());
    // Cassandra 5: of an element, a slice or a field (`c[k]`, `c[a..b]`,
    // `u.f`), kept as args[0] over the column.
    if (At(TokenKind::kLBracket) || At(TokenKind::kDot)) {
      Selector column;
      column.column = sel.column;
      KW_ASSIGN_OR_RETURN(Selector modified,
                          ParseSelectorModifiers(std::move(column)));
      sel.args.push_back(std::move(modified));
    }
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
  } else if (call && AtKeyword("cast")) {
    Next();
    Next();
    sel.kind = SelectorKind::kCast;
    KW_ASSIGN_OR_RETURN(Selector arg, ParseSelector());
    sel.args.push_back(std::move(arg));
    KW_RETURN_IF_ERROR(ExpectKeyword("as"));
    KW_ASSIGN_OR_RETURN(sel.cast_type, ParseType());
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
  } else if ((call && (AtName() || AtKeyword("token"))) ||
             (AtName() && At(TokenKind::kDot, 1) && AtName(2) &&
              At(TokenKind::kLParen, 3))) {
    sel.kind = SelectorKind::kFunction;
    sel.function.name = Next().text;
    if (Accept(TokenKind::kDot)) {
      sel.function.keyspace = std::move(sel.function.name);
      sel.function.name = Next().text;
    }
    KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
    KW_RETURN_IF_ERROR(ParseCommaList<Selector>(
        TokenKind::kRParen, [&] { return ParseSelector(); }, &sel.args));
  } else {
    sel.kind = SelectorKind::kColumn;
    if (!AtName()) return NoViableAlt();
    sel.column = Next().text;
  }
  return ParseSelectorModifiers(std::move(sel));
}

std::optional<TypeName> Parser::ParseSelectorTypeHint() {
  // `( type )` followed by what starts a selector that is no literal (a
  // type hint on a literal is a term): a name, `(`, `[` or `{`. Anything
  // else, `(a) * 2` say, is a parenthesised selector: nothing is consumed.
  const size_t saved = pos_;
  Next();
  Result<TypeName> type = ParseType();
  if (type.ok() && Accept(TokenKind::kRParen)) {
    // `(a) AS x` is the column a under an alias.
    const bool alias = AtKeyword("as") && AtName(1);
    if ((AtName() && !alias) || At(TokenKind::kLParen) ||
        At(TokenKind::kLBracket) || At(TokenKind::kLBrace)) {
      return std::move(type).value();
    }
  }
  pos_ = saved;
  return std::nullopt;
}

Result<Selector> Parser::ParseCollectionSelector() {
  Selector sel;
  if (Accept(TokenKind::kLBracket)) {
    sel.kind = SelectorKind::kList;
    KW_RETURN_IF_ERROR(ParseCommaList<Selector>(
        TokenKind::kRBracket, [&] { return ParseSelector(); }, &sel.args));
    return sel;
  }
  KW_RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
  bool first = true;
  do {
    KW_ASSIGN_OR_RETURN(Selector e, ParseSelector());
    if (first) {
      sel.kind = At(TokenKind::kColon) ? SelectorKind::kMap : SelectorKind::kSet;
      first = false;
    }
    sel.args.push_back(std::move(e));
    if (sel.kind == SelectorKind::kMap) {
      KW_RETURN_IF_ERROR(Expect(TokenKind::kColon));
      KW_ASSIGN_OR_RETURN(Selector value, ParseSelector());
      sel.args.push_back(std::move(value));
    }
  } while (Accept(TokenKind::kComma));
  KW_RETURN_IF_ERROR(Expect(TokenKind::kRBrace));
  return sel;
}

Result<Selector> Parser::ParseSelectorModifiers(Selector sel) {
  // selector.field for user types; selector[key] and selector[from..to]
  // for maps and sets.
  while ((At(TokenKind::kDot) && AtName(1)) || At(TokenKind::kLBracket)) {
    Selector outer;
    if (Accept(TokenKind::kDot)) {
      outer.kind = SelectorKind::kField;
      outer.column = Next().text;
    } else {
      Next();
      outer.kind = SelectorKind::kElement;
      if (!At(TokenKind::kRange)) {
        KW_ASSIGN_OR_RETURN(Term from, ParseTerm());
        outer.from = std::move(from);
      }
      if (Accept(TokenKind::kRange)) {
        outer.kind = SelectorKind::kSlice;
        if (!At(TokenKind::kRBracket)) {
          KW_ASSIGN_OR_RETURN(Term to, ParseTerm());
          outer.to = std::move(to);
        }
      } else if (!outer.from) {
        return NoViableAlt();
      }
      KW_RETURN_IF_ERROR(Expect(TokenKind::kRBracket));
    }
    outer.args.push_back(std::move(sel));
    sel = std::move(outer);
  }
  return sel;
}

Result<SelectStatement> Parser::ParseSelect() {
  KW_RETURN_IF_ERROR(ExpectKeyword("select"));
  SelectStatement s;
  // JSON and DISTINCT are non-reserved: they are modifiers only when not
  // themselves the selected column.
  auto is_modifier = [this](std::string_view kw) {
    if (!AtKeyword(kw)) return false;
    const Token& next = Peek(1);
    return !(next.Is("from") || next.Is("as") ||
             next.kind == TokenKind::kComma ||
             next.kind == TokenKind::kLParen || next.kind == TokenKind::kDot);
  };
  if (is_modifier("json")) {
    Next();
    s.json = true;
  }
  if (is_modifier("distinct")) {
    Next();
    s.distinct = true;
  }
  if (Accept(TokenKind::kStar)) {
    s.select_all = true;
  } else {
    do {
      SelectItem item;
      KW_ASSIGN_OR_RETURN(item.selector, ParseSelector());
      if (AcceptKeyword("as")) {
        KW_ASSIGN_OR_RETURN(item.alias, ParseName());
      }
      s.items.push_back(std::move(item));
    } while (Accept(TokenKind::kComma));
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("from"));
  KW_ASSIGN_OR_RETURN(s.table, ParseQualifiedName());
  if (AcceptKeyword("where")) {
    KW_ASSIGN_OR_RETURN(s.where, ParseWhere());
  }
  if (AtKeyword("group")) {
    Next();
    KW_RETURN_IF_ERROR(ExpectKeyword("by"));
    do {
      KW_ASSIGN_OR_RETURN(std::string c, ParseName());
      s.group_by.push_back(std::move(c));
    } while (Accept(TokenKind::kComma));
  }
  if (AcceptKeyword("order")) {
    KW_RETURN_IF_ERROR(ExpectKeyword("by"));
    do {
      KW_ASSIGN_OR_RETURN(std::string c, ParseName());
      Order order = Order::kAsc;
      if (AcceptKeyword("desc")) {
        order = Order::kDesc;
      } else {
        AcceptKeyword("asc");
      }
      s.order_by.emplace_back(std::move(c), order);
    } while (Accept(TokenKind::kComma));
  }
  auto parse_limit = [this]() -> Result<Term> {
    if (At(TokenKind::kInteger) || At(TokenKind::kBindMarker) ||
        At(TokenKind::kColon)) {
      return ParseTerm();
    }
    return NoViableAlt();
  };
  if (AtKeyword("per")) {
    Next();
    KW_RETURN_IF_ERROR(ExpectKeyword("partition"));
    KW_RETURN_IF_ERROR(ExpectKeyword("limit"));
    KW_ASSIGN_OR_RETURN(Term t, parse_limit());
    s.per_partition_limit = std::move(t);
  }
  if (AcceptKeyword("limit")) {
    KW_ASSIGN_OR_RETURN(Term t, parse_limit());
    s.limit = std::move(t);
  }
  if (AcceptKeyword("allow")) {
    KW_RETURN_IF_ERROR(ExpectKeyword("filtering"));
    s.allow_filtering = true;
  }
  // Keywise extension (docs/cql_extensions.md): WITH VERSIONS n.
  if (AtKeyword("with")) {
    Next();
    KW_RETURN_IF_ERROR(ExpectKeyword("versions"));
    KW_ASSIGN_OR_RETURN(Term t, parse_limit());
    s.versions = std::move(t);
  }
  return s;
}

}  // namespace keywise::cql
