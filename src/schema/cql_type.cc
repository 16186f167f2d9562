#include "schema/cql_type.h"

#include <array>
#include <cctype>

#include "common/coding.h"
#include "schema/cql_name.h"
#include "schema/text_cursor.h"

namespace keywise {
namespace {

struct ScalarName {
  std::string_view name;
  TypeKind kind;
};

// Parse accepts every entry; ToCql prints the first name listed for a kind.
constexpr std::array<ScalarName, 21> kScalarNames = {{
    {"ascii", TypeKind::kAscii},       {"bigint", TypeKind::kBigint},
    {"blob", TypeKind::kBlob},         {"boolean", TypeKind::kBoolean},
    {"counter", TypeKind::kCounter},   {"decimal", TypeKind::kDecimal},
    {"double", TypeKind::kDouble},     {"float", TypeKind::kFloat},
    {"int", TypeKind::kInt},           {"timestamp", TypeKind::kTimestamp},
    {"uuid", TypeKind::kUuid},         {"text", TypeKind::kVarchar},
    {"varchar", TypeKind::kVarchar},   {"varint", TypeKind::kVarint},
    {"timeuuid", TypeKind::kTimeuuid}, {"inet", TypeKind::kInet},
    {"date", TypeKind::kDate},         {"time", TypeKind::kTime},
    {"smallint", TypeKind::kSmallint}, {"tinyint", TypeKind::kTinyint},
    {"duration", TypeKind::kDuration},
}};

bool IsScalarKind(TypeKind kind) {
  for (const auto& s : kScalarNames) {
    if (s.kind == kind) return true;
  }
  return false;
}

CqlTypePtr MakeScalar(TypeKind kind) {
  return std::make_shared<const CqlType>(kind, false, std::vector<CqlTypePtr>{},
                                         std::vector<std::string>{}, "", "");
}

// Freezes a type used inside a frozen container, as Cassandra does
// (frozen<list<list<int>>> means frozen<list<frozen<list<int>>>>).
CqlTypePtr FreezeDeep(const CqlTypePtr& t) {
  if (t->params().empty()) return t;
  std::vector<CqlTypePtr> params;
  for (const auto& p : t->params()) params.push_back(FreezeDeep(p));
  bool frozen = t->IsCollection() || t->kind() == TypeKind::kUdt ||
                t->kind() == TypeKind::kTuple;
  return std::make_shared<const CqlType>(t->kind(), frozen, std::move(params),
                                         t->field_names(), t->udt_keyspace(),
                                         t->udt_name());
}

// Recursive-descent parser over identifiers and the punctuation < > ,.
class TypeParser final : public TextCursor {
 public:
  using UserTypeLookup = CqlType::UserTypeLookup;
  TypeParser(std::string_view text, const UserTypeLookup& lookup)
      : TextCursor(text), lookup_(lookup) {}

  Result<CqlTypePtr> ParseAll() {
    KW_ASSIGN_OR_RETURN(CqlTypePtr t, ParseType(0, false));
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected trailing input");
    return t;
  }

 private:
  static constexpr int kMaxDepth = 32;

