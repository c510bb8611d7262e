// `nmsim sweep` end to end with the real `nmsim` binary as the child program: the local backend
// (results table in CSV and HDF5, statuses, an invalid point, a crashing and a failing child,
// resume, manifest check, fail-fast on a typo), point mode + --collect, and the Slurm backend
// against a real one-machine Slurm (munged + slurmctld + slurmd) when it can start here.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "tools/sweep/results.h"
#include "tools/sweep/sweep.h"

namespace fs = std::filesystem;
using namespace nmsim::sweep;

namespace {

const std::string kNmsim = std::string(NMSIM_BINARY_DIR) + "/bin/nmsim";
const std::string kMatmul = std::string(NMSIM_SOURCE_DIR) + "/scenarios/s2_pe_matmul.yaml";

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A CSV file as rows of fields (RFC 4180 quoting), header first.
std::vector<std::vector<std::string>> read_csv(const std::string& path) {
    const std::string t = read_text(path);
    std::vector<std::vector<std::string>> rows(1);
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (quoted) {
            if (c == '"' && i + 1 < t.size() && t[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().push_back(field);
            field.clear();
        } else if (c == '\n') {
            rows.back().push_back(field);
            field.clear();
            rows.emplace_back();
        } else {
            field += c;
        }
    }
    if (rows.back().empty()) rows.pop_back();
    return rows;
}

// Column name -> value, one map per data row.
std::vector<std::map<std::string, std::string>> csv_records(const std::string& path) {
    const auto rows = read_csv(path);
    std::vector<std::map<std::string, std::string>> out;
    for (size_t i = 1; i < rows.size(); ++i) {
        std::map<std::string, std::string> m;
        for (size_t k = 0; k < rows[0].size() && k < rows[i].size(); ++k)
            m[rows[0][k]] = rows[i][k];
        out.push_back(m);
    }
    return out;
}

double num(const std::string& s) { return s.empty() ? NAN : std::strtod(s.c_str(), nullptr); }

// /results of results.h5: field names, row count, one f64 field and the `sweep` attribute.
struct H5Table {
    std::vector<std::string> fields;
    size_t rows = 0;
    std::map<std::string, std::vector<double>> f64;
    std::string sweep_attr;
    std::vector<std::string> units;  // the `units` attribute, one per column
};

H5Table read_results_h5(const std::string& path) {
    H5Table t;
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(f, 0) << path;
    if (f < 0) return t;
    const hid_t d = H5Dopen2(f, "results", H5P_DEFAULT);
    const hid_t type = H5Dget_type(d);
    const hid_t space = H5Dget_space(d);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space, &n, nullptr);
    t.rows = n;
    for (int i = 0; i < H5Tget_nmembers(type); ++i) {
        char* name = H5Tget_member_name(type, static_cast<unsigned>(i));
        t.fields.emplace_back(name);
        H5free_memory(name);
    }
    for (const auto& name : t.fields) {
        if (name.rfind("metric:", 0) != 0 && name != "point") continue;
        const hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(double));
        H5Tinsert(mt, name.c_str(), 0, H5T_NATIVE_DOUBLE);
        std::vector<double> v(n);
        if (n) H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        t.f64[name] = v;
        H5Tclose(mt);
    }
    const hid_t a = H5Aopen(d, "sweep", H5P_DEFAULT);
    const hid_t at = H5Aget_type(a);
    char* s = nullptr;
    H5Aread(a, at, &s);
    if (s) t.sweep_attr = s;
    H5free_memory(s);
    H5Tclose(at);
    H5Aclose(a);
    const hid_t ua = H5Aopen(d, "units", H5P_DEFAULT);
    const hid_t ut = H5Aget_type(ua);
    const hid_t us = H5Aget_space(ua);
    hsize_t nu = 0;
    H5Sget_simple_extent_dims(us, &nu, nullptr);
    std::vector<char*> u(nu, nullptr);
    if (nu) H5Aread(ua, ut, u.data());
    for (char* x : u) {
        t.units.emplace_back(x ? x : "");
        H5free_memory(x);
    }
    H5Sclose(us);
    H5Tclose(ut);
    H5Aclose(ua);
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(d);
    H5Fclose(f);
    return t;
}

class SweepRunTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(fs::exists(kNmsim)) << kNmsim << " (build the nmsim target)";
        m_dir = fs::temp_directory_path() /
                ("nmsim_sweep_run_" + std::to_string(getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override {
        if (!HasFailure()) fs::remove_all(m_dir);
    }

    std::string write(const std::string& name, const std::string& text) {
        const auto p = m_dir / name;
        std::ofstream(p) << text;
        return p.string();
    }

    int sweep(const std::string& file, SweepSummary* sum, int jobs = 2, bool retry = false) {
        SweepOptions o;
        o.sweep_path = file;
        o.jobs = jobs;
        o.exe = m_exe.empty() ? kNmsim : m_exe;
        o.retry_failed = retry;
        o.progress = false;
        std::ostringstream out, err;
        const int rc = run_sweep(o, out, err, sum);
        m_out = out.str();
        m_err = err.str();
        return rc;
    }

    fs::path m_dir;
    std::string m_exe, m_out, m_err;
};

// A grid of 6 points of the single-PE matmul: perf_level 7 is out of range [0, 1].
const char* kMatmulSweep = R"(name: mm
base: %BASE%
axes:
  pe.perf_level: [0, 1, 7]
  seed: [1, 2]
metrics: [sim_time_us, wall_s, s2.pe0.mla/macs, s2.pe0.core/clock_hz, no.such/metric]
output: out
)";

std::string with_base(std::string text, const std::string& base) {
    const auto p = text.find("%BASE%");
    if (p != std::string::npos) text.replace(p, 6, base);
    return text;
}

}  // namespace

