// The reloadable TLS contexts of a node's settings (docs/security.md, 5):
// client_encryption_options for the CQL port and server_encryption_options
// for node-to-node messaging, each a net::TlsContextHolder over its
// keystore and truststore, so net::TlsReloader can rebuild them when the
// files change.
//
// Contract: plain functions; they read the files named and log the
// settings in effect (and each dropped cipher suite, as WARN) once.
// ConfigError names the setting and file at fault.
#pragma once

#include <memory>
#include <string_view>

#include "cluster/messaging/messaging_options.h"
#include "common/status.h"
#include "net/tls_context.h"
#include "metrics/registry.h"
#include "net/tls_context_holder.h"
#include "net/tls_reloader.h"

namespace keywise::server {

// The server context of `options` (REQUIRES: enabled), named `section`;
// `port` says where it applies in the log line ("the CQL port").
Result<std::shared_ptr<net::TlsContextHolder>> MakeServerTlsHolder(
    const net::TlsOptions& options, std::string_view section,
    std::string_view port);

// server_encryption_options as messaging applies it: with
// internode_encryption none, nothing (plain both ways), unless `optional`
// is set true: then TLS is accepted beside plain and connections go out
// plain (turning TLS on one node at a time, docs/security.md 5.2); else
// the server context for incoming connections (plain ones too when
// `optional`) and the client context for outgoing ones. Keywise does not tell data
// centers and racks apart here: dc and rack encrypt every connection, as
// all does.
Result<cluster::MessagingTls> MakeMessagingTls(const net::TlsOptions& options);

// keywise_tls_certificate_expiry_timestamp_seconds{context} and
// keywise_tls_reload_failures_total of `reloader`'s contexts, read at each
// scrape (docs/metrics.md). `reloader` must outlive the handle.
metrics::CollectorHandle TlsMetrics(metrics::Registry* registry,
                                    const net::TlsReloader* reloader);

}  // namespace keywise::server
