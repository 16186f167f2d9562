#include "schema/table_def.h"

#include <algorithm>

namespace keywise {
namespace {

std::vector<const ColumnDef*> KeyColumns(const std::vector<ColumnDef>& cols,
                                         ColumnKind kind) {
  std::vector<const ColumnDef*> out;
  for (const auto& c : cols) {
    if (c.kind == kind) out.push_back(&c);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ColumnDef* a, const ColumnDef* b) {
                     return a->position < b->position;
                   });
  return out;
}

}  // namespace

std::string IndexTableName(std::string_view index_name) {
  return std::string(index_name) + "_index";
}

std::string KeyChangeTableName(std::string_view table) {
  return std::string(table) + "$newkey";
}

const ColumnDef* TableDef::FindColumn(std::string_view column_name) const {
  for (const auto& c : columns) {
    if (c.name == column_name) return &c;
  }
  return nullptr;
}

const ColumnDef* TableDef::FindColumnById(ColumnId column_id) const {
  for (const auto& c : columns) {
    if (c.id == column_id) return &c;
  }
  return nullptr;
}

std::vector<const ColumnDef*> TableDef::PartitionKeyColumns() const {
  return KeyColumns(columns, ColumnKind::kPartitionKey);
}

std::vector<const ColumnDef*> TableDef::ClusteringColumns() const {
  return KeyColumns(columns, ColumnKind::kClustering);
}

std::vector<const ColumnDef*> TableDef::RegularColumns() const {
  return KeyColumns(columns, ColumnKind::kRegular);
}

std::vector<const ColumnDef*> TableDef::StaticColumns() const {
  return KeyColumns(columns, ColumnKind::kStatic);
}

bool TableDef::HasStaticColumns() const {
  return std::any_of(columns.begin(), columns.end(), [](const ColumnDef& c) {
    return c.kind == ColumnKind::kStatic;
  });
}

bool TableDef::IsCounterTable() const {
  for (const ColumnDef& c : columns) {
    if (c.type->kind() == TypeKind::kCounter) return true;
  }
  for (const DroppedColumn& d : dropped_columns) {
    if (d.type->kind() == TypeKind::kCounter) return true;
  }
  return false;
}

}  // namespace keywise
