// engramsim-gpu-calibrate: the GPU half of `engramsim calibrate`, built by tools/gpu-check.sh on a
// machine that has only the CUDA toolkit, CMake and a compiler (no yaml-cpp, CLI11 or GoogleTest),
// such as a lent GPU box without network. Same benchmarks, checks, fits and profile format.
//
//   engramsim-gpu-calibrate --out DIR/profile.yaml [--quick] [--only gemm,hbm_gather,...]
//                           [--device N] [--seed N] [--gpu-table-size 2GiB] [--name NAME]
//   engramsim-gpu-calibrate --probe      # print the GPU environment; exit 0 when a GPU is usable
// Exit codes: 0 ok; 1 a check failed, a benchmark broke, or no GPU; 2 bad arguments.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "calibration/calibration_runner.hpp"
#include "calibration/gpu_benchmarks.hpp"
#include "core/error.hpp"
#include "core/unit_parse.hpp"
#include "hardware/calibration_profile.hpp"

namespace {

using namespace engramsim;
using namespace engramsim::calibration;

int usage(const std::string& why) {
  std::cerr << "error: " << why << "\n"
            << "usage: engramsim-gpu-calibrate --out FILE [--quick] [--only LIST] [--device N] [--seed N]"
               " [--gpu-table-size SIZE] [--name NAME] | --probe\n";
  return exit_code::bad_input;
}

void print_environment(const GpuEnvironment& e) {
  std::cout << "CUDA support compiled in: " << (e.compiled ? "yes" : "no") << "\n";
  std::cout << "driver: " << (e.driver_version.empty() ? "-" : e.driver_version)
            << ", CUDA runtime: " << (e.runtime_version.empty() ? "-" : e.runtime_version)
            << ", cuBLASLt: " << (e.cublas_version.empty() ? "-" : e.cublas_version) << "\n";
  for (const auto& d : e.devices)
    std::cout << "GPU " << d.ordinal << ": " << d.name << ", sm_" << d.cc_major << d.cc_minor << ", " << d.sm_count
              << " SMs, " << (d.memory_bytes >> 20) << " MiB, L2 " << (d.l2_bytes >> 20) << " MiB\n";
  if (!e.available) std::cout << "no usable GPU: " << e.reason << "\n";
}

int run(int argc, char** argv) {
  CalibrationOptions o;
  std::string out;
  std::string only = "gpu";
  bool probe = false;
  o.command_line = "engramsim-gpu-calibrate";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    o.command_line += " " + a;
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw ConfigError({"command line", 0, 0}, a, "needs a value");
      o.command_line += std::string(" ") + argv[i + 1];
      return argv[++i];
    };
    if (a == "--out")
      out = value();
    else if (a == "--quick")
      o.quick = true;
    else if (a == "--probe")
      probe = true;
    else if (a == "--only")
      only = value();
    else if (a == "--device")
      o.gpu_device = std::stoi(value());
    else if (a == "--seed")
      o.seed = std::stoull(value());
    else if (a == "--name")
      o.name = value();
    else if (a == "--gpu-table-size")
      o.gpu_table_size = static_cast<std::uint64_t>(parse_bytes(value()).value());
    else
      return usage("unknown argument " + a);
  }
  const GpuEnvironment env = probe_gpu_environment();
  if (probe) {
    print_environment(env);
    return env.available ? exit_code::ok : exit_code::failure;
  }
  if (out.empty()) return usage("--out is required");
  o.sections = resolve_benchmark_list(only);
  for (const auto& s : o.sections)
    if (!is_gpu_section(s)) return usage("this tool runs GPU benchmarks only; \"" + s + "\" is a host benchmark");
  print_environment(env);
  if (!env.available) {
    std::cerr << "error: nothing to measure without a GPU\n";
    return exit_code::failure;
  }
  const auto start = std::chrono::steady_clock::now();
  const Progress progress = [&](const std::string& section, const std::string& what) {
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "[%6.1fs] ",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::cout << stamp << section << ": " << what << std::endl;
  };
  CalibrationRun runv;
  run_gpu_benchmarks(o, runv, progress);
  fill_provenance(o, env, runv);
  std::cout << "\n";
  for (const auto& d : describe_sections(runv.profile))
    if (is_gpu_section(d.name)) std::cout << d.name << ": " << to_string(d.state) << ": " << d.detail << "\n";
  bool any = false;
  for (const auto& n : calibration_section_names()) any = any || has_section_data(runv.profile, n);
  if (any) {
    write_calibration_run(runv, out);
    std::cout << "\nwrote " << out << " and " << samples_path_for(out) << "\n";
  }
  for (const auto& w : runv.warnings) std::cout << "warning: " << w << "\n";
  for (const auto& f : runv.failures) std::cerr << "error: " << f << "\n";
  if (!any) std::cerr << "error: nothing could be measured\n";
  if (runv.failures.empty()) std::cout << "all correctness checks that ran passed\n";
  return any && runv.failures.empty() ? exit_code::ok : exit_code::failure;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const engramsim::ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return engramsim::exit_code::bad_input;
  } catch (const engramsim::UnitParseError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return engramsim::exit_code::bad_input;
  } catch (const engramsim::calibration::GpuCorrectnessError& e) {
    std::cerr << "CORRECTNESS FAILURE: " << e.what() << "\n";
    return engramsim::exit_code::failure;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return engramsim::exit_code::failure;
  }
}
