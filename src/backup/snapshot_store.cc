#include "backup/snapshot_store.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "backup/schema_files.h"
#include "backup/snapshot_loader.h"
#include "common/log.h"
#include "system/local_table.h"

namespace keywise::backup {
namespace {

namespace fs = std::filesystem;

constexpr int kManifestFormat = 1;

Status DiskError(const std::string& what, const std::error_code& ec) {
  return Status::ServerError(what + ": " + ec.message());
}

Status WriteFile(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return DiskError("Cannot create " + path.parent_path().string(), ec);
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return Status::ServerError("Cannot write " + tmp.string());
  }
  fs::rename(tmp, path, ec);
  if (ec) return DiskError("Cannot write " + path.string(), ec);
  return Status::OK();
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The checkpoint's files and their sizes; `true_size` counts those the
// live data directory no longer holds (compacted away since).
void MeasureFiles(const fs::path& checkpoint, const fs::path& data_dir,
                  SnapshotInfo* info) {
  std::error_code ec;
  for (auto it = fs::directory_iterator(checkpoint, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const uint64_t size = it->file_size(ec);
    if (ec) continue;
    info->size_on_disk += size;
    std::error_code same_ec;
    const fs::path live = data_dir / it->path().filename();
    if (!fs::equivalent(it->path(), live, same_ec) || same_ec) {
      info->true_size += size;
    }
  }
}

}  // namespace

Result<std::string> ReadSnapshotFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Invalid("Cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Status ValidateSnapshotTag(const std::string& tag) {
  if (tag.empty()) return Status::Invalid("You must supply a snapshot name.");
  if (tag.find('/') != std::string::npos) {
    return Status::Invalid("Snapshot name cannot contain /");
  }
  if (tag == "." || tag == "..") {
    return Status::Invalid("Snapshot name cannot be " + tag);
  }
  return Status::OK();
}

std::string ManifestJson(const SnapshotInfo& info) {
  nlohmann::ordered_json j;
  j["format"] = kManifestFormat;
  j["tag"] = info.tag;
  j["created_at"] = info.created_at_ms;
  j["cluster_name"] = info.cluster_name;
  j["host_id"] = info.host_id;
  j["sequence"] = info.sequence;
  j["flushed"] = info.flushed;
  j["tables"] = nlohmann::ordered_json::array();
  for (const SnapshotTable& t : info.tables) {
    j["tables"].push_back({{"keyspace", t.keyspace},
                           {"table", t.table},
                           {"id", t.id},
                           {"storage_id", t.storage_id}});
  }
  j["files"] = info.files;
  return j.dump(2) + "\n";
}

Result<SnapshotInfo> ParseManifest(const std::string& text) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.at("format").get<int>() != kManifestFormat) {
      return Status::Invalid("Unknown snapshot manifest format " +
                             j.at("format").dump());
    }
    SnapshotInfo info;
    info.tag = j.at("tag").get<std::string>();
    info.created_at_ms = j.at("created_at").get<int64_t>();
    info.cluster_name = j.value("cluster_name", "");
    info.host_id = j.value("host_id", "");
    info.sequence = j.value("sequence", uint64_t{0});
    info.flushed = j.value("flushed", true);
    for (const auto& t : j.at("tables")) {
      info.tables.push_back({t.at("keyspace").get<std::string>(),
                             t.at("table").get<std::string>(),
                             t.value("id", ""),
                             t.value("storage_id", uint64_t{0})});
    }
    info.files = j.value("files", std::vector<std::string>{});
    return info;
  } catch (const nlohmann::json::exception& e) {
    return Status::Invalid(std::string("Malformed snapshot manifest: ") +
                           e.what());
  }
}

SnapshotStore::SnapshotStore(Engine* engine, std::string data_dir,
                             std::string cluster_name, RawWriter loads)
    : engine_(engine),
      data_dir_(std::move(data_dir)),
      root_(data_dir_ + "/snapshots"),
      cluster_name_(std::move(cluster_name)),
      loads_(std::move(loads)) {}

Status SnapshotStore::Take(const std::string& tag,
                           const std::vector<query::SnapshotTarget>& tables,
                           CheckpointFlush flush) {
  KW_RETURN_IF_ERROR(ValidateSnapshotTag(tag));
  std::lock_guard<std::mutex> lock(mu_);
  const std::string dir = root_ + "/" + tag;
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    return Status::Invalid("Snapshot " + tag + " already exists.");
  }
  fs::create_directories(dir, ec);
  if (ec) return DiskError("Cannot create " + dir, ec);
  Status taken = TakeLocked(dir, tag, tables, flush);
  if (!taken.ok()) fs::remove_all(dir, ec);
  return taken;
}

