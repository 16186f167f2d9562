#include "query/selection/composite_selectors.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "query/expr/functions.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

Status NullInside() {
  return Status::Invalid("null is not supported inside collections");
}

std::string Join(const std::vector<std::string>& parts, size_t from,
                 size_t step, const char* pair_separator) {
  std::string out;
  for (size_t i = from; i < parts.size(); i += step) {
    if (!out.empty()) out += ", ";
    out += parts[i];
    if (step == 2 && i + 1 < parts.size()) out += pair_separator + parts[i + 1];
  }
  return out;
}

// The value builder, as a scalar function of the element selectors so
// that aggregates inside (`[min(a), max(a)]`) and constant folding work as
// for any function call.
class CompositeFunction final : public ScalarFunction {
 public:
  CompositeFunction(CompositeKind kind, std::vector<CqlTypePtr> arg_types,
                    CqlTypePtr type)
      : ScalarFunction("", std::move(arg_types), std::move(type)),
        kind_(kind) {}

  std::string ColumnName(const std::vector<std::string>& args) const override {
    switch (kind_) {
      case CompositeKind::kTuple:
        return "(" + Join(args, 0, 1, "") + ")";
      case CompositeKind::kList:
        return "[" + Join(args, 0, 1, "") + "]";
      case CompositeKind::kSet:
        return "{" + Join(args, 0, 1, "") + "}";
      case CompositeKind::kMap:
        return "{" + Join(args, 0, 2, ": ") + "}";
      case CompositeKind::kTypeHint:
        return "(" + return_type()->ToCql() + ")" + args.at(0);
    }
    return "";
  }

  Result<Value> Execute(std::span<const Value> args,
                        const FunctionContext&) const override {
    const CqlType& type = *return_type();
    switch (kind_) {
      case CompositeKind::kTypeHint:
        return args[0];
      case CompositeKind::kTuple: {
        std::vector<std::optional<std::string>> fields;
        for (const Value& v : args) {
          fields.push_back(v.is_set() ? std::optional<std::string>(v.bytes)
                                      : std::nullopt);
        }
        return Value::Of(EncodeTuple(fields));
      }
      case CompositeKind::kList:
      case CompositeKind::kSet: {
        std::vector<std::string> elements;
        for (const Value& v : args) {
          if (!v.is_set()) return NullInside();
          elements.push_back(v.bytes);
        }
        if (kind_ == CompositeKind::kList) {
          return Value::Of(EncodeList(elements));
        }
        const CqlType& element = *type.params()[0];
        auto less = [&](const std::string& a, const std::string& b) {
          return CompareValues(element, a, b) < 0;
        };
        std::stable_sort(elements.begin(), elements.end(), less);
        elements.erase(
            std::unique(elements.begin(), elements.end(),
                        [&](const std::string& a, const std::string& b) {
                          return CompareValues(element, a, b) == 0;
                        }),
            elements.end());
        return Value::Of(EncodeSet(elements));
      }
      case CompositeKind::kMap: {
        const CqlType& key = *type.params()[0];
        std::vector<std::pair<std::string, std::string>> entries;
        for (size_t i = 0; i + 1 < args.size(); i += 2) {
          if (!args[i].is_set() || !args[i + 1].is_set()) return NullInside();
          // A repeated key takes the last value.
          auto same = std::find_if(entries.begin(), entries.end(),
                                   [&](const auto& e) {
                                     return CompareValues(key, e.first,
                                                          args[i].bytes) == 0;
                                   });
          if (same != entries.end()) {
            same->second = args[i + 1].bytes;
          } else {
            entries.emplace_back(args[i].bytes, args[i + 1].bytes);
          }
        }
        std::sort(entries.begin(), entries.end(),
                  [&](const auto& a, const auto& b) {
                    return CompareValues(key, a.first, b.first) < 0;
                  });
        return Value::Of(EncodeMap(entries));
      }
    }
    return Status::ServerError("unknown composite selector");
  }

 private:
  const CompositeKind kind_;
};

}  // namespace

Result<SelectorFactoryPtr> CompositeSelectorFactory(
    CompositeKind kind, CqlTypePtr type, std::vector<SelectorFactoryPtr> args) {
  std::vector<CqlTypePtr> arg_types;
  for (const SelectorFactoryPtr& a : args) arg_types.push_back(a->type());
  return FunctionSelectorFactory(
      std::make_shared<CompositeFunction>(kind, std::move(arg_types),
                                          std::move(type)),
      std::move(args));
}

}  // namespace keywise::query
