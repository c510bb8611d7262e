// Hdf5Writer: the file layout read back through the HDF5 C API (independently of the writer's
// packing code: every column is read by name into its own typed buffer), buffering and flushing,
// crash safety under SWMR (a forked writer that dies without finish()), and error messages.
#include "nmsim/trace/hdf5_writer.h"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/common/trace_records.h"

namespace nmsim::trace {
namespace {

struct AllTypes {
    uint64_t t_ps;
    int64_t i64;
    double f64;
    uint32_t u32;
    int32_t i32;
    uint16_t u16;
    int16_t i16;
    uint8_t u8;
    int8_t i8;
    uint8_t pad_[2];  // not a column: must not reach the file
    char name[13];
    uint8_t pad2_[3];
};

const TableSchema& all_types_schema() {
    static const TableSchema s{
        "events/all_types",
        "every column type",
        sizeof(AllTypes),
        {NMSIM_COL(AllTypes, t_ps, "ps", "time"), NMSIM_COL(AllTypes, i64, "1", "signed 64"),
         NMSIM_COL(AllTypes, f64, "pJ", "double"), NMSIM_COL(AllTypes, u32, "B", "unsigned 32"),
         NMSIM_COL(AllTypes, i32, "1", "signed 32"), NMSIM_COL(AllTypes, u16, "1", "u16"),
         NMSIM_COL(AllTypes, i16, "1", "i16"), NMSIM_COL(AllTypes, u8, "1", "u8"),
         NMSIM_COL(AllTypes, i8, "1", "i8"), NMSIM_STR_COL(AllTypes, name, "a name")}};
    return s;
}

// A table outside events/: it takes rows even when events are disabled.
struct Sample {
    uint64_t t_ps;
    double v;
};
const TableSchema& sample_schema() {
    static const TableSchema s{
        "samples/v",
        "samples",
        sizeof(Sample),
        {NMSIM_COL(Sample, t_ps, "ps", "time"), NMSIM_COL(Sample, v, "V", "value")}};
    return s;
}

AllTypes make_row(uint64_t i) {
    AllTypes r;
    std::memset(&r, 0xAB, sizeof r);  // padding bytes full of junk
    r.t_ps = 1000 * i + 7;
    r.i64 = -static_cast<int64_t>(i) * 3;
    r.f64 = 0.5 * static_cast<double>(i) - 1.25;
    r.u32 = static_cast<uint32_t>(i * 2654435761u);
    r.i32 = -static_cast<int32_t>(i % 100000);
    r.u16 = static_cast<uint16_t>(i);
    r.i16 = static_cast<int16_t>(-static_cast<int>(i % 30000));
    r.u8 = static_cast<uint8_t>(i * 7);
    r.i8 = static_cast<int8_t>(static_cast<int>(i % 200) - 100);
    std::memset(r.name, 0, sizeof r.name);
    const std::string name = "row" + std::to_string(i);  // at most 12 bytes + NUL for our i
    std::memcpy(r.name, name.data(), std::min(name.size(), sizeof r.name - 1));
    return r;
}

std::string temp_path(const std::string& tag) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return ::testing::TempDir() + "nmsim_" + info->name() + "_" + tag + "_" +
           std::to_string(getpid()) + ".h5";
}

RunInfo run_info() {
    RunInfo r;
    r.simulator_version = "0.1.0+test";
    r.scenario_path = "scenarios/x.yaml";
    r.scenario_name = "x";
    r.platform = "spinnaker2";
    r.argv = "nmsim run scenarios/x.yaml";
    r.created_utc = "2025-01-02T03:04:05Z";
    r.seed = 0xFEEDFACECAFEBEEFull;
    return r;
}

// Read-back helpers (plain HDF5 C API).
class File {
public:
    explicit File(const std::string& path, bool swmr = false) {
        m_id = H5Fopen(path.c_str(), H5F_ACC_RDONLY | (swmr ? H5F_ACC_SWMR_READ : 0), H5P_DEFAULT);
    }
    ~File() {
        if (m_id >= 0) H5Fclose(m_id);
    }
    hid_t id() const { return m_id; }

private:
    hid_t m_id = -1;
};

std::string read_str_attr(hid_t obj, const char* name) {
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return "<missing>";
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char* s = nullptr;
    H5Aread(a, t, &s);
    std::string out = s ? s : "";
    H5free_memory(s);
    H5Tclose(t);
    H5Aclose(a);
    return out;
}

std::vector<std::string> read_str_array_attr(hid_t obj, const char* name) {
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return {};
    hid_t space = H5Aget_space(a);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space, &n, nullptr);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    std::vector<char*> p(n, nullptr);
    EXPECT_GE(H5Aread(a, t, p.data()), 0) << name;
    std::vector<std::string> out;
    for (char* s : p) out.emplace_back(s ? s : "<null>");
    H5Dvlen_reclaim(t, space, H5P_DEFAULT, p.data());
    H5Tclose(t);
    H5Sclose(space);
    H5Aclose(a);
    return out;
}

