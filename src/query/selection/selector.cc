#include "query/selection/selector.h"

#include <utility>

#include "common/coding.h"
#include "query/expr/multi_cell.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

// Keeps the first value seen since the last Reset.
class FirstValueSelector : public Selector {
 public:
  Status AddInput(const RowView& row) final {
    if (set_) return Status::OK();
    set_ = true;
    value_ = Read(row);
    return Status::OK();
  }
  Result<Value> Output() final { return value_; }
  void Reset() final {
    set_ = false;
    value_ = Value::Null();
  }

 protected:
  virtual Value Read(const RowView& row) const = 0;

 private:
  bool set_ = false;
  Value value_ = Value::Null();
};

class ColumnSelector final : public FirstValueSelector {
 public:
  explicit ColumnSelector(const ColumnDef* column) : column_(column) {}

 private:
  Value Read(const RowView& row) const override {
    std::optional<std::string> v = ColumnValue(row, *column_);
    return v ? Value::Of(std::move(*v)) : Value::Null();
  }
  const ColumnDef* column_;
};

class ColumnFactory final : public SelectorFactory {
 public:
  explicit ColumnFactory(const ColumnDef* column)
      : SelectorFactory(column->name, column->type), column_(column) {}
  std::unique_ptr<Selector> NewSelector(const SelectorContext&) const override {
    return std::make_unique<ColumnSelector>(column_);
  }
  const ColumnDef* PlainColumn() const override {
    return column_->IsPrimaryKey() || !column_->type->IsMultiCell() ? column_
                                                                    : nullptr;
  }

 private:
  const ColumnDef* column_;
};

// The newest live cell of a single-cell column (nullptr if none).
const Cell* FindCell(const RowView& row, const ColumnDef& column) {
  const std::vector<Cell>* cells = nullptr;
  if (column.kind == ColumnKind::kStatic) {
    cells = row.statics;
  } else if (row.row != nullptr) {
    cells = &row.row->cells;
  }
  if (cells == nullptr) return nullptr;
  for (const Cell& c : *cells) {
    if (c.column == column.id) return &c;
  }
  return nullptr;
}

// The element cells of the multi-cell `column` in `row`, in value order.
std::vector<const Cell*> ElementCells(const RowView& row,
                                      const ColumnDef& column) {
  const std::vector<Cell>* cells =
      column.kind == ColumnKind::kStatic
          ? row.statics
          : (row.row != nullptr ? &row.row->cells : nullptr);
  if (cells == nullptr) return {};
  std::vector<const Cell*> mine;
  for (const Cell& c : *cells) {
    if (c.column == column.id) mine.push_back(&c);
  }
  return ElementsInValueOrder(*column.type, mine);
}

// A cell's timestamp (bigint) or remaining TTL (int; null without one).
std::optional<std::string> CellMetadata(const Cell& c, bool writetime,
                                        int32_t now_seconds) {
  if (writetime) return EncodeBigint(c.timestamp);
  if (!c.IsExpiring()) return std::nullopt;
  return EncodeInt(c.local_deletion_time - now_seconds);
}

// A list of CellMetadata of `cells`; null when there are none.
Value CellsMetadataList(const std::vector<const Cell*>& cells, bool writetime,
                        int32_t now_seconds) {
  if (cells.empty()) return Value::Null();
  std::vector<std::optional<std::string>> values;
  for (const Cell* c : cells) {
    values.push_back(CellMetadata(*c, writetime, now_seconds));
  }
  // A list: the count, then the elements (as a tuple writes them: null
  // ones as length -1).
  std::string out;
  PutFixed32BE(&out, static_cast<uint32_t>(values.size()));
  out += EncodeTuple(values);
  return Value::Of(std::move(out));
}

class WritetimeOrTtlSelector final : public FirstValueSelector {
 public:
  WritetimeOrTtlSelector(const ColumnDef* column, bool writetime,
                         int32_t now_seconds)
      : column_(column), writetime_(writetime), now_seconds_(now_seconds) {}

