// TlsContextHolder and TlsReloader: a context rebuilt only when its files
// change, the old one kept when the new files do not load.
#include "net/tls_context_holder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "net/certificates.h"
#include "net/tls_context.h"
#include "net/tls_reloader.h"
#include "testing/temp_dir.h"

namespace keywise::net {
namespace {

class HolderFiles {
 public:
  HolderFiles() {
    ca_ = *MakeCertificateAuthority("Holder CA");
    Issue();
  }
  // Writes a new key and certificate to node.pem.
  void Issue() {
    CertificateSubject subject;
    subject.common_name = "node";
    subject.ip_addresses = {"127.0.0.1"};
    Result<CertifiedKey> leaf = IssueCertificate(ca_, subject);
    ASSERT_TRUE(leaf.ok());
    Write(leaf->key_pem + leaf->cert_pem);
  }
  void Write(const std::string& text) {
    ASSERT_TRUE(WritePemFile(keystore(), text, PemFileAccess::kPrivate).ok());
  }
  std::string keystore() const { return dir_.str() + "/node.pem"; }

  // A holder of the server context of node.pem, counting its builds.
  std::shared_ptr<TlsContextHolder> Holder(std::atomic<int>* builds) const {
    TlsOptions options;
    options.enabled = true;
    options.keystore = keystore();
    auto holder = TlsContextHolder::Create(
        "client_encryption_options", {options.keystore, ""},
        [options, builds]() -> Result<TlsContextHolder::Context> {
          builds->fetch_add(1);
          KW_ASSIGN_OR_RETURN(ServerTlsContext built,
                              BuildServerTlsContext(options, "test"));
          return built.context;
        });
    EXPECT_TRUE(holder.ok()) << holder.status().ToString();
    return *holder;
  }

 private:
  keywise::testing::TempDir dir_;
  CertifiedKey ca_;
};

TEST(TlsContextHolder, RebuildsOnlyWhenAFileChanged) {
  HolderFiles files;
  std::atomic<int> builds{0};
  auto holder = files.Holder(&builds);
  EXPECT_EQ(builds.load(), 1);
  const auto first = holder->Current();
  Result<bool> again = holder->ReloadIfChanged();
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(builds.load(), 1);
  files.Issue();
  Result<bool> changed = holder->ReloadIfChanged();
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_TRUE(*changed);
  EXPECT_NE(holder->Current(), first);
  EXPECT_EQ(builds.load(), 2);
}

TEST(TlsContextHolder, KnowsWhenItsCertificateExpires) {
  HolderFiles files;
  std::atomic<int> builds{0};
  auto holder = files.Holder(&builds);
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const int64_t expected =
      now + std::chrono::duration_cast<std::chrono::seconds>(
                kDefaultCertificateValidity)
                .count();
  // Issued an hour back, for the default validity.
  EXPECT_NEAR(static_cast<double>(holder->CertificateNotAfter()),
              static_cast<double>(expected), 2 * 3600.0);
}

TEST(TlsContextHolder, KeepsItsContextWhenTheNewFilesDoNotLoad) {
  HolderFiles files;
  std::atomic<int> builds{0};
  auto holder = files.Holder(&builds);
  const auto good = holder->Current();
  files.Write("-----BEGIN PRIVATE KEY-----\nhalf written");
  Result<bool> failed = holder->ReloadIfChanged();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("node.pem"), std::string::npos)
      << failed.status().ToString();
  EXPECT_EQ(holder->Current(), good);
  // Still failing next time (the error is not forgotten), then fixed.
  EXPECT_FALSE(holder->ReloadIfChanged().ok());
  files.Issue();
  Result<bool> fixed = holder->ReloadIfChanged();
  ASSERT_TRUE(fixed.ok());
  EXPECT_TRUE(*fixed);
  EXPECT_NE(holder->Current(), good);
}

TEST(TlsContextHolder, CreateReturnsTheFirstBuildsError) {
  HolderFiles files;
  files.Write("not a pem file");
  TlsOptions options;
  options.enabled = true;
  options.keystore = files.keystore();
  auto holder = TlsContextHolder::Create(
      "x", {options.keystore},
      [options]() -> Result<TlsContextHolder::Context> {
        KW_ASSIGN_OR_RETURN(ServerTlsContext built,
                            BuildServerTlsContext(options, "section"));
        return built.context;
      });
  ASSERT_FALSE(holder.ok());
  EXPECT_NE(holder.status().message().find("section.keystore"),
            std::string::npos)
      << holder.status().ToString();
}

TEST(TlsReloader, ReportsEachContextAndTheFailures) {
  HolderFiles files;
  std::atomic<int> builds{0};
  TlsReloader reloader({files.Holder(&builds)});
  Result<std::string> none = reloader.CheckNow();
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, "client_encryption_options: unchanged\n");
  files.Issue();
  Result<std::string> reloaded = reloader.CheckNow();
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(*reloaded, "client_encryption_options: reloaded\n");
  files.Write("garbage");
  Result<std::string> failed = reloader.CheckNow();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("not reloaded"), std::string::npos);
}

TEST(TlsReloader, ChecksPeriodically) {
  HolderFiles files;
  std::atomic<int> builds{0};
  TlsReloader reloader({files.Holder(&builds)});
  reloader.Start(std::chrono::milliseconds(20));
  files.Issue();
  for (int i = 0; i < 500 && builds.load() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(builds.load(), 2);
  reloader.Stop();
}

}  // namespace
}  // namespace keywise::net
