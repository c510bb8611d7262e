// nmsim._hagen: the C++ side of nmsim.torch (docs/torch.md). Three ways to compute a hagen-mode
// product y = x W (x: batch x in, 0..31; W: in x out, -63..63; y: -128..127) on numpy integer
// arrays:
//   reference  the ideal chip's integer reference (reference_matmul),
//   mock       hxtorch's gain-and-noise formula (mock_matmul),
//   simulate   the whole chip simulation (HagenExecutor on simulated chips) with its times.
// Operator errors (ranges, shapes) become ValueError naming the operator and the limit.
//
// SystemC 2.3 cannot restart a finished simulation: every `simulate` call builds its own
// sc_simcontext with fresh chips, runs the product in a SystemC thread and deletes the kernel.
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn: one thread per product
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "models/common/param.h"
#include "models/common/seeding.h"
#include "platforms/brainscales2/chip.h"
#include "platforms/brainscales2/hagen_executor.h"
#include "platforms/brainscales2/hagen_host.h"
#include "platforms/brainscales2/params.h"
#include "tools/compiler/bss2/hagen_ops.h"
#include "tools/compiler/bss2/hagen_program.h"

namespace py = pybind11;
namespace hg = nmsim::compiler::bss2::hagen;

namespace {

using Array = py::array_t<int32_t>;

// A 2-D numpy integer array as an IntMatrix; `what` names the operand in messages. Values beyond
// int32 are reported here (they would wrap before the range check).
hg::IntMatrix to_matrix(const py::array& a, const std::string& op, const char* what,
                        const char* range) {
    if (a.ndim() != 2)
        throw hg::OperatorError(op + ": " + what + " must be a 2-D array, got " +
                                std::to_string(a.ndim()) + " dimensions");
    const char kind = a.dtype().kind();
    if (kind != 'i' && kind != 'u')
        throw hg::OperatorError(op + ": " + what + " must hold integers (dtype " +
                                std::string(py::str(a.dtype())) + "; round it first)");
    const auto rows = static_cast<uint64_t>(a.shape(0)), cols = static_cast<uint64_t>(a.shape(1));
    if (rows > std::numeric_limits<uint32_t>::max() || cols > std::numeric_limits<uint32_t>::max())
        throw hg::OperatorError(op + ": " + what + " is too large");
    const auto c = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!c) throw hg::OperatorError(op + ": " + what + " cannot be read as int64");
    hg::IntMatrix m(static_cast<uint32_t>(rows), static_cast<uint32_t>(cols));
    const int64_t* p = c.data();
    for (size_t k = 0; k < m.v.size(); ++k) {
        if (p[k] < std::numeric_limits<int32_t>::min() ||
            p[k] > std::numeric_limits<int32_t>::max())
            throw hg::OperatorError(op + ": " + what + " [" + std::to_string(k / cols) + "][" +
                                    std::to_string(k % cols) + "] = " + std::to_string(p[k]) +
                                    " outside the " + range);
        m.v[k] = static_cast<int32_t>(p[k]);
    }
    return m;
}

Array to_array(const hg::IntMatrix& m) {
    Array a({static_cast<py::ssize_t>(m.rows), static_cast<py::ssize_t>(m.cols)});
    std::copy(m.v.begin(), m.v.end(), a.mutable_data());
    return a;
}

uint32_t positive(int64_t v, const std::string& op, const char* what) {
    if (v < 1 || v > std::numeric_limits<uint32_t>::max())
        throw hg::OperatorError(op + ": " + what + " = " + std::to_string(v) + " outside 1.." +
                                std::to_string(std::numeric_limits<uint32_t>::max()));
    return static_cast<uint32_t>(v);
}

// The operands checked against each other and the plan of the product on `chips` chips.
struct Product {
    hg::IntMatrix x, w;
    hg::MatmulPlan plan;
};

Product product(const py::array& x, const py::array& w, int64_t chips, const std::string& op) {
    Product p{to_matrix(x, op, "input", "5-bit activation range 0..31"),
              to_matrix(w, op, "weight", "6-bit signed range -63..63"),
              {}};
    if (p.x.cols != p.w.rows)
        throw hg::OperatorError(op + ": input has " + std::to_string(p.x.cols) +
                                " features, the weight matrix " + std::to_string(p.w.rows) +
                                " rows");
    p.plan = hg::plan_matmul(p.w.rows, p.w.cols, positive(chips, op, "chips"), op);
    hg::check_inputs(p.x, op);
    hg::check_weights(p.w, op);
    return p;
}

