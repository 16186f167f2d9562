// Parser: the recursive-descent parser behind cql/parser.h. Internal to the
// cql module; split over parser_*.cc by statement family.
//
// Contract: one Parser parses one token vector, single-threaded. Every
// method either consumes what it recognizes and returns a value, or returns
// a SyntaxError built by Error*() below; after an error the Parser is not
// reused. Recursion depth is bounded (kMaxDepth) so deeply nested input
// fails cleanly instead of overflowing the stack.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "cql/ast.h"
#include "cql/token.h"

namespace keywise::cql {

// Whether `t` starts a literal or bind marker (constants, true, false,
// null, NaN, Infinity, ?, :name).
inline bool IsLiteralStart(const Token& t) {
  switch (t.kind) {
    case TokenKind::kString:
    case TokenKind::kInteger:
    case TokenKind::kFloat:
    case TokenKind::kUuid:
    case TokenKind::kBlob:
    case TokenKind::kDuration:
    case TokenKind::kBindMarker:
    case TokenKind::kColon:
      return true;
    default:
      return t.Is("true") || t.Is("false") || t.Is("null") || t.Is("nan") ||
             t.Is("infinity");
  }
}

class Parser {
 public:
  // `hidden` are the whitespace/comment tokens (Tokenize's second output),
  // used only to cut error snippets.
  Parser(std::string_view text, std::vector<Token> tokens,
         std::vector<Token> hidden)
      : text_(text), tokens_(std::move(tokens)), hidden_(std::move(hidden)) {}

  // Parses statements until EOF; see ParseStatements().
  Result<std::vector<Statement>> ParseScript();
  // Parses one statement followed by optional ';'s and EOF.
  Result<Statement> ParseSingle();
  int bind_count() const { return bind_count_; }

 private:
  static constexpr int kMaxDepth = 100;

  // ---- cursor (parser_base.cc)
  const Token& Peek(size_t ahead = 0) const;
  const Token& Next();
  bool AtEof() const { return Peek().kind == TokenKind::kEof; }
  bool At(TokenKind kind, size_t ahead = 0) const {
    return Peek(ahead).kind == kind;
  }
  bool AtKeyword(std::string_view kw, size_t ahead = 0) const {
    return Peek(ahead).Is(kw);
  }
  bool Accept(TokenKind kind);
  bool AcceptKeyword(std::string_view kw);
  Status Expect(TokenKind kind);
  Status ExpectKeyword(std::string_view kw);
  // Parses `item (, item)*` (possibly empty) up to `close`, appending to
  // `out`, and consumes `close`.
  template <typename T, typename F>
  Status ParseCommaList(TokenKind close, F parse_one, std::vector<T>* out) {
    if (!At(close)) {
      do {
        KW_ASSIGN_OR_RETURN(T item, parse_one());
        out->push_back(std::move(item));
      } while (Accept(TokenKind::kComma));
    }
    return Expect(close);
  }

  // ---- errors (parser_error.cc)
  // "line L:C <what> (<snippet>)" at the current token.
  Status ErrorHere(const std::string& what) const;
  // Cassandra's query snippet around `offending`, with its leading space,
  // or "" when Cassandra would print none.
  std::string Snippet(const Token& offending) const;
  // The byte offset of `token` from the start of its line.
  size_t ByteColumn(const Token& token) const;
  // The token with this stream index (real or hidden), or nullptr.
  const Token* StreamToken(size_t stream_index) const;
  Status NoViableAlt() const;
  Status Mismatch(std::string_view expecting) const;

