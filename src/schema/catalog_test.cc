#include "schema/catalog.h"

#include <gtest/gtest.h>

namespace keywise {
namespace {

class MemoryStore : public CatalogStore {
 public:
  Status Save(std::string_view blob) override {
    if (fail_next) {
      fail_next = false;
      return Status::ServerError("disk full");
    }
    blob_ = std::string(blob);
    saves++;
    return Status::OK();
  }
  Result<std::optional<std::string>> Load() override { return blob_; }
  std::optional<std::string> blob_;
  int saves = 0;
  bool fail_next = false;
};

ColumnDef Col(std::string name, std::string_view type,
              ColumnKind kind = ColumnKind::kRegular, int position = 0,
              SortOrder order = SortOrder::kAsc) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = *CqlType::Parse(type);
  c.kind = kind;
  c.position = position;
  c.order = order;
  return c;
}

TableDef Events() {
  TableDef t;
  t.keyspace = "ks";
  t.name = "events";
  t.columns = {
      Col("v", "text"),
      Col("ts", "timestamp", ColumnKind::kClustering, 0, SortOrder::kDesc),
      Col("id", "uuid", ColumnKind::kPartitionKey),
      Col("s", "int", ColumnKind::kStatic)};
  return t;
}

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = Catalog::Open(&store_, &clock_).value();
    KeyspaceDef ks{"ks", {{"class", "SimpleStrategy"}}, true};
    ASSERT_TRUE(catalog_->CreateKeyspace(ks, IfNotExists::kNo).ok());
  }
  ManualClock clock_{1000000};
  MemoryStore store_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(CatalogTest, CreateTableAssignsIdsAndOrdersColumns) {
  ASSERT_TRUE(catalog_->CreateTable(Events(), IfNotExists::kNo).ok());
  auto t = *catalog_->GetTable("ks", "events");
  ASSERT_EQ(t->columns.size(), 4u);
  EXPECT_EQ(t->columns[0].name, "id");
  EXPECT_EQ(t->columns[1].name, "ts");
  EXPECT_EQ(t->columns[1].order, SortOrder::kDesc);
  // Static before regular columns (SELECT * order).
  EXPECT_EQ(t->columns[2].name, "s");
  EXPECT_EQ(t->columns[3].name, "v");
  EXPECT_EQ(t->next_column_id, 4u);
  EXPECT_EQ(t->id.version(), 1);
  EXPECT_TRUE(t->HasStaticColumns());
  EXPECT_EQ(catalog_->GetTableByStorageId(t->storage_id), t);
  EXPECT_EQ(t->FindColumnById(2)->name, "s");
  TableDef other = Events();
  other.name = "other";
  ASSERT_TRUE(catalog_->CreateTable(other, IfNotExists::kNo).ok());
  EXPECT_NE((*catalog_->GetTable("ks", "other"))->storage_id, t->storage_id);
  EXPECT_EQ(TablesOfKeyspace(*catalog_->snapshot(), "ks").size(), 2u);
}