TEST_F(SweepRunTest, LocalEndToEndWithInvalidPointAndResume) {
    const std::string file = write("mm.yaml", with_base(kMatmulSweep, kMatmul));
    SweepSummary s;
    EXPECT_EQ(sweep(file, &s), 1) << m_out << m_err;  // 1: some point failed
    EXPECT_EQ(s.total, 6u);
    EXPECT_EQ(s.validations, 6u);
    EXPECT_EQ(s.runs, 4u);
    EXPECT_EQ(s.ok, 4u);
    EXPECT_EQ(s.failed, 2u);
    EXPECT_NE(m_out.find("points/min"), std::string::npos) << m_out;

    const std::string out = (m_dir / "out").string();
    const auto recs = csv_records(out + "/results.csv");
    ASSERT_EQ(recs.size(), 6u);
    for (size_t i = 0; i < recs.size(); ++i) {
        const auto& r = recs[i];
        EXPECT_EQ(r.at("point"), std::to_string(i));
        // Grid order: last axis fastest.
        EXPECT_EQ(r.at("param:pe.perf_level"), std::to_string(std::vector<int>{0, 1, 7}[i / 2]));
        EXPECT_EQ(r.at("param:seed"), std::to_string(1 + i % 2));
        if (i < 4) {
            EXPECT_EQ(r.at("status"), "ok") << r.at("error");
            EXPECT_EQ(r.at("error"), "");
            // One 1x784 by 784x64 matmul: 784 * 64 MACs.
            EXPECT_EQ(num(r.at("metric:s2.pe0.mla/macs")), 784.0 * 64.0);
            // pl0_freq 150 MHz, pl1_freq 300 MHz (the parameter defaults).
            EXPECT_EQ(num(r.at("metric:s2.pe0.core/clock_hz")), i < 2 ? 150e6 : 300e6);
            EXPECT_GT(num(r.at("metric:sim_time_us")), 0.0);
            EXPECT_GT(num(r.at("metric:wall_s")), 0.0);
            EXPECT_EQ(r.at("metric:no.such/metric"), "");
        } else {
            EXPECT_EQ(r.at("status"), "error");
            EXPECT_NE(r.at("error").find("pe.perf_level: value 7 out of range [0, 1]"),
                      std::string::npos)
                << r.at("error");
            EXPECT_EQ(r.at("metric:sim_time_us"), "");
            EXPECT_FALSE(fs::exists(trace_path(out, static_cast<uint32_t>(i))));
        }
    }
    // Half the clock: the same work takes longer (the MLA cycles dominate: about twice).
    const double t150 = num(recs[0].at("metric:sim_time_us"));
    const double t300 = num(recs[2].at("metric:sim_time_us"));
    EXPECT_GT(t150 / t300, 1.8);
    EXPECT_LT(t150 / t300, 2.2);
    // The seed changes the data, not the timing of a dense matmul.
    EXPECT_EQ(recs[0].at("metric:sim_time_us"), recs[1].at("metric:sim_time_us"));

    // The HDF5 table holds the same rows and columns.
    const H5Table h = read_results_h5(out + "/results.h5");
    EXPECT_EQ(h.rows, 6u);
    EXPECT_EQ(h.fields, (std::vector<std::string>{
                            "point", "status", "error", "param:pe.perf_level", "param:seed",
                            "metric:sim_time_us", "metric:wall_s", "metric:s2.pe0.mla/macs",
                            "metric:s2.pe0.core/clock_hz", "metric:no.such/metric"}));
    EXPECT_EQ(h.sweep_attr, read_text(file));
    // Units: pe.perf_level is a plain count (unit "1": none shown), seed a scenario key.
    EXPECT_EQ(h.units, (std::vector<std::string>{"", "", "", "", "", "us", "s", "1", "Hz", ""}));
    for (size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(h.f64.at("point")[i], static_cast<double>(i));
        const double csv = num(recs[i].at("metric:sim_time_us"));
        if (std::isnan(csv))
            EXPECT_TRUE(std::isnan(h.f64.at("metric:sim_time_us")[i]));
        else
            EXPECT_EQ(h.f64.at("metric:sim_time_us")[i], csv);
    }
    EXPECT_EQ(read_text(out + "/points.csv"),
              "point,param:pe.perf_level,param:seed\n0,0,1\n1,0,2\n2,1,1\n3,1,2\n4,7,1\n5,7,2\n");

    // Resume: nothing to run, nothing to validate, same table.
    const std::string csv_before = read_text(out + "/results.csv");
    EXPECT_EQ(sweep(file, &s), 1);
    EXPECT_EQ(s.runs, 0u);
    EXPECT_EQ(s.validations, 0u);
    EXPECT_EQ(s.skipped, 6u);
    EXPECT_EQ(read_text(out + "/results.csv"), csv_before);

    // A lost trace is run again, alone.
    fs::remove(trace_path(out, 3));
    EXPECT_EQ(sweep(file, &s), 1);
    EXPECT_EQ(s.runs, 1u);
    EXPECT_EQ(s.validations, 1u);
    EXPECT_EQ(csv_records(out + "/results.csv")[3].at("status"), "ok");

    // --retry-failed validates the failed points again (they stay invalid).
    EXPECT_EQ(sweep(file, &s, 2, true), 1);
    EXPECT_EQ(s.validations, 2u);
    EXPECT_EQ(s.runs, 0u);
    EXPECT_EQ(s.failed, 2u);

    // A changed sweep file is refused in the same output directory.
    std::string changed = with_base(kMatmulSweep, kMatmul);
    changed.replace(changed.find("[0, 1, 7]"), 9, "[0, 1]");
    write("mm.yaml", changed);
    EXPECT_EQ(sweep(file, &s), 2);
    EXPECT_NE(m_err.find("the sweep file changed"), std::string::npos) << m_err;
}

TEST_F(SweepRunTest, CrashingAndFailingChildrenAreIsolated) {
    // A wrapper around nmsim: `--set x=crash` dies from SIGSEGV, `x=fail` prints an error and
    // exits 1, `x=ok` runs nmsim without the x setting.
    m_exe = write("fake_nmsim.sh",
                  "#!/bin/sh\n"
                  "case \"$*\" in *--elaborate-only*) exit 0;; esac\n"
                  "case \"$*\" in *x=crash*) kill -SEGV $$;; esac\n"
                  "case \"$*\" in *x=fail*) echo first line >&2; "
                  "echo 'something broke' >&2; exit 1;; esac\n"
                  "skip=''\n"
                  "for a in \"$@\"; do shift\n"
                  "  if [ \"$a\" = --set ]; then skip=1; continue; fi\n"
                  "  if [ -n \"$skip\" ]; then skip=''; case \"$a\" in x=*) "
                  "continue;; esac; set -- \"$@\" --set \"$a\"; continue; fi\n"
                  "  set -- \"$@\" \"$a\"\n"
                  "done\n"
                  "exec " +
                      kNmsim + " \"$@\"\n");
    chmod(m_exe.c_str(), 0755);
    const std::string file = write("crash.yaml", "base: " + kMatmul +
                                                     "\nzip: {x: [ok, fail, ok, crash], seed: [1, "
                                                     "2, 3, 4]}\nmetrics: [sim_time_us]\n");
    SweepSummary s;
    EXPECT_EQ(sweep(file, &s), 1) << m_out << m_err;
    const auto recs = csv_records((m_dir / "results/crash/results.csv").string());
    ASSERT_EQ(recs.size(), 4u);
    EXPECT_EQ(recs[0].at("status"), "ok");
    EXPECT_EQ(recs[2].at("status"), "ok");
    EXPECT_GT(num(recs[2].at("metric:sim_time_us")), 0.0);
    EXPECT_EQ(recs[1].at("status"), "error");
    EXPECT_EQ(recs[1].at("error"), "something broke");  // the child's last stderr line
    EXPECT_EQ(recs[3].at("status"), "error");
    EXPECT_NE(recs[3].at("error").find("killed by signal 11"), std::string::npos)
        << recs[3].at("error");
    EXPECT_EQ(s.runs, 4u);
    EXPECT_EQ(s.validations, 4u);
}

