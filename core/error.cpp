#include "core/error.hpp"

#include <sstream>

namespace engramsim {
namespace {
std::string render(const SourceLocation& w, const std::string& field, const std::string& msg) {
  std::ostringstream os;
  // No file (a command-line option, an in-memory structure): the field alone says where.
  if (!w.file.empty() || field.empty()) {
    os << (w.file.empty() ? std::string("<input>") : w.file);
    if (w.line > 0) {
      os << ':' << w.line;
      if (w.column > 0) os << ':' << w.column;
    }
    os << ": ";
  }
  if (!field.empty()) os << field << ": ";
  os << msg;
  return os.str();
}
}  // namespace

ConfigError::ConfigError(SourceLocation where, std::string field, std::string message)
    : std::runtime_error(render(where, field, message)),
      where_(std::move(where)),
      field_(std::move(field)),
      message_(std::move(message)) {}

}  // namespace engramsim