hsize_t rows(hid_t file, const char* path) {
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    if (d < 0) return ~hsize_t{0};
    hid_t s = H5Dget_space(d);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(s, &n, nullptr);
    H5Sclose(s);
    H5Dclose(d);
    return n;
}

// One column of a compound dataset, read by name into T (HDF5 converts from the file type).
template <class T>
std::vector<T> column(hid_t file, const char* path, const char* field, hid_t native) {
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    EXPECT_GE(d, 0) << path;
    hid_t s = H5Dget_space(d);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(s, &n, nullptr);
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(T));
    H5Tinsert(mt, field, 0, native);
    std::vector<T> out(n);
    EXPECT_GE(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0) << path << field;
    H5Tclose(mt);
    H5Sclose(s);
    H5Dclose(d);
    return out;
}

// A fixed-length string column (or a whole fixed-string dataset if field is null).
std::vector<std::string> str_column(hid_t file, const char* path, const char* field, size_t width) {
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    EXPECT_GE(d, 0) << path;
    hid_t s = H5Dget_space(d);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(s, &n, nullptr);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, width);
    H5Tset_strpad(st, H5T_STR_NULLPAD);
    H5Tset_cset(st, H5T_CSET_UTF8);
    hid_t mt = st;
    if (field) {
        mt = H5Tcreate(H5T_COMPOUND, width);
        H5Tinsert(mt, field, 0, st);
    }
    std::vector<char> buf(n * width);
    EXPECT_GE(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), 0) << path;
    std::vector<std::string> out;
    for (hsize_t i = 0; i < n; ++i)
        out.emplace_back(&buf[i * width], strnlen(&buf[i * width], width));
    if (field) H5Tclose(mt);
    H5Tclose(st);
    H5Sclose(s);
    H5Dclose(d);
    return out;
}

struct Outcome {
    std::string status, message;
    uint64_t sim_time_ps;
    double wall_seconds;
};
std::vector<Outcome> read_run(hid_t file) {
    std::vector<Outcome> out;
    const auto st = str_column(file, "run", "status", Hdf5Writer::kStatusBytes);
    const auto msg = str_column(file, "run", "message", Hdf5Writer::kMessageBytes);
    const auto t = column<uint64_t>(file, "run", "sim_time_ps", H5T_NATIVE_UINT64);
    const auto w = column<double>(file, "run", "wall_seconds", H5T_NATIVE_DOUBLE);
    for (size_t i = 0; i < st.size(); ++i) out.push_back({st[i], msg[i], t[i], w[i]});
    return out;
}

void write_rows(Hdf5Writer& w, TableId t, uint64_t from, uint64_t to) {
    for (uint64_t i = from; i < to; ++i) {
        const AllTypes r = make_row(i);
        w.append(t, &r);
    }
}

