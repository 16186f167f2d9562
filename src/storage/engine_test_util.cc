#include "storage/engine_test_util.h"

namespace keywise::testing {

TableDefPtr CreateTestTable(Engine& engine, const std::string& name,
                            const std::vector<ColumnSpec>& columns,
                            int versions, int gc_grace_seconds) {
  Status st = engine.catalog().CreateKeyspace(
      KeyspaceDef{"ks",
                  {{"class", "org.apache.cassandra.locator.SimpleStrategy"},
                   {"replication_factor", "1"}},
                  true},
      IfNotExists::kYes);
  EXPECT_TRUE(st.ok()) << st.ToString();
  TableDef def;
  def.keyspace = "ks";
  def.name = name;
  int pk_pos = 0, ck_pos = 0;
  for (const ColumnSpec& c : columns) {
    ColumnDef col;
    col.name = c.name;
    col.type = CqlType::Of(c.type);
    col.kind = c.kind;
    col.order = c.order;
    if (c.kind == ColumnKind::kPartitionKey) col.position = pk_pos++;
    if (c.kind == ColumnKind::kClustering) col.position = ck_pos++;
    def.columns.push_back(col);
  }
  def.options.versions = versions;
  def.options.gc_grace_seconds = gc_grace_seconds;
  st = engine.catalog().CreateTable(def, IfNotExists::kNo);
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto table = engine.catalog().GetTable("ks", name);
  EXPECT_TRUE(table.ok());
  return table.ok() ? *table : nullptr;
}

}  // namespace keywise::testing
