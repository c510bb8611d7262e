#include "nmsim/trace/hdf5_writer.h"

#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace nmsim::trace {

static_assert(std::is_same_v<hid_t, int64_t>, "Hdf5Writer::Hid must be hid_t");

namespace {

constexpr size_t kMaxChunkBytes = 1 << 20;
constexpr unsigned kDeflateLevel = 1;  // level 4: -1.5% size, -25% rows/s (mla_ops)
constexpr hsize_t kLutChunkRows = 64;

enum StrType { kComponentStr, kCounterNameStr, kCounterUnitStr, kStatusStr, kMessageStr };

// Silences HDF5's own error printing while we run; errors become exceptions with the reason.
class QuietErrors {
public:
    QuietErrors() {
        H5Eget_auto2(H5E_DEFAULT, &m_func, &m_data);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, m_func, m_data); }
    QuietErrors(const QuietErrors&) = delete;
    QuietErrors& operator=(const QuietErrors&) = delete;

private:
    H5E_auto2_t m_func = nullptr;
    void* m_data = nullptr;
};

herr_t collect_error(unsigned, const H5E_error2_t* e, void* data) {
    if (e->desc && *e->desc) static_cast<std::vector<std::string>*>(data)->push_back(e->desc);
    return 0;
}

// The innermost entries of the HDF5 error stack name the cause (e.g. "unable to open file:
// name = '...', errno = 13, error message = 'Permission denied'"); the outer ones repeat it.
std::string hdf5_reason() {
    std::vector<std::string> msgs;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_error, &msgs);
    H5Eclear2(H5E_DEFAULT);
    if (msgs.empty()) return "unknown HDF5 error";
    std::string r = msgs.front();
    if (msgs.size() > 1 && msgs[1] != r) r += " (" + msgs[1] + ")";
    return r;
}

hid_t native_type(ColType t) {
    switch (t) {
        case ColType::u8:
            return H5T_NATIVE_UINT8;
        case ColType::u16:
            return H5T_NATIVE_UINT16;
        case ColType::u32:
            return H5T_NATIVE_UINT32;
        case ColType::u64:
            return H5T_NATIVE_UINT64;
        case ColType::i8:
            return H5T_NATIVE_INT8;
        case ColType::i16:
            return H5T_NATIVE_INT16;
        case ColType::i32:
            return H5T_NATIVE_INT32;
        case ColType::i64:
            return H5T_NATIVE_INT64;
        case ColType::f64:
            return H5T_NATIVE_DOUBLE;
        case ColType::str:
            break;
    }
    return -1;
}

size_t type_size(ColType t) {
    switch (t) {
        case ColType::u8:
        case ColType::i8:
            return 1;
        case ColType::u16:
        case ColType::i16:
            return 2;
        case ColType::u32:
        case ColType::i32:
            return 4;
        case ColType::u64:
        case ColType::i64:
        case ColType::f64:
            return 8;
        case ColType::str:
            break;
    }
    return 0;
}

bool same_schema(const TableSchema& a, const TableSchema& b) {
    if (a.row_size != b.row_size || a.columns.size() != b.columns.size()) return false;
    for (size_t i = 0; i < a.columns.size(); ++i) {
        const Column& x = a.columns[i];
        const Column& y = b.columns[i];
        if (x.name != y.name || x.type != y.type || x.offset != y.offset || x.size != y.size)
            return false;
    }
    return true;
}

std::string strip_slash(const std::string& p) { return p.empty() || p[0] != '/' ? p : p.substr(1); }

// Cuts s to at most n bytes without splitting a UTF-8 sequence.
std::string truncate_utf8(const std::string& s, size_t n) {
    if (s.size() <= n) return s;
    size_t end = n;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    return s.substr(0, end);
}

void put_fixed(unsigned char* dst, const std::string& s, size_t n) {
    std::memset(dst, 0, n);
    std::memcpy(dst, s.data(), std::min(s.size(), n));
}

// Owns one HDF5 id; closes it when leaving scope, also while an exception unwinds (the error
// reason is captured before, in Hdf5Writer::fail).
class Id {
public:
    Id(hid_t id, herr_t (*close)(hid_t)) : m_id(id), m_close(close) {}
    ~Id() {
        if (m_id >= 0) m_close(m_id);
    }
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    operator hid_t() const { return m_id; }

private:
    hid_t m_id;
    herr_t (*m_close)(hid_t);
};