Array reference(const py::array& x, const py::array& w, int64_t num_sends, const std::string& op) {
    const Product p = product(x, w, 1, op);
    return to_array(hg::reference_matmul(p.x, p.w, positive(num_sends, op, "num_sends"), p.plan));
}

Array mock(const py::array& x, const py::array& w, int64_t num_sends, double gain, double noise_std,
           uint64_t seed, const std::string& op) {
    const Product p = product(x, w, 1, op);
    return to_array(hg::mock_matmul(p.x, p.w, positive(num_sends, op, "num_sends"), gain, noise_std,
                                    seed, p.plan));
}

// A parameter value from Python as the text the parameter parsers read.
std::string param_text(const std::string& name, const py::handle& v) {
    if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
    if (py::isinstance<py::str>(v)) return v.cast<std::string>();
    if (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v))
        return py::repr(v).cast<std::string>();
    throw hg::OperatorError("simulate: chip parameter " + name + " = " +
                            py::repr(v).cast<std::string>() +
                            ": give a number, a bool or a text such as \"2 mV\"");
}

// Chip parameters (dotted names as in scenarios' platform.params, e.g. "neuron.noise_mV"; the
// host model's are the chip's group "host", e.g. "host.decode_hz"), resolved through the
// parameter registry.
struct SimParams {
    nmsim::bss2::ChipParams chip;
};

std::vector<nmsim::FlatParam> all_params(SimParams& s) { return nmsim::flatten(s.chip); }

SimParams sim_params(const py::dict& params) {
    SimParams s;
    std::vector<nmsim::FlatParam> flat = all_params(s);
    std::vector<std::string> names;
    for (const auto& f : flat) names.push_back(f.path);
    for (const auto& [k, v] : params) {
        const std::string name = py::str(k).cast<std::string>();
        const std::string text = param_text(name, v);
        auto it = std::find_if(flat.begin(), flat.end(),
                               [&](const nmsim::FlatParam& f) { return f.path == name; });
        if (it == flat.end()) {
            std::string msg = "simulate: unknown chip parameter '" + name + "'";
            const std::string near = nmsim::closest_match(name, names);
            if (!near.empty()) msg += "; did you mean '" + near + "'?";
            throw hg::OperatorError(msg + " (nmsim._hagen.parameters() lists them)");
        }
        std::string err;
        if (!it->set(text, err))
            throw hg::OperatorError("simulate: chip parameter " + name + " = " + text + ": " + err);
    }
    const auto problems = nmsim::bss2::bss2_param_problems(s.chip);
    if (!problems.empty())
        throw hg::OperatorError("simulate: " + problems[0].first + " " + problems[0].second);
    return s;
}

// One product's SystemC kernel and chips. A kernel per call: building the chips costs little,
// and chips kept across calls would make the next product slower (the enabled integrators are
// stepped through its configuration transfer; docs/torch.md).
class Kernel {
public:
    Kernel(uint32_t chips, const nmsim::bss2::ChipParams& p, uint64_t seed)
        : m_context(new sc_core::sc_simcontext()) {
        sc_core::sc_curr_simcontext = m_context;
        sc_core::sc_default_global_context = m_context;
        for (uint32_t c = 0; c < chips; ++c)
            m_chips.push_back(std::make_unique<nmsim::bss2::Chip>(
                ("chip" + std::to_string(c)).c_str(), p, nmsim::derive_seed(seed, c)));
    }
    ~Kernel() {
        sc_core::sc_curr_simcontext = m_context;  // the modules leave their own kernel
        m_chips.clear();
        delete m_context;
        sc_core::sc_curr_simcontext = nullptr;
        sc_core::sc_default_global_context = nullptr;
    }
    Kernel(const Kernel&) = delete;
    Kernel& operator=(const Kernel&) = delete;
    std::vector<nmsim::bss2::Chip*> chips() const {
        std::vector<nmsim::bss2::Chip*> out;
        for (const auto& c : m_chips) out.push_back(c.get());
        return out;
    }

private:
    sc_core::sc_simcontext* m_context;
    std::vector<std::unique_ptr<nmsim::bss2::Chip>> m_chips;
};

std::mutex g_mutex;  // one SystemC kernel at a time in the process

// us from ps
double us(uint64_t ps) { return static_cast<double>(ps) / 1e6; }

