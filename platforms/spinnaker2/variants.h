// Named variants of the SpiNNaker2 platforms (tools/scenario/variants.h): plain parameter tables,
// no SystemC, so that the scenario loader can check a variant's name.
#pragma once

#include "tools/scenario/variants.h"

namespace nmsim::spinnaker2 {

// spinnaker2_chip, variant "prototype": the 28 nm SpiNNaker2 prototype of seed 003 (4 PEs at
// 500 MHz and 1.0 V, one LPDDR2 interface to 128 MB); energy derivation in docs/energy.md.
const scenario::PlatformVariant& prototype_variant();

}  // namespace nmsim::spinnaker2
