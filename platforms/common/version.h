// The simulator's version: the project version and the git commit it was built from
// ("0.1.0+db3b65c", "-dirty" with uncommitted edits). Written into every trace and run directory.
#pragma once

namespace nmsim {

const char* version();

}  // namespace nmsim