TEST_F(CatalogTest, ErrorMessages) {
  KeyspaceDef ks{"ks", {}, true};
  Status s = catalog_->CreateKeyspace(ks, IfNotExists::kNo);
  EXPECT_EQ(s.code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "Cannot add existing keyspace \"ks\"");
  EXPECT_TRUE(catalog_->CreateKeyspace(ks, IfNotExists::kYes).ok());
  ASSERT_TRUE(catalog_->CreateTable(Events(), IfNotExists::kNo).ok());
  s = catalog_->CreateTable(Events(), IfNotExists::kNo);
  EXPECT_EQ(s.code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(s.message(),
            "Cannot add already existing table \"events\" to keyspace \"ks\"");
  EXPECT_TRUE(catalog_->CreateTable(Events(), IfNotExists::kYes).ok());
  EXPECT_EQ(catalog_->GetTable("nope", "t").status().message(),
            "Keyspace 'nope' doesn't exist");
  EXPECT_EQ(catalog_->GetTable("ks", "t").status().message(),
            "Table 'ks.t' doesn't exist");
  EXPECT_EQ(catalog_->DropTable("ks", "t", IfExists::kNo).message(),
            "Table 'ks.t' doesn't exist");
  EXPECT_TRUE(catalog_->DropTable("ks", "t", IfExists::kYes).ok());
  EXPECT_EQ(catalog_->DropKeyspace("x", IfExists::kNo).message(),
            "Keyspace 'x' doesn't exist");

  TableDef bad = Events();
  bad.name = "bad";
  bad.columns.push_back(Col("v", "int"));
  EXPECT_EQ(catalog_->CreateTable(bad, IfNotExists::kNo).message(),
            "Duplicate column 'v' declaration for table 'ks.bad'");
  bad = Events();
  bad.name = "bad";
  bad.columns[2].kind = ColumnKind::kRegular;
  EXPECT_EQ(
      catalog_->CreateTable(bad, IfNotExists::kNo).message(),
      "No PRIMARY KEY specifed for table 'ks.bad' (exactly one required)");
  bad = Events();
  bad.name = "bad";
  bad.columns.push_back(Col("c", "counter"));
  EXPECT_EQ(catalog_->CreateTable(bad, IfNotExists::kNo).message(),
            "Cannot mix counter and non counter columns in the same table");
  bad = Events();
  bad.name = "bad";
  bad.columns[0].order = SortOrder::kDesc;
  EXPECT_FALSE(catalog_->CreateTable(bad, IfNotExists::kNo).ok());
  bad = Events();
  bad.name = "bad";
  bad.options.default_time_to_live = 630720001;
  s = catalog_->CreateTable(bad, IfNotExists::kNo);
  EXPECT_EQ(s.code(), ErrorCode::kConfigError);
  EXPECT_EQ(s.message(),
            "default_time_to_live must be less than or equal to "
            "630720000 (got 630720001)");
  bad.options.default_time_to_live = 0;
  bad.options.gc_grace_seconds = -1;
  EXPECT_EQ(catalog_->CreateTable(bad, IfNotExists::kNo).message(),
            "gc_grace_seconds must be greater than or equal to 0 (got -1)");
  bad.options.gc_grace_seconds = 0;
  bad.options.versions = 1001;
  EXPECT_EQ(catalog_->CreateTable(bad, IfNotExists::kNo).code(),
            ErrorCode::kConfigError);
  TableDef no_ks = Events();
  no_ks.keyspace = "zz";
  EXPECT_EQ(catalog_->CreateTable(no_ks, IfNotExists::kNo).message(),
            "Keyspace 'zz' doesn't exist");
}

TEST_F(CatalogTest, AlterTable) {
  ASSERT_TRUE(catalog_->CreateTable(Events(), IfNotExists::kNo).ok());
  ASSERT_TRUE(
      catalog_->AlterTableAddColumn("ks", "events", Col("w", "int")).ok());
  auto t = *catalog_->GetTable("ks", "events");
  EXPECT_EQ(t->FindColumn("w")->id, 4u);
  ASSERT_TRUE(
      catalog_->AlterTableAddColumn("ks", "events", Col("a", "int")).ok());
  t = *catalog_->GetTable("ks", "events");
  // Added columns take their place by name, not at the end.
  std::vector<std::string> names;
  for (const ColumnDef& c : t->columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"id", "ts", "s", "a", "v", "w"}));
  EXPECT_EQ(
      catalog_->AlterTableAddColumn("ks", "events", Col("w", "int")).message(),
      "Column with name 'w' already exists");
  EXPECT_EQ(catalog_->AlterTableDropColumn("ks", "events", "id").message(),
            "Cannot drop PRIMARY KEY column id");
  EXPECT_EQ(catalog_->AlterTableDropColumn("ks", "events", "zz").message(),
            "Column zz was not found in table 'ks.events'");
  clock_.SetMicros(5000000);
  ASSERT_TRUE(catalog_->AlterTableDropColumn("ks", "events", "w").ok());
  t = *catalog_->GetTable("ks", "events");
  EXPECT_EQ(t->FindColumn("w"), nullptr);
  ASSERT_EQ(t->dropped_columns.size(), 1u);
  EXPECT_EQ(t->dropped_columns[0].dropped_at_micros, 5000000);
  EXPECT_EQ(
      catalog_->AlterTableAddColumn("ks", "events", Col("w", "text")).message(),
      "Cannot re-add previously dropped column 'w' of type text, "
      "incompatible with previous type int");
  ASSERT_TRUE(
      catalog_->AlterTableAddColumn("ks", "events", Col("w", "int")).ok());
  EXPECT_EQ((*catalog_->GetTable("ks", "events"))->FindColumn("w")->id, 6u);
  EXPECT_EQ(
      catalog_->AlterTableRenameColumn("ks", "events", "v", "x").message(),
      "Cannot rename non PRIMARY KEY column v");
  EXPECT_EQ(
      catalog_->AlterTableRenameColumn("ks", "events", "ts", "v").message(),
      "Cannot rename column ts to v in table 'ks.events'; another column "
      "with that name already exists");
  ASSERT_TRUE(
      catalog_->AlterTableRenameColumn("ks", "events", "ts", "at").ok());
  t = *catalog_->GetTable("ks", "events");
  EXPECT_EQ(t->ClusteringColumns()[0]->name, "at");
  TableOptions o;
  o.default_time_to_live = 60;
  o.comment = "hi";
  ASSERT_TRUE(catalog_->AlterTableOptions("ks", "events", o).ok());
  EXPECT_EQ((*catalog_->GetTable("ks", "events"))->options.comment, "hi");
  o.gc_grace_seconds = -5;
  EXPECT_FALSE(catalog_->AlterTableOptions("ks", "events", o).ok());
  EXPECT_EQ(catalog_->AlterTableAddColumn("ks", "events", Col("c", "counter"))
                .message(),
            "Cannot add a counter column (c) in a non counter column family");
}

