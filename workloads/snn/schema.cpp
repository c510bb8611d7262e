// Schema of the `snn` workload: validation of workload.snn, its dump and comparison. What needs
// the network (its size, what fits the chip) is checked by the compile step.
#include <yaml-cpp/yaml.h>

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "tools/scenario/text.h"
#include "workloads/snn/spec.h"

namespace nmsim::workloads::snn {

using namespace scenario;

namespace {

constexpr uint32_t kChipPes = S2_NOC_N_PES;
constexpr uint32_t kMaxNeuronsPerPe = 255;  // the 8-bit neuron index of a key, 255 as sPyNNaker

std::unique_ptr<WorkloadSpec> load_snn(Reader& r, const YNode& n, const std::string& key) {
    Fields f = r.read_map(&n, key, schema().children(""));
    if (!f.ok) return nullptr;
    const size_t errors_before = r.error_count();
    auto d = std::make_unique<SnnWorkload>();
    d->origin = n.origin;
    for (const auto& k : schema().children("")) {
        const YNode* v = f.get(k);
        d->origins[k] = v ? v->origin : n.origin;
    }
    if (const YNode* v = f.get("network"))
        d->network = r.existing_file(*v, key + ".network", "network file");
    else
        r.missing(&f, "network", n, key + ".network");
    if (const YNode* v = f.get("ticks")) {
        if (auto x = r.get_uint(v, key + ".ticks", SnnWorkload::kMaxTicks, "a tick count")) {
            if (*x == 0)
                r.error(v->origin, key + ".ticks", "expected a tick count >= 1, got 0");
            else
                d->ticks = *x;
        }
    }
    if (auto x =
            r.get_uint(f.get("first_pe"), key + ".first_pe", kChipPes - 1, "a global pe index"))
        d->first_pe = static_cast<uint32_t>(*x);
    if (const YNode* v = f.get("max_neurons_per_pe")) {
        if (auto x = r.get_uint(v, key + ".max_neurons_per_pe", kMaxNeuronsPerPe,
                                "a neuron count (1..255)")) {
            if (*x == 0)
                r.error(v->origin, key + ".max_neurons_per_pe",
                        "expected a neuron count in [1, 255], got 0");
            else
                d->max_neurons_per_pe = static_cast<uint32_t>(*x);
        }
    }
    if (auto x = r.get_uint(f.get("published_pes"), key + ".published_pes", kChipPes, "a PE count"))
        d->published_pes = *x;
    if (auto x = r.get_string(f.get("published_source"), key + ".published_source"))
        d->published_source = *x;
    const YNode dflt = YNode::scalar(d->firmware, n.origin);
    const YNode* fw = f.get("firmware");
    r.resolve_firmware(fw ? *fw : dflt, key + ".firmware", d->firmware, d->firmware_path);
    if (const YNode* v = f.get("max_matrix_split")) {
        if (auto x = r.get_uint(v, key + ".max_matrix_split", 4, "a PE count (1..4)")) {
            if (*x == 0)
                r.error(v->origin, key + ".max_matrix_split",
                        "expected a PE count in [1, 4], got 0");
            else
                d->max_matrix_split = static_cast<uint32_t>(*x);
        }
    }
    const YNode dflt_par = YNode::scalar(d->firmware_parallel, n.origin);
    const YNode* fwp = f.get("firmware_parallel");
    r.resolve_firmware(fwp ? *fwp : dflt_par, key + ".firmware_parallel", d->firmware_parallel,
                       d->firmware_parallel_path);
    if (const YNode* v = f.get("paradigm")) {
        if (auto x = r.get_string(v, key + ".paradigm")) {
            if (*x != "serial" && *x != "parallel" && *x != "auto" && *x != "ideal")
                r.error(v->origin, key + ".paradigm",
                        "expected one of serial, parallel, auto, ideal, got '" + *x + "'");
            else
                d->paradigm = *x;
        }
    }
    if (auto b = r.get_bool(f.get("check"), key + ".check")) d->check = *b;
    if (r.error_count() != errors_before) return nullptr;
    return d;
}

}  // namespace

Origin SnnWorkload::origin_of(const std::string& field) const {
    auto it = origins.find(field);
    return it == origins.end() ? origin : it->second;
}

std::unique_ptr<WorkloadSpec> SnnWorkload::clone() const {
    return std::make_unique<SnnWorkload>(*this);
}

void SnnWorkload::dump(YAML::Emitter& e) const {
    e << YAML::BeginMap;
    e << YAML::Key << "network" << YAML::Value << network;
    e << YAML::Key << "ticks" << YAML::Value << static_cast<unsigned long long>(ticks);
    e << YAML::Key << "first_pe" << YAML::Value << first_pe;
    e << YAML::Key << "max_neurons_per_pe" << YAML::Value << max_neurons_per_pe;
    e << YAML::Key << "max_matrix_split" << YAML::Value << max_matrix_split;
    e << YAML::Key << "paradigm" << YAML::Value << paradigm;
    if (published_pes)
        e << YAML::Key << "published_pes" << YAML::Value
          << static_cast<unsigned long long>(published_pes);
    if (!published_source.empty())
        e << YAML::Key << "published_source" << YAML::Value << published_source;
    e << YAML::Key << "firmware" << YAML::Value
      << (is_builtin_firmware(firmware) ? firmware : firmware_path);
    e << YAML::Key << "firmware_parallel" << YAML::Value
      << (is_builtin_firmware(firmware_parallel) ? firmware_parallel : firmware_parallel_path);
    e << YAML::Key << "check" << YAML::Value << check;
    e << YAML::EndMap;
}

void SnnWorkload::diff(const WorkloadSpec& other, const std::string& prefix, Differ& d) const {
    const SnnWorkload& y = dynamic_cast<const SnnWorkload&>(other);
    const std::string k = prefix + ".";
    d.field(k + "network", network, y.network)
        .field(k + "ticks", ticks, y.ticks)
        .field(k + "first_pe", first_pe, y.first_pe)
        .field(k + "max_neurons_per_pe", max_neurons_per_pe, y.max_neurons_per_pe)
        .field(k + "max_matrix_split", max_matrix_split, y.max_matrix_split)
        .field(k + "paradigm", paradigm, y.paradigm)
        .field(k + "firmware_parallel_path", firmware_parallel_path, y.firmware_parallel_path)
        .field(k + "published_pes", published_pes, y.published_pes)
        .field(k + "published_source", published_source, y.published_source)
        .field(k + "firmware_path", firmware_path, y.firmware_path)
        .field(k + "check", check, y.check);
}

const WorkloadSchema& schema() {
    static const WorkloadSchema s{
        "snn",
        {"spinnaker2_chip"},
        "a spiking network on the SpiNNaker2 chip, serial and parallel (MLA) paradigms (seed "
        "001), spikes checked against the integer reference",
        {
            {"network", "path", "required",
             "the network file: populations, sources, projections (docs/snn_compiler.md)"},
            {"ticks", "unsigned int 1..10000000", "1000", "timer ticks to run"},
            {"first_pe", "int 0..151", "0",
             "global index of the first PE the placement uses (then upwards)"},
            {"max_neurons_per_pe", "int 1..255", "255",
             "neurons per PE when populations are split (sPyNNaker and seed 001: 255)"},
            {"max_matrix_split", "int 1..4", "4",
             "PEs a population's synaptic matrix may be spread over when it does not fit one PE "
             "(seed 001: 2-4 adjacent PEs)"},
            {"paradigm", "serial | parallel | auto | ideal", "serial",
             "paradigm of every population without its own `paradigm` key: serial (ARM), "
             "parallel (MLA, dominant + subordinates), auto (the shipped classifier), ideal "
             "(both compiled, fewer PEs kept) (docs/snn_parallel.md)"},
            {"published_pes", "int 0..152", "0",
             "a published PE count printed next to the compiled one (0: none)"},
            {"published_source", "string", "\"\"", "names the published PE count"},
            {"firmware", "program name or path.elf", "snn",
             "the program of the serial paradigm's PEs"},
            {"firmware_parallel", "program name or path.elf", "snn_par",
             "the program of the parallel paradigm's dominant and subordinate PEs"},
            {"check", "bool", "true",
             "compare every spike with the integer reference (spike for spike)"},
        },
        &load_snn,
    };
    return s;
}

}  // namespace nmsim::workloads::snn
