#include "query/expr/multi_cell.h"

#include <algorithm>
#include <random>
#include <utility>

#include "common/coding.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

// Distinguishes list keys of this process from those of earlier runs.
uint64_t ProcessNonce() {
  static const uint64_t nonce = [] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }();
  return nonce;
}

// The newest version of each element (versions of one element come newest
// first), in path order.
std::vector<const Cell*> FirstPerPath(const std::vector<const Cell*>& cells) {
  std::vector<const Cell*> out = cells;
  std::stable_sort(out.begin(), out.end(), [](const Cell* a, const Cell* b) {
    return a->path < b->path;
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Cell* a, const Cell* b) {
                          return a->path == b->path;
                        }),
            out.end());
  return out;
}

}  // namespace

std::string ListElementPath(uint64_t order) {
  std::string path;
  PutFixed64BE(&path, order);
  PutFixed64BE(&path, ProcessNonce());
  return path;
}

std::string UdtFieldPath(size_t index) {
  std::string path;
  PutFixed16BE(&path, static_cast<uint16_t>(index));
  return path;
}

std::vector<const Cell*> ElementsInValueOrder(
    const CqlType& type, const std::vector<const Cell*>& cells) {
  std::vector<const Cell*> elements = FirstPerPath(cells);
  if (type.kind() == TypeKind::kSet || type.kind() == TypeKind::kMap) {
    const CqlType& key = *type.params()[0];
    std::stable_sort(elements.begin(), elements.end(),
                     [&](const Cell* a, const Cell* b) {
                       return CompareValues(key, a->path, b->path) < 0;
                     });
  }
  return elements;
}

std::optional<std::string> AssembleMultiCell(
    const CqlType& type, const std::vector<const Cell*>& cells) {
  std::vector<const Cell*> elements = ElementsInValueOrder(type, cells);
  if (elements.empty()) return std::nullopt;
  switch (type.kind()) {
    case TypeKind::kList: {
      std::vector<std::string> values;
      values.reserve(elements.size());
      for (const Cell* c : elements) values.push_back(c->value);
      return EncodeList(values);
    }
    case TypeKind::kSet: {
      std::vector<std::string> values;
      values.reserve(elements.size());
      for (const Cell* c : elements) values.push_back(c->path);
      return EncodeSet(values);
    }
    case TypeKind::kMap: {
      std::vector<std::pair<std::string, std::string>> entries;
      entries.reserve(elements.size());
      for (const Cell* c : elements) entries.emplace_back(c->path, c->value);
      return EncodeMap(entries);
    }
    case TypeKind::kUdt: {
      std::vector<std::optional<std::string>> fields(type.params().size());
      for (const Cell* c : elements) {
        if (c->path.size() != 2) continue;
        size_t index = DecodeFixed16BE(c->path.data());
        if (index < fields.size()) fields[index] = c->value;
      }
      return EncodeTuple(fields);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace keywise::query