 private:
  Value Read(const RowView& row) const override {
    if (column_->type->IsMultiCell()) return ReadElements(row);
    const Cell* cell = FindCell(row, *column_);
    if (cell == nullptr) return Value::Null();
    if (writetime_) return Value::Of(EncodeBigint(cell->timestamp));
    if (!cell->IsExpiring()) return Value::Null();
    return Value::Of(EncodeInt(cell->local_deletion_time - now_seconds_));
  }
  // A non-frozen collection (Cassandra 5): a list with each element's
  // timestamp or remaining TTL (null for an element without one), in
  // element order; null when the collection is null or empty.
  Value ReadElements(const RowView& row) const {
    return CellsMetadataList(ElementCells(row, *column_), writetime_,
                             now_seconds_);
  }
  const ColumnDef* column_;
  bool writetime_;
  int32_t now_seconds_;
};

class WritetimeTtlFactory final : public SelectorFactory {
 public:
  // bigint / int; a list of them for a non-frozen collection.
  static CqlTypePtr ResultType(const ColumnDef& column, bool writetime) {
    CqlTypePtr one =
        CqlType::Of(writetime ? TypeKind::kBigint : TypeKind::kInt);
    return column.type->IsMultiCell() ? CqlType::List(one, false) : one;
  }
  WritetimeTtlFactory(const ColumnDef* column, bool writetime)
      : SelectorFactory(
            std::string(writetime ? "writetime(" : "ttl(") + column->name + ")",
            ResultType(*column, writetime)),
        column_(column),
        writetime_(writetime) {}
  std::unique_ptr<Selector> NewSelector(
      const SelectorContext& ctx) const override {
    return std::make_unique<WritetimeOrTtlSelector>(column_, writetime_,
                                                    ctx.now_seconds);
  }
  bool NeedsCellMetadata() const override { return true; }

 private:
  const ColumnDef* column_;
  bool writetime_;
};

// WRITETIME / TTL of one element, a slice of elements, or a field of a
// non-frozen collection or UDT (Cassandra 5).
class ElementMetadataSelector final : public Selector {
 public:
  ElementMetadataSelector(const ElementMetadataSpec& spec,
                          const SelectorContext& ctx)
      : spec_(spec), ctx_(ctx) {}
  Status AddInput(const RowView& row) override {
    if (set_) return Status::OK();
    set_ = true;
    // A null or unset end of a slice is open; an element selection by a
    // null key finds nothing.
    std::optional<std::string> from, to;
    for (auto [term, out] :
         {std::pair{&spec_.from, &from}, std::pair{&spec_.to, &to}}) {
      if (*term == nullptr) continue;
      KW_ASSIGN_OR_RETURN(Value bound, (*term)->Evaluate(ctx_.eval));
      if (bound.is_set()) *out = std::move(bound.bytes);
    }
    std::vector<const Cell*> kept;
    for (const Cell* c : ElementCells(row, *spec_.column)) {
      bool in;
      if (spec_.field_path) {
        in = c->path == *spec_.field_path;
      } else if (!spec_.slice) {
        in = from && CompareValues(*spec_.key_type, c->path, *from) == 0;
      } else {
        in = (!from || CompareValues(*spec_.key_type, c->path, *from) >= 0) &&
             (!to || CompareValues(*spec_.key_type, c->path, *to) <= 0);
      }
      if (in) kept.push_back(c);
    }
    if (spec_.slice) {
      value_ = CellsMetadataList(kept, spec_.writetime, ctx_.now_seconds);
    } else if (!kept.empty()) {
      std::optional<std::string> v =
          CellMetadata(*kept[0], spec_.writetime, ctx_.now_seconds);
      value_ = v ? Value::Of(std::move(*v)) : Value::Null();
    }
    return Status::OK();
  }
  Result<Value> Output() override { return value_; }
  void Reset() override {
    set_ = false;
    value_ = Value::Null();
  }

 private:
  const ElementMetadataSpec& spec_;
  SelectorContext ctx_;
  bool set_ = false;
  Value value_ = Value::Null();
};

class ElementMetadataFactory final : public SelectorFactory {
 public:
  ElementMetadataFactory(ElementMetadataSpec spec, std::string name)
      : SelectorFactory(std::move(name), ResultType(spec)),
        spec_(std::move(spec)) {}
  std::unique_ptr<Selector> NewSelector(
      const SelectorContext& ctx) const override {
    return std::make_unique<ElementMetadataSelector>(spec_, ctx);
  }
  bool NeedsCellMetadata() const override { return true; }