// Checks every column of /events/all_types against make_row(0..n-1).
void expect_all_types_rows(hid_t f, uint64_t n) {
    const char* p = "events/all_types";
    ASSERT_EQ(rows(f, p), n);
    const auto t = column<uint64_t>(f, p, "t_ps", H5T_NATIVE_UINT64);
    const auto i64 = column<int64_t>(f, p, "i64", H5T_NATIVE_INT64);
    const auto f64 = column<double>(f, p, "f64", H5T_NATIVE_DOUBLE);
    const auto u32 = column<uint32_t>(f, p, "u32", H5T_NATIVE_UINT32);
    const auto i32 = column<int32_t>(f, p, "i32", H5T_NATIVE_INT32);
    const auto u16 = column<uint16_t>(f, p, "u16", H5T_NATIVE_UINT16);
    const auto i16 = column<int16_t>(f, p, "i16", H5T_NATIVE_INT16);
    const auto u8 = column<uint8_t>(f, p, "u8", H5T_NATIVE_UINT8);
    const auto i8 = column<int8_t>(f, p, "i8", H5T_NATIVE_INT8);
    const auto name = str_column(f, p, "name", 13);
    for (uint64_t i = 0; i < n; ++i) {
        const AllTypes r = make_row(i);
        ASSERT_EQ(t[i], r.t_ps) << i;
        ASSERT_EQ(i64[i], r.i64) << i;
        ASSERT_EQ(f64[i], r.f64) << i;
        ASSERT_EQ(u32[i], r.u32) << i;
        ASSERT_EQ(i32[i], r.i32) << i;
        ASSERT_EQ(u16[i], r.u16) << i;
        ASSERT_EQ(i16[i], r.i16) << i;
        ASSERT_EQ(u8[i], r.u8) << i;
        ASSERT_EQ(i8[i], r.i8) << i;
        ASSERT_EQ(name[i], std::string(r.name)) << i;
    }
}

