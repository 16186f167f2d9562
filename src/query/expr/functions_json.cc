// toJson() and fromJson(), Cassandra 4's ToJsonFct and FromJsonFct: typed
// by their argument and by their receiver, so built per call.
#include "query/expr/functions_registry.h"
#include "schema/value_codec.h"
#include "schema/value_json.h"

namespace keywise::query {

FunctionPtr MakeToJsonFunction(CqlTypePtr type) {
  CqlTypePtr arg = type;
  return MakeScalar("tojson", {std::move(type)}, T(TypeKind::kVarchar),
                    [arg](std::span<const Value> args,
                          const FunctionContext&) -> Result<Value> {
                      if (!args[0].is_set()) return Value::Of("null");
                      return Value::Of(FormatJson(*arg, args[0].bytes));
                    });
}

FunctionPtr MakeFromJsonFunction(CqlTypePtr receiver) {
  CqlTypePtr type = receiver;
  return MakeScalar("fromjson", {T(TypeKind::kVarchar)}, std::move(receiver),
                    [type](std::span<const Value> args,
                           const FunctionContext&) -> Result<Value> {
                      if (!args[0].is_set()) return Value::Null();
                      Result<std::optional<std::string>> value =
                          ValueFromJsonText(*type, args[0].bytes);
                      if (!value.ok()) {
                        return Status(
                            ErrorCode::kFunctionFailure,
                            "execution of 'system.fromjson[text]' failed: " +
                                value.status().message());
                      }
                      if (!*value) return Value::Null();
                      return Value::Of(std::move(**value));
                    });
}

}  // namespace keywise::query
