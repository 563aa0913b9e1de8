// The engine command line a built scenario models, so a recommendation can be tried on real
// hardware: `vllm serve ...` for the vllm presets, `python -m sglang.launch_server ...` for sglang,
// `trtllm-serve ...` for trtllm. Only the settings the simulator models are written (parallelism,
// Engram tier, scheduler limits, KV pool share, prefix caching, chunked prefill, CUDA-graph capture
// size, speculative decoding, KV offload); every other flag is the engine's default. The model is the
// card's public checkpoint (`hf_repo`); a card without one is named by its catalog key, under a
// comment line saying to replace it with the weights' path. A disaggregated deployment gets one
// command per pool, with its engine's transfer flags (vLLM's NIXL connector, SGLang's
// --disaggregation-mode, TensorRT-LLM's cache transceiver), and a line on how to route between them.
// Pure.
#pragma once

#include <optional>
#include <string>

#include "scenario/build/scenario_build.hpp"

namespace engramsim::scenario {

// One shell command, flags one per line (backslash-continued); nullopt for an engine preset with
// no real engine behind it (nano-vllm).
std::optional<std::string> serve_command(const BuiltScenario& b);

// The model a serve command loads: the card's hf_repo, else its catalog name.
std::string served_model(const ModelCard& card);

}  // namespace engramsim::scenario