TEST_F(SweepRunTest, TypoInAxisNameFailsFast) {
    const std::string file =
        write("typo.yaml", "base: " + kMatmul + "\naxes: {pe.mla.acc_bitz: [20, 24, 28, 32]}\n");
    SweepSummary s;
    EXPECT_EQ(sweep(file, &s), 2);
    EXPECT_EQ(s.validations, 1u);  // stopped after the first point
    EXPECT_EQ(s.runs, 0u);
    EXPECT_NE(m_err.find("pe.mla.acc_bitz"), std::string::npos) << m_err;
    EXPECT_NE(m_err.find("did you mean \"pe.mla.acc_bits\""), std::string::npos) << m_err;
    // Nothing recorded: after fixing the name the same output directory starts afresh.
    EXPECT_FALSE(fs::exists(m_dir / "results/typo/points.csv"));
    EXPECT_FALSE(fs::exists(m_dir / "results/typo/points/0.error"));
}

TEST_F(SweepRunTest, BadSweepFileExits2) {
    const std::string file = write("bad.yaml", "base: " + kMatmul + "\naxes: {seed: []}\n");
    SweepSummary s;
    EXPECT_EQ(sweep(file, &s), 2);
    EXPECT_NE(m_err.find("bad.yaml:2:14: error: axes.seed: empty list"), std::string::npos)
        << m_err;
}

TEST_F(SweepRunTest, PointModeThenCollect) {
    const std::string file =
        write("pm.yaml", "base: " + kMatmul + "\naxes: {seed: [1, 2, 3]}\noutput: o\n");
    SweepOptions o;
    o.sweep_path = file;
    o.exe = kNmsim;
    o.point = 1;
    std::ostringstream out, err;
    EXPECT_EQ(run_sweep(o, out, err), 0) << out.str() << err.str();
    EXPECT_TRUE(fs::exists(m_dir / "o/points/1.h5"));
    EXPECT_FALSE(fs::exists(m_dir / "o/points/0.h5"));
    o.point = 7;
    EXPECT_EQ(run_sweep(o, out, err), 2);
    o.point.reset();
    o.collect = true;
    SweepSummary s;
    EXPECT_EQ(run_sweep(o, out, err, &s), 0) << err.str();
    EXPECT_EQ(s.ok, 1u);
    EXPECT_EQ(s.pending, 2u);
    EXPECT_EQ(s.runs, 0u);
    const auto recs = csv_records((m_dir / "o/results.csv").string());
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[0].at("status"), "pending");
    EXPECT_EQ(recs[1].at("status"), "ok");
    // Default metrics: at least the /run ones, filled for the finished point only.
    EXPECT_GT(num(recs[1].at("metric:sim_time_us")), 0.0);
    EXPECT_EQ(recs[0].at("metric:sim_time_us"), "");
}

