#include "tools/engramsim/cli_common.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "core/stop_signal.hpp"
#include "core/unit_parse.hpp"
#include "hardware/hardware_loader.hpp"
#include "planner/sweep_refusal.hpp"

namespace engramsim::cli {

std::string shell_command(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-+./:=,@%") == std::string::npos;
    std::string quoted = "'";
    for (const char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += (out.empty() ? "" : " ") + (plain ? a : quoted + "'");
  }
  return out;
}

namespace {

// The command that finishes a stopped run: its own arguments (or those it names) with --resume.
std::string resume_command(const RunStopped& e, const std::vector<std::string>& command_line) {
  if (command_line.empty()) return "";
  std::vector<std::string> args = {command_line.front()};
  if (e.resume_args().empty()) {
    args = command_line;
  } else {
    args.insert(args.end(), e.resume_args().begin(), e.resume_args().end());
  }
  if (std::find(args.begin(), args.end(), "--resume") == args.end()) args.push_back("--resume");
  return shell_command(args);
}

}  // namespace

int run_guarded(const std::function<int()>& body, const std::vector<std::string>& command_line) {
  try {
    return body();
  } catch (const RunStopped& e) {
    const std::string resume = resume_command(e, command_line);
    std::cerr << "stopped: " << stop_signal_name() << " received; " << e.what() << "; every finished point is kept"
              << (resume.empty() ? "" : ". To finish the run: " + resume) << "\n";
    return exit_code::interrupted;
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_code::bad_input;
  } catch (const UnitParseError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_code::bad_input;
  } catch (const TimeOutOfRange& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_code::bad_input;
  } catch (const planner::SweepRefusal& e) {
    std::cerr << "error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_code::failure;
  }
}

std::string engram_tier_label(const std::optional<EngramTier>& tier) { return tier ? to_string(*tier) : "none"; }

void check_output_folder(const std::string& path, const std::string& flag) {
  std::error_code ec;
  for (std::filesystem::path p = path; !p.empty(); p = p.parent_path()) {
    if (std::filesystem::exists(p, ec) && !std::filesystem::is_directory(p, ec))
      throw ConfigError({flag, 0, 0}, "", p.string() + " is a file, not a folder");
    if (p == p.parent_path()) break;
  }
}

void check_output_file(const std::string& path, const std::string& flag) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (path.empty() || !p.has_filename() || std::filesystem::is_directory(p, ec))
    throw ConfigError({flag, 0, 0}, "", path + " is a folder; give a file name");
  if (p.has_parent_path()) check_output_folder(p.parent_path().string(), flag);
}

TextTable::TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void TextTable::add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

namespace {
bool numeric_looking(const std::string& s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+');
}
}  // namespace

std::string TextTable::render() const {
  std::vector<std::size_t> width;
  for (const auto& r : rows_) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::ostringstream os;
  for (std::size_t ri = 0; ri < rows_.size(); ++ri) {
    const auto& r = rows_[ri];
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::size_t pad = width[i] - r[i].size();
      const bool right = ri > 0 && i > 0 && numeric_looking(r[i]);
      if (i > 0) os << "  ";
      if (right)
        os << std::string(pad, ' ') << r[i];
      else
        os << r[i] << (i + 1 < r.size() ? std::string(pad, ' ') : "");
    }
    os << "\n";
    if (ri == 0) {
      std::size_t total = 0;
      for (std::size_t i = 0; i < width.size(); ++i) total += width[i] + (i ? 2 : 0);
      os << std::string(total, '-') << "\n";
    }
  }
  return os.str();
}

void add_price_options(CLI::App* cmd, PriceCliArgs& a, const std::string& tier_help, const std::string& file_help) {
  cmd->add_option("--price-tier", a.price_tier, tier_help)->check(CLI::IsMember({"hyperscaler", "neocloud", "rental"}));
  cmd->add_option("--prices", a.prices, file_help)->check(CLI::ExistingFile);
}

void append_price_sets(const PriceCliArgs& a, std::vector<std::string>& set) {
  if (!a.price_tier.empty()) set.push_back("price_tier=" + a.price_tier);
  if (!a.prices.empty()) set.push_back("prices=" + std::filesystem::absolute(a.prices).lexically_normal().string());
}

std::string node_for(const std::string& gpu_or_node, const char* flag) {
  if (gpu_or_node.find('/') != std::string::npos || gpu_or_node.ends_with(".yaml")) return gpu_or_node;
  std::string gpu = gpu_or_node;
  std::transform(gpu.begin(), gpu.end(), gpu.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto entries = list_catalog("hardware/nodes");
  std::set<std::string> known;
  for (const auto& e : entries) {
    if (e.name == gpu) return e.name;
    known.insert(load_node(e.path).gpu.name);
  }
  for (const bool variant : {false, true})
    for (const auto& e : entries) {
      const std::string g = load_node(e.path).gpu.name;
      if (g == gpu || (variant && g.rfind(gpu + "-", 0) == 0)) return e.name;
    }
  const std::string near = ConfigNode::closest_key(gpu, known);
  throw ConfigError({flag, 0, 0}, flag + 2,
                    "no node preset has GPU '" + gpu_or_node + "'" +
                        (near.empty() ? "" : " (did you mean " + near + "?)") + "; engramsim list gpus / nodes");
}

}  // namespace engramsim::cli