  // ---- shared pieces (parser_base.cc, parser_term.cc)
  // An identifier usable as a name: unquoted non-reserved or quoted.
  bool AtName(size_t ahead = 0) const;
  Result<std::string> ParseName();
  Result<QualifiedName> ParseQualifiedName();
  Result<TypeName> ParseType();
  // A term with arithmetic (parser_term.cc): ParseTerm = + and - over
  // ParseTermProduct = * / % over ParseTermGroup = [-] ParseSimpleTerm.
  Result<Term> ParseTerm();
  Result<Term> ParseTermProduct();
  Result<Term> ParseTermGroup();
  Result<Term> ParseSimpleTerm();
  // Whether the token `ahead` starts an operand of an operator: a value,
  // marker, collection, tuple or function call, not a bare column name.
  bool OperandAt(size_t ahead) const;
  // '+' or '-' when an additive operator with an operand is next.
  std::optional<char> AdditiveOperatorAt() const;
  static Term Operation(char op, std::vector<Term> operands);
  Result<Term> ParseBindMarker();
  Result<std::vector<Property>> ParseProperties();
  Result<Property> ParseProperty();
  Result<bool> ParseIfNotExists();  // [IF NOT EXISTS]
  Result<bool> ParseIfExists();     // [IF EXISTS]
  // The source text from token `first` up to (not including) token `end`,
  // as written; "" when the range is empty.
  std::string SourceText(size_t first, size_t end) const;

  // ---- WHERE / IF / USING (parser_relation.cc)
  Result<std::vector<Relation>> ParseWhere();  // after WHERE
  Result<Relation> ParseRelation();
  Result<RelationOp> ParseCompareOp();
  Result<std::vector<Term>> ParseInValues(bool tuples);
  Result<Condition> ParseCondition();
  // [IF EXISTS | IF cond AND ...]; `allow_exists` for UPDATE/DELETE.
  Status ParseIfClause(bool* if_exists, std::vector<Condition>* conditions);
  Result<UsingClause> ParseUsing(bool allow_ttl);  // after USING

  // ---- statements
  Result<Statement> ParseOneStatement();
  Result<ExplainStatement> ParseExplain();          // parser_base.cc
  Result<Statement> ParseCreate();                  // parser_ddl.cc
  Result<Statement> ParseAlter();                   // parser_ddl.cc
  Result<Statement> ParseDrop();                    // parser_ddl.cc
  Result<Statement> ParseUse();                     // parser_ddl.cc
  Result<Statement> ParseTruncate();                // parser_ddl.cc
  Result<CreateTableStatement> ParseCreateTable();  // parser_table.cc
  Result<AlterTableStatement> ParseAlterTable();    // parser_table.cc
  Result<ColumnDef> ParseColumnDef();               // parser_table.cc
  // parser_table.cc, shared with ALTER TYPE: `a TO b [AND c TO d ...]`.
  Result<std::vector<std::pair<std::string, std::string>>> ParseRenames();
  // parser_table.cc, shared with CREATE MATERIALIZED VIEW: the
  // `(pk, ck, ...)` or `((pk, ...), ck, ...)` after PRIMARY KEY, replacing
  // both outputs; and `CLUSTERING ORDER BY (c ASC|DESC, ...)`, appending.
  Status ParsePrimaryKeyColumns(std::vector<std::string>* partition_key,
                                std::vector<std::string>* clustering);
  Status ParseClusteringOrder(
      std::vector<std::pair<std::string, Order>>* order);
  Result<CreateIndexStatement> ParseCreateIndex();  // parser_index.cc
  Result<IndexTarget> ParseIndexTarget();           // parser_index.cc
  Result<CreateViewStatement> ParseCreateView();    // parser_view.cc
  Result<AlterTypeStatement> ParseAlterType();      // parser_ddl.cc
  Result<InsertStatement> ParseInsert();            // parser_dml.cc
  Result<UpdateStatement> ParseUpdate();            // parser_dml.cc
  Result<Assignment> ParseAssignment();             // parser_dml.cc
  Result<DeleteStatement> ParseDelete();            // parser_dml.cc
  Result<BatchStatement> ParseBatch();              // parser_dml.cc
  Result<SelectStatement> ParseSelect();            // parser_select.cc
  // Selectors with arithmetic (parser_select.cc), as terms.
  Result<Selector> ParseSelector();
  Result<Selector> ParseSelectorProduct();
  Result<Selector> ParseSelectorGroup();
  Result<Selector> ParseSimpleSelector();
  // `.field`, `[key]` and `[from..to]` after a selector.
  Result<Selector> ParseSelectorModifiers(Selector sel);
  // `( type )` when it hints the type of the selector after it (consumed);
  // else nullopt, nothing consumed. At `(`.
  std::optional<TypeName> ParseSelectorTypeHint();
  // `[s, ...]`, `{s, ...}` or `{k: v, ...}` of selectors. At `[` or `{`.
  Result<Selector> ParseCollectionSelector();

