// Schema of the `bss2` workload: validation of workload.bss2, its dump and comparison. Names of
// populations are checked by the host program, which reads the network file.
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "tools/scenario/text.h"
#include "workloads/bss2/spec.h"

namespace nmsim::workloads::bss2 {

using namespace scenario;

namespace {

constexpr double kMaxRateHz = 1e9;  // far above any link: the platform reports what gets through

class Bss2Loader {
public:
    Bss2Loader(Reader& r, const std::string& key) : m_r(r), m_key(key) {}
    std::unique_ptr<WorkloadSpec> load(const YNode& n);

private:
    std::optional<Input> load_input(const YNode& n, const std::string& key, double runtime_us);
    void load_runs(const YNode& runs, Bss2Workload& b);
    void load_sweep(const YNode& sweep, Bss2Workload& b);

    Reader& m_r;
    std::string m_key;
};

// One input entry: {population, kind: poisson|regular|times, rate_hz, start_us, stop_us,
// times_us}.
std::optional<Input> Bss2Loader::load_input(const YNode& n, const std::string& key,
                                            double runtime_us) {
    Fields f = m_r.read_map(&n, key, schema().children("runs[].inputs[]"));
    if (!f.ok) return std::nullopt;
    const size_t before = m_r.error_count();
    Input in;
    in.origin = n.origin;
    if (auto s = m_r.get_string(f.get("population"), key + ".population"))
        in.population = *s;
    else if (!f.get("population"))
        m_r.missing(&f, "population", n, key + ".population");
    if (auto k = m_r.get_choice(f.get("kind"), key + ".kind", {"poisson", "regular", "times"}))
        in.kind = *k == "poisson"   ? Input::Kind::poisson
                  : *k == "regular" ? Input::Kind::regular
                                    : Input::Kind::times;
    if (in.kind == Input::Kind::times) {
        for (const char* k : {"rate_hz", "start_us", "stop_us"})
            if (f.get(k)) m_r.not_allowed(n, k, key + "." + k, "kind times lists the spike times");
        const YNode* t = f.get("times_us");
        if (!t) {
            m_r.missing(&f, "times_us", n, key + ".times_us");
        } else if (t->kind != YNode::Kind::seq) {
            m_r.error(t->origin, key + ".times_us",
                      "expected a list with one list of spike times (us) per neuron, got " +
                          describe(*t));
        } else {
            for (size_t i = 0; i < t->items.size(); ++i) {
                const YNode& lst = t->items[i];
                const std::string ik = key + ".times_us." + std::to_string(i);
                std::vector<double> times;
                if (lst.kind != YNode::Kind::seq && lst.kind != YNode::Kind::null) {
                    m_r.error(lst.origin, ik,
                              "expected a list of spike times (us), got " + describe(lst));
                    continue;
                }
                for (size_t j = 0; j < lst.items.size(); ++j)
                    if (auto v = m_r.get_real(&lst.items[j], ik + "." + std::to_string(j), 0,
                                              runtime_us, "a spike time (us) within the run"))
                        times.push_back(*v);
                std::sort(times.begin(), times.end());
                in.times_us.push_back(std::move(times));
            }
        }
    } else {
        if (f.get("times_us"))
            m_r.not_allowed(n, "times_us", key + ".times_us", "only for kind times");
        if (auto v = m_r.get_real(f.get("rate_hz"), key + ".rate_hz", 0, kMaxRateHz, "a rate (Hz)"))
            in.rate_hz = *v;
        else if (!f.get("rate_hz"))
            m_r.missing(&f, "rate_hz", n, key + ".rate_hz");
        if (auto v = m_r.get_real(f.get("start_us"), key + ".start_us", 0, runtime_us,
                                  "a time (us) within the run"))
            in.start_us = *v;
        if (auto v = m_r.get_real(f.get("stop_us"), key + ".stop_us", 0, runtime_us,
                                  "a time (us) within the run"))
            in.stop_us = *v;
        if (in.stop_us && *in.stop_us < in.start_us)
            m_r.error(f.get("stop_us")->origin, key + ".stop_us", "stop_us is before start_us");
    }
    if (m_r.error_count() != before) return std::nullopt;
    return in;
}

void Bss2Loader::load_runs(const YNode& runs, Bss2Workload& b) {
    if (runs.kind != YNode::Kind::seq || runs.items.empty()) {
        m_r.error(runs.origin, m_key + ".runs",
                  "expected a non-empty list of runs, got " + describe(runs));
        return;
    }
    for (size_t i = 0; i < runs.items.size(); ++i) {
        const YNode& r = runs.items[i];
        const std::string rk = m_key + ".runs." + std::to_string(i);
        Fields rf = m_r.read_map(&r, rk, schema().children("runs[]"), true);
        if (!rf.ok) continue;
        Run run;
        run.origin = r.origin;
        if (const YNode* ins = rf.get("inputs")) {
            if (ins->kind != YNode::Kind::seq) {
                m_r.error(ins->origin, rk + ".inputs",
                          "expected a list of inputs, got " + describe(*ins));
            } else {
                for (size_t j = 0; j < ins->items.size(); ++j)
                    if (auto in = load_input(ins->items[j], rk + ".inputs." + std::to_string(j),
                                             b.runtime_us))
                        run.inputs.push_back(std::move(*in));
            }
        }
        b.runs.push_back(std::move(run));
    }
}

// {population, kind, rates_hz: [...], start_us, stop_us}: one run per rate.
void Bss2Loader::load_sweep(const YNode& sweep, Bss2Workload& b) {
    const std::string sk = m_key + ".input_sweep";
    Fields sf = m_r.read_map(&sweep, sk, schema().children("input_sweep"));
    if (!sf.ok) return;
    const YNode* rates = sf.get("rates_hz");
    // A single rate (scalar) is one run, so that --set and sweeps can vary it.
    YNode one;
    if (rates && rates->kind == YNode::Kind::scalar) {
        one.kind = YNode::Kind::seq;
        one.origin = rates->origin;
        one.items.push_back(*rates);
        rates = &one;
    }
    if (!rates) {
        m_r.missing(&sf, "rates_hz", sweep, sk + ".rates_hz");
        return;
    }
    if (rates->kind != YNode::Kind::seq || rates->items.empty()) {
        m_r.error(rates->origin, sk + ".rates_hz",
                  "expected a rate or a non-empty list of rates (Hz), got " + describe(*rates));
        return;
    }
    for (size_t i = 0; i < rates->items.size(); ++i) {
        auto v = m_r.get_real(&rates->items[i], sk + ".rates_hz." + std::to_string(i), 0,
                              kMaxRateHz, "a rate (Hz)");
        if (!v) continue;
        YNode in;  // the equivalent input entry, with the sweep's origins
        in.kind = YNode::Kind::map;
        in.origin = sweep.origin;
        for (size_t k = 0; k < sweep.keys.size(); ++k) {
            if (sweep.keys[k].text == "rates_hz") continue;
            in.keys.push_back(sweep.keys[k]);
            in.items.push_back(sweep.items[k]);
        }
        in.keys.push_back(YNode::scalar("rate_hz", rates->items[i].origin));
        in.items.push_back(rates->items[i]);
        Run run;
        run.origin = rates->items[i].origin;
        if (auto x = load_input(in, sk, b.runtime_us)) run.inputs.push_back(std::move(*x));
        b.runs.push_back(std::move(run));
    }
}

std::unique_ptr<WorkloadSpec> Bss2Loader::load(const YNode& n) {
    Fields f = m_r.read_map(&n, m_key, schema().children(""));
    if (!f.ok) return nullptr;
    const size_t before = m_r.error_count();
    auto out = std::make_unique<Bss2Workload>();
    Bss2Workload& b = *out;
    b.origin = n.origin;
    for (const auto& k : schema().children("")) {
        const YNode* v = f.get(k);
        b.origins[k] = v ? v->origin : n.origin;
    }
    if (const YNode* v = f.get("network"))
        b.network = m_r.existing_file(*v, m_key + ".network", "network");
    else
        m_r.missing(&f, "network", n, m_key + ".network");
    if (auto v = m_r.get_real(f.get("runtime_us"), m_key + ".runtime_us", 1e-3, 1e7,
                              "a run duration (us, hardware time)"))
        b.runtime_us = *v;
    if (auto v = m_r.get_bool(f.get("cadc"), m_key + ".cadc")) b.cadc = *v;
    if (auto v = m_r.get_bool(f.get("reset_between_runs"), m_key + ".reset_between_runs"))
        b.reset_between_runs = *v;
    const YNode* dot = f.get("dot");
    if (dot && dot->kind == YNode::Kind::null) dot = nullptr;  // `dot: ~`: no graph file
    if (auto s = m_r.get_string(dot, m_key + ".dot")) b.dot = *s;
    if (const YNode* m = f.get("madc")) {
        Fields mf = m_r.read_map(m, m_key + ".madc", schema().children("madc"));
        if (mf.ok) {
            Bss2Workload::Probe p;
            p.origin = m->origin;
            if (auto s = m_r.get_string(mf.get("population"), m_key + ".madc.population"))
                p.population = *s;
            else if (!mf.get("population"))
                m_r.missing(&mf, "population", *m, m_key + ".madc.population");
            if (auto x =
                    m_r.get_uint(mf.get("neuron"), m_key + ".madc.neuron", 511, "a neuron index"))
                p.neuron = *x;
            b.madc = p;
        }
    }
    const YNode* runs = f.get("runs");
    const YNode* sweep = f.get("input_sweep");
    if (runs && sweep)
        m_r.error(sweep->origin, m_key + ".input_sweep",
                  "give either runs or input_sweep, not both");
    else if (runs)
        load_runs(*runs, b);
    else if (sweep)
        load_sweep(*sweep, b);
    else
        b.runs.push_back(Run{{}, n.origin});  // one run without external input
    if (m_r.error_count() != before) return nullptr;
    return out;
}

std::unique_ptr<WorkloadSpec> load_bss2(Reader& r, const YNode& n, const std::string& key) {
    return Bss2Loader(r, key).load(n);
}

}  // namespace

std::optional<double> Bss2Workload::input_rate_hz(size_t run) const {
    if (run >= runs.size()) return std::nullopt;
    std::optional<double> rate;
    for (const Input& in : runs[run].inputs) {
        if (in.kind == Input::Kind::times) return std::nullopt;
        if (rate && *rate != in.rate_hz) return std::nullopt;
        rate = in.rate_hz;
    }
    return rate;
}

std::unique_ptr<WorkloadSpec> Bss2Workload::clone() const {
    return std::make_unique<Bss2Workload>(*this);
}

// Runs are written out (an input_sweep dumps as runs); paths are absolute.
void Bss2Workload::dump(YAML::Emitter& e) const {
    e << YAML::BeginMap;
    e << YAML::Key << "network" << YAML::Value << network;
    e << YAML::Key << "runtime_us" << YAML::Value << runtime_us;
    e << YAML::Key << "runs" << YAML::Value << YAML::BeginSeq;
    for (const auto& r : runs) {
        e << YAML::BeginMap << YAML::Key << "inputs" << YAML::Value << YAML::BeginSeq;
        for (const auto& in : r.inputs) {
            e << YAML::Flow << YAML::BeginMap;
            e << YAML::Key << "population" << YAML::Value << in.population;
            if (in.kind == Input::Kind::times) {
                e << YAML::Key << "kind" << YAML::Value << "times";
                e << YAML::Key << "times_us" << YAML::Value << YAML::BeginSeq;
                for (const auto& t : in.times_us) {
                    e << YAML::BeginSeq;
                    for (double x : t) e << x;
                    e << YAML::EndSeq;
                }
                e << YAML::EndSeq;
            } else {
                e << YAML::Key << "kind" << YAML::Value
                  << (in.kind == Input::Kind::poisson ? "poisson" : "regular");
                e << YAML::Key << "rate_hz" << YAML::Value << in.rate_hz;
                e << YAML::Key << "start_us" << YAML::Value << in.start_us;
                if (in.stop_us) e << YAML::Key << "stop_us" << YAML::Value << *in.stop_us;
            }
            e << YAML::EndMap;
        }
        e << YAML::EndSeq << YAML::EndMap;
    }
    e << YAML::EndSeq;
    if (madc) {
        e << YAML::Key << "madc" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
          << "population" << YAML::Value << madc->population << YAML::Key << "neuron" << YAML::Value
          << static_cast<unsigned long long>(madc->neuron) << YAML::EndMap;
    }
    e << YAML::Key << "cadc" << YAML::Value << cadc;
    e << YAML::Key << "reset_between_runs" << YAML::Value << reset_between_runs;
    if (!dot.empty()) e << YAML::Key << "dot" << YAML::Value << dot;
    e << YAML::EndMap;
}

void Bss2Workload::diff(const WorkloadSpec& other, const std::string& prefix, Differ& d) const {
    const Bss2Workload& y = dynamic_cast<const Bss2Workload&>(other);
    const std::string k = prefix + ".";
    d.field(k + "network", network, y.network)
        .field(k + "runtime_us", runtime_us, y.runtime_us)
        .field(k + "cadc", cadc, y.cadc)
        .field(k + "reset_between_runs", reset_between_runs, y.reset_between_runs)
        .field(k + "dot", dot, y.dot)
        .field(k + "madc", madc.has_value(), y.madc.has_value())
        .count(k + "runs", runs.size(), y.runs.size());
    if (madc && y.madc)
        d.field(k + "madc.population", madc->population, y.madc->population)
            .field(k + "madc.neuron", madc->neuron, y.madc->neuron);
    for (size_t i = 0; i < runs.size() && !d.done(); ++i) {
        const std::string rk = k + "runs." + std::to_string(i) + ".inputs";
        d.count(rk, runs[i].inputs.size(), y.runs[i].inputs.size());
        for (size_t j = 0; j < runs[i].inputs.size() && !d.done(); ++j) {
            const Input& p = runs[i].inputs[j];
            const Input& q = y.runs[i].inputs[j];
            const std::string ik = rk + "." + std::to_string(j) + ".";
            d.field(ik + "population", p.population, q.population)
                .field(ik + "kind", static_cast<int>(p.kind), static_cast<int>(q.kind))
                .field(ik + "rate_hz", p.rate_hz, q.rate_hz)
                .field(ik + "start_us", p.start_us, q.start_us)
                .field(ik + "stop_us", p.stop_us.value_or(-1.0), q.stop_us.value_or(-1.0))
                .count(ik + "times_us", p.times_us.size(), q.times_us.size());
            for (size_t t = 0; t < p.times_us.size() && !d.done(); ++t)
                d.list(ik + "times_us." + std::to_string(t), p.times_us[t], q.times_us[t]);
        }
    }
}

const WorkloadSchema& schema() {
    static const WorkloadSchema s{
        "bss2",
        {"brainscales2"},
        "spiking experiment on BrainScaleS-2: one configuration, then a batch of realtime runs "
        "(seed 004)",
        {
            {"network", "path", "required",
             "the network YAML file: populations and projections (docs/bss2_compiler.md)"},
            {"runtime_us", "real 0.001..1e7", "1000",
             "duration of every realtime run, us of hardware time (1000x faster than biology)"},
            {"runs", "list", "one run without input", "one entry per realtime run"},
            {"runs[].inputs", "list", "[]", "input spike trains of external populations"},
            {"runs[].inputs[].population", "string", "required", "an external population"},
            {"runs[].inputs[].kind", "poisson|regular|times", "poisson",
             "Poisson or regular trains at rate_hz, or explicit times"},
            {"runs[].inputs[].rate_hz", "real 0..1e9", "required (poisson, regular)",
             "rate per neuron"},
            {"runs[].inputs[].start_us", "real", "0", "start of the trains within the run"},
            {"runs[].inputs[].stop_us", "real", "the run's end", "end of the trains"},
            {"runs[].inputs[].times_us", "list of lists of real", "required (times)",
             "one list of spike times (us) per neuron"},
            {"input_sweep", "map", "none",
             "one run per rate (instead of runs): population, kind, rates_hz, start_us, stop_us"},
            {"input_sweep.population", "string", "required", "the external population"},
            {"input_sweep.kind", "poisson|regular", "poisson", "the trains' kind"},
            {"input_sweep.rates_hz", "real or list of real", "required", "one run per rate"},
            {"input_sweep.start_us", "real", "0", "start of the trains within each run"},
            {"input_sweep.stop_us", "real", "the run's end", "end of the trains"},
            {"madc", "map", "none", "record one membrane with the MADC in every run"},
            {"madc.population", "string", "required", "an on-chip population"},
            {"madc.neuron", "int 0..511", "0", "neuron index in the population"},
            {"cadc", "bool", "false", "read all used membranes with the CADC after every run"},
            {"reset_between_runs", "bool", "true",
             "reset the neurons before every run (else only before the first)"},
            {"dot", "path or ~", "none",
             "write the signal-flow graph (graphviz dot), relative to the working directory"},
        },
        &load_bss2,
    };
    return s;
}

}  // namespace nmsim::workloads::bss2