TEST(Hdf5Writer, LayoutAttributesTypesAndRows) {
    const std::string path = temp_path("layout");
    const uint64_t n = 10000;  // two full chunks and a partial one
    {
        Hdf5Writer w(path, run_info(), true);
        w.set_config("platform: spinnaker2\nseed: 3\n",
                     {{"a.b", "1us", "ps", "Time", "default", "assumed: x", "doc a"},
                      {"a.c", "3", "cycles", "u32", "x.yaml:4:7", "paper", "doc \xc2\xb5"}});
        const ComponentId c0 = w.component("s2.chip0.pe0.mla");
        const ComponentId c1 = w.component("s2.chip0.pe1.mla");
        EXPECT_EQ(w.component("s2.chip0.pe0.mla"), c0);
        const TableId t = w.declare_table(all_types_schema());
        EXPECT_EQ(w.declare_table(all_types_schema()), t);
        const TableId mla = w.declare_table(MlaOpRecord_schema());
        EXPECT_NE(mla, t);
        w.start();
        const ComponentId late = w.component("s2.host");  // after start: LUT grows
        write_rows(w, t, 0, n);
        EXPECT_EQ(w.rows_written(), n);
        MlaOpRecord op{10, 20, 6, 9, 1, 2, 3, c1, 0x5A, 1, {}};
        w.append(mla, &op);
        w.counter(c0, "macs", "1", 5);
        w.counter(c1, "macs", "1", 7);
        w.counter(c1, "busy_time", "ps", 1e6);
        w.counter(c0, "macs", "1", 6);  // last value wins
        w.counter(late, "runs", "1", 1);
        w.finish("ok", "", 123456789, 1.5);
        EXPECT_GT(w.bytes_on_disk(), 0u);
    }
    File f(path);
    ASSERT_GE(f.id(), 0);
    const hid_t root = f.id();
    EXPECT_EQ(read_str_attr(root, "schema"), "nmsim-trace");
    EXPECT_EQ(read_str_attr(root, "schema_version"), "1");
    EXPECT_EQ(read_str_attr(root, "simulator_version"), "0.1.0+test");
    EXPECT_EQ(read_str_attr(root, "scenario"), "scenarios/x.yaml");
    EXPECT_EQ(read_str_attr(root, "scenario_name"), "x");
    EXPECT_EQ(read_str_attr(root, "platform"), "spinnaker2");
    EXPECT_EQ(read_str_attr(root, "argv"), "nmsim run scenarios/x.yaml");
    EXPECT_EQ(read_str_attr(root, "created_utc"), "2025-01-02T03:04:05Z");
    EXPECT_EQ(read_str_attr(root, "time_unit"), "ps");
    uint64_t seed = 0;
    hid_t a = H5Aopen(root, "seed", H5P_DEFAULT);
    ASSERT_GE(a, 0);
    H5Aread(a, H5T_NATIVE_UINT64, &seed);
    H5Aclose(a);
    EXPECT_EQ(seed, 0xFEEDFACECAFEBEEFull);

    // /config
    hid_t d = H5Dopen2(root, "config/resolved", H5P_DEFAULT);
    ASSERT_GE(d, 0);
    hid_t vs = H5Tcopy(H5T_C_S1);
    H5Tset_size(vs, H5T_VARIABLE);
    H5Tset_cset(vs, H5T_CSET_UTF8);
    char* yaml = nullptr;
    H5Dread(d, vs, H5S_ALL, H5S_ALL, H5P_DEFAULT, &yaml);
    EXPECT_STREQ(yaml, "platform: spinnaker2\nseed: 3\n");
    H5free_memory(yaml);
    H5Dclose(d);
    struct PRow {
        char *path, *origin, *doc;
    };
    hid_t pt = H5Tcreate(H5T_COMPOUND, sizeof(PRow));
    H5Tinsert(pt, "path", HOFFSET(PRow, path), vs);
    H5Tinsert(pt, "origin", HOFFSET(PRow, origin), vs);
    H5Tinsert(pt, "doc", HOFFSET(PRow, doc), vs);
    d = H5Dopen2(root, "config/params", H5P_DEFAULT);
    ASSERT_EQ(rows(root, "config/params"), 2u);
    PRow pr[2];
    ASSERT_GE(H5Dread(d, pt, H5S_ALL, H5S_ALL, H5P_DEFAULT, pr), 0);
    EXPECT_STREQ(pr[0].path, "a.b");
    EXPECT_STREQ(pr[1].origin, "x.yaml:4:7");
    EXPECT_STREQ(pr[1].doc, "doc \xc2\xb5");
    hid_t ps = H5Dget_space(d);
    H5Dvlen_reclaim(pt, ps, H5P_DEFAULT, pr);
    H5Sclose(ps);
    H5Dclose(d);
    H5Tclose(pt);
    H5Tclose(vs);

    // Event table: compound with exactly the schema's columns, in order, with their types.
    d = H5Dopen2(root, "events/all_types", H5P_DEFAULT);
    ASSERT_GE(d, 0);
    hid_t ft = H5Dget_type(d);
    ASSERT_EQ(H5Tget_class(ft), H5T_COMPOUND);
    const auto& cols = all_types_schema().columns;
    ASSERT_EQ(H5Tget_nmembers(ft), static_cast<int>(cols.size()));
    size_t packed = 0;
    for (unsigned i = 0; i < cols.size(); ++i) {
        char* nm = H5Tget_member_name(ft, i);
        EXPECT_EQ(std::string(nm), cols[i].name);
        H5free_memory(nm);
        hid_t mt = H5Tget_member_type(ft, i);
        EXPECT_EQ(H5Tget_size(mt), cols[i].size) << cols[i].name;
        packed += cols[i].size;
        const H5T_class_t cls = H5Tget_class(mt);
        switch (cols[i].type) {
            case ColType::str:
                EXPECT_EQ(cls, H5T_STRING);
                break;
            case ColType::f64:
                EXPECT_EQ(cls, H5T_FLOAT);
                break;
            default:
                EXPECT_EQ(cls, H5T_INTEGER);
                const bool is_signed = cols[i].type == ColType::i8 ||
                                       cols[i].type == ColType::i16 ||
                                       cols[i].type == ColType::i32 || cols[i].type == ColType::i64;
                EXPECT_EQ(H5Tget_sign(mt), is_signed ? H5T_SGN_2 : H5T_SGN_NONE) << cols[i].name;
        }
        H5Tclose(mt);
    }
    EXPECT_EQ(H5Tget_size(ft), packed);  // padding members do not reach the file
    H5Tclose(ft);
    EXPECT_EQ(read_str_attr(d, "doc"), "every column type");
    EXPECT_EQ(read_str_attr(d, "time_unit"), "ps");
    const auto units = read_str_array_attr(d, "units");
    const auto docs = read_str_array_attr(d, "docs");
    ASSERT_EQ(units.size(), cols.size());
    ASSERT_EQ(docs.size(), cols.size());
    for (size_t i = 0; i < cols.size(); ++i) {
        EXPECT_EQ(units[i], cols[i].unit);
        EXPECT_EQ(docs[i], cols[i].doc);
    }
    hid_t dcpl = H5Dget_create_plist(d);
    EXPECT_EQ(H5Pget_layout(dcpl), H5D_CHUNKED);
    EXPECT_EQ(H5Pget_nfilters(dcpl), 2);
    H5Pclose(dcpl);
    H5Dclose(d);
    expect_all_types_rows(root, n);

    ASSERT_EQ(rows(root, "events/mla_ops"), 1u);
    EXPECT_EQ(column<uint64_t>(root, "events/mla_ops", "macs", H5T_NATIVE_UINT64)[0], 6u);
    EXPECT_EQ(column<uint32_t>(root, "events/mla_ops", "n", H5T_NATIVE_UINT32)[0], 3u);
    EXPECT_EQ(column<uint16_t>(root, "events/mla_ops", "component", H5T_NATIVE_UINT16)[0], 1u);
    EXPECT_EQ(column<uint16_t>(root, "events/mla_ops", "flags", H5T_NATIVE_UINT16)[0], 0x5A);

    // LUTs and counters.
    EXPECT_EQ(str_column(root, "lut/components", nullptr, Hdf5Writer::kComponentPathBytes),
              (std::vector<std::string>{"s2.chip0.pe0.mla", "s2.chip0.pe1.mla", "s2.host"}));
    const auto names = str_column(root, "lut/counters", "name", Hdf5Writer::kCounterNameBytes);
    const auto cunits = str_column(root, "lut/counters", "unit", Hdf5Writer::kCounterUnitBytes);
    EXPECT_EQ(names, (std::vector<std::string>{"macs", "busy_time", "runs"}));
    EXPECT_EQ(cunits, (std::vector<std::string>{"1", "ps", "1"}));
    const auto cc = column<uint16_t>(root, "summary/counters", "component", H5T_NATIVE_UINT16);
    const auto ci = column<uint16_t>(root, "summary/counters", "counter", H5T_NATIVE_UINT16);
    const auto cv = column<double>(root, "summary/counters", "value", H5T_NATIVE_DOUBLE);
    EXPECT_EQ(cc, (std::vector<uint16_t>{0, 1, 1, 2}));
    EXPECT_EQ(ci, (std::vector<uint16_t>{0, 0, 1, 2}));
    EXPECT_EQ(cv, (std::vector<double>{6, 7, 1e6, 1}));

    const auto run = read_run(root);
    ASSERT_EQ(run.size(), 1u);
    EXPECT_EQ(run[0].status, "ok");
    EXPECT_EQ(run[0].message, "");
    EXPECT_EQ(run[0].sim_time_ps, 123456789u);
    EXPECT_EQ(run[0].wall_seconds, 1.5);
    std::remove(path.c_str());
}