TEST_F(SweepRunTest, DryRunWritesNothing) {
    const std::string file =
        write("dry.yaml", "base: " + kMatmul + "\naxes: {seed: [1, 2], pe.perf_level: [0, 1]}\n");
    SweepOptions o;
    o.sweep_path = file;
    o.exe = kNmsim;
    o.dry_run = true;
    o.backend = "slurm";
    std::ostringstream out, err;
    EXPECT_EQ(run_sweep(o, out, err), 0) << err.str();
    EXPECT_NE(out.str().find("3: seed=2 pe.perf_level=1"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("#SBATCH --array=0-3"), std::string::npos) << out.str();
    EXPECT_FALSE(fs::exists(m_dir / "results"));
}

// A stand-in child that records its pid and then sleeps (validation passes at once).
std::string sleeper_script(const fs::path& dir) {
    return "#!/bin/sh\n"
           "case \"$*\" in *--elaborate-only*) exit 0;; esac\n"
           "echo $$ >> " +
           (dir / "pids").string() +
           "\n"
           "exec sleep 60\n";
}

std::vector<pid_t> read_pids(const fs::path& file) {
    std::vector<pid_t> pids;
    std::ifstream in(file);
    for (long p; in >> p;) pids.push_back(static_cast<pid_t>(p));
    return pids;
}

bool process_gone(pid_t pid) {
    // Not there, or a zombie no one reaps (its parent was killed): either way it runs no more.
    if (kill(pid, 0) != 0) return true;
    const std::string st = read_text("/proc/" + std::to_string(pid) + "/stat");
    const auto close = st.rfind(')');
    return close != std::string::npos && close + 2 < st.size() && st[close + 2] == 'Z';
}

TEST_F(SweepRunTest, StopSignalStopsRunningPointsAndResumeFinishesThem) {
    m_exe = write("sleeper.sh", sleeper_script(m_dir));
    chmod(m_exe.c_str(), 0755);
    const std::string file =
        write("stop.yaml", "base: " + kMatmul + "\naxes: {seed: [1, 2, 3, 4, 5]}\noutput: o\n");
    SweepOptions o;
    o.sweep_path = file;
    o.jobs = 2;
    o.exe = m_exe;
    o.progress = false;
    // SIGINT arrives once both pool slots are busy.
    o.stop_signal = [&] { return read_pids(m_dir / "pids").size() >= 2 ? SIGINT : 0; };
    std::ostringstream out, err;
    SweepSummary s;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(run_sweep(o, out, err, &s), 128 + SIGINT) << out.str() << err.str();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
    EXPECT_NE(out.str().find("interrupted by signal 2: 0 ok, 0 failed, 5 pending (2 stopped "
                             "while running); resume with the same command"),
              std::string::npos)
        << out.str();
    const auto pids = read_pids(m_dir / "pids");
    ASSERT_EQ(pids.size(), 2u);  // no point started after the stop
    for (pid_t p : pids) EXPECT_TRUE(process_gone(p)) << p;
    for (const auto& r : csv_records((m_dir / "o/results.csv").string()))
        EXPECT_EQ(r.at("status"), "pending");

    // Resume with the real nmsim: every point runs and succeeds.
    o.exe = kNmsim;
    o.stop_signal = {};
    EXPECT_EQ(run_sweep(o, out, err, &s), 0) << out.str() << err.str();
    EXPECT_EQ(s.ok, 5u);
    EXPECT_EQ(s.runs, 5u);
}

TEST_F(SweepRunTest, KilledSweepLeavesNoOrphans) {
    m_exe = write("sleeper.sh", sleeper_script(m_dir));
    chmod(m_exe.c_str(), 0755);
    const std::string file =
        write("kill.yaml", "base: " + kMatmul + "\naxes: {seed: [1, 2, 3]}\noutput: o\n");
    const pid_t sweep_pid = fork();
    ASSERT_GE(sweep_pid, 0);
    if (sweep_pid == 0) {  // the sweep process, killed below while its points run
        SweepOptions o;
        o.sweep_path = file;
        o.jobs = 3;
        o.exe = m_exe;
        o.progress = false;
        std::ostringstream out, err;
        _exit(run_sweep(o, out, err));
    }
    std::vector<pid_t> pids;
    for (int i = 0; i < 300 && pids.size() < 3; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        pids = read_pids(m_dir / "pids");
    }
    ASSERT_EQ(pids.size(), 3u);
    kill(sweep_pid, SIGKILL);
    int st = 0;
    waitpid(sweep_pid, &st, 0);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
        gone = std::all_of(pids.begin(), pids.end(), process_gone);
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(gone) << "children of a killed sweep still run";
}

TEST_F(SweepRunTest, SecondSweepOnTheSameDirectoryIsRefused) {
    const std::string file =
        write("lock.yaml", "base: " + kMatmul + "\naxes: {seed: [1, 2]}\noutput: o\n");
    fs::create_directories(m_dir / "o");
    const int fd = open((m_dir / "o/.lock").c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "4242\n", 5), 5);
    ASSERT_EQ(flock(fd, LOCK_EX), 0);  // as a running local sweep holds it
    SweepSummary s;
    EXPECT_EQ(sweep(file, &s), 2);
    EXPECT_NE(m_err.find("o is in use by another nmsim sweep (pid 4242); wait for it to end or "
                         "give another output directory (-o)"),
              std::string::npos)
        << m_err;
    EXPECT_EQ(s.runs, 0u);
    // A shared holder (a Slurm array task) lets --collect in but keeps a local sweep out.
    ASSERT_EQ(flock(fd, LOCK_SH), 0);
    SweepOptions o;
    o.sweep_path = file;
    o.exe = kNmsim;
    o.collect = true;
    std::ostringstream out, err;
    EXPECT_EQ(run_sweep(o, out, err), 2) << err.str();  // nothing started there yet
    EXPECT_NE(err.str().find("nothing to collect"), std::string::npos) << err.str();
    EXPECT_EQ(sweep(file, &s), 2);
    close(fd);
    EXPECT_EQ(sweep(file, &s), 0) << m_out << m_err;
}