TEST_F(CatalogTest, VersionChangesAndPersistence) {
  Uuid v0 = catalog_->snapshot()->version;
  ASSERT_TRUE(catalog_->CreateTable(Events(), IfNotExists::kNo).ok());
  Uuid v1 = catalog_->snapshot()->version;
  EXPECT_NE(v0, v1);
  ASSERT_TRUE(catalog_
                  ->AlterTableAddColumn(
                      "ks", "events", Col("m", "map<text, frozen<list<int>>>"))
                  .ok());
  ASSERT_TRUE(catalog_->AlterTableDropColumn("ks", "events", "v").ok());
  Uuid v2 = catalog_->snapshot()->version;
  EXPECT_NE(v1, v2);
  // A failed save publishes nothing.
  auto before = catalog_->snapshot();
  store_.fail_next = true;
  EXPECT_FALSE(catalog_->DropTable("ks", "events", IfExists::kNo).ok());
  EXPECT_EQ(catalog_->snapshot(), before);

  auto reopened = Catalog::Open(&store_, &clock_).value();
  auto snap = reopened->snapshot();
  EXPECT_EQ(snap->version, v2);
  EXPECT_EQ(EncodeSchemaSnapshot(*snap), EncodeSchemaSnapshot(*before));
  auto t = *reopened->GetTable("ks", "events");
  EXPECT_EQ(t->FindColumn("m")->type->ToCql(), "map<text, frozen<list<int>>>");
  EXPECT_EQ(t->dropped_columns.size(), 1u);
  EXPECT_EQ(snap->FindKeyspace("ks")->replication.at("class"),
            "SimpleStrategy");

  // New tables after reopen do not reuse storage ids.
  TableDef other = Events();
  other.name = "other";
  ASSERT_TRUE(reopened->CreateTable(other, IfNotExists::kNo).ok());
  EXPECT_NE((*reopened->GetTable("ks", "other"))->storage_id, t->storage_id);

  ASSERT_TRUE(reopened->DropKeyspace("ks", IfExists::kNo).ok());
  EXPECT_TRUE(reopened->snapshot()->tables.empty());
  EXPECT_EQ(reopened->GetTableByStorageId(t->storage_id), nullptr);
}

