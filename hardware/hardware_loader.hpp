// Typed, strict loaders for the hardware catalog (hardware/gpus/*.yaml, hardware/nodes/*.yaml) and
// a lister of any catalog folder.
//
// A name without '/' and without ".yaml" resolves through resolve_catalog_path() under the data
// root; anything else is a path. A node names its GPU in `gpu:`; a catalog name resolves under
// hardware/gpus, a relative path resolves against the node file's own folder (so a private node
// file can sit beside a private GPU file).
//
// Every value carries its unit in the file ("288GiB", "8TB/s", "70us", "2.34USD/h"); unknown keys,
// bare numbers, wrong units and out-of-range values throw ConfigError naming file:line:col and the
// field path. Invariants after a successful load:
//   GpuSpec:  0 < hbm_usable <= hbm_capacity; every rate > 0; dense_flops non-empty and never
//             faster at a wider precision than at a narrower one (catches a TFLOPS/PFLOPS slip).
//   NodeSpec: gpu_count >= 1; scale_up_domain_gpus >= gpu_count; every GPU index in exactly one
//             topology.gpu_groups entry and every drive index in exactly one drive_groups entry;
//             every size, rate, latency and price > 0.
// Schema, units and where the numbers come from: docs/hardware.md.
#pragma once

#include <string>
#include <vector>

#include "core/field_table.hpp"
#include "hardware/gpu_spec.hpp"
#include "hardware/node_spec.hpp"

namespace engramsim {

// The keys of a GPU file and of a node file, declared once: the loaders read them, the key tables
// of docs/hardware.md are theirs (tests/hardware/test_hardware_schema.cpp).
const FieldTable<GpuSpec>& gpu_schema();
const FieldTable<NodeSpec>& node_schema();

GpuSpec load_gpu(const std::string& name_or_path);
NodeSpec load_node(const std::string& name_or_path);

struct CatalogEntry {
  std::string name;         // the file's `name:`
  std::string description;  // the file's `description:` ("" when the file has none)
  std::string path;         // where it was read from
};

// Every *.yaml directly under <data root>/<kind_folder> ("hardware/gpus", "hardware/nodes",
// "models/cards"), reading only `name` and `description`, sorted by name. A missing folder gives an
// empty list; a file without `name` is an error naming it.
std::vector<CatalogEntry> list_catalog(const std::string& kind_folder);

}  // namespace engramsim
