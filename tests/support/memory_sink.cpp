#include "tests/support/memory_sink.h"

#include <stdexcept>

namespace nmsim::test {

trace::TableId MemorySink::declare_table(const trace::TableSchema& schema) {
    for (size_t i = 0; i < m_tables.size(); ++i)
        if (m_tables[i].schema == &schema) return static_cast<trace::TableId>(i);
    m_tables.push_back(Table{&schema, {}});
    return static_cast<trace::TableId>(m_tables.size() - 1);
}

trace::ComponentId MemorySink::component(const std::string& path) {
    for (size_t i = 0; i < m_components.size(); ++i)
        if (m_components[i] == path) return static_cast<trace::ComponentId>(i);
    m_components.push_back(path);
    return static_cast<trace::ComponentId>(m_components.size() - 1);
}

void MemorySink::append(trace::TableId table, const void* row) {
    Table& t = m_tables.at(static_cast<size_t>(table));
    const auto* p = static_cast<const unsigned char*>(row);
    t.data.insert(t.data.end(), p, p + t.schema->row_size);
}

void MemorySink::counter(trace::ComponentId c, const std::string& name, const std::string&,
                         double value) {
    m_counters[{m_components.at(c), name}] = value;
}

double MemorySink::counter_value(const std::string& component, const std::string& name) const {
    auto it = m_counters.find({component, name});
    if (it == m_counters.end()) throw std::out_of_range("no counter " + component + "/" + name);
    return it->second;
}

bool MemorySink::has_counter(const std::string& component, const std::string& name) const {
    return m_counters.count({component, name}) != 0;
}

}  // namespace nmsim::test
