// Permissions as Cassandra 4 names them (auth/Permission.java), and sets of
// them. The enum's order is Cassandra's, which LIST PERMISSIONS sorts by.
//
// Contract: pure, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace keywise::auth {

enum class Permission : uint8_t {
  kCreate = 0,
  kAlter,
  kDrop,
  kSelect,
  kModify,
  kAuthorize,
  kDescribe,
  kExecute,
};
inline constexpr int kPermissionCount = 8;

// "CREATE", "ALTER", ...
std::string_view PermissionName(Permission p);
// By name, any case; nullopt for an unknown name.
std::optional<Permission> PermissionOfName(std::string_view name);

class PermissionSet {
 public:
  constexpr PermissionSet() = default;
  constexpr PermissionSet(std::initializer_list<Permission> ps) {
    for (Permission p : ps) Add(p);
  }
  static constexpr PermissionSet FromBits(uint8_t bits) {
    PermissionSet s;
    s.bits_ = bits;
    return s;
  }

  constexpr void Add(Permission p) { bits_ |= Bit(p); }
  constexpr void Remove(Permission p) { bits_ &= static_cast<uint8_t>(~Bit(p)); }
  constexpr bool Has(Permission p) const { return (bits_ & Bit(p)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint8_t bits() const { return bits_; }

  PermissionSet operator|(PermissionSet o) const { return FromBits(bits_ | o.bits_); }
  PermissionSet operator&(PermissionSet o) const { return FromBits(bits_ & o.bits_); }
  PermissionSet Without(PermissionSet o) const {
    return FromBits(static_cast<uint8_t>(bits_ & ~o.bits_));
  }
  bool operator==(const PermissionSet&) const = default;

  // In enum order.
  std::vector<Permission> List() const;
  // Their names, in enum order (a set<text> cell as Cassandra stores it).
  std::vector<std::string> Names() const;

 private:
  static constexpr uint8_t Bit(Permission p) {
    return static_cast<uint8_t>(1u << static_cast<unsigned>(p));
  }
  uint8_t bits_ = 0;
};

}  // namespace keywise::auth