// A UTF-8 string type: variable length (n == 0) or fixed n bytes, NUL padded.
hid_t string_type(size_t n) {
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, n == 0 ? H5T_VARIABLE : n);
    if (n != 0) H5Tset_strpad(t, H5T_STR_NULLPAD);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

}  // namespace

Hdf5Writer::Hdf5Writer(const std::string& path, const RunInfo& info, bool events_enabled)
    : m_path(path), m_events_enabled(events_enabled), m_t0(std::chrono::steady_clock::now()) {
    QuietErrors quiet;
    {
        Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
        Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
        // SWMR needs the latest file format; STRONG closing releases every handle on H5Fclose.
        H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
        H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
        H5Pset_obj_track_times(fcpl, false);  // no timestamps: same run, same bytes
        m_file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl);
        if (m_file < 0) fail("cannot create the trace file");
    }
    const size_t widths[5] = {kComponentPathBytes, kCounterNameBytes, kCounterUnitBytes,
                              kStatusBytes, kMessageBytes};
    for (int i = 0; i < 5; ++i) m_str_types[i] = string_type(widths[i]);
    try {
        write_root_attributes(info);
    } catch (...) {
        close_all();
        throw;
    }
}

Hdf5Writer::~Hdf5Writer() {
    if (m_state == State::closed) return;
    try {
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
        if (m_state == State::created) start();
        flush();
        write_outcome("incomplete", "trace writer closed without finish()", 0, wall);
    } catch (...) {
        // Best effort: a destructor must not throw; what reached the file stays readable.
    }
    close_all();
}

void Hdf5Writer::fail(const std::string& what) const {
    throw std::runtime_error(m_path + ": " + what + ": " + hdf5_reason());
}

void Hdf5Writer::check(int64_t result, const std::string& what) const {
    if (result < 0) fail(what);
}

