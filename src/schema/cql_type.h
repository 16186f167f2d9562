// CqlType: the type of a CQL column or value, immutable and shared.
//
// Contract: CqlType objects are created only through the factories below and
// never change, so CqlTypePtr may be shared freely across threads. TypeKind
// values are the native protocol's [option] ids (native_protocol_v4.spec
// section 4.2.5.2) and are also stored in the catalog: DO NOT RENUMBER.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace keywise {

enum class TypeKind : uint16_t {
  kCustom = 0x0000,
  kAscii = 0x0001,
  kBigint = 0x0002,
  kBlob = 0x0003,
  kBoolean = 0x0004,
  kCounter = 0x0005,
  kDecimal = 0x0006,
  kDouble = 0x0007,
  kFloat = 0x0008,
  kInt = 0x0009,
  kTimestamp = 0x000B,
  kUuid = 0x000C,
  kVarchar = 0x000D,  // text and varchar are the same type
  kVarint = 0x000E,
  kTimeuuid = 0x000F,
  kInet = 0x0010,
  kDate = 0x0011,
  kTime = 0x0012,
  kSmallint = 0x0013,
  kTinyint = 0x0014,
  kDuration = 0x0015,
  kList = 0x0020,
  kMap = 0x0021,
  kSet = 0x0022,
  kUdt = 0x0030,
  kTuple = 0x0031,
};

class CqlType;
using CqlTypePtr = std::shared_ptr<const CqlType>;

class CqlType {
 public:
  // Scalar kinds only (kAscii..kDuration, kCounter); returns a shared
  // singleton. Passing a composite kind is a programmer error.
  static CqlTypePtr Of(TypeKind scalar);
  static CqlTypePtr List(CqlTypePtr element, bool frozen);
  static CqlTypePtr Set(CqlTypePtr element, bool frozen);
  static CqlTypePtr Map(CqlTypePtr key, CqlTypePtr value, bool frozen);
  // Tuples are always frozen.
  static CqlTypePtr Tuple(std::vector<CqlTypePtr> elements);
  static CqlTypePtr Udt(std::string keyspace, std::string name,
                        std::vector<std::pair<std::string, CqlTypePtr>> fields,
                        bool frozen);
  // Returns the frozen variant of a collection or UDT (self for others).
  static CqlTypePtr Frozen(const CqlTypePtr& type);

  // Parses CQL type syntax: "int", "text", "varchar", "frozen<list<int>>",
  // "map<text, frozen<set<uuid>>>", "tuple<int, text>". UDT names are not
  // resolvable here and yield an error.
  static Result<CqlTypePtr> Parse(std::string_view text);
  // The same with user types: any other name (`addr`, `ks.addr`,
  // `"Addr"`) is given to `lookup` with its keyspace (empty when not
  // written), which returns the type's non-frozen definition or an error.
  using UserTypeLookup = std::function<Result<CqlTypePtr>(
      const std::string& keyspace, const std::string& name)>;
  static Result<CqlTypePtr> Parse(std::string_view text,
                                  const UserTypeLookup& lookup);

  TypeKind kind() const { return kind_; }
  bool frozen() const { return frozen_; }
  bool IsCollection() const {
    return kind_ == TypeKind::kList || kind_ == TypeKind::kSet ||
           kind_ == TypeKind::kMap;
  }
  // Non-frozen collections and UDTs store one cell per element/field.
  bool IsMultiCell() const {
    return !frozen_ && (IsCollection() || kind_ == TypeKind::kUdt);
  }
  // list/set: {element}; map: {key, value}; tuple and UDT: the field types.
  const std::vector<CqlTypePtr>& params() const { return params_; }
  // UDT only.
  const std::vector<std::string>& field_names() const { return field_names_; }
  const std::string& udt_keyspace() const { return udt_keyspace_; }
  const std::string& udt_name() const { return udt_name_; }

  // CQL spelling as Cassandra prints it in DESCRIBE and system_schema:
  // "int", "text", "frozen<list<int>>", "map<text, int>", and tuples, which
  // are always frozen, as "frozen<tuple<int, text>>".
  std::string ToCql() const;
  bool Equals(const CqlType& other) const;

  // Self-describing binary form for the persisted catalog (UDTs included).
  void Serialize(std::string* out) const;
  static Result<CqlTypePtr> Deserialize(std::string_view* in);

  // Internal: use the factories.
  CqlType(TypeKind kind, bool frozen, std::vector<CqlTypePtr> params,
          std::vector<std::string> field_names, std::string udt_keyspace,
          std::string udt_name)
      : kind_(kind),
        frozen_(frozen),
        params_(std::move(params)),
        field_names_(std::move(field_names)),
        udt_keyspace_(std::move(udt_keyspace)),
        udt_name_(std::move(udt_name)) {}

 private:
  void SerializeBody(std::string* out) const;

  TypeKind kind_;
  bool frozen_;
  std::vector<CqlTypePtr> params_;
  std::vector<std::string> field_names_;
  std::string udt_keyspace_;
  std::string udt_name_;
};

// Whether `type` is, or contains at any depth, a duration.
bool ReferencesDuration(const CqlType& type);

// Whether `type` is, or contains at any depth, the user type
// keyspace.name.
bool ReferencesUserType(const CqlType& type, std::string_view keyspace,
                        std::string_view name);

// `type` with every use of the user type `udt` (matched by keyspace and
// name, at any depth) given `udt`'s current field names and types; each use
// keeps its own frozenness (a frozen use freezes the new fields too). Used
// when ALTER TYPE changes a type that tables and other types embed.
CqlTypePtr WithUserType(const CqlTypePtr& type, const CqlTypePtr& udt);

}  // namespace keywise