TEST_F(CatalogTest, CorruptBlobsNeverCrash) {
  ASSERT_TRUE(catalog_->CreateTable(Events(), IfNotExists::kNo).ok());
  std::string blob = *store_.blob_;
  for (size_t i = 0; i < blob.size(); i++) {
    EXPECT_FALSE(DecodeSchemaSnapshot(blob.substr(0, i)).ok());
    std::string flipped = blob;
    flipped[i] ^= 0xff;
    (void)DecodeSchemaSnapshot(flipped);
  }
  EXPECT_TRUE(DecodeSchemaSnapshot(blob).ok());
}

TEST_F(CatalogTest, CommitGateCanRefuseADdl) {
  int calls = 0;
  catalog_->SetCommitGate([&](const SchemaSnapshot& current,
                              const SchemaSnapshot& next,
                              const std::string& encoded) {
    ++calls;
    EXPECT_NE(current.version, next.version);
    EXPECT_FALSE(encoded.empty());
    if (next.FindTable("ks", "refused") != nullptr) {
      return Status::ServerError("schema changed concurrently");
    }
    return Status::OK();
  });
  ASSERT_TRUE(catalog_->CreateTable(Events(), IfNotExists::kNo).ok());
  const int saves = store_.saves;
  TableDef refused = Events();
  refused.name = "refused";
  Status st = catalog_->CreateTable(refused, IfNotExists::kNo);
  EXPECT_EQ(st.message(), "schema changed concurrently");
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(store_.saves, saves);  // nothing persisted
  EXPECT_FALSE(catalog_->GetTable("ks", "refused").ok());
}

TEST_F(CatalogTest, ReplaceAdoptsAnotherSchemaWithItsVersion) {
  MemoryStore other_store;
  auto other = Catalog::Open(&other_store, &clock_).value();
  KeyspaceDef ks{"ks", {{"class", "SimpleStrategy"}}, true};
  ASSERT_TRUE(other->CreateKeyspace(ks, IfNotExists::kNo).ok());
  ASSERT_TRUE(other->CreateTable(Events(), IfNotExists::kNo).ok());
  int heard = 0;
  catalog_->AddListener([&](const SchemaSnapshot&) { ++heard; });
  catalog_->SetCommitGate(
      [](const SchemaSnapshot&, const SchemaSnapshot&, const std::string&) {
        return Status::ServerError("the gate must not run for Replace");
      });
  ASSERT_TRUE(catalog_->Replace(*other->snapshot()).ok());
  EXPECT_EQ(catalog_->snapshot()->version, other->snapshot()->version);
  auto t = catalog_->GetTable("ks", "events");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->id, (*other->GetTable("ks", "events"))->id);
  EXPECT_EQ(heard, 2);  // once when added, once for Replace
  // Persisted: a reopened catalog has it.
  auto reopened = Catalog::Open(&store_, &clock_).value();
  EXPECT_TRUE(reopened->GetTable("ks", "events").ok());
}

}  // namespace
}  // namespace keywise