  Status Error(std::string_view what) const override {
    return Status::SyntaxError("Invalid type '" + std::string(text_) +
                               "': " + std::string(what));
  }
  // One name part: bare (lower-cased) or double-quoted (kept, "" is ").
  bool NamePart(std::string* out, bool* quoted) {
    SkipSpace();
    *quoted = pos_ < text_.size() && text_[pos_] == '"';
    if (*quoted) {
      for (++pos_; pos_ < text_.size(); ++pos_) {
        if (text_[pos_] == '"') {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
            out->push_back('"');
            ++pos_;
            continue;
          }
          ++pos_;
          return !out->empty();
        }
        out->push_back(text_[pos_]);
      }
      return false;
    }
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '_')) {
      out->push_back(static_cast<char>(
          std::tolower(static_cast<unsigned char>(text_[pos_++]))));
    }
    return !out->empty();
  }

  // in_frozen: inside frozen<>, where nested collections freeze implicitly.
  Result<CqlTypePtr> ParseType(int depth, bool in_frozen) {
    if (depth > kMaxDepth) return Error("nesting too deep");
    std::string name, keyspace;
    bool quoted = false;
    if (!NamePart(&name, &quoted)) return Error("expected a type name");
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      keyspace = std::move(name);
      name.clear();
      if (!NamePart(&name, &quoted)) return Error("expected a type name");
    }
    if (!quoted && keyspace.empty()) {
      for (const auto& s : kScalarNames) {
        if (s.name == name) return CqlType::Of(s.kind);
      }
    }
    if (quoted || !keyspace.empty() ||
        (name != "frozen" && name != "list" && name != "set" && name != "map" &&
         name != "tuple")) {
      if (!lookup_) return Status::Invalid("Unknown type " + name);
      return lookup_(keyspace, name);
    }
    if (name == "frozen") {
      KW_RETURN_IF_ERROR(Expect('<'));
      KW_ASSIGN_OR_RETURN(CqlTypePtr inner, ParseType(depth + 1, true));
      KW_RETURN_IF_ERROR(Expect('>'));
      if (inner->params().empty()) {
        return Status::Invalid(
            "frozen<> is only allowed on collections, tuples, and "
            "user-defined types (got " +
            inner->ToCql() + ")");
      }
      return FreezeDeep(inner);
    }
    if (name == "list" || name == "set" || name == "map" || name == "tuple") {
      KW_RETURN_IF_ERROR(Expect('<'));
      std::vector<CqlTypePtr> params;
      do {
        KW_ASSIGN_OR_RETURN(CqlTypePtr p,
                            ParseType(depth + 1, in_frozen || name == "tuple"));
        params.push_back(std::move(p));
      } while (Consume(','));
      KW_RETURN_IF_ERROR(Expect('>'));
      if (name == "tuple") return CqlType::Tuple(std::move(params));
      size_t want = name == "map" ? 2 : 1;
      if (params.size() != want) return Error("wrong number of parameters");
      for (const auto& p : params) {
        if (p->IsMultiCell() && !in_frozen) {
          const char* what = p->IsCollection() ? "collections" : "UDTs";
          return Status::Invalid(
              std::string("Non-frozen ") + what +
              " are not allowed inside collections: " + std::string(text_));
        }
        if (p->kind() == TypeKind::kCounter) {
          return Status::Invalid(
              "Counters are not allowed inside collections: " +
              std::string(text_));
        }
      }
      if (name == "list") return CqlType::List(params[0], false);
      if (name == "set") return CqlType::Set(params[0], false);
      return CqlType::Map(params[0], params[1], false);
    }
    return Status::Invalid("Unknown type " + name);  // not reached
  }

  const UserTypeLookup& lookup_;
};

constexpr uint8_t kTypeFormatVersion = 1;
constexpr int kMaxDeserializeDepth = 64;
constexpr uint64_t kMaxParams = 1 << 16;

Result<CqlTypePtr> DeserializeBody(std::string_view* in, int depth) {
  Status corrupt = Status::ServerError("corrupt serialized CQL type");
  if (depth > kMaxDeserializeDepth) return corrupt;
  uint64_t kind_raw;
  uint8_t frozen;
  if (!GetVarint64(in, &kind_raw) || !GetByte(in, &frozen) || frozen > 1) {
    return corrupt;
  }
  auto kind = static_cast<TypeKind>(kind_raw);
  if (kind_raw <= 0xffff && IsScalarKind(kind)) return CqlType::Of(kind);
  uint64_t n;
  if (!GetVarint64(in, &n) || n > kMaxParams) return corrupt;
  std::string ks, udt_name;
  std::vector<std::string> names;
  if (kind == TypeKind::kUdt) {
    std::string_view a, b;
    if (!GetLengthPrefixed(in, &a) || !GetLengthPrefixed(in, &b)) {
      return corrupt;
    }
    ks = a;
    udt_name = b;
  }
  std::vector<CqlTypePtr> params;
  for (uint64_t i = 0; i < n; i++) {
    if (kind == TypeKind::kUdt) {
      std::string_view field;
      if (!GetLengthPrefixed(in, &field)) return corrupt;
      names.emplace_back(field);
    }
    KW_ASSIGN_OR_RETURN(CqlTypePtr p, DeserializeBody(in, depth + 1));
    params.push_back(std::move(p));
  }
  switch (kind) {
    case TypeKind::kList:
    case TypeKind::kSet:
      if (n != 1) return corrupt;
      return kind == TypeKind::kList ? CqlType::List(params[0], frozen)
                                     : CqlType::Set(params[0], frozen);
    case TypeKind::kMap:
      if (n != 2) return corrupt;
      return CqlType::Map(params[0], params[1], frozen);
    case TypeKind::kTuple:
      return CqlType::Tuple(std::move(params));
    case TypeKind::kUdt: {
      std::vector<std::pair<std::string, CqlTypePtr>> fields;
      for (size_t i = 0; i < params.size(); i++) {
        fields.emplace_back(std::move(names[i]), params[i]);
      }
      return CqlType::Udt(std::move(ks), std::move(udt_name), std::move(fields),
                          frozen);
    }
    default:
      return corrupt;
  }
}

}  // namespace