TEST_F(SweepRunTest, SlurmBackendWithoutSbatchIsAnError) {
    const std::string file = write("s.yaml", "base: " + kMatmul + "\naxes: {seed: [1, 2]}\n");
    SweepOptions o;
    o.sweep_path = file;
    o.exe = kNmsim;
    o.backend = "slurm";
    o.sbatch = "nmsim-test-no-such-sbatch";
    std::ostringstream out, err;
    EXPECT_EQ(run_sweep(o, out, err), 2);
    EXPECT_NE(err.str().find("nmsim-test-no-such-sbatch"), std::string::npos) << err.str();
    // The script was written before the submission failed.
    EXPECT_NE(read_text((m_dir / "results/s/slurm/sweep.sbatch").string()).find("--array=0-1"),
              std::string::npos);
}

namespace {

// A one-machine Slurm in a temporary directory: munged (as user munge) on its own socket,
// slurmctld and slurmd on ports of their own; SLURM_CONF points the clients at it.
class LocalSlurm {
public:
    // "" if it runs, else why not.
    std::string start(const fs::path& dir) {
        if (geteuid() != 0) return "not root (slurmd must run as root)";
        for (const char* b : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged"})
            if (access(b, X_OK) != 0)
                return std::string(b) + " not installed (Debian: slurm-wlm, munge)";
        if (access("/etc/munge/munge.key", R_OK) != 0) return "/etc/munge/munge.key missing";
        m_dir = dir;
        fs::create_directories(dir / "state");
        fs::create_directories(dir / "spool");
        const int port = 20000 + static_cast<int>(getpid() % 5000) * 2;
        const std::string d = dir.string();
        std::ofstream(dir / "slurm.conf")
            << "ClusterName=nmsimtest\nSlurmctldHost=localhost\nSlurmUser=root\n"
            << "SlurmdUser=root\nAuthType=auth/munge\nCredType=cred/munge\n"
            << "AuthInfo=socket=" << d << "/munge.sock\n"
            << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
            << "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
            << "AccountingStorageType=accounting_storage/none\n"
            << "JobAcctGatherType=jobacct_gather/none\nReturnToService=2\nMpiDefault=none\n"
            << "SlurmctldPort=" << port << "\nSlurmdPort=" << port + 1 << "\n"
            << "StateSaveLocation=" << d << "/state\nSlurmdSpoolDir=" << d << "/spool\n"
            << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.pid\n"
            << "SlurmctldLogFile=" << d << "/slurmctld.log\nSlurmdLogFile=" << d << "/slurmd.log\n"
            << "NodeName=localhost CPUs=" << std::max(1u, std::thread::hardware_concurrency())
            << " RealMemory=1000 State=UNKNOWN\n"
            << "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n";
        setenv("SLURM_CONF", (dir / "slurm.conf").c_str(), 1);
        chmod(d.c_str(), 0755);
        const std::string munge = "chown munge:munge " + d + " && runuser -u munge -- " +
                                  "/usr/sbin/munged --socket=" + d + "/munge.sock --pid-file=" + d +
                                  "/munged.pid --log-file=" + d + "/munged.log --seed-file=" + d +
                                  "/munge.seed";
        if (std::system(munge.c_str()) != 0) return "munged did not start (" + d + ")";
        m_started = true;
        if (std::system(("/usr/sbin/slurmctld -f " + d + "/slurm.conf").c_str()) != 0)
            return "slurmctld did not start (see " + d + "/slurmctld.log)";
        if (std::system(("/usr/sbin/slurmd -f " + d + "/slurm.conf").c_str()) != 0)
            return "slurmd did not start (see " + d + "/slurmd.log)";
        // Wait for the node to be idle.
        for (int i = 0; i < 100; ++i) {
            if (std::system("sinfo -h -o %t 2>/dev/null | grep -q idle") == 0) return "";
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        return "the Slurm node did not become idle within 20 s (see " + d + ")";
    }

    // Stops the daemons by their pid files and waits until they are gone (they remove their pid
    // files and sockets on the way out).
    ~LocalSlurm() {
        if (!m_started) return;
        for (const char* p : {"slurmd.pid", "slurmctld.pid", "munged.pid"}) {
            const pid_t pid =
                static_cast<pid_t>(std::atol(read_text((m_dir / p).string()).c_str()));
            if (pid <= 0 || kill(pid, SIGTERM) != 0) continue;
            for (int i = 0; i < 200 && alive(pid); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        unsetenv("SLURM_CONF");
    }

private:
    static bool alive(pid_t pid) {
        if (kill(pid, 0) != 0) return false;
        const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
        const auto close = stat.rfind(')');
        return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
    }

    fs::path m_dir;
    bool m_started = false;
};

}  // namespace

TEST_F(SweepRunTest, SlurmEndToEnd) {
    LocalSlurm slurm;
    const std::string why = slurm.start(m_dir / "slurm");
    if (!why.empty()) GTEST_SKIP() << "Slurm cannot start here: " << why;

    const std::string file =
        write("sl.yaml", "base: " + kMatmul +
                             "\naxes: {seed: [1, 2], pe.perf_level: [0, 1, 7]}\n"
                             "metrics: [sim_time_us, s2.pe0.mla/macs]\n"
                             "slurm: {partition: debug, time: \"00:05:00\", max_parallel: 2}\n");
    SweepOptions o;
    o.sweep_path = file;
    o.exe = kNmsim;
    o.backend = "slurm";
    o.jobs = 2;
    o.progress = false;
    std::ostringstream out, err;
    SweepSummary s;
    // 1: the two perf_level 7 points are invalid and not submitted.
    EXPECT_EQ(run_sweep(o, out, err, &s), 1) << out.str() << err.str();
    ASSERT_FALSE(s.job_id.empty()) << err.str();
    const std::string script = read_text((m_dir / "results/sl/slurm/sweep.sbatch").string());
    EXPECT_NE(script.find("#SBATCH --array=0-1,3-4%2\n"), std::string::npos) << script;

    // Wait for the array to leave the queue.
    const std::string q = "squeue -h -j " + s.job_id + " 2>/dev/null | grep -q .";
    bool done = false;
    for (int i = 0; i < 300 && !done; ++i) {
        done = std::system(q.c_str()) != 0;
        if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ASSERT_TRUE(done) << "the job array did not finish within 60 s";

    o.collect = true;
    o.backend = "local";
    EXPECT_EQ(run_sweep(o, out, err, &s), 1) << err.str();
    EXPECT_EQ(s.ok, 4u);
    EXPECT_EQ(s.failed, 2u);
    EXPECT_EQ(s.pending, 0u);
    const auto recs = csv_records((m_dir / "results/sl/results.csv").string());
    ASSERT_EQ(recs.size(), 6u);
    for (size_t i = 0; i < 6; ++i) {
        const bool valid = recs[i].at("param:pe.perf_level") != "7";
        EXPECT_EQ(recs[i].at("status"), valid ? "ok" : "error") << i;
        if (valid) {
            EXPECT_EQ(num(recs[i].at("metric:s2.pe0.mla/macs")), 784.0 * 64.0);
        }
    }
    // Each task logged through Slurm.
    size_t logs = 0;
    for (const auto& e : fs::directory_iterator(m_dir / "results/sl/slurm"))
        logs += e.path().extension() == ".out" && e.path().filename() != "submit.out";
    EXPECT_EQ(logs, 4u);
}
