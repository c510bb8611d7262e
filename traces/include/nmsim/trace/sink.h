// The narrow interface between models and trace writers. Models describe each event kind once as
// a plain record struct plus a TableSchema (NMSIM_TRACE_TABLE), declare the tables they emit at
// elaboration, then append rows. Writers (the HDF5 writer in traces/, test sinks) implement Sink.
// Nothing here knows SystemC, HDF5 or scenarios. All times are integer picoseconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nmsim::trace {

enum class ColType : uint8_t { u8, u16, u32, u64, i8, i16, i32, i64, f64, str };

struct Column {
    std::string name;  // snake_case; times end in _ps
    ColType type;
    size_t offset;     // offsetof(Record, member)
    size_t size;       // sizeof(member); for str the fixed length in bytes
    std::string unit;  // "ps", "B", "1", ...
    std::string doc;
};

struct TableSchema {
    std::string path;  // "events/mla_ops"
    std::string doc;
    size_t row_size = 0;  // sizeof(Record)
    std::vector<Column> columns;
};

// Every schema declared with NMSIM_TRACE_TABLE, for `nmsim params` and the schema docs.
std::vector<const TableSchema*>& schema_registry();
bool register_schema(const TableSchema* s);

using TableId = int32_t;
using ComponentId = uint16_t;

class Sink {
public:
    virtual ~Sink() = default;
    // Elaboration phase: tables and components are declared before start().
    virtual TableId declare_table(const TableSchema& schema) = 0;
    virtual ComponentId component(const std::string& instance_path) = 0;
    // After start(): append rows. `row` points to a record laid out as the schema says.
    virtual void append(TableId table, const void* row) = 0;
    // Summary counters, written once per component at the end of a run.
    virtual void counter(ComponentId c, const std::string& name, const std::string& unit,
                         double value) = 0;
};

template <class T>
constexpr ColType col_type_of();
template <> constexpr ColType col_type_of<uint8_t>() { return ColType::u8; }
template <> constexpr ColType col_type_of<uint16_t>() { return ColType::u16; }
template <> constexpr ColType col_type_of<uint32_t>() { return ColType::u32; }
template <> constexpr ColType col_type_of<uint64_t>() { return ColType::u64; }
template <> constexpr ColType col_type_of<int8_t>() { return ColType::i8; }
template <> constexpr ColType col_type_of<int16_t>() { return ColType::i16; }
template <> constexpr ColType col_type_of<int32_t>() { return ColType::i32; }
template <> constexpr ColType col_type_of<int64_t>() { return ColType::i64; }
template <> constexpr ColType col_type_of<double>() { return ColType::f64; }

}  // namespace nmsim::trace

// Column helpers for schema definitions.
#define NMSIM_COL(Record, member, unit, doc)                                                     \
    ::nmsim::trace::Column {                                                                     \
        #member, ::nmsim::trace::col_type_of<decltype(Record::member)>(), offsetof(Record, member), \
            sizeof(Record::member), unit, doc                                                    \
    }
#define NMSIM_STR_COL(Record, member, doc)                                                     \
    ::nmsim::trace::Column {                                                                   \
        #member, ::nmsim::trace::ColType::str, offsetof(Record, member), sizeof(Record::member), \
            "", doc                                                                            \
    }

// Declares `const TableSchema& Record::schema()` registered for self-documentation.
#define NMSIM_TRACE_TABLE(Record, path, doc, ...)                                              \
    inline const ::nmsim::trace::TableSchema& Record##_schema() {                              \
        static const ::nmsim::trace::TableSchema s{path, doc, sizeof(Record), {__VA_ARGS__}};  \
        return s;                                                                              \
    }                                                                                          \
    inline const bool Record##_schema_registered = ::nmsim::trace::register_schema(&Record##_schema())