 private:
  static CqlTypePtr ResultType(const ElementMetadataSpec& spec) {
    CqlTypePtr one =
        CqlType::Of(spec.writetime ? TypeKind::kBigint : TypeKind::kInt);
    return spec.slice ? CqlType::List(one, false) : one;
  }
  const ElementMetadataSpec spec_;
};

class TermSelector final : public Selector {
 public:
  TermSelector(PreparedTerm term, const EvalContext& ctx)
      : term_(std::move(term)), ctx_(ctx) {}
  Status AddInput(const RowView&) override { return Status::OK(); }
  Result<Value> Output() override { return term_->Evaluate(ctx_); }
  void Reset() override {}

 private:
  PreparedTerm term_;
  EvalContext ctx_;
};

class TermFactory final : public SelectorFactory {
 public:
  TermFactory(std::string name, CqlTypePtr type, PreparedTerm term)
      : SelectorFactory(std::move(name), std::move(type)),
        term_(std::move(term)) {}
  std::unique_ptr<Selector> NewSelector(
      const SelectorContext& ctx) const override {
    return std::make_unique<TermSelector>(term_, ctx.eval);
  }
  bool IsTerminal() const override { return true; }
  bool IsConstant() const override { return term_->IsConstant(); }

 private:
  PreparedTerm term_;
};

using SelectorList = std::vector<std::unique_ptr<Selector>>;

SelectorList NewSelectors(const std::vector<SelectorFactoryPtr>& factories,
                          const SelectorContext& ctx) {
  SelectorList out;
  for (const SelectorFactoryPtr& f : factories)
    out.push_back(f->NewSelector(ctx));
  return out;
}

Result<std::vector<Value>> Outputs(SelectorList& args, const Function& fun) {
  std::vector<Value> values;
  values.reserve(args.size());
  for (auto& a : args) {
    KW_ASSIGN_OR_RETURN(Value v, a->Output());
    if (v.is_unset()) {
      return Status::Invalid(
          "Invalid unset value for argument in call to function " + fun.name());
    }
    values.push_back(std::move(v));
  }
  return values;
}

class ScalarSelector final : public Selector {
 public:
  ScalarSelector(std::shared_ptr<const ScalarFunction> fun, SelectorList args,
                 FunctionContext ctx)
      : fun_(std::move(fun)), args_(std::move(args)), ctx_(ctx) {}
  Status AddInput(const RowView& row) override {
    for (auto& a : args_) KW_RETURN_IF_ERROR(a->AddInput(row));
    return Status::OK();
  }
  Result<Value> Output() override {
    KW_ASSIGN_OR_RETURN(std::vector<Value> values, Outputs(args_, *fun_));
    return fun_->Execute(values, ctx_);
  }
  void Reset() override {
    for (auto& a : args_) a->Reset();
  }

 private:
  std::shared_ptr<const ScalarFunction> fun_;
  SelectorList args_;
  FunctionContext ctx_;
};

class AggregateSelector final : public Selector {
 public:
  AggregateSelector(std::shared_ptr<const AggregateFunction> fun,
                    SelectorList args)
      : fun_(std::move(fun)),
        args_(std::move(args)),
        state_(fun_->NewState()) {}
  Status AddInput(const RowView& row) override {
    for (auto& a : args_) KW_RETURN_IF_ERROR(a->AddInput(row));
    KW_ASSIGN_OR_RETURN(std::vector<Value> values, Outputs(args_, *fun_));
    for (auto& a : args_) a->Reset();
    return state_->Add(values);
  }
  Result<Value> Output() override { return state_->Compute(); }
  void Reset() override { state_ = fun_->NewState(); }

 private:
  std::shared_ptr<const AggregateFunction> fun_;
  SelectorList args_;
  std::unique_ptr<AggregateState> state_;
};

std::vector<std::string> ColumnNames(
    const std::vector<SelectorFactoryPtr>& fs) {
  std::vector<std::string> names;
  for (const SelectorFactoryPtr& f : fs) names.push_back(f->column_name());
  return names;
}

