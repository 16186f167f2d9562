#include "server/node_tls.h"

#include <string>
#include <utility>

#include "common/log.h"

namespace keywise::server {
namespace {
constexpr char kTlsLog[] = "tls";
}  // namespace

Result<std::shared_ptr<net::TlsContextHolder>> MakeServerTlsHolder(
    const net::TlsOptions& options, std::string_view section,
    std::string_view port) {
  bool first = true;
  return net::TlsContextHolder::Create(
      std::string(section), {options.keystore, options.truststore},
      [options, section = std::string(section), port = std::string(port),
       first]() mutable -> Result<net::TlsContextHolder::Context> {
        KW_ASSIGN_OR_RETURN(net::ServerTlsContext built,
                            net::BuildServerTlsContext(options, section));
        if (first) {
          for (const std::string& warning : built.warnings) {
            LogWarn(kTlsLog, warning);
          }
          LogInfo(kTlsLog, "TLS on " + port + ": " + built.summary);
          first = false;
        }
        return std::move(built.context);
      });
}

Result<cluster::MessagingTls> MakeMessagingTls(const net::TlsOptions& options) {
  cluster::MessagingTls tls;
  constexpr std::string_view kSection = "server_encryption_options";
  if (!options.enabled) {
    // none: plain both ways; with an explicit optional: true, TLS is
    // accepted beside plain while connections go out plain (Cassandra's
    // first step of turning TLS on one node at a time).
    if (!options.optional.value_or(false)) return tls;
    KW_ASSIGN_OR_RETURN(
        tls.incoming,
        MakeServerTlsHolder(options, kSection, "the storage port (messaging)"));
    tls.accept_plain = true;
    return tls;
  }
  if (options.internode_encryption != "all") {
    LogInfo(kTlsLog, "internode_encryption: " + options.internode_encryption +
                         " encrypts every node-to-node connection (Keywise "
                         "does not tell data centers and racks apart)");
  }
  KW_ASSIGN_OR_RETURN(
      tls.incoming,
      MakeServerTlsHolder(options, kSection, "the storage port (messaging)"));
  tls.accept_plain = options.IsOptional();
  KW_ASSIGN_OR_RETURN(
      tls.outgoing,
      net::TlsContextHolder::Create(
          std::string(kSection) + " (outgoing)",
          {options.keystore, options.truststore}, [options, kSection] {
            return net::BuildPeerClientTlsContext(options, kSection);
          }));
  tls.verify_peer_address = options.require_endpoint_verification;
  return tls;
}

metrics::CollectorHandle TlsMetrics(metrics::Registry* registry,
                                    const net::TlsReloader* reloader) {
  return metrics::CollectorHandle(registry, [reloader](
                                                metrics::TextWriter& out) {
    out.Family("keywise_tls_certificate_expiry_timestamp_seconds",
               "When the certificate each TLS context presents expires "
               "(seconds since the Unix epoch).",
               metrics::MetricType::kGauge);
    for (const auto& holder : reloader->holders()) {
      const int64_t not_after = holder->CertificateNotAfter();
      if (not_after > 0) {
        out.Sample({{"context", holder->name()}},
                   static_cast<uint64_t>(not_after));
      }
    }
    out.Single("keywise_tls_reload_failures_total",
               "Certificate reloads whose changed files did not load (the "
               "old certificate stayed).",
               metrics::MetricType::kCounter, reloader->failures());
  });
}

}  // namespace keywise::server
