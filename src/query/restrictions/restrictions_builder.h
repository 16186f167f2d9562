// RestrictionsBuilder: builds a Restrictions from relations, one at a time,
// with Cassandra 4's checks in Cassandra's order. Internal to
// src/query/restrictions:
//   relations.cc           a relation -> a Restriction (checks on the
//                          receiver: types, operators, token(), tuples);
//   restriction_merge.cc   merging into the partition key, clustering and
//                          other-column sets (conflicts, clustering order);
//   restrictions.cc        Finish: what the statement type allows, what is
//                          filtered, and the access shape.
//
// Contract: one builder per PREPARE, single-threaded; after an error the
// builder is discarded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "query/restrictions/restrictions.h"

namespace keywise::query {

class RestrictionsBuilder {
 public:
  RestrictionsBuilder(const TableDef& table, const RestrictionContext& context,
                      BindSpecs* binds, std::vector<int>* pk_binds);

  Status Add(const cql::Relation& relation);
  Result<std::shared_ptr<const Restrictions>> Finish();

 private:
  ColumnSpec Spec(const std::string& name, CqlTypePtr type) const {
    return ColumnSpec{table_.keyspace, table_.name, name, std::move(type)};
  }
  Result<const ColumnDef*> Column(const std::string& name) const;
  Result<PreparedTerm> Prepare(const cql::Term& t, const ColumnSpec& spec);
  Result<PreparedTuple> PrepareTupleValue(
      const cql::Term& t, const std::vector<const ColumnDef*>& columns);
  void RecordPartitionKeyMarker(const ColumnDef& column, const cql::Term& t);

  // relations.cc
  Status AddToken(const cql::Relation& r);
  Status AddMulti(const cql::Relation& r);
  Status AddSingle(const cql::Relation& r);
  Status CheckReceiver(const cql::Relation& r, const ColumnDef& c) const;

  // restriction_merge.cc
  Status MergeSingle(std::shared_ptr<Restriction>* slot, Restriction r);
  Status MergeClustering(Restriction r);
  Status MergeToken(Restriction r);

  // restrictions.cc
  Status ProcessPartitionKey();
  Status ProcessClustering();
  Status ProcessOtherColumns();

  const TableDef& table_;
  RestrictionContext context_;
  BindSpecs* binds_;
  std::vector<int>* pk_binds_;
  Restrictions out_;
  std::shared_ptr<RowFilter> filter_;
};

// Shared by the builder's files.
std::string JoinColumnNames(const std::vector<const ColumnDef*>& columns);

}  // namespace keywise::query
