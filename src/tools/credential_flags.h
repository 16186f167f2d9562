// CredentialFlags: cqlsh's -u/--username and -p/--password, for every
// command that connects over CQL (shell, bench, advise, admin's node
// commands), so a node with PasswordAuthenticator is reachable from all of
// them the same way (docs/security.md, 1.7). As cqlsh, -u without -p asks
// for the password on the terminal (without echoing it); without a
// terminal the password is empty and the node refuses the login.
//
// Contract: Add once per command before parsing; Apply after (it may read
// the terminal).
#pragma once

#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "client/connection.h"

namespace keywise {

struct CredentialFlags {
  std::string user;
  std::string password;
  CLI::Option* password_option = nullptr;

  void Add(CLI::App* command) {
    command->add_option("-u,--username", user,
                        "Log in as this role (PasswordAuthenticator)");
    password_option = command->add_option(
        "-p,--password", password,
        "The role's password (asked for on the terminal when -u is given "
        "without it)");
  }
  void Apply(client::ConnectOptions* options) const {
    options->user = user;
    options->password = password;
    if (!user.empty() && password_option != nullptr &&
        password_option->count() == 0 && isatty(STDIN_FILENO)) {
      options->password = ReadPassword();
    }
  }

 private:
  // "Password: " on stderr, then a line from the terminal without echo.
  static std::string ReadPassword() {
    termios old{};
    const bool restore = tcgetattr(STDIN_FILENO, &old) == 0;
    if (restore) {
      termios quiet = old;
      quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
      tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    }
    // The prompt once echo is off: what is typed after it stays unseen.
    std::fputs("Password: ", stderr);
    std::fflush(stderr);
    std::string line;
    std::getline(std::cin, line);
    if (restore) tcsetattr(STDIN_FILENO, TCSANOW, &old);
    std::fputs("\n", stderr);
    return line;
  }
};

}  // namespace keywise