TEST(Hdf5Writer, EventsDisabledKeepsSchemaButNoRows) {
    const std::string path = temp_path("noevents");
    {
        Hdf5Writer w(path, run_info(), false);
        const TableId t = w.declare_table(all_types_schema());
        const TableId s = w.declare_table(sample_schema());
        w.start();
        write_rows(w, t, 0, 5000);
        const Sample smp{5, 0.25};
        w.append(s, &smp);
        EXPECT_EQ(w.rows_written(), 1u);
        w.finish("ok", "", 5, 0);
    }
    File f(path);
    ASSERT_GE(f.id(), 0);
    EXPECT_EQ(rows(f.id(), "events/all_types"), 0u);
    hid_t d = H5Dopen2(f.id(), "events/all_types", H5P_DEFAULT);
    EXPECT_EQ(read_str_array_attr(d, "units").size(), all_types_schema().columns.size());
    H5Dclose(d);
    ASSERT_EQ(rows(f.id(), "samples/v"), 1u);
    EXPECT_EQ(column<double>(f.id(), "samples/v", "v", H5T_NATIVE_DOUBLE)[0], 0.25);
    std::remove(path.c_str());
}

TEST(Hdf5Writer, DestroyedWithoutFinishRecordsIncomplete) {
    const std::string path = temp_path("incomplete");
    {
        Hdf5Writer w(path, run_info(), true);
        const TableId t = w.declare_table(all_types_schema());
        w.start();
        write_rows(w, t, 0, 10);  // still buffered: the destructor must flush them
    }
    File f(path);
    ASSERT_GE(f.id(), 0);
    expect_all_types_rows(f.id(), 10);
    const auto run = read_run(f.id());
    ASSERT_EQ(run.size(), 1u);
    EXPECT_EQ(run[0].status, "incomplete");
    std::remove(path.c_str());
}