CqlTypePtr CqlType::Of(TypeKind scalar) {
  static const std::array<CqlTypePtr, 0x16> table = [] {
    std::array<CqlTypePtr, 0x16> m;
    for (const auto& s : kScalarNames) {
      m[static_cast<size_t>(s.kind)] = MakeScalar(s.kind);
    }
    return m;
  }();
  auto idx = static_cast<size_t>(scalar);
  if (idx < table.size() && table[idx]) return table[idx];
  return nullptr;  // programmer error: composite kind
}

CqlTypePtr CqlType::List(CqlTypePtr element, bool frozen) {
  return std::make_shared<const CqlType>(
      TypeKind::kList, frozen, std::vector<CqlTypePtr>{std::move(element)},
      std::vector<std::string>{}, "", "");
}

CqlTypePtr CqlType::Set(CqlTypePtr element, bool frozen) {
  return std::make_shared<const CqlType>(
      TypeKind::kSet, frozen, std::vector<CqlTypePtr>{std::move(element)},
      std::vector<std::string>{}, "", "");
}

CqlTypePtr CqlType::Map(CqlTypePtr key, CqlTypePtr value, bool frozen) {
  return std::make_shared<const CqlType>(
      TypeKind::kMap, frozen,
      std::vector<CqlTypePtr>{std::move(key), std::move(value)},
      std::vector<std::string>{}, "", "");
}

CqlTypePtr CqlType::Tuple(std::vector<CqlTypePtr> elements) {
  for (auto& e : elements) e = FreezeDeep(e);
  return std::make_shared<const CqlType>(TypeKind::kTuple, true,
                                         std::move(elements),
                                         std::vector<std::string>{}, "", "");
}

CqlTypePtr CqlType::Udt(std::string keyspace, std::string name,
                        std::vector<std::pair<std::string, CqlTypePtr>> fields,
                        bool frozen) {
  std::vector<CqlTypePtr> types;
  std::vector<std::string> names;
  for (auto& [n, t] : fields) {
    names.push_back(std::move(n));
    types.push_back(std::move(t));
  }
  return std::make_shared<const CqlType>(TypeKind::kUdt, frozen,
                                         std::move(types), std::move(names),
                                         std::move(keyspace), std::move(name));
}

CqlTypePtr CqlType::Frozen(const CqlTypePtr& type) {
  if (type->params().empty() || type->frozen()) return type;
  return FreezeDeep(type);
}

Result<CqlTypePtr> CqlType::Parse(std::string_view text) {
  return TypeParser(text, nullptr).ParseAll();
}

Result<CqlTypePtr> CqlType::Parse(std::string_view text,
                                  const UserTypeLookup& lookup) {
  return TypeParser(text, lookup).ParseAll();
}

