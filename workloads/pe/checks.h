// The checks of the pe workload: each is prepared before the run (operands and shapes checked
// against the buffers; errors name workload.pe.checks.<i>) and evaluated on the buffers' contents
// after it, against the integer references of tools/reference.
#pragma once

#include <string>
#include <vector>

#include "platforms/spinnaker2/pe_platform.h"
#include "tools/reference/int_ops.h"
#include "workloads/pe/buffers.h"
#include "workloads/pe/spec.h"

namespace nmsim::workloads::pe {

struct PreparedCheck {
    const Check* check;
    std::string title;
    reference::MlaOp op;         // kind reference
    std::vector<uint8_t> c_old;  // accumulate: result buffer before the run
};

struct CheckOutcome {
    bool passed = false;
    std::string detail;
};

// Throws scenario::ScenarioError for operands that do not fit the reference.
// `p`: the PEs' parameters (the MLA's accumulator width is a check's default).
PreparedCheck prepare_check(const Check& c, size_t index, const PeWorkload& w,
                            const spinnaker2::PeParams& p);
CheckOutcome evaluate(const PreparedCheck& pc, const Layout& L);

}  // namespace nmsim::workloads::pe