void Hdf5Writer::write_str_attr(Hid obj, const char* name, const std::string& value) const {
    Id str(string_type(0), H5Tclose);
    Id scalar(H5Screate(H5S_SCALAR), H5Sclose);
    Id a(H5Acreate2(obj, name, str, scalar, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a, std::string("cannot create attribute '") + name + "'");
    const char* p = value.c_str();
    check(H5Awrite(a, str, &p), std::string("cannot write attribute '") + name + "'");
}

void Hdf5Writer::write_str_array_attr(Hid obj, const char* name,
                                      const std::vector<std::string>& values) const {
    Id str(string_type(0), H5Tclose);
    const hsize_t n = values.size();
    Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    std::vector<const char*> ptrs;
    for (const std::string& v : values) ptrs.push_back(v.c_str());
    Id a(H5Acreate2(obj, name, str, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a, std::string("cannot create attribute '") + name + "'");
    check(H5Awrite(a, str, ptrs.data()), std::string("cannot write attribute '") + name + "'");
}

void Hdf5Writer::write_root_attributes(const RunInfo& info) {
    const std::pair<const char*, std::string> attrs[] = {
        {"schema", "nmsim-trace"},
        {"schema_version", kSchemaVersion},
        {"simulator_version", info.simulator_version},
        {"scenario", info.scenario_path},
        {"scenario_name", info.scenario_name},
        {"platform", info.platform},
        {"argv", info.argv},
        {"created_utc", info.created_utc},
        {"time_unit", "ps"},
    };
    for (const auto& [name, value] : attrs) write_str_attr(m_file, name, value);
    Id scalar(H5Screate(H5S_SCALAR), H5Sclose);
    Id a(H5Acreate2(m_file, "seed", H5T_NATIVE_UINT64, scalar, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a, "cannot create attribute 'seed'");
    check(H5Awrite(a, H5T_NATIVE_UINT64, &info.seed), "cannot write attribute 'seed'");
}

void Hdf5Writer::set_config(const std::string& resolved_yaml, const std::vector<ParamRow>& params) {
    if (m_state != State::created)
        throw std::logic_error(m_path + ": set_config() must come before start()");
    m_resolved_yaml = resolved_yaml;
    m_params = params;
}

TableId Hdf5Writer::declare_table(const TableSchema& schema) {
    TableSchema s = schema;
    s.path = strip_slash(s.path);
    for (size_t i = 0; i < m_tables.size(); ++i) {
        if (m_tables[i].schema.path != s.path) continue;
        if (!same_schema(m_tables[i].schema, s))
            throw std::invalid_argument(m_path + ": table '" + s.path +
                                        "' declared twice with different columns");
        return static_cast<TableId>(i);
    }
    if (m_state != State::created)
        throw std::logic_error(m_path + ": table '" + s.path +
                               "' declared after start() (datasets cannot be created under SWMR)");
    if (s.path.empty() || s.columns.empty() || s.row_size == 0)
        throw std::invalid_argument(m_path + ": table '" + s.path + "' has no path or columns");

    Table t;
    t.enabled = m_events_enabled || s.path.rfind("events/", 0) != 0;
    for (size_t i = 0; i < s.columns.size(); ++i) {
        const Column& c = s.columns[i];
        const size_t want = type_size(c.type);
        if (c.name.empty() || c.size == 0 || (want != 0 && c.size != want) ||
            c.offset + c.size > s.row_size)
            throw std::invalid_argument(m_path + ": table '" + s.path + "' column '" + c.name +
                                        "' has a bad name, size or offset");
        for (size_t j = 0; j < i; ++j)
            if (s.columns[j].name == c.name)
                throw std::invalid_argument(m_path + ": table '" + s.path + "' column '" + c.name +
                                            "' appears twice");
        if (!t.ops.empty() && t.ops.back().src + t.ops.back().size == c.offset)
            t.ops.back().size += c.size;
        else
            t.ops.push_back({c.offset, t.packed_size, c.size});
        t.packed_size += c.size;
    }
    t.chunk_rows = std::clamp<size_t>(kMaxChunkBytes / t.packed_size, 1, kFlushRows);
    t.schema = std::move(s);
    m_tables.push_back(std::move(t));
    return static_cast<TableId>(m_tables.size() - 1);
}

ComponentId Hdf5Writer::component(const std::string& instance_path) {
    auto it = m_component_ids.find(instance_path);
    if (it != m_component_ids.end()) return it->second;
    if (instance_path.size() > kComponentPathBytes)
        throw std::invalid_argument(m_path + ": component path '" + instance_path +
                                    "' is longer than " + std::to_string(kComponentPathBytes) +
                                    " bytes");
    if (m_components.size() > 0xFFFF)
        throw std::length_error(m_path + ": more than 65536 components");
    const auto id = static_cast<ComponentId>(m_components.size());
    m_components.push_back(instance_path);
    m_component_ids.emplace(instance_path, id);
    return id;
}

void Hdf5Writer::make_parents(const std::string& path) const {
    Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    H5Pset_obj_track_times(gcpl, false);
    for (size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
        const std::string group = path.substr(0, slash);
        if (H5Lexists(m_file, group.c_str(), H5P_DEFAULT) > 0) continue;
        Id g(H5Gcreate2(m_file, group.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), H5Gclose);
        check(g, "cannot create group /" + group);
    }
}

void Hdf5Writer::create_config() {
    make_parents("config/");
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_obj_track_times(dcpl, false);
    Id vstr(string_type(0), H5Tclose);
    {
        Id scalar(H5Screate(H5S_SCALAR), H5Sclose);
        Id d(H5Dcreate2(m_file, "config/resolved", vstr, scalar, H5P_DEFAULT, dcpl, H5P_DEFAULT),
             H5Dclose);
        check(d, "cannot create /config/resolved");
        const char* yaml = m_resolved_yaml.c_str();
        check(H5Dwrite(d, vstr, H5S_ALL, H5S_ALL, H5P_DEFAULT, &yaml),
              "cannot write /config/resolved");
    }
    // Variable-length strings are fine here: written before SWMR starts, never appended to.
    struct PRow {
        const char *path, *value, *unit, *type, *origin, *source, *doc;
    };
    Id prow(H5Tcreate(H5T_COMPOUND, sizeof(PRow)), H5Tclose);
    H5Tinsert(prow, "path", HOFFSET(PRow, path), vstr);
    H5Tinsert(prow, "value", HOFFSET(PRow, value), vstr);
    H5Tinsert(prow, "unit", HOFFSET(PRow, unit), vstr);
    H5Tinsert(prow, "type", HOFFSET(PRow, type), vstr);
    H5Tinsert(prow, "origin", HOFFSET(PRow, origin), vstr);
    H5Tinsert(prow, "source", HOFFSET(PRow, source), vstr);
    H5Tinsert(prow, "doc", HOFFSET(PRow, doc), vstr);
    std::vector<PRow> rows;
    for (const ParamRow& p : m_params)
        rows.push_back({p.path.c_str(), p.value.c_str(), p.unit.c_str(), p.type.c_str(),
                        p.origin.c_str(), p.source.c_str(), p.doc.c_str()});
    const hsize_t n = rows.size();
    Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    Id d(H5Dcreate2(m_file, "config/params", prow, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
         H5Dclose);
    check(d, "cannot create /config/params");
    if (n > 0)
        check(H5Dwrite(d, prow, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()),
              "cannot write /config/params");
}

// An empty growable chunked dataset (shuffle+deflate if `compress`) with a `doc` attribute.
Hdf5Writer::Hid Hdf5Writer::create_growable(const std::string& path, Hid type, size_t chunk_rows,
                                            bool compress, const std::string& doc) const {
    const hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = chunk_rows;
    Id space(H5Screate_simple(1, &zero, &unlimited), H5Sclose);
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_obj_track_times(dcpl, false);
    if (compress) {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, kDeflateLevel);
    }
    make_parents(path);
    // Closed by H5Fclose (strong close degree).
    const hid_t d = H5Dcreate2(m_file, path.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    check(d, "cannot create /" + path);
    write_str_attr(d, "doc", doc);
    return d;
}

void Hdf5Writer::create_table(Table& t) {
    t.type = H5Tcreate(H5T_COMPOUND, t.packed_size);
    check(t.type, "cannot create the type of table '/" + t.schema.path + "'");
    size_t off = 0;
    std::vector<std::string> units, docs;
    for (const Column& c : t.schema.columns) {
        Id str(c.type == ColType::str ? string_type(c.size) : -1, H5Tclose);
        check(H5Tinsert(t.type, c.name.c_str(), off,
                        c.type == ColType::str ? hid_t{str} : native_type(c.type)),
              "cannot add column '" + c.name + "' to table '/" + t.schema.path + "'");
        off += c.size;
        units.push_back(c.unit);
        docs.push_back(c.doc);
    }
    t.dset = create_growable(t.schema.path, t.type, t.chunk_rows, true, t.schema.doc);
    write_str_attr(t.dset, "time_unit", "ps");
    write_str_array_attr(t.dset, "units", units);
    write_str_array_attr(t.dset, "docs", docs);
    t.buf.resize(t.chunk_rows * t.packed_size);
}

void Hdf5Writer::start() {
    if (m_state != State::created)
        throw std::logic_error(m_path + ": start() called twice or after finish()");
    QuietErrors quiet;
    create_config();

    m_lut_components = create_growable("lut/components", m_str_types[kComponentStr], kLutChunkRows,
                                       false, "component instance paths; row = id");
    m_lut_counters_type = H5Tcreate(H5T_COMPOUND, kCounterNameBytes + kCounterUnitBytes);
    H5Tinsert(m_lut_counters_type, "name", 0, m_str_types[kCounterNameStr]);
    H5Tinsert(m_lut_counters_type, "unit", kCounterNameBytes, m_str_types[kCounterUnitStr]);
    m_lut_counters = create_growable("lut/counters", m_lut_counters_type, kLutChunkRows, false,
                                     "counter names and units; row = id");
    m_summary_type = H5Tcreate(H5T_COMPOUND, 12);
    H5Tinsert(m_summary_type, "component", 0, H5T_NATIVE_UINT16);
    H5Tinsert(m_summary_type, "counter", 2, H5T_NATIVE_UINT16);
    H5Tinsert(m_summary_type, "value", 4, H5T_NATIVE_DOUBLE);
    m_summary = create_growable("summary/counters", m_summary_type, 1024, true,
                                "per-component counters, written at the end of the run");
    m_run_type = H5Tcreate(H5T_COMPOUND, kStatusBytes + kMessageBytes + 16);
    H5Tinsert(m_run_type, "status", 0, m_str_types[kStatusStr]);
    H5Tinsert(m_run_type, "message", kStatusBytes, m_str_types[kMessageStr]);
    H5Tinsert(m_run_type, "sim_time_ps", kStatusBytes + kMessageBytes, H5T_NATIVE_UINT64);
    H5Tinsert(m_run_type, "wall_seconds", kStatusBytes + kMessageBytes + 8, H5T_NATIVE_DOUBLE);
    m_run = create_growable("run", m_run_type, 1, false,
                            "run outcome: one row written last; no row if the run was killed");

    for (Table& t : m_tables) create_table(t);
    flush_components();
    check(H5Fstart_swmr_write(m_file), "cannot start SWMR write mode");
    m_state = State::started;
}

Hdf5Writer::Table& Hdf5Writer::table_at(TableId id) {
    if (id < 0 || static_cast<size_t>(id) >= m_tables.size())
        throw std::out_of_range(m_path + ": unknown table id " + std::to_string(id));
    return m_tables[static_cast<size_t>(id)];
}

void Hdf5Writer::append(TableId table, const void* row) {
    if (m_state != State::started)
        throw std::logic_error(m_path + ": append() outside start() .. finish()");
    Table& t = table_at(table);
    if (!t.enabled) return;
    unsigned char* dst = t.buf.data() + t.buffered * t.packed_size;
    const auto* src = static_cast<const unsigned char*>(row);
    for (const CopyOp& op : t.ops) std::memcpy(dst + op.dst, src + op.src, op.size);
    ++m_rows;
    const bool full = ++t.buffered == t.chunk_rows;
    // Bounded staleness for rare events (console lines, faults), decided by row counts so that
    // a run's file stays deterministic.
    if (++m_since_sweep == kSweepRows)
        flush();
    else if (full)
        flush_table(t);
}

void Hdf5Writer::write_rows(Hid dset, Hid type, uint64_t first, const void* data, size_t n) {
    const hsize_t start = first, count = n, size = first + n;
    check(H5Dset_extent(dset, &size), "cannot extend a dataset");
    Id fspace(H5Dget_space(dset), H5Sclose);
    Id mspace(H5Screate_simple(1, &count, nullptr), H5Sclose);
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, nullptr, &count, nullptr);
    check(H5Dwrite(dset, type, mspace, fspace, H5P_DEFAULT, data), "cannot write rows");
    // H5Dflush makes the rows and the new extent visible to SWMR readers together.
    check(H5Dflush(dset), "cannot flush rows");
}

void Hdf5Writer::flush_components() {
    const size_t n = m_components.size() - m_components_on_disk;
    if (n == 0) return;
    std::vector<unsigned char> buf(n * kComponentPathBytes);
    for (size_t i = 0; i < n; ++i)
        put_fixed(buf.data() + i * kComponentPathBytes, m_components[m_components_on_disk + i],
                  kComponentPathBytes);
    write_rows(m_lut_components, m_str_types[kComponentStr], m_components_on_disk, buf.data(), n);
    m_components_on_disk += n;
}

void Hdf5Writer::flush_table(Table& t) {
    if (t.buffered == t.flushed) return;
    QuietErrors quiet;
    // Names first, so that a reader never sees a component id without its path.
    flush_components();
    // From the start of the chunk: a partly flushed chunk is rewritten whole, so that later
    // flushes stay aligned to chunks.
    write_rows(t.dset, t.type, t.chunk_start, t.buf.data(), t.buffered);
    if (t.buffered == t.chunk_rows) {
        t.chunk_start += t.chunk_rows;
        t.buffered = t.flushed = 0;
    } else {
        t.flushed = t.buffered;
    }
}

void Hdf5Writer::flush() {
    if (m_state != State::started) return;
    QuietErrors quiet;
    m_since_sweep = 0;
    flush_components();
    for (Table& t : m_tables) flush_table(t);
}

void Hdf5Writer::counter(ComponentId c, const std::string& name, const std::string& unit,
                         double value) {
    if (m_state == State::closed) throw std::logic_error(m_path + ": counter() after finish()");
    if (c >= m_components.size())
        throw std::out_of_range(m_path + ": counter '" + name + "' for unknown component id " +
                                std::to_string(c));
    if (name.size() > kCounterNameBytes || unit.size() > kCounterUnitBytes)
        throw std::invalid_argument(m_path + ": counter '" + name + "' [" + unit +
                                    "]: name longer than " + std::to_string(kCounterNameBytes) +
                                    " or unit longer than " + std::to_string(kCounterUnitBytes) +
                                    " bytes");
    auto [lit, lnew] = m_counter_lut_index.try_emplace({name, unit}, m_counter_lut.size());
    if (lnew) {
        if (m_counter_lut.size() > 0xFFFF)
            throw std::length_error(m_path + ": more than 65536 counter names");
        m_counter_lut.emplace_back(name, unit);
    }
    auto [it, inserted] = m_counter_index.try_emplace({c, name}, m_counters.size());
    if (inserted)
        m_counters.push_back({c, lit->second, value});
    else
        m_counters[it->second] = {c, lit->second, value};
}

void Hdf5Writer::write_outcome(const std::string& status, const std::string& message,
                               uint64_t sim_time_ps, double wall_seconds) {
    QuietErrors quiet;
    if (!m_counter_lut.empty()) {
        std::vector<unsigned char> lut(m_counter_lut.size() *
                                       (kCounterNameBytes + kCounterUnitBytes));
        unsigned char* p = lut.data();
        for (const auto& [name, unit] : m_counter_lut) {
            put_fixed(p, name, kCounterNameBytes);
            put_fixed(p + kCounterNameBytes, unit, kCounterUnitBytes);
            p += kCounterNameBytes + kCounterUnitBytes;
        }
        write_rows(m_lut_counters, m_lut_counters_type, 0, lut.data(), m_counter_lut.size());
    }
    if (!m_counters.empty()) {
        std::vector<unsigned char> rows(m_counters.size() * 12);
        unsigned char* p = rows.data();
        for (const CounterValue& v : m_counters) {
            const auto lut = static_cast<uint16_t>(v.lut);
            std::memcpy(p, &v.component, 2);
            std::memcpy(p + 2, &lut, 2);
            std::memcpy(p + 4, &v.value, 8);
            p += 12;
        }
        write_rows(m_summary, m_summary_type, 0, rows.data(), m_counters.size());
    }
    // /run last: its row means everything before it is complete.
    std::vector<unsigned char> row(kStatusBytes + kMessageBytes + 16);
    put_fixed(row.data(), status, kStatusBytes);
    put_fixed(row.data() + kStatusBytes, truncate_utf8(message, kMessageBytes), kMessageBytes);
    std::memcpy(row.data() + kStatusBytes + kMessageBytes, &sim_time_ps, 8);
    std::memcpy(row.data() + kStatusBytes + kMessageBytes + 8, &wall_seconds, 8);
    write_rows(m_run, m_run_type, 0, row.data(), 1);
}

std::vector<CounterRow> Hdf5Writer::counters() const {
    std::vector<CounterRow> out;
    out.reserve(m_counters.size());
    for (const CounterValue& v : m_counters)
        out.push_back({m_components.at(v.component), m_counter_lut.at(v.lut).first,
                       m_counter_lut.at(v.lut).second, v.value});
    return out;
}

void Hdf5Writer::finish(const std::string& status, const std::string& message, uint64_t sim_time_ps,
                        double wall_seconds) {
    if (status != "ok" && status != "error" && status != "interrupted" && status != "timeout")
        throw std::invalid_argument(m_path +
                                    ": finish() status must be \"ok\", \"error\", \"interrupted\" "
                                    "or \"timeout\", got \"" +
                                    status + "\"");
    if (m_state == State::closed) throw std::logic_error(m_path + ": finish() called twice");
    if (m_state == State::created) start();
    flush();
    write_outcome(status, message, sim_time_ps, wall_seconds);
    QuietErrors quiet;
    close_types();
    const hid_t file = m_file;
    m_file = -1;
    m_state = State::closed;
    // Strong close degree: closes the datasets too.
    if (H5Fclose(file) < 0) fail("cannot close the trace file");
    struct stat st {};
    if (::stat(m_path.c_str(), &st) == 0) m_final_bytes = static_cast<uint64_t>(st.st_size);
}

void Hdf5Writer::close_types() noexcept {
    auto close = [](Hid& h) {
        if (h >= 0) H5Tclose(h);
        h = -1;
    };
    for (Table& t : m_tables) {
        close(t.type);
        t.dset = -1;
    }
    for (Hid& s : m_str_types) close(s);
    close(m_lut_counters_type);
    close(m_summary_type);
    close(m_run_type);
}

void Hdf5Writer::close_all() noexcept {
    QuietErrors quiet;
    close_types();
    if (m_file >= 0) H5Fclose(m_file);
    m_file = -1;
    m_state = State::closed;
    H5Eclear2(H5E_DEFAULT);
}

uint64_t Hdf5Writer::bytes_on_disk() const {
    if (m_file < 0) return m_final_bytes;
    hsize_t size = 0;
    QuietErrors quiet;
    if (H5Fget_filesize(m_file, &size) < 0) H5Eclear2(H5E_DEFAULT);
    return size;
}

}  // namespace nmsim::trace