Status SnapshotStore::TakeLocked(
    const std::string& dir, const std::string& tag,
    const std::vector<query::SnapshotTarget>& tables, CheckpointFlush flush) {
  const SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  SnapshotInfo info;
  info.tag = tag;
  info.cluster_name = cluster_name_;
  info.flushed = flush == CheckpointFlush::kFlush;
  for (const query::SnapshotTarget& target : tables) {
    if (schema->FindKeyspace(target.keyspace) == nullptr) {
      return Status::Invalid("Keyspace " + target.keyspace +
                             " does not exist");
    }
    TableDefPtr table = schema->FindTable(target.keyspace, target.table);
    if (table == nullptr || table->IsView()) {
      return Status::Invalid("Unknown keyspace/cf pair (" + target.keyspace +
                             "." + target.table + ")");
    }
    KW_ASSIGN_OR_RETURN(std::string keyspace_cql,
                        KeyspaceSchemaCql(*schema, table->keyspace));
    KW_RETURN_IF_ERROR(WriteFile(
        fs::path(dir) / "schema" / (table->keyspace + ".cql"), keyspace_cql));
    KW_ASSIGN_OR_RETURN(std::string cql, TableSchemaCql(*schema, *table));
    KW_RETURN_IF_ERROR(WriteFile(fs::path(dir) / "schema" / table->keyspace /
                                     (table->name + ".cql"),
                                 cql));
    info.tables.push_back({table->keyspace, table->name, table->id.ToString(),
                           static_cast<uint64_t>(table->storage_id)});
  }
  if (TableDefPtr local = schema->FindTable("system", "local")) {
    Result<system::LocalIdentity> id =
        system::ReadLocalIdentity(*engine_, *local);
    if (id.ok() && id->host_id) info.host_id = id->host_id->ToString();
  }
  info.created_at_ms = NowMillis();
  KW_ASSIGN_OR_RETURN(info.sequence,
                      engine_->CreateCheckpoint(dir + "/checkpoint", flush));
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir + "/checkpoint", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    info.files.push_back(it->path().filename().string());
  }
  if (ec) return DiskError("Cannot list " + dir + "/checkpoint", ec);
  std::sort(info.files.begin(), info.files.end());
  return WriteFile(fs::path(dir) / "manifest.json", ManifestJson(info));
}

Status SnapshotStore::Clear(const std::string& tag,
                            const std::string& keyspace) {
  KW_RETURN_IF_ERROR(ValidateSnapshotTag(tag));
  std::lock_guard<std::mutex> lock(mu_);
  const fs::path dir = fs::path(root_) / tag;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::OK();
  if (!keyspace.empty()) {
    KW_ASSIGN_OR_RETURN(std::string text, ReadSnapshotFile((dir / "manifest.json").string()));
    KW_ASSIGN_OR_RETURN(SnapshotInfo info, ParseManifest(text));
    std::erase_if(info.tables, [&](const SnapshotTable& t) {
      return t.keyspace == keyspace;
    });
    fs::remove_all(dir / "schema" / keyspace, ec);
    if (!ec) fs::remove(dir / "schema" / (keyspace + ".cql"), ec);
    if (ec) return DiskError("Cannot remove " + dir.string(), ec);
    if (!info.tables.empty()) {
      return WriteFile(dir / "manifest.json", ManifestJson(info));
    }
  }
  fs::remove_all(dir, ec);
  if (ec) return DiskError("Cannot remove " + dir.string(), ec);
  return Status::OK();
}

Status SnapshotStore::Load(const std::string& dir, const std::string& keyspace,
                           const std::string& table) {
  if (!loads_) {
    return Status::Invalid("Snapshots cannot be loaded on this node");
  }
  KW_ASSIGN_OR_RETURN(
      LoadCounts counts,
      LoadTableFromCheckpoint(dir + "/checkpoint", *engine_, loads_,
                              keyspace, table));
  LogInfo("backup", "Loaded " + std::to_string(counts.partitions) +
                        " partitions (" + std::to_string(counts.rows) +
                        " rows) of " + keyspace + "." + table + " from " +
                        dir);
  return Status::OK();
}

Result<std::vector<SnapshotInfo>> SnapshotStore::List() const {
  std::vector<SnapshotInfo> out;
  std::error_code ec;
  if (!fs::exists(root_, ec)) return out;
  for (auto it = fs::directory_iterator(root_, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path manifest = it->path() / "manifest.json";
    std::error_code exists_ec;
    if (!fs::exists(manifest, exists_ec)) continue;  // being taken
    KW_ASSIGN_OR_RETURN(std::string text, ReadSnapshotFile(manifest.string()));
    KW_ASSIGN_OR_RETURN(SnapshotInfo info, ParseManifest(text));
    MeasureFiles(it->path() / "checkpoint", data_dir_, &info);
    out.push_back(std::move(info));
  }
  if (ec) return DiskError("Cannot list " + root_, ec);
  std::sort(out.begin(), out.end(),
            [](const SnapshotInfo& a, const SnapshotInfo& b) {
              return a.tag < b.tag;
            });
  return out;
}

}  // namespace keywise::backup
