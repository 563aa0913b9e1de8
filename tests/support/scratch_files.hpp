// Files in a scratch folder of this test process, <system temp>/<folder><process id>: made when
// first used and left in place, so that a test can name a file before or after writing it.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace engramsim::test {

class ScratchFiles {
 public:
  explicit ScratchFiles(const std::string& folder)
      : dir_(std::filesystem::temp_directory_path() / (folder + std::to_string(static_cast<long long>(::getpid())))) {}

  // DIR/name.
  std::string path(const std::string& name) const {
    std::filesystem::create_directories(dir_);
    return (dir_ / name).string();
  }
  // Writes `content` to DIR/name and returns that path.
  std::string write(const std::string& name, const std::string& content) const {
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  // The same, gzip-compressed.
  std::string write_gz(const std::string& name, const std::string& content) const {
    const std::string p = path(name);
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
    gzclose(f);
    return p;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace engramsim::test