TEST(Hdf5Writer, ErrorOutcomeAndLongMessageTruncated) {
    const std::string path = temp_path("error");
    const std::string msg(3000, 'x');
    {
        Hdf5Writer w(path, run_info(), true);
        EXPECT_THROW(w.finish("fine", "", 0, 0), std::invalid_argument);
        w.finish("error", msg, 42, 0.25);  // finish() without start(): starts first
    }
    File f(path);
    const auto run = read_run(f.id());
    ASSERT_EQ(run.size(), 1u);
    EXPECT_EQ(run[0].status, "error");
    EXPECT_EQ(run[0].message, msg.substr(0, Hdf5Writer::kMessageBytes));
    EXPECT_EQ(run[0].sim_time_ps, 42u);
    EXPECT_EQ(rows(f.id(), "lut/components"), 0u);
    std::remove(path.c_str());
}

TEST(Hdf5Writer, MisuseIsRejected) {
    const std::string path = temp_path("misuse");
    Hdf5Writer w(path, run_info(), true);
    const TableId t = w.declare_table(all_types_schema());
    TableSchema other = all_types_schema();
    other.columns.pop_back();
    EXPECT_THROW(w.declare_table(other), std::invalid_argument);
    TableSchema bad = sample_schema();
    bad.path = "events/bad";
    bad.columns[1].offset = 100;  // beyond the record
    EXPECT_THROW(w.declare_table(bad), std::invalid_argument);
    const AllTypes r = make_row(0);
    EXPECT_THROW(w.append(t, &r), std::logic_error);  // before start()
    EXPECT_THROW(w.component(std::string(Hdf5Writer::kComponentPathBytes + 1, 'c')),
                 std::invalid_argument);
    EXPECT_THROW(w.counter(7, "x", "1", 0), std::out_of_range);
    const ComponentId c = w.component("c");
    EXPECT_THROW(w.counter(c, std::string(Hdf5Writer::kCounterNameBytes + 1, 'n'), "1", 0),
                 std::invalid_argument);
    w.start();
    EXPECT_THROW(w.start(), std::logic_error);
    EXPECT_THROW(w.declare_table(sample_schema()), std::logic_error);
    EXPECT_EQ(w.declare_table(all_types_schema()), t);  // already declared: fine
    EXPECT_THROW(w.append(t + 5, &r), std::out_of_range);
    EXPECT_THROW(w.set_config("", {}), std::logic_error);
    w.finish("ok", "", 0, 0);
    EXPECT_THROW(w.append(t, &r), std::logic_error);
    std::remove(path.c_str());
}

TEST(Hdf5Writer, UnwritablePathNamesPathAndReason) {
    const std::string path = "/nonexistent_nmsim_dir/sub/trace.h5";
    try {
        Hdf5Writer w(path, run_info(), true);
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(path), std::string::npos) << what;
        EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
    }
    // A directory is not a file.
    try {
        Hdf5Writer w(::testing::TempDir(), run_info(), true);
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(::testing::TempDir()), std::string::npos);
    }
}

// The crash test: a child process writes past a flush and dies without finish() or destructors
// (as after kill -9). The parent, as an SWMR reader, must see exactly the flushed prefix.
TEST(Hdf5Writer, CrashedWriterLeavesReadablePrefix) {
    const std::string path = temp_path("crash");
    const uint64_t n = 2 * Hdf5Writer::kFlushRows + 1000;
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        try {
            Hdf5Writer w(path, run_info(), true);
            w.set_config("a: 1\n", {});
            w.component("s2.chip0.pe0");
            const TableId t = w.declare_table(all_types_schema());
            w.start();
            w.component("s2.late");  // reaches the file with the first flush after it
            write_rows(w, t, 0, n);
            w.counter(0, "ops", "1", 1);
            _exit(0);
        } catch (...) {
            _exit(3);
        }
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);

    File f(path, true);
    ASSERT_GE(f.id(), 0) << "SWMR read of the crashed file failed";
    expect_all_types_rows(f.id(), 2 * Hdf5Writer::kFlushRows);
    EXPECT_EQ(str_column(f.id(), "lut/components", nullptr, Hdf5Writer::kComponentPathBytes),
              (std::vector<std::string>{"s2.chip0.pe0", "s2.late"}));
    EXPECT_EQ(read_str_attr(f.id(), "schema"), "nmsim-trace");
    EXPECT_EQ(rows(f.id(), "run"), 0u);  // no outcome: the reader reports "incomplete"
    EXPECT_EQ(rows(f.id(), "summary/counters"), 0u);
    std::remove(path.c_str());
}

