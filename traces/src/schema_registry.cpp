#include "nmsim/trace/sink.h"

namespace nmsim::trace {

std::vector<const TableSchema*>& schema_registry() {
    static std::vector<const TableSchema*> r;
    return r;
}

bool register_schema(const TableSchema* s) {
    schema_registry().push_back(s);
    return true;
}

}  // namespace nmsim::trace
