// Fuzz target: a calibration profile (hardware/calibrations/*.yaml) as `engramsim validate`
// checks it: loaded, then the raw samples file it names checked against its recorded hash.
#include "hardware/calibration_profile.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace engramsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::ScratchDir dir;
  const std::string path = dir.write("profile.yaml", fuzz::as_text(data, size));
  fuzz::refusal_is_fine([&] {
    const CalibrationProfile p = load_calibration_profile(path);
    if (!p.provenance.samples_file.empty()) static_cast<void>(verify_samples_file(p, path));
  });
  return 0;
}