  // ---- role statements (parser_auth.cc)
  // Cassandra's USER forms name roles differently (ParseUserName) and take
  // other options (ParseUserOptions).
  enum class RoleForm : uint8_t { kRole, kUser };
  Result<Statement> ParseCreateRole(RoleForm form);  // after CREATE ROLE|USER
  Result<Statement> ParseAlterRole(RoleForm form);   // after ALTER ROLE|USER
  Result<Statement> ParseDropRole(RoleForm form);    // after DROP ROLE|USER
  Result<Statement> ParseGrant();
  Result<Statement> ParseRevoke();
  Result<Statement> ParseList();
  // userOrRoleName: an identifier (lower case), a quoted name or a string
  // literal (case kept); `?` is refused.
  Result<std::string> ParseRoleName();
  // username: an identifier or a string literal, both as written; a quoted
  // name is refused.
  Result<std::string> ParseUserName();
  // `= true` or `= false`.
  Result<bool> ParseRoleBoolean();
  // roleOption (AND roleOption)*, after WITH; each option at most once.
  Status ParseRoleOptions(RoleOptions* options);
  // [WITH PASSWORD 'text'] [SUPERUSER | NOSUPERUSER]
  Status ParseUserOptions(RoleOptions* options);
  // After GRANT or REVOKE: a permission list comes next.
  bool AtPermissions() const;
  // GRANT / REVOKE / LIST of permissions, at the permissions.
  Result<Statement> ParsePermissionStatement(PermissionsStatement::Op op);
  // permissionOrAll: ALL [PERMISSIONS] (empty) | permission [PERMISSION].
  Result<std::vector<std::string>> ParsePermissionList();
  // dataResource | roleResource; function resources are refused.
  Result<PermissionResource> ParsePermissionResource();

  // `a -1`: the lexer made "-1" one number; the current token becomes "1"
  // after the '-' operator it held. Logged, so that a failed attempt that
  // backtracks (a selector tried as a term first) can undo it.
  void SplitSign() {
    sign_splits_.emplace_back(pos_, tokens_[pos_].text);
    tokens_[pos_].text.erase(0, 1);
  }
  // Undoes the splits made since the log had `mark` entries.
  void UndoSignSplits(size_t mark) {
    while (sign_splits_.size() > mark) {
      tokens_[sign_splits_.back().first].text =
          std::move(sign_splits_.back().second);
      sign_splits_.pop_back();
    }
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  std::vector<std::pair<size_t, std::string>> sign_splits_;
  std::vector<Token> hidden_;
  size_t pos_ = 0;
  int bind_count_ = 0;  // markers seen in the current top-level statement
  int depth_ = 0;       // nesting of terms/types/selectors
};

// RAII nesting counter for recursive productions.
// Counts each operator of a chain (`a + b + c ...`) as one nesting level
// until the chain's parse returns: later passes recurse once per operator.
class ChainDepth {
 public:
  explicit ChainDepth(int* depth) : depth_(depth) {}
  ~ChainDepth() { *depth_ -= added_; }
  // One more operator; false when the statement nests too deep.
  bool Add(int max_depth) {
    ++*depth_;
    ++added_;
    return *depth_ <= max_depth;
  }

 private:
  int* depth_;
  int added_ = 0;
};

class DepthGuard {
 public:
  explicit DepthGuard(int* depth) : depth_(depth) { ++*depth_; }
  ~DepthGuard() { --*depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  int* depth_;
};

// True for Cassandra's reserved keywords, which cannot be unquoted names.
bool IsReservedKeyword(std::string_view lower_word);

}  // namespace keywise::cql