py::tuple simulate(const py::array& x, const py::array& w, int64_t num_sends,
                   int64_t wait_between_events, int64_t chips, const py::dict& params,
                   uint64_t seed, const std::string& op) {
    Product p = product(x, w, chips, op);
    hg::VectorTiming timing;
    timing.num_sends = positive(num_sends, op, "num_sends");
    timing.wait_between_events = positive(wait_between_events, op, "wait_between_events");
    const SimParams sp = sim_params(params);

    hg::IntMatrix y;
    nmsim::bss2::HagenTimes times;
    std::string error;
    bool operator_error = false, done = false;
    {
        py::gil_scoped_release nogil;
        std::lock_guard<std::mutex> lock(g_mutex);
        Kernel kernel(p.plan.chips, sp.chip, seed);
        const std::vector<nmsim::bss2::Chip*> chips = kernel.chips();
        // The product in a SystemC thread; it pauses the simulation when done (the integrators'
        // analog core would keep it running).
        sc_core::sc_spawn(
            [&] {
                try {
                    nmsim::bss2::HagenExecutor exec(chips, sp.chip.host);
                    y = exec.matmul(p.x, p.w, p.plan, timing, &times);
                } catch (const hg::OperatorError& e) {
                    error = e.what();
                    operator_error = true;
                } catch (const std::exception& e) {
                    error = e.what();
                }
                done = true;
                sc_core::sc_pause();
            },
            "product");
        try {
            sc_core::sc_start();
        } catch (const std::exception& e) {
            error = e.what();
        }
        if (!done && error.empty()) error = "the simulation ended before the product was done";
    }
    if (operator_error) throw hg::OperatorError(error);
    if (!error.empty()) throw std::runtime_error(op + ": simulation failed: " + error);

    py::dict t;
    t["transfer"] = us(times.transfer_ps);
    t["config"] = us(times.config_ps);
    t["realtime"] = us(times.realtime_ps);
    t["other"] = us(times.other_ps);
    t["host_graph"] = us(times.host_graph_ps);
    t["host_preprocess"] = us(times.host_preprocess_ps);
    t["host_encode"] = us(times.host_encode_ps);
    t["host_decode"] = us(times.host_decode_ps);
    t["host_postprocess"] = us(times.host_postprocess_ps);
    t["total"] = us(times.total_ps);
    t["wall"] = us(times.wall_ps);
    t["executions"] = times.executions;
    t["vectors"] = times.vectors;
    t["macs"] = times.macs;
    return py::make_tuple(to_array(y), t);
}

// Every settable parameter: name -> (default value as text, unit, description).
py::dict parameters() {
    SimParams s;
    py::dict d;
    for (const auto& f : all_params(s))
        d[py::str(f.path)] = py::make_tuple(f.get(), nmsim::param_type_name(f.entry->type),
                                            f.entry->unit, f.entry->doc);
    return d;
}

}  // namespace

// libsystemc.so's own main() references sc_main, which must resolve when the interpreter loads
// the module (pybind11 hides symbols by default); the interpreter never calls it.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) { return 1; }

PYBIND11_MODULE(_hagen, m) {
    m.doc() = "BrainScaleS-2 hagen mode (analog matrix multiplication) for nmsim.torch";
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    py::register_exception_translator([](std::exception_ptr e) {
        try {
            if (e) std::rethrow_exception(e);
        } catch (const hg::OperatorError& err) {
            PyErr_SetString(PyExc_ValueError, err.what());
        }
    });
    m.def("reference", &reference, py::arg("x"), py::arg("w"), py::arg("num_sends") = 1,
          py::arg("op") = "matmul",
          "The ideal chip: per 128-row tile clamp(floor(num_sends * x.w / 512)), summed and "
          "clamped to [-128, 127]. x: batch x in (0..31), w: in x out (-63..63) integers.");
    m.def("mock", &mock, py::arg("x"), py::arg("w"), py::arg("num_sends") = 1,
          py::arg("gain") = 0.002, py::arg("noise_std") = 2.0, py::arg("seed") = 0,
          py::arg("op") = "matmul",
          "hxtorch's mock: per 128-row chunk clamp(floor(num_sends * gain * x.w + N(0, "
          "noise_std))), summed and clamped. Seeded.");
    m.def("simulate", &simulate, py::arg("x"), py::arg("w"), py::arg("num_sends") = 1,
          py::arg("wait_between_events") = 8, py::arg("chips") = 1, py::arg("params") = py::dict(),
          py::arg("seed") = 0, py::arg("op") = "matmul",
          "The product on simulated chips: (y, times), times in microseconds of simulated time "
          "per category (transfer, config, realtime, other, host_*, total, wall) and counts "
          "(executions, vectors, macs).");
    m.def("parameters", &parameters,
          "Settable simulate() parameters: name -> (default, type, unit, description).");
    m.attr("TILE_ROWS") = hg::kTileRows;
    m.attr("TILE_COLS") = hg::kTileCols;
    m.attr("IDEAL_DIVISOR") = hg::kIdealDivisor;
}