namespace keywise {
namespace {

TEST_F(CatalogTest, ViewsAndIndexesFollowTheirBase) {
  ASSERT_TRUE(catalog_->CreateTable(Events(), IfNotExists::kNo).ok());
  TableDefPtr base = catalog_->GetTable("ks", "events").value();

  TableDef index;
  index.keyspace = "ks";
  index.name = IndexTableName("events_v_idx");
  index.columns = {Col("v", "text", ColumnKind::kPartitionKey),
                   Col("idx_token", "bigint", ColumnKind::kClustering, 0),
                   Col("id", "uuid", ColumnKind::kClustering, 1),
                   Col("ts", "timestamp", ColumnKind::kClustering, 2)};
  auto info = std::make_shared<ViewInfo>();
  info->kind = ViewKind::kGlobalIndex;
  info->base_id = base->id;
  info->base_name = "events";
  info->index_name = "events_v_idx";
  info->target_column = "v";
  index.view = info;
  ASSERT_TRUE(catalog_->CreateView(index, IfNotExists::kNo).ok());
  EXPECT_EQ(catalog_->CreateView(index, IfNotExists::kNo).message(),
            "Index events_v_idx already exists");

  TableDef mv;
  mv.keyspace = "ks";
  mv.name = "by_ts";
  mv.columns = {Col("ts", "timestamp", ColumnKind::kPartitionKey),
                Col("id", "uuid", ColumnKind::kClustering, 0)};
  auto mv_info = std::make_shared<ViewInfo>();
  mv_info->base_id = base->id;
  mv_info->base_name = "events";
  mv_info->where_clause = "ts IS NOT NULL AND id IN (x, y) AND ts > z";
  mv_info->include_all_columns = true;
  mv_info->key_restrictions = {
      ViewKeyRestriction{"id", ViewRestrictionOp::kIn, {"x", "y"}},
      ViewKeyRestriction{"ts", ViewRestrictionOp::kGt, {"z"}}};
  mv.view = mv_info;
  ASSERT_TRUE(catalog_->CreateView(mv, IfNotExists::kNo).ok());

  SchemaSnapshotPtr snap = catalog_->snapshot();
  ASSERT_EQ(snap->ViewsOf(base->id).size(), 2u);
  ASSERT_NE(snap->FindIndex("ks", "events_v_idx"), nullptr);
  EXPECT_EQ(snap->FindIndex("ks", "events_v_idx")->view->target_column, "v");

  // Columns views use cannot be dropped; a new column reaches SELECT * views.
  EXPECT_EQ(catalog_->AlterTableDropColumn("ks", "events", "v").message(),
            "Cannot drop column v because it has dependent secondary "
            "indexes (events_v_idx)");
  ASSERT_TRUE(
      catalog_->AlterTableAddColumn("ks", "events", Col("w", "int")).ok());
  EXPECT_NE(catalog_->GetTable("ks", "by_ts").value()->FindColumn("w"),
            nullptr);

  // The encoding keeps the view info, and the built flag can be set.
  TableDefPtr view = catalog_->GetTable("ks", "by_ts").value();
  ASSERT_TRUE(catalog_->SetViewBuilt("ks", "by_ts", view->id).ok());
  auto reopened = Catalog::Open(&store_, &clock_).value();
  TableDefPtr back = reopened->GetTable("ks", "by_ts").value();
  ASSERT_NE(back->view, nullptr);
  EXPECT_TRUE(back->view->built);
  EXPECT_EQ(back->view->where_clause, mv_info->where_clause);
  EXPECT_EQ(back->view->key_restrictions, mv_info->key_restrictions);
  EXPECT_EQ(reopened->snapshot()->ViewsOf(base->id).size(), 2u);

  // The base cannot go while a view needs it; its index goes with it.
  EXPECT_EQ(catalog_->DropTable("ks", "events", IfExists::kNo).message(),
            "Cannot drop a table when materialized views still depend on it "
            "(ks)");
  ASSERT_TRUE(catalog_->DropTable("ks", "by_ts", IfExists::kNo).ok());
  ASSERT_TRUE(catalog_->DropTable("ks", "events", IfExists::kNo).ok());
  EXPECT_EQ(catalog_->snapshot()->FindIndex("ks", "events_v_idx"), nullptr);
  EXPECT_TRUE(catalog_->snapshot()->views_by_base.empty());
}

// ALTER TYPE reaches every use of the type: other types, table columns at
// any depth (with each use's frozenness), and the change survives a reload.
TEST_F(CatalogTest, UserTypesFollowAlterAndPersist) {
  auto inner =
      CqlType::Udt("ks", "inner", {{"a", CqlType::Of(TypeKind::kInt)}}, false);
  ASSERT_TRUE(catalog_->CreateType(inner, IfNotExists::kNo).ok());
  auto outer =
      CqlType::Udt("ks", "outer", {{"x", CqlType::Frozen(inner)}}, false);
  ASSERT_TRUE(catalog_->CreateType(outer, IfNotExists::kNo).ok());
  EXPECT_EQ(catalog_->CreateType(inner, IfNotExists::kNo).message(),
            "A user type with name 'inner' already exists");
  EXPECT_TRUE(catalog_->CreateType(inner, IfNotExists::kYes).ok());

  TableDef t;
  t.keyspace = "ks";
  t.name = "t";
  ColumnDef k = Col("k", "int", ColumnKind::kPartitionKey);
  ColumnDef v{"v", CqlType::List(CqlType::Frozen(outer), false),
              ColumnKind::kRegular};
  ColumnDef u{"u", inner, ColumnKind::kRegular};
  t.columns = {k, v, u};
  ASSERT_TRUE(catalog_->CreateTable(t, IfNotExists::kNo).ok());
  EXPECT_EQ(catalog_->DropType("ks", "inner", IfExists::kNo).message(),
            "Cannot drop user type 'ks.inner' as it is still used by user "
            "types outer");

  ASSERT_TRUE(catalog_
                  ->AlterType("ks", "inner", IfExists::kNo,
                              [](const SchemaSnapshot&,
                                 const CqlTypePtr& cur) -> Result<CqlTypePtr> {
                                return CqlType::Udt(
                                    "ks", "inner",
                                    {{"a", cur->params()[0]},
                                     {"b", CqlType::Of(TypeKind::kVarchar)}},
                                    false);
                              })
                  .ok());
  auto check = [](const SchemaSnapshot& s) {
    const TableDefPtr table = s.FindTable("ks", "t");
    ASSERT_NE(table, nullptr);
    const CqlType& list = *table->FindColumn("v")->type;
    const CqlType& nested = *list.params()[0]->params()[0];
    EXPECT_EQ(nested.field_names(), (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(nested.frozen());
    const CqlType& u = *table->FindColumn("u")->type;
    EXPECT_EQ(u.field_names().size(), 2u);
    EXPECT_FALSE(u.frozen());
    EXPECT_EQ(s.FindType("ks", "outer")->params()[0]->field_names().size(), 2u);
    EXPECT_EQ(list.ToCql(), "list<frozen<outer>>");
  };
  check(*catalog_->snapshot());
  auto reopened = Catalog::Open(&store_, &clock_).value();
  check(*reopened->snapshot());

  EXPECT_EQ(catalog_->DropType("ks", "outer", IfExists::kNo).message(),
            "Cannot drop user type 'ks.outer' as it is still used by tables t");
  ASSERT_TRUE(catalog_->DropKeyspace("ks", IfExists::kNo).ok());
  EXPECT_TRUE(catalog_->snapshot()->types.empty());
}

// A statement resolves its user types before the DDL mutex: the catalog
// refuses a definition a concurrent DROP or ALTER TYPE made stale.
TEST_F(CatalogTest, StaleUserTypesAreRefused) {
  auto addr = CqlType::Udt(
      "ks", "addr", {{"street", CqlType::Of(TypeKind::kVarchar)}}, false);
  ASSERT_TRUE(catalog_->CreateType(addr, IfNotExists::kNo).ok());
  TableDef t;
  t.keyspace = "ks";
  t.name = "t";
  t.columns = {Col("k", "int", ColumnKind::kPartitionKey),
               ColumnDef{"v", CqlType::Frozen(addr), ColumnKind::kRegular}};
  ASSERT_TRUE(catalog_->DropType("ks", "addr", IfExists::kNo).ok());
  EXPECT_EQ(catalog_->CreateTable(t, IfNotExists::kNo).message(),
            "Unknown type ks.addr");
  auto other =
      CqlType::Udt("ks", "addr", {{"n", CqlType::Of(TypeKind::kInt)}}, false);
  ASSERT_TRUE(catalog_->CreateType(other, IfNotExists::kNo).ok());
  EXPECT_EQ(catalog_->CreateTable(t, IfNotExists::kNo).message(),
            "User type ks.addr changed while the statement ran; run it again");
}

}  // namespace
}  // namespace keywise