class FunctionFactory final : public SelectorFactory {
 public:
  FunctionFactory(FunctionPtr fun, std::vector<SelectorFactoryPtr> args)
      : SelectorFactory(fun->ColumnName(ColumnNames(args)), fun->return_type()),
        fun_(std::move(fun)),
        args_(std::move(args)) {}
  std::unique_ptr<Selector> NewSelector(
      const SelectorContext& ctx) const override {
    if (fun_->IsAggregate()) {
      return std::make_unique<AggregateSelector>(
          std::static_pointer_cast<const AggregateFunction>(fun_),
          NewSelectors(args_, ctx));
    }
    return std::make_unique<ScalarSelector>(
        std::static_pointer_cast<const ScalarFunction>(fun_),
        NewSelectors(args_, ctx), FunctionContext{ctx.eval.now_micros});
  }
  bool IsAggregate() const override {
    if (fun_->IsAggregate()) return true;
    for (const SelectorFactoryPtr& a : args_) {
      if (a->IsAggregate()) return true;
    }
    return false;
  }
  bool NeedsCellMetadata() const override {
    for (const SelectorFactoryPtr& a : args_) {
      if (a->NeedsCellMetadata()) return true;
    }
    return false;
  }

 private:
  FunctionPtr fun_;
  std::vector<SelectorFactoryPtr> args_;
};

class FieldSelector final : public Selector {
 public:
  FieldSelector(std::unique_ptr<Selector> udt, size_t field)
      : udt_(std::move(udt)), field_(field) {}
  Status AddInput(const RowView& row) override { return udt_->AddInput(row); }
  Result<Value> Output() override {
    KW_ASSIGN_OR_RETURN(Value v, udt_->Output());
    if (!v.is_set()) return Value::Null();
    KW_ASSIGN_OR_RETURN(auto fields, DecodeTuple(v.bytes));
    if (field_ >= fields.size() || !fields[field_]) return Value::Null();
    return Value::Of(std::move(*fields[field_]));
  }
  void Reset() override { udt_->Reset(); }

 private:
  std::unique_ptr<Selector> udt_;
  size_t field_;
};

class FieldFactory final : public SelectorFactory {
 public:
  FieldFactory(SelectorFactoryPtr udt, size_t field, std::string name,
               CqlTypePtr type)
      : SelectorFactory(std::move(name), std::move(type)),
        udt_(std::move(udt)),
        field_(field) {}
  std::unique_ptr<Selector> NewSelector(
      const SelectorContext& ctx) const override {
    return std::make_unique<FieldSelector>(udt_->NewSelector(ctx), field_);
  }
  bool IsAggregate() const override { return udt_->IsAggregate(); }
  bool NeedsCellMetadata() const override { return udt_->NeedsCellMetadata(); }

 private:
  SelectorFactoryPtr udt_;
  size_t field_;
};

class ElementSelector final : public Selector {
 public:
  ElementSelector(std::unique_ptr<Selector> collection, const CqlType& type,
                  bool slice, const PreparedTerm& from, const PreparedTerm& to,
                  const EvalContext& eval)
      : collection_(std::move(collection)),
        type_(type),
        slice_(slice),
        from_(from),
        to_(to),
        eval_(eval) {}
  Status AddInput(const RowView& row) override {
    return collection_->AddInput(row);
  }
  Result<Value> Output() override {
    KW_ASSIGN_OR_RETURN(Value v, collection_->Output());
    // A null or unset end of a slice is open; an element selection by a
    // null key finds nothing.
    std::optional<std::string> from, to;
    for (auto [term, out] : {std::pair{&from_, &from}, std::pair{&to_, &to}}) {
      if (*term == nullptr) continue;
      KW_ASSIGN_OR_RETURN(Value bound, (*term)->Evaluate(eval_));
      if (bound.is_set()) *out = std::move(bound.bytes);
    }
    if (!v.is_set() || (!slice_ && !from)) return Value::Null();
    const CqlType& key_type = *type_.params()[0];
    auto within = [&](const std::string& key) {
      if (!slice_) return CompareValues(key_type, key, *from) == 0;
      return (!from || CompareValues(key_type, key, *from) >= 0) &&
             (!to || CompareValues(key_type, key, *to) <= 0);
    };
    if (type_.kind() == TypeKind::kMap) {
      KW_ASSIGN_OR_RETURN(auto entries, DecodeMap(v.bytes));
      std::vector<std::pair<std::string, std::string>> kept;
      for (auto& e : entries) {
        if (!within(e.first)) continue;
        if (!slice_) return Value::Of(std::move(e.second));
        kept.push_back(std::move(e));
      }
      if (!slice_) return Value::Null();
      return Value::Of(EncodeMap(kept));
    }
    KW_ASSIGN_OR_RETURN(auto elements, DecodeSet(v.bytes));
    std::vector<std::string> kept;
    for (auto& e : elements) {
      if (!within(e)) continue;
      if (!slice_) return Value::Of(std::move(e));
      kept.push_back(std::move(e));
    }
    if (!slice_) return Value::Null();
    return Value::Of(EncodeSet(kept));
  }
  void Reset() override { collection_->Reset(); }

