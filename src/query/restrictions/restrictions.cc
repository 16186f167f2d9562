// Restrictions: what the statement type allows (Cassandra 4's
// StatementRestrictions constructor after the relations are merged:
// processPartitionKeyRestrictions, the static-columns check,
// processClusteringColumnsRestrictions, the non-primary-key columns), and
// the questions the planner asks.
#include "query/restrictions/restrictions.h"

#include <utility>

#include "query/restrictions/restrictions_builder.h"
#include "query/restrictions/row_filter.h"
#include "schema/partitioner.h"

namespace keywise::query {
namespace {

bool IsWrite(StatementType type) {
  return type != StatementType::kSelect;
}

std::string JoinTexts(const std::vector<std::shared_ptr<Restriction>>& list,
                      size_t count) {
  std::string out;
  for (size_t i = 0; i < count && i < list.size(); ++i) {
    if (list[i] == nullptr) continue;
    if (!out.empty()) out += " AND ";
    out += list[i]->Text();
  }
  return out;
}

// The number of values `r` stands for, or -1 when a marker decides.
int64_t ValueCount(const Restriction& r) {
  if (r.in_marker != nullptr) return -1;
  return static_cast<int64_t>(r.values.size());
}

}  // namespace

const char* StatementTypeName(StatementType type) {
  switch (type) {
    case StatementType::kSelect:
      return "SELECT";
    case StatementType::kInsert:
      return "INSERT";
    case StatementType::kUpdate:
      return "UPDATE";
    case StatementType::kDelete:
      return "DELETE";
  }
  return "?";
}

bool Restriction::IsEq() const {
  return kind == RestrictionKind::kEq ||
         (kind == RestrictionKind::kIn && in_marker == nullptr &&
          values.size() == 1);
}

std::string Restriction::Text() const {
  std::string out;
  for (const std::string& t : texts) {
    if (!out.empty()) out += " AND ";
    out += t;
  }
  return out;
}

bool TokenRange::Contains(Token t) const {
  if (empty) return false;
  if (start != kMinimumToken || !start_inclusive) {
    if (start_inclusive ? t < start : t <= start) return false;
  }
  if (end != kMinimumToken) {
    if (end_inclusive ? t > end : t >= end) return false;
  }
  return true;
}

Restrictions::Restrictions() = default;
Restrictions::~Restrictions() = default;
Restrictions::Restrictions(Restrictions&&) noexcept = default;
Restrictions& Restrictions::operator=(Restrictions&&) noexcept = default;

bool Restrictions::KeyIsIn() const {
  for (const auto& r : partition_) {
    if (r != nullptr && r->kind == RestrictionKind::kIn) return true;
  }
  return false;
}

bool Restrictions::ClusteringIsIn() const {
  for (const auto& r : clustering_) {
    if (r->kind == RestrictionKind::kIn) return true;
  }
  return false;
}

bool Restrictions::HasPartitionKeyRestrictions() const {
  for (const auto& r : partition_) {
    if (r != nullptr) return true;
  }
  return token_.has_value();
}

int64_t Restrictions::PartitionKeyCountBound() const {
  if (key_range_) return 0;
  int64_t n = 1;
  for (const auto& r : partition_) {
    int64_t c = ValueCount(*r);
    if (c < 0) return -1;
    n *= c;
  }
  return n;
}

int64_t Restrictions::ClusteringCountBound() const {
  int64_t n = 1;
  for (size_t i = 0; i < clustering_prefix_; ++i) {
    int64_t c = ValueCount(*clustering_[i]);
    if (c < 0) return -1;
    n *= c;
  }
  return n;
}

bool Restrictions::HasStaticOnlyNonPkRestrictions() const {
  for (const auto& r : non_pk_) {
    if (r->first().kind != ColumnKind::kStatic) return false;
  }
  return true;
}

bool Restrictions::IsRestrictedByEq(const ColumnDef& column) const {
  if (column.kind == ColumnKind::kPartitionKey) {
    const auto& r = partition_[static_cast<size_t>(column.position)];
    return r != nullptr && r->IsEq();
  }
  for (const auto& r : clustering_) {
    for (const ColumnDef* c : r->columns) {
      if (c == &column) return r->IsEq();
    }
  }
  for (const auto& r : non_pk_) {
    if (&r->first() == &column) return r->IsEq();
  }
  return false;
}

bool Restrictions::KeyRangeNeedsFiltering() const {
  return key_range_ && !clustering_.empty();
}

std::string Restrictions::PartitionKeyText() const {
  return JoinTexts(partition_, partition_.size());
}

std::string Restrictions::TokenText() const {
  return token_ ? token_->Text() : std::string();
}

std::string Restrictions::ClusteringText() const {
  return JoinTexts(clustering_,
                   clustering_prefix_ + (clustering_has_slice_ ? 1 : 0));
}

Status RestrictionsBuilder::ProcessPartitionKey() {
  Restrictions& o = out_;
  const StatementType type = context_.type;
  size_t restricted = 0;
  bool slice_or_contains = false;
  bool slice = false;
  std::vector<const ColumnDef*> missing;
  std::vector<const ColumnDef*> pk = table_.PartitionKeyColumns();
  for (size_t i = 0; i < o.partition_.size(); ++i) {
    const auto& r = o.partition_[i];
    if (r == nullptr) {
      missing.push_back(pk[i]);
      continue;
    }
    ++restricted;
    slice |= r->kind == RestrictionKind::kSlice;
    slice_or_contains |= r->kind == RestrictionKind::kSlice ||
                         r->kind == RestrictionKind::kContains;
  }
  if (IsWrite(type)) {
    // No partition key ranges: every write names its partitions.
    if (o.token_) {
      return Status::Invalid(
          std::string("The token function cannot be used in WHERE clauses "
                      "for ") +
          StatementTypeName(type) + " statements");
    }
    if (!missing.empty()) {
      return Status::Invalid("Some partition key parts are missing: " +
                             JoinColumnNames(missing));
    }
    if (slice) {
      return Status::Invalid(
          std::string("Only EQ and IN relation are supported on the partition "
                      "key (unless you use the token() function) for ") +
          StatementTypeName(type) + " statements");
    }
    o.key_range_ = false;
    return Status::OK();
  }
  if (o.token_ && slice_or_contains) {
    return Status::Invalid(
        "Only EQ and IN relation are supported on the partition key (unless "
        "you use the token() function)");
  }
  if (IsRangePlaced(table_) && !o.token_ && o.partition_.size() == 1 &&
      o.partition_[0] != nullptr &&
      o.partition_[0]->kind == RestrictionKind::kSlice) {
    // Partitions are stored in key order: the slice is a token range; the
    // filter checks the keys at its ends.
    o.key_slice_ = o.partition_[0];
    o.key_range_ = true;
    filter_->Add(o.key_slice_);
    return Status::OK();
  }
  bool needs_filtering =
      restricted > 0 && (!missing.empty() || slice_or_contains);
  if (needs_filtering && !context_.allow_filtering) {
    return Status::Invalid(kRequiresAllowFilteringMessage);
  }
  o.key_range_ = restricted == 0 || needs_filtering;
  if (needs_filtering) {
    for (const auto& r : o.partition_) {
      if (r != nullptr) filter_->Add(r);
    }
  }
  return Status::OK();
}

Status RestrictionsBuilder::ProcessClustering() {
  Restrictions& o = out_;
  const StatementType type = context_.type;
  if (context_.static_only && !o.clustering_.empty()) {
    // Cassandra rejects clustering restrictions that cannot matter; an
    // INSERT may still name the row.
    if (type == StatementType::kUpdate || type == StatementType::kDelete) {
      return Status::Invalid(
          std::string("Invalid restrictions on clustering columns since the ") +
          StatementTypeName(type) + " statement modifies only static columns");
    }
    if (type == StatementType::kSelect) {
      return Status::Invalid(
          "Cannot restrict clustering columns when selecting only static "
          "columns");
    }
  }
  bool has_slice = false;
  bool has_contains = false;
  size_t restricted_columns = 0;
  for (const auto& r : o.clustering_) {
    has_slice |= r->kind == RestrictionKind::kSlice;
    has_contains |= r->kind == RestrictionKind::kContains;
    restricted_columns += r->columns.size();
  }
  std::vector<const ColumnDef*> clustering = table_.ClusteringColumns();
  const bool slices_allowed =
      type == StatementType::kSelect || type == StatementType::kDelete;
  if (!slices_allowed) {
    if (has_slice) {
      return Status::Invalid(
          std::string("Slice restrictions are not supported on the clustering "
                      "columns in ") +
          StatementTypeName(type) + " statements");
    }
    if (!context_.static_only && restricted_columns < clustering.size()) {
      std::vector<const ColumnDef*> missing;
      for (const ColumnDef* c : clustering) {
        bool found = false;
        for (const auto& r : o.clustering_) {
          for (const ColumnDef* rc : r->columns) found |= rc == c;
        }
        if (!found) missing.push_back(c);
      }
      return Status::Invalid("Some clustering keys are missing: " +
                             JoinColumnNames(missing));
    }
  } else if (has_contains && !context_.allow_filtering) {
    return Status::Invalid(
        "Clustering columns can only be restricted with CONTAINS with a "
        "secondary index or filtering");
  }
  // The EQ/IN prefix and the optional slice after it read (or write) key
  // ranges; whatever follows a gap or a slice is filtered.
  int position = 0;
  size_t used = 0;
  bool slice = false;
  for (const auto& r : o.clustering_) {
    if (r->kind == RestrictionKind::kContains ||
        r->first_position() != position) {
      break;
    }
    if (r->kind == RestrictionKind::kSlice) {
      slice = true;
      ++used;
      break;
    }
    position = r->columns.back()->position + 1;
    ++used;
  }
  if (used < o.clustering_.size() && !context_.allow_filtering) {
    std::vector<const ColumnDef*> restricted;
    for (const auto& r : o.clustering_) {
      for (const ColumnDef* c : r->columns) restricted.push_back(c);
    }
    for (size_t i = 0; i < restricted.size() && i < clustering.size(); ++i) {
      if (restricted[i] != clustering[i]) {
        return Status::Invalid(
            "PRIMARY KEY column \"" + restricted[i]->name +
            "\" cannot be restricted as preceding column \"" +
            clustering[i]->name + "\" is not restricted");
      }
    }
    return Status::Invalid(kRequiresAllowFilteringMessage);
  }
  o.clustering_prefix_ = slice ? used - 1 : used;
  o.clustering_has_slice_ = slice;
  for (size_t i = used; i < o.clustering_.size(); ++i) {
    filter_->Add(o.clustering_[i]);
  }
  if (slice) {
    // A multi-column slice over columns of mixed order is read as a slice
    // on its first column: a read checks it exactly with the filter; a
    // range deletion cannot, so it is refused.
    const Restriction& s = *o.clustering_[used - 1];
    for (const ColumnDef* c : s.columns) {
      if (c->order == s.first().order) continue;
      if (IsWrite(type)) {
        return Status::Invalid(
            "Multi-column slice restrictions on clustering columns of mixed "
            "ASC/DESC order are not supported in DELETE statements yet");
      }
      filter_->Add(o.clustering_[used - 1]);
      break;
    }
  }
  o.names_query_ = !o.key_range_ && !slice &&
                   static_cast<size_t>(position) == table_.ClusteringSize() &&
                   used == o.clustering_.size();
  return Status::OK();
}

Status RestrictionsBuilder::ProcessOtherColumns() {
  Restrictions& o = out_;
  for (const auto& r : o.non_pk_) {
    if (r->first().kind == ColumnKind::kRegular) {
      o.has_regular_restrictions_ = true;
    }
  }
  if (o.non_pk_.empty()) return Status::OK();
  if (IsWrite(context_.type)) {
    std::vector<const ColumnDef*> columns;
    for (const auto& r : o.non_pk_) columns.push_back(&r->first());
    return Status::Invalid("Non PRIMARY KEY columns found in where clause: " +
                           JoinColumnNames(columns) + " ");
  }
  if (!context_.allow_filtering) {
    return Status::Invalid(kRequiresAllowFilteringMessage);
  }
  for (const auto& r : o.non_pk_) filter_->Add(r);
  return Status::OK();
}

Result<std::shared_ptr<const Restrictions>> RestrictionsBuilder::Finish() {
  filter_ = std::make_shared<RowFilter>(&table_);
  KW_RETURN_IF_ERROR(ProcessPartitionKey());
  KW_RETURN_IF_ERROR(ProcessClustering());
  KW_RETURN_IF_ERROR(ProcessOtherColumns());
  if (!filter_->empty()) out_.row_filter_ = std::move(filter_);
  return std::shared_ptr<const Restrictions>(
      std::make_shared<Restrictions>(std::move(out_)));
}

Result<std::shared_ptr<const Restrictions>> PrepareRestrictions(
    const TableDef& table, const std::vector<cql::Relation>& where,
    const RestrictionContext& context, BindSpecs* binds,
    std::vector<int>* partition_key_binds) {
  RestrictionsBuilder builder(table, context, binds, partition_key_binds);
  for (const cql::Relation& r : where) {
    KW_RETURN_IF_ERROR(builder.Add(r));
  }
  return builder.Finish();
}

}  // namespace keywise::query
