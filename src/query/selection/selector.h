// Selectors: the per-column evaluators of a Selection, shaped like
// Cassandra's Selector protocol so that aggregates and plain columns mix
// exactly as in Cassandra 4:
//   AddInput(row)  feeds one result row;
//   Output()       yields the value for the current row or group;
//   Reset()        starts the next row or group.
// Plain column selectors keep the first row they see since the last Reset,
// which is how `SELECT k, count(*)` returns the first row's k.
//
// Contract: a SelectorFactory is prepared once and is immutable and shared;
// NewSelector makes the stateful Selector for one execution (one thread).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "query/expr/functions.h"
#include "query/expr/row_view.h"
#include "query/expr/term.h"
#include "query/expr/value.h"

namespace keywise::query {

// What selectors read besides the row.
struct SelectorContext {
  EvalContext eval;
  int32_t now_seconds = 0;  // for TTL(c): remaining = expiry - now_seconds
};

class Selector {
 public:
  virtual ~Selector() = default;
  virtual Status AddInput(const RowView& row) = 0;
  virtual Result<Value> Output() = 0;
  virtual void Reset() = 0;
};

class SelectorFactory {
 public:
  SelectorFactory(std::string column_name, CqlTypePtr type)
      : column_name_(std::move(column_name)), type_(std::move(type)) {}
  virtual ~SelectorFactory() = default;

  virtual std::unique_ptr<Selector> NewSelector(
      const SelectorContext& ctx) const = 0;
  // The result column name Cassandra gives this selector ("v",
  // "writetime(v)", "system.tounixtimestamp(t)", "count").
  const std::string& column_name() const { return column_name_; }
  const CqlTypePtr& type() const { return type_; }
  // Whether this selector (or one of its arguments) aggregates rows.
  virtual bool IsAggregate() const { return false; }
  // Whether it reads cell timestamps/TTLs.
  virtual bool NeedsCellMetadata() const { return false; }
  // A term: no row input (a literal, marker or folded call).
  virtual bool IsTerminal() const { return false; }
  // A terminal whose value is known at prepare time.
  virtual bool IsConstant() const { return false; }
  // The column when this selector is just a key or single-cell column
  // (the executor's copy-free fast path); nullptr otherwise.
  virtual const ColumnDef* PlainColumn() const { return nullptr; }

 private:
  std::string column_name_;
  CqlTypePtr type_;
};
using SelectorFactoryPtr = std::shared_ptr<const SelectorFactory>;

SelectorFactoryPtr ColumnSelectorFactory(const ColumnDef* column);
SelectorFactoryPtr WritetimeOrTtlFactory(const ColumnDef* column,
                                         bool writetime);
// WRITETIME(c[k]) / TTL(c[k]), their slices c[a..b] on a non-frozen set or
// map, and WRITETIME(u.f) / TTL(u.f) on a non-frozen UDT (Cassandra 5): the
// element's (or field's) timestamp or remaining TTL, null when absent; for
// a slice a list of them in element order, null when none is in range. An
// element selection by a null key finds nothing; a null or unset end of a
// slice is open.
struct ElementMetadataSpec {
  const ColumnDef* column = nullptr;
  bool writetime = true;
  bool slice = false;
  CqlTypePtr key_type;    // a set's element or a map's key type
  PreparedTerm from, to;  // the element (from) or the slice's ends
  std::optional<std::string> field_path;  // a UDT field's cell path
};
SelectorFactoryPtr ElementMetadataSelectorFactory(ElementMetadataSpec spec,
                                                  std::string column_name);
SelectorFactoryPtr TermSelectorFactory(std::string column_name, CqlTypePtr type,
                                       PreparedTerm term);
// Scalar functions (folded to a term when pure with constant arguments)
// and aggregates.
Result<SelectorFactoryPtr> FunctionSelectorFactory(
    FunctionPtr fun, std::vector<SelectorFactoryPtr> args);
// `collection[from]` (a map's value for the key, a set's element when
// present) or, with `slice`, `collection[from..to]` (the entries whose keys
// lie between the two, both included; a null end is open), of `type`.
SelectorFactoryPtr ElementSelectorFactory(SelectorFactoryPtr collection,
                                          bool slice, PreparedTerm from,
                                          PreparedTerm to,
                                          std::string column_name,
                                          CqlTypePtr type);
SelectorFactoryPtr FieldSelectorFactory(SelectorFactoryPtr udt, size_t field,
                                        std::string column_name,
                                        CqlTypePtr type);

}  // namespace keywise::query