 private:
  std::unique_ptr<Selector> collection_;
  const CqlType& type_;
  bool slice_;
  const PreparedTerm& from_;
  const PreparedTerm& to_;
  EvalContext eval_;
};

class ElementFactory final : public SelectorFactory {
 public:
  ElementFactory(SelectorFactoryPtr collection, bool slice, PreparedTerm from,
                 PreparedTerm to, std::string name, CqlTypePtr type)
      : SelectorFactory(std::move(name), std::move(type)),
        collection_(std::move(collection)),
        slice_(slice),
        from_(std::move(from)),
        to_(std::move(to)) {}
  std::unique_ptr<Selector> NewSelector(
      const SelectorContext& ctx) const override {
    return std::make_unique<ElementSelector>(collection_->NewSelector(ctx),
                                             *collection_->type(), slice_,
                                             from_, to_, ctx.eval);
  }
  bool IsAggregate() const override { return collection_->IsAggregate(); }
  bool NeedsCellMetadata() const override {
    return collection_->NeedsCellMetadata();
  }

 private:
  SelectorFactoryPtr collection_;
  bool slice_;
  PreparedTerm from_, to_;
};

}  // namespace

SelectorFactoryPtr ElementSelectorFactory(SelectorFactoryPtr collection,
                                          bool slice, PreparedTerm from,
                                          PreparedTerm to,
                                          std::string column_name,
                                          CqlTypePtr type) {
  return std::make_shared<ElementFactory>(
      std::move(collection), slice, std::move(from), std::move(to),
      std::move(column_name), std::move(type));
}

SelectorFactoryPtr ColumnSelectorFactory(const ColumnDef* column) {
  return std::make_shared<ColumnFactory>(column);
}

SelectorFactoryPtr WritetimeOrTtlFactory(const ColumnDef* column,
                                         bool writetime) {
  return std::make_shared<WritetimeTtlFactory>(column, writetime);
}

SelectorFactoryPtr ElementMetadataSelectorFactory(ElementMetadataSpec spec,
                                                  std::string column_name) {
  return std::make_shared<ElementMetadataFactory>(std::move(spec),
                                                  std::move(column_name));
}

SelectorFactoryPtr TermSelectorFactory(std::string column_name, CqlTypePtr type,
                                       PreparedTerm term) {
  return std::make_shared<TermFactory>(std::move(column_name), std::move(type),
                                       std::move(term));
}

Result<SelectorFactoryPtr> FunctionSelectorFactory(
    FunctionPtr fun, std::vector<SelectorFactoryPtr> args) {
  bool args_aggregate = false, all_constant = true;
  for (const SelectorFactoryPtr& a : args) {
    args_aggregate = args_aggregate || a->IsAggregate();
    all_constant = all_constant && a->IsConstant();
  }
  if (fun->IsAggregate() && args_aggregate) {
    return Status::Invalid(
        "aggregate functions cannot be used as arguments of aggregate "
        "functions");
  }
  auto factory = std::make_shared<FunctionFactory>(fun, std::move(args));
  if (fun->IsAggregate() || !fun->IsPure() || !all_constant) {
    return SelectorFactoryPtr(factory);
  }
  // A pure call of constants: evaluate once (Cassandra folds it into a term).
  SelectorContext none;
  std::unique_ptr<Selector> s = factory->NewSelector(none);
  KW_ASSIGN_OR_RETURN(Value v, s->Output());
  return TermSelectorFactory(factory->column_name(), factory->type(),
                             ConstantTerm(std::move(v)));
}

SelectorFactoryPtr FieldSelectorFactory(SelectorFactoryPtr udt, size_t field,
                                        std::string column_name,
                                        CqlTypePtr type) {
  return std::make_shared<FieldFactory>(
      std::move(udt), field, std::move(column_name), std::move(type));
}

}  // namespace keywise::query
