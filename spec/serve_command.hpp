// The engine command line a built scenario models, so a recommendation can be tried on real
// hardware: `vllm serve ...` for the vllm presets, `python -m sglang.launch_server ...` for sglang,
// `trtllm-serve ...` for trtllm. Only the settings the simulator models are written (parallelism,
// Engram tier, scheduler limits, KV pool share, prefix caching, chunked prefill, CUDA-graph capture
// size, speculative decoding, KV offload); every other flag is the engine's default. The model is the
// card's catalog name: replace it with the checkpoint's path or hub id. Pure.
#pragma once

#include <optional>
#include <string>

#include "spec/scenario_build.hpp"

namespace engramsim::sim {

// One shell command, flags one per line (backslash-continued); nullopt for an engine preset with
// no real engine behind it (nano-vllm).
std::optional<std::string> serve_command(const BuiltScenario& b);

}  // namespace engramsim::sim
