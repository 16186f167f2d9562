// CredentialFlags: cqlsh's -u/--username and -p/--password, for every
// command that connects over CQL (shell, bench, advise, admin's node
// commands), so a node with PasswordAuthenticator is reachable from all of
// them the same way (docs/security.md, 1.7).
//
// Contract: Add once per command before parsing; Apply after.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "client/connection.h"

namespace keywise {

struct CredentialFlags {
  std::string user;
  std::string password;

  void Add(CLI::App* command) {
    command->add_option("-u,--username", user,
                        "Log in as this role (PasswordAuthenticator)");
    command->add_option("-p,--password", password, "The role's password");
  }
  void Apply(client::ConnectOptions* options) const {
    options->user = user;
    options->password = password;
  }
};

}  // namespace keywise