std::string CqlType::ToCql() const {
  std::string inner;
  switch (kind_) {
    case TypeKind::kList:
      inner = "list<" + params_[0]->ToCql() + ">";
      break;
    case TypeKind::kSet:
      inner = "set<" + params_[0]->ToCql() + ">";
      break;
    case TypeKind::kMap:
      inner = "map<" + params_[0]->ToCql() + ", " + params_[1]->ToCql() + ">";
      break;
    case TypeKind::kTuple:
      inner = "tuple<";
      for (size_t i = 0; i < params_.size(); i++) {
        if (i > 0) inner += ", ";
        inner += params_[i]->ToCql();
      }
      inner += ">";
      break;
    case TypeKind::kUdt:
      inner = CqlName(udt_name_);
      break;
    default:
      for (const auto& s : kScalarNames) {
        if (s.kind == kind_) return std::string(s.name);
      }
      return "custom";
  }
  return frozen_ ? "frozen<" + inner + ">" : inner;
}

bool CqlType::Equals(const CqlType& other) const {
  if (kind_ != other.kind_ || frozen_ != other.frozen_ ||
      params_.size() != other.params_.size() ||
      field_names_ != other.field_names_ ||
      udt_keyspace_ != other.udt_keyspace_ || udt_name_ != other.udt_name_) {
    return false;
  }
  for (size_t i = 0; i < params_.size(); i++) {
    if (!params_[i]->Equals(*other.params_[i])) return false;
  }
  return true;
}

// Format (version 1): version byte, then recursively
//   varint kind, byte frozen,
//   composites: varint param count, [UDT: lp keyspace, lp name],
//               per param: [UDT: lp field name], param body.
void CqlType::Serialize(std::string* out) const {
  out->push_back(static_cast<char>(kTypeFormatVersion));
  SerializeBody(out);
}

void CqlType::SerializeBody(std::string* out) const {
  PutVarint64(out, static_cast<uint16_t>(kind_));
  out->push_back(frozen_ ? 1 : 0);
  if (params_.empty() && kind_ != TypeKind::kTuple && kind_ != TypeKind::kUdt) {
    return;
  }
  PutVarint64(out, params_.size());
  if (kind_ == TypeKind::kUdt) {
    PutLengthPrefixed(out, udt_keyspace_);
    PutLengthPrefixed(out, udt_name_);
  }
  for (size_t i = 0; i < params_.size(); i++) {
    if (kind_ == TypeKind::kUdt) PutLengthPrefixed(out, field_names_[i]);
    params_[i]->SerializeBody(out);
  }
}

Result<CqlTypePtr> CqlType::Deserialize(std::string_view* in) {
  uint8_t version;
  if (!GetByte(in, &version) || version != kTypeFormatVersion) {
    return Status::ServerError("unsupported serialized CQL type version");
  }
  return DeserializeBody(in, 0);
}

bool ReferencesDuration(const CqlType& type) {
  if (type.kind() == TypeKind::kDuration) return true;
  for (const CqlTypePtr& p : type.params()) {
    if (ReferencesDuration(*p)) return true;
  }
  return false;
}

bool ReferencesUserType(const CqlType& type, std::string_view keyspace,
                        std::string_view name) {
  if (type.kind() == TypeKind::kUdt && type.udt_keyspace() == keyspace &&
      type.udt_name() == name) {
    return true;
  }
  for (const CqlTypePtr& p : type.params()) {
    if (ReferencesUserType(*p, keyspace, name)) return true;
  }
  return false;
}

CqlTypePtr WithUserType(const CqlTypePtr& type, const CqlTypePtr& udt) {
  if (!ReferencesUserType(*type, udt->udt_keyspace(), udt->udt_name())) {
    return type;
  }
  if (type->kind() == TypeKind::kUdt &&
      type->udt_keyspace() == udt->udt_keyspace() &&
      type->udt_name() == udt->udt_name()) {
    auto same = std::make_shared<const CqlType>(
        TypeKind::kUdt, false, udt->params(), udt->field_names(),
        udt->udt_keyspace(), udt->udt_name());
    return type->frozen() ? FreezeDeep(same) : same;
  }
  std::vector<CqlTypePtr> params;
  for (const CqlTypePtr& p : type->params()) {
    params.push_back(WithUserType(p, udt));
  }
  auto rebuilt = std::make_shared<const CqlType>(
      type->kind(), type->frozen(), std::move(params), type->field_names(),
      type->udt_keyspace(), type->udt_name());
  return type->frozen() ? FreezeDeep(rebuilt) : rebuilt;
}

}  // namespace keywise
