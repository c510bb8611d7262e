// The HDF5 trace writer: one file per run, laid out as traces/README.md describes (schema
// "nmsim-trace", schema_version "1"). Every dataset and attribute is created by start(), then the
// file switches to SWMR write mode and only grows: rows are buffered per table and appended one
// chunk at a time, so a reader (h5py with swmr=True) of a run killed at any point sees a
// consistent prefix of every table. Knows neither SystemC nor scenarios (docs/architecture.md,
// principle 7).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nmsim/trace/sink.h"

namespace nmsim::trace {

// Root attributes of a trace; plain strings so that the writer needs no scenario types.
struct RunInfo {
    std::string simulator_version, scenario_path, scenario_name, platform, argv, created_utc;
    uint64_t seed = 0;
};

// A summary counter as written to /summary/counters (component path, name, unit, value).
struct CounterRow {
    std::string component, name, unit;
    double value;
};

// One row of /config/params: an effective parameter value and where it came from.
struct ParamRow {
    std::string path, value, unit, type, origin, source, doc;
};

class Hdf5Writer : public Sink {
public:
    static constexpr const char* kSchemaVersion = "1";
    // Rows per chunk and per flush of a table (fewer for rows wider than 256 B: chunks stay
    // <= 1 MiB). A flush that fills a chunk writes it once, whole; a partial flush (sweep,
    // flush()) rewrites its chunk when it fills.
    static constexpr size_t kFlushRows = 4096;
    // After this many appended rows (all tables) every partly filled buffer is flushed too, so
    // rare events (console, faults) reach the file of a killed run. Counted, not timed: same run,
    // same file.
    static constexpr size_t kSweepRows = 8 * kFlushRows;
    // Fixed string widths of the tables that grow under SWMR (variable-length data cannot be
    // written after H5Fstart_swmr_write). Longer names are rejected; longer messages truncated.
    static constexpr size_t kComponentPathBytes = 128;
    static constexpr size_t kCounterNameBytes = 64;
    static constexpr size_t kCounterUnitBytes = 32;
    static constexpr size_t kStatusBytes = 16;
    static constexpr size_t kMessageBytes = 1024;

    // Creates (truncates) the file and writes the root attributes. Throws std::runtime_error
    // naming the path and the HDF5 reason on failure.
    Hdf5Writer(const std::string& path, const RunInfo& info, bool events_enabled);
    Hdf5Writer(const Hdf5Writer&) = delete;
    Hdf5Writer& operator=(const Hdf5Writer&) = delete;
    // Without finish(): flushes what is buffered, records status "incomplete", closes.
    ~Hdf5Writer() override;

    // Before start(): the resolved scenario (YAML text) and the effective parameters.
    void set_config(const std::string& resolved_yaml, const std::vector<ParamRow>& params);

    // Before start(). Declaring the same schema (same path and columns) twice gives the same id;
    // a different schema at a declared path throws std::invalid_argument.
    TableId declare_table(const TableSchema& schema) override;
    // Any time; the id is the row of /lut/components holding the path.
    ComponentId component(const std::string& instance_path) override;

    // Creates every dataset, then enters SWMR write mode.
    void start();
    // After start(). Tables under "events/" take no rows when events are disabled.
    void append(TableId table, const void* row) override;
    // Kept in memory (last value wins) and written by finish().
    void counter(ComponentId c, const std::string& name, const std::string& unit,
                 double value) override;
    // Writes all buffered rows now (e.g. before a risky step); normally not needed.
    void flush();
    // status "ok", "error", "interrupted" (stopped by a signal) or "timeout" (a wall-time
    // limit). Writes rows, counters and /run (last), then closes the file.
    // Calls start() first if it was not called.
    void finish(const std::string& status, const std::string& message, uint64_t sim_time_ps,
                double wall_seconds);

    // Every counter recorded so far (last value of each), in first-recorded order; also after
    // finish().
    std::vector<CounterRow> counters() const;

    // Rows accepted by append() (buffered or written); dropped event rows are not counted.
    uint64_t rows_written() const { return m_rows; }
    // Current size of the file.
    uint64_t bytes_on_disk() const;
    const std::string& path() const { return m_path; }

private:
    using Hid = int64_t;  // hid_t (checked in the .cpp); keeps hdf5.h out of this header

    struct CopyOp {  // record bytes -> packed file row (adjacent columns merged)
        size_t src, dst, size;
    };
    struct Table {
        TableSchema schema;  // path without a leading '/'
        bool enabled = true;
        size_t packed_size = 0;
        size_t chunk_rows = 0;
        std::vector<CopyOp> ops;
        std::vector<unsigned char> buf;
        uint64_t chunk_start = 0;  // dataset row of buf[0]
        size_t buffered = 0;       // rows in buf
        size_t flushed = 0;        // leading rows of buf already in the file
        Hid type = -1, dset = -1;
    };
    struct CounterValue {
        ComponentId component;
        size_t lut;  // index into m_counter_lut
        double value;
    };
    enum class State { created, started, closed };

    Table& table_at(TableId id);
    void flush_table(Table& t);
    void flush_components();
    // Sets the extent to first + n, writes rows [first, first + n), flushes.
    void write_rows(Hid dset, Hid type, uint64_t first, const void* data, size_t n);
    void write_root_attributes(const RunInfo& info);
    void make_parents(const std::string& path) const;  // groups of "a/b/c" (a, a/b)
    void create_config();
    void create_table(Table& t);
    void write_outcome(const std::string& status, const std::string& message, uint64_t sim_time_ps,
                       double wall_seconds);
    void close_types() noexcept;
    void close_all() noexcept;
    Hid create_growable(const std::string& path, Hid type, size_t chunk_rows, bool compress,
                        const std::string& doc) const;
    void write_str_attr(Hid obj, const char* name, const std::string& value) const;
    void write_str_array_attr(Hid obj, const char* name,
                              const std::vector<std::string>& values) const;
    // Throw std::runtime_error "<path>: <what>: <HDF5 reason>"; call right after the failure.
    [[noreturn]] void fail(const std::string& what) const;
    void check(int64_t result, const std::string& what) const;

    std::string m_path;
    bool m_events_enabled;
    State m_state = State::created;
    std::chrono::steady_clock::time_point m_t0;
    Hid m_file = -1;
    Hid m_str_types[5] = {-1, -1, -1, -1, -1};  // component, counter name/unit, status, message
    Hid m_lut_components = -1, m_lut_counters = -1, m_summary = -1, m_run = -1;
    Hid m_lut_counters_type = -1, m_summary_type = -1, m_run_type = -1;

    std::string m_resolved_yaml;
    std::vector<ParamRow> m_params;
    std::vector<Table> m_tables;
    std::vector<std::string> m_components;
    std::unordered_map<std::string, ComponentId> m_component_ids;
    uint64_t m_components_on_disk = 0;
    std::vector<std::pair<std::string, std::string>> m_counter_lut;  // (name, unit)
    std::map<std::pair<std::string, std::string>, size_t> m_counter_lut_index;
    std::vector<CounterValue> m_counters;
    std::map<std::pair<ComponentId, std::string>, size_t> m_counter_index;
    uint64_t m_rows = 0;
    uint64_t m_since_sweep = 0;
    uint64_t m_final_bytes = 0;
};

}  // namespace nmsim::trace
