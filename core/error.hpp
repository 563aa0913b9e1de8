// Errors that carry where bad input came from.
//
// ConfigError renders as "file:line:col: field.path: message" (line and column 1-based; omitted
// when unknown). Every loader throws it for bad input; the CLI maps it to exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace engramsim {

struct SourceLocation {
  std::string file;  // as given by the user
  int line = 0;      // 1-based; 0 = unknown
  int column = 0;    // 1-based; 0 = unknown
};

class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourceLocation where, std::string field, std::string message);
  const SourceLocation& where() const { return where_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string field_;
  std::string message_;
};

// Exit codes shared by every engramsim command (documented in docs/cli.md).
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int failure = 1;       // an internal or I/O failure
inline constexpr int bad_input = 2;     // bad input: config, trace, profile or command line
inline constexpr int infeasible = 3;    // the deployment does not fit (footprint)
inline constexpr int check_failed = 4;  // a check failed: an SLO, a golden, a validation tolerance, a complete merge
}  // namespace exit_code

}  // namespace engramsim
