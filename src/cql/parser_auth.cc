// Role statements (docs/security.md, 2.1), as Cassandra 4.0's grammar has
// them: CREATE / ALTER / DROP ROLE and USER, GRANT role TO role, REVOKE
// role FROM role, LIST ROLES and LIST USERS. GRANT, REVOKE and LIST of
// permissions share the first keyword: a permission keyword (or ALL
// followed by PERMISSIONS or ON) after GRANT or REVOKE, or anything but
// ROLES and USERS after LIST, starts a permission statement.
#include "cql/parser_internal.h"

namespace keywise::cql {
namespace {

// The permission keywords of Cassandra's `permission` rule (all reserved,
// so never a bare role name).
bool IsPermissionKeyword(const Token& t) {
  for (std::string_view kw : {"create", "alter", "drop", "select", "modify",
                              "authorize", "describe", "execute"}) {
    if (t.Is(kw)) return true;
  }
  return false;
}

// RoleOptions.setOption's error for an option given twice.
Status MultipleDefinition(std::string_view option) {
  return Status::SyntaxError("Multiple definition for property '" +
                             std::string(option) + "'");
}

}  // namespace

bool Parser::AtPermissions() const {
  if (IsPermissionKeyword(Peek())) return true;
  return AtKeyword("all") &&
         (AtKeyword("permissions", 1) || AtKeyword("on", 1));
}

Result<std::vector<std::string>> Parser::ParsePermissionList() {
  if (AcceptKeyword("all")) {
    AcceptKeyword("permissions");
    return std::vector<std::string>{};
  }
  if (!IsPermissionKeyword(Peek())) return NoViableAlt();
  std::vector<std::string> out{Next().text};
  AcceptKeyword("permission");
  return out;
}

Result<PermissionResource> Parser::ParsePermissionResource() {
  PermissionResource r;
  if (AtKeyword("all") &&
      (AtKeyword("functions", 1) || AtKeyword("mbeans", 1))) {
    return ErrorHere("Keywise has no function or MBean resources at input '" +
                     Peek(1).raw + "'");
  }
  if (AcceptKeyword("all")) {
    if (AcceptKeyword("keyspaces")) {
      r.kind = PermissionResource::Kind::kAllKeyspaces;
    } else if (AcceptKeyword("roles")) {
      r.kind = PermissionResource::Kind::kAllRoles;
    } else {
      return NoViableAlt();
    }
    return r;
  }
  if (AcceptKeyword("keyspace")) {
    r.kind = PermissionResource::Kind::kKeyspace;
    KW_ASSIGN_OR_RETURN(r.keyspace, ParseName());
    return r;
  }
  // ROLE name, unless `role` is a table's name (ROLE TO x, role.t).
  if (AtKeyword("role") && (At(TokenKind::kString, 1) ||
                            (AtName(1) && !AtKeyword("to", 1) &&
                             !AtKeyword("from", 1) && !AtKeyword("of", 1) &&
                             !AtKeyword("norecursive", 1)))) {
    Next();
    r.kind = PermissionResource::Kind::kRole;
    KW_ASSIGN_OR_RETURN(r.role, ParseRoleName());
    return r;
  }
  if (AtKeyword("function") || AtKeyword("mbean") || AtKeyword("mbeans")) {
    return ErrorHere("Keywise has no function or MBean resources at input '" +
                     Peek().raw + "'");
  }
  if (!AcceptKeyword("table")) AcceptKeyword("columnfamily");
  r.kind = PermissionResource::Kind::kTable;
  KW_ASSIGN_OR_RETURN(r.table, ParseQualifiedName());
  return r;
}

Result<Statement> Parser::ParsePermissionStatement(
    PermissionsStatement::Op op) {
  using Op = PermissionsStatement::Op;
  PermissionsStatement s;
  s.op = op;
  KW_ASSIGN_OR_RETURN(s.permissions, ParsePermissionList());
  if (op != Op::kList || AtKeyword("on")) {
    KW_RETURN_IF_ERROR(ExpectKeyword("on"));
    KW_ASSIGN_OR_RETURN(PermissionResource resource,
                        ParsePermissionResource());
    s.resource = std::move(resource);
  }
  if (op == Op::kList) {
    if (AcceptKeyword("of")) {
      KW_ASSIGN_OR_RETURN(std::string of, ParseRoleName());
      s.role = std::move(of);
    }
    if (AcceptKeyword("norecursive")) s.recursive = false;
    return Statement(std::move(s));
  }
  KW_RETURN_IF_ERROR(ExpectKeyword(op == Op::kGrant ? "to" : "from"));
  KW_ASSIGN_OR_RETURN(std::string role, ParseRoleName());
  s.role = std::move(role);
  return Statement(std::move(s));
}

Result<std::string> Parser::ParseRoleName() {
  if (At(TokenKind::kString)) return Next().text;
  if (At(TokenKind::kBindMarker)) {
    return Status::SyntaxError("Bind variables cannot be used for role names");
  }
  return ParseName();
}

Result<std::string> Parser::ParseUserName() {
  if (At(TokenKind::kString)) return Next().text;
  if (At(TokenKind::kQuotedIdentifier)) {
    return Status::SyntaxError(
        "Quoted strings are are not supported for user names and USER is "
        "deprecated, please use ROLE");
  }
  if (!AtName()) return ParseName();  // its error
  return Next().raw;                  // the case as written
}

Result<bool> Parser::ParseRoleBoolean() {
  KW_RETURN_IF_ERROR(Expect(TokenKind::kEq));
  if (!AtKeyword("true") && !AtKeyword("false")) return Mismatch("BOOLEAN");
  return Next().text == "true";
}

Status Parser::ParseRoleOptions(RoleOptions* options) {
  do {
    if (AcceptKeyword("password")) {
      KW_RETURN_IF_ERROR(Expect(TokenKind::kEq));
      if (!At(TokenKind::kString)) return Mismatch("STRING_LITERAL");
      std::string password = Next().text;
      if (options->password) return MultipleDefinition("PASSWORD");
      options->password = std::move(password);
    } else if (AcceptKeyword("login")) {
      KW_ASSIGN_OR_RETURN(bool login, ParseRoleBoolean());
      if (options->login) return MultipleDefinition("LOGIN");
      options->login = login;
    } else if (AcceptKeyword("superuser")) {
      KW_ASSIGN_OR_RETURN(bool superuser, ParseRoleBoolean());
      if (options->superuser) return MultipleDefinition("SUPERUSER");
      options->superuser = superuser;
    } else if (AcceptKeyword("options")) {
      // fullMapLiteral: '{' (term ':' term (',' term ':' term)*)? '}'
      KW_RETURN_IF_ERROR(Expect(TokenKind::kEq));
      KW_RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
      std::vector<std::pair<std::string, std::string>> entries;
      if (!At(TokenKind::kRBrace)) {
        do {
          KW_ASSIGN_OR_RETURN(Term key, ParseTerm());
          KW_RETURN_IF_ERROR(Expect(TokenKind::kColon));
          KW_ASSIGN_OR_RETURN(Term value, ParseTerm());
          entries.emplace_back(std::move(key.text), std::move(value.text));
        } while (Accept(TokenKind::kComma));
      }
      KW_RETURN_IF_ERROR(Expect(TokenKind::kRBrace));
      if (options->options) return MultipleDefinition("OPTIONS");
      options->options = std::move(entries);
    } else {
      return NoViableAlt();
    }
  } while (AcceptKeyword("and"));
  return Status::OK();
}

Status Parser::ParseUserOptions(RoleOptions* options) {
  // ( WITH PASSWORD 'text' )? ( SUPERUSER | NOSUPERUSER )?
  if (AcceptKeyword("with")) {
    KW_RETURN_IF_ERROR(ExpectKeyword("password"));
    if (!At(TokenKind::kString)) return Mismatch("STRING_LITERAL");
    options->password = Next().text;
  }
  if (AcceptKeyword("superuser")) {
    options->superuser = true;
  } else if (AcceptKeyword("nosuperuser")) {
    options->superuser = false;
  }
  return Status::OK();
}

Result<Statement> Parser::ParseCreateRole(RoleForm form) {
  CreateRoleStatement s;
  KW_ASSIGN_OR_RETURN(s.if_not_exists, ParseIfNotExists());
  if (form == RoleForm::kUser) {
    KW_ASSIGN_OR_RETURN(s.name, ParseUserName());
    KW_RETURN_IF_ERROR(ParseUserOptions(&s.options));
    s.options.login = true;
    s.options.superuser = s.options.superuser.value_or(false);
  } else {
    KW_ASSIGN_OR_RETURN(s.name, ParseRoleName());
    if (AcceptKeyword("with")) {
      KW_RETURN_IF_ERROR(ParseRoleOptions(&s.options));
    }
  }
  return Statement(std::move(s));
}

Result<Statement> Parser::ParseAlterRole(RoleForm form) {
  AlterRoleStatement s;
  if (form == RoleForm::kUser) {
    KW_ASSIGN_OR_RETURN(s.name, ParseUserName());
    KW_RETURN_IF_ERROR(ParseUserOptions(&s.options));
  } else {
    KW_ASSIGN_OR_RETURN(s.name, ParseRoleName());
    if (AcceptKeyword("with")) {
      KW_RETURN_IF_ERROR(ParseRoleOptions(&s.options));
    }
  }
  return Statement(std::move(s));
}

Result<Statement> Parser::ParseDropRole(RoleForm form) {
  DropRoleStatement s;
  KW_ASSIGN_OR_RETURN(s.if_exists, ParseIfExists());
  if (form == RoleForm::kUser) {
    KW_ASSIGN_OR_RETURN(s.name, ParseUserName());
  } else {
    KW_ASSIGN_OR_RETURN(s.name, ParseRoleName());
  }
  return Statement(std::move(s));
}

Result<Statement> Parser::ParseGrant() {
  KW_RETURN_IF_ERROR(ExpectKeyword("grant"));
  if (AtPermissions()) {
    return ParsePermissionStatement(PermissionsStatement::Op::kGrant);
  }
  GrantRoleStatement s;
  KW_ASSIGN_OR_RETURN(s.role, ParseRoleName());
  KW_RETURN_IF_ERROR(ExpectKeyword("to"));
  KW_ASSIGN_OR_RETURN(s.grantee, ParseRoleName());
  return Statement(std::move(s));
}

Result<Statement> Parser::ParseRevoke() {
  KW_RETURN_IF_ERROR(ExpectKeyword("revoke"));
  if (AtPermissions()) {
    return ParsePermissionStatement(PermissionsStatement::Op::kRevoke);
  }
  RevokeRoleStatement s;
  KW_ASSIGN_OR_RETURN(s.role, ParseRoleName());
  KW_RETURN_IF_ERROR(ExpectKeyword("from"));
  KW_ASSIGN_OR_RETURN(s.revokee, ParseRoleName());
  return Statement(std::move(s));
}

Result<Statement> Parser::ParseList() {
  KW_RETURN_IF_ERROR(ExpectKeyword("list"));
  ListRolesStatement s;
  if (AcceptKeyword("users")) {
    s.users = true;
    s.recursive = false;
    return Statement(std::move(s));
  }
  if (!AcceptKeyword("roles")) {
    return ParsePermissionStatement(PermissionsStatement::Op::kList);
  }
  if (AcceptKeyword("of")) {
    KW_ASSIGN_OR_RETURN(std::string of, ParseRoleName());
    s.of = std::move(of);
  }
  if (AcceptKeyword("norecursive")) s.recursive = false;
  return Statement(std::move(s));
}

}  // namespace keywise::cql