// Rare rows (a table far from a full chunk) reach the file after kSweepRows appends in total,
// and partly written chunks are completed correctly afterwards.
TEST(Hdf5Writer, SweepFlushesRareTables) {
    const std::string path = temp_path("sweep");
    const uint64_t n = Hdf5Writer::kSweepRows + 1000;
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        try {
            Hdf5Writer w(path, run_info(), true);
            const TableId t = w.declare_table(all_types_schema());
            const TableId s = w.declare_table(sample_schema());
            w.start();
            for (uint64_t i = 0; i < 3; ++i) {
                const Sample smp{i, 0.5 * static_cast<double>(i)};
                w.append(s, &smp);
            }
            write_rows(w, t, 0, n);
            _exit(0);
        } catch (...) {
            _exit(3);
        }
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    {
        File f(path, true);
        ASSERT_GE(f.id(), 0);
        EXPECT_EQ(column<double>(f.id(), "samples/v", "v", H5T_NATIVE_DOUBLE),
                  (std::vector<double>{0, 0.5, 1}));
        const hsize_t got = rows(f.id(), "events/all_types");
        EXPECT_GT(got, Hdf5Writer::kSweepRows - Hdf5Writer::kFlushRows);
        EXPECT_LT(got, n);
        expect_all_types_rows(f.id(), got);
    }
    std::remove(path.c_str());

    // The same in a finished run: chunks flushed partly, then filled, then flushed whole.
    {
        Hdf5Writer w(path, run_info(), true);
        const TableId t = w.declare_table(all_types_schema());
        w.start();
        write_rows(w, t, 0, 100);
        w.flush();
        write_rows(w, t, 100, 5000);
        w.flush();
        w.flush();
        write_rows(w, t, 5000, 9000);
        w.finish("ok", "", 0, 0);
    }
    File f(path);
    expect_all_types_rows(f.id(), 9000);
    std::remove(path.c_str());
}

// A live writer: a concurrent SWMR reader sees each flushed chunk while the run goes on.
TEST(Hdf5Writer, ConcurrentReaderSeesFlushedRows) {
    const std::string path = temp_path("live");
    int to_child[2], to_parent[2];
    ASSERT_EQ(pipe(to_child), 0);
    ASSERT_EQ(pipe(to_parent), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        char c = 0;
        try {
            Hdf5Writer w(path, run_info(), true);
            const TableId t = w.declare_table(all_types_schema());
            w.start();
            write_rows(w, t, 0, Hdf5Writer::kFlushRows + 5);
            if (write(to_parent[1], "1", 1) != 1 || read(to_child[0], &c, 1) != 1) _exit(4);
            write_rows(w, t, Hdf5Writer::kFlushRows + 5, 3 * Hdf5Writer::kFlushRows);
            if (write(to_parent[1], "2", 1) != 1 || read(to_child[0], &c, 1) != 1) _exit(4);
            w.finish("ok", "", 1, 0);
            _exit(0);
        } catch (...) {
            _exit(3);
        }
    }
    char c = 0;
    ASSERT_EQ(read(to_parent[0], &c, 1), 1);
    {
        File f(path, true);
        ASSERT_GE(f.id(), 0);
        expect_all_types_rows(f.id(), Hdf5Writer::kFlushRows);
    }
    ASSERT_EQ(write(to_child[1], "g", 1), 1);
    ASSERT_EQ(read(to_parent[0], &c, 1), 1);
    {
        File f(path, true);
        expect_all_types_rows(f.id(), 3 * Hdf5Writer::kFlushRows);
    }
    ASSERT_EQ(write(to_child[1], "g", 1), 1);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    File f(path);
    ASSERT_GE(f.id(), 0);
    expect_all_types_rows(f.id(), 3 * Hdf5Writer::kFlushRows);
    EXPECT_EQ(read_run(f.id()).at(0).status, "ok");
    for (int fd : {to_child[0], to_child[1], to_parent[0], to_parent[1]}) close(fd);
    std::remove(path.c_str());
}

}  // namespace
}  // namespace nmsim::trace
