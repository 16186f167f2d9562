// RestrictionsBuilder: merging a new restriction into what the WHERE clause
// restricted so far (Cassandra 4's RestrictionSet / ClusteringColumn-
// Restrictions mergeWith), with Cassandra's messages.
#include <algorithm>
#include <utility>

#include "query/restrictions/restrictions_builder.h"

namespace keywise::query {
namespace {

// Cassandra's slice merge (TermSlice): one bound of each kind at most.
Status MergeSlice(Restriction* into, const Restriction& other,
                  const std::string& names) {
  if (other.lower.size > 0) {
    if (into->lower.size > 0) {
      return Status::Invalid(
          "More than one restriction was found for the start bound on " +
          names);
    }
    into->lower = other.lower;
  }
  if (other.upper.size > 0) {
    if (into->upper.size > 0) {
      return Status::Invalid(
          "More than one restriction was found for the end bound on " + names);
    }
    into->upper = other.upper;
  }
  return Status::OK();
}

Status MixingError() {
  return Status::Invalid(
      "Mixing single column relations and multi column relations on "
      "clustering columns is not allowed");
}

}  // namespace

Status RestrictionsBuilder::MergeToken(Restriction n) {
  if (!out_.token_) {
    out_.token_ = std::move(n);
    return Status::OK();
  }
  Restriction& existing = *out_.token_;
  std::string names = JoinColumnNames(existing.columns);
  if (existing.kind == RestrictionKind::kEq) {
    return Status::Invalid(names +
                           " cannot be restricted by more than one relation "
                           "if it includes an Equal");
  }
  if (n.kind != RestrictionKind::kSlice) {
    return Status::Invalid("Columns \"" + names +
                           "\" cannot be restricted by both an equality and "
                           "an inequality relation");
  }
  KW_RETURN_IF_ERROR(MergeSlice(&existing, n, names));
  for (std::string& t : n.texts) existing.texts.push_back(std::move(t));
  return Status::OK();
}

Status RestrictionsBuilder::MergeSingle(std::shared_ptr<Restriction>* slot,
                                        Restriction n) {
  if (*slot == nullptr) {
    *slot = std::make_shared<Restriction>(std::move(n));
    return Status::OK();
  }
  Restriction& e = **slot;
  std::string names = JoinColumnNames(e.columns);
  if (e.multi != n.multi) return MixingError();
  switch (e.kind) {
    case RestrictionKind::kEq:
      return Status::Invalid(names +
                             " cannot be restricted by more than one relation "
                             "if it includes an Equal");
    case RestrictionKind::kIn:
      return Status::Invalid(names +
                             " cannot be restricted by more than one relation "
                             "if it includes a IN");
    case RestrictionKind::kSlice:
      if (n.kind != RestrictionKind::kSlice) {
        return Status::Invalid("Column \"" + names +
                               "\" cannot be restricted by both an equality "
                               "and an inequality relation");
      }
      if (n.columns.size() > e.columns.size()) e.columns = n.columns;
      KW_RETURN_IF_ERROR(MergeSlice(&e, n, names));
      break;
    case RestrictionKind::kContains:
      if (n.kind != RestrictionKind::kContains) {
        return Status::Invalid(
            "Collection column " + names +
            " can only be restricted by CONTAINS, CONTAINS KEY, or map-entry "
            "equality");
      }
      for (auto& t : n.contains) e.contains.push_back(std::move(t));
      for (auto& t : n.contains_key) e.contains_key.push_back(std::move(t));
      for (auto& t : n.entries) e.entries.push_back(std::move(t));
      break;
  }
  for (std::string& t : n.texts) e.texts.push_back(std::move(t));
  return Status::OK();
}

Status RestrictionsBuilder::MergeClustering(Restriction n) {
  auto& list = out_.clustering_;
  // The restriction (if any) already covering one of n's columns.
  std::shared_ptr<Restriction>* existing = nullptr;
  for (auto& e : list) {
    for (const ColumnDef* c : e->columns) {
      if (std::find(n.columns.begin(), n.columns.end(), c) != n.columns.end()) {
        existing = &e;
      }
    }
    if (existing != nullptr) break;
  }
  std::shared_ptr<Restriction> last = list.empty() ? nullptr : list.back();
  const ColumnDef* new_start = n.columns.front();
  bool new_is_slice = n.kind == RestrictionKind::kSlice;
  if (existing != nullptr) {
    if ((*existing)->multi && n.multi && &(*existing)->first() != new_start) {
      return MixingError();
    }
    KW_RETURN_IF_ERROR(MergeSingle(existing, std::move(n)));
  } else {
    auto p = std::make_shared<Restriction>(std::move(n));
    auto at = std::find_if(list.begin(), list.end(), [&](const auto& e) {
      return e->first_position() > p->first_position();
    });
    list.insert(at, std::move(p));
  }
  // The clustering order is checked against the earlier relations, after
  // the merge (Cassandra merges first).
  if (last == nullptr || context_.allow_filtering) return Status::OK();
  const ColumnDef* last_start = last->columns.front();
  if (last->kind == RestrictionKind::kSlice &&
      new_start->position > last_start->position) {
    return Status::Invalid("Clustering column \"" + new_start->name +
                           "\" cannot be restricted (preceding column \"" +
                           last_start->name +
                           "\" is restricted by a non-EQ relation)");
  }
  if (new_start->position < last_start->position && new_is_slice) {
    // The next restricted column after the new one.
    const ColumnDef* next = last_start;
    for (const auto& e : list) {
      if (e->first_position() > new_start->position) {
        next = e->columns.front();
        break;
      }
    }
    return Status::Invalid("PRIMARY KEY column \"" + next->name +
                           "\" cannot be restricted (preceding column \"" +
                           new_start->name +
                           "\" is restricted by a non-EQ relation)");
  }
  return Status::OK();
}

}  // namespace keywise::query
