#include "tests/fuzz/fuzz_support.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>

#include "core/error.hpp"

namespace engramsim::fuzz {
namespace {

std::filesystem::path scratch_root() {
  if (const char* env = std::getenv("ENGRAMSIM_FUZZ_TMP"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

}  // namespace

std::string as_text(const std::uint8_t* data, std::size_t size) {
  return size == 0 ? std::string() : std::string(reinterpret_cast<const char*>(data), size);
}

std::pair<std::string, std::string> split_once(const std::string& text, const std::string& separator) {
  const std::size_t at = text.find(separator);
  if (at == std::string::npos) return {text, std::string()};
  return {text.substr(0, at), text.substr(at + separator.size())};
}

ScratchDir::ScratchDir() : dir_(scratch_root() / ("engramsim-fuzz-" + std::to_string(::getpid()))) {
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;  // a destructor must not throw; a folder left behind is emptied by the next input
  std::filesystem::remove_all(dir_, ec);
}

std::string ScratchDir::write(const std::string& name, const std::string& text) const {
  const std::filesystem::path file = dir_ / name;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw std::runtime_error("fuzz harness: cannot write " + file.string());
  return file.string();
}

void refusal_is_fine(const std::function<void()>& load) {
  try {
    load();
  } catch (const ConfigError& e) {
    // Bad input refused with a location: what a loader should do. Shown on request, to see which
    // check an input reaches.
    if (std::getenv("ENGRAMSIM_FUZZ_SHOW_REFUSALS") != nullptr) std::fprintf(stderr, "refused: %s\n", e.what());
  }
}

}  // namespace engramsim::fuzz
