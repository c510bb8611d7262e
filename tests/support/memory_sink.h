// A trace::Sink that keeps rows in memory, for unit tests of models.
#pragma once

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "nmsim/trace/sink.h"

namespace nmsim::test {

class MemorySink : public trace::Sink {
public:
    trace::TableId declare_table(const trace::TableSchema& schema) override;
    trace::ComponentId component(const std::string& path) override;
    void append(trace::TableId table, const void* row) override;
    void counter(trace::ComponentId c, const std::string& name, const std::string& unit,
                 double value) override;

    // Rows of a table by path ("events/mla_ops"), decoded as Record.
    template <class Record>
    std::vector<Record> rows(const std::string& path) const {
        std::vector<Record> out;
        for (size_t i = 0; i < m_tables.size(); ++i) {
            if (m_tables[i].schema->path != path) continue;
            const auto& bytes = m_tables[i].data;
            for (size_t off = 0; off + sizeof(Record) <= bytes.size(); off += sizeof(Record)) {
                Record r;
                std::memcpy(&r, bytes.data() + off, sizeof(Record));
                out.push_back(r);
            }
        }
        return out;
    }
    double counter_value(const std::string& component, const std::string& name) const;
    bool has_counter(const std::string& component, const std::string& name) const;
    const std::vector<std::string>& components() const { return m_components; }

private:
    struct Table {
        const trace::TableSchema* schema;
        std::vector<unsigned char> data;
    };
    std::vector<Table> m_tables;
    std::vector<std::string> m_components;
    std::map<std::pair<std::string, std::string>, double> m_counters;
};

}  // namespace nmsim::test
