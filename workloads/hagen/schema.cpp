// Schema of the `hagen` workload: validation of workload.hagen, its dump and comparison. What
// needs the plan (tiles, chips) is checked by the compile step.
#include <yaml-cpp/yaml.h>

#include "tools/scenario/text.h"
#include "workloads/hagen/spec.h"

namespace nmsim::workloads::hagen {

using namespace scenario;

namespace {

constexpr uint32_t kMaxChips = 64;
constexpr uint32_t kMaxBatch = 1'000'000;

// A count in [1, max]; 0 is an error naming the key.
void read_count(Reader& r, const YNode* v, const std::string& key, uint64_t max, const char* what,
                uint32_t& out) {
    if (!v) return;
    if (auto x = r.get_uint(v, key, max, what)) {
        if (*x == 0)
            r.error(v->origin, key, std::string("expected ") + what + " >= 1, got 0");
        else
            out = static_cast<uint32_t>(*x);
    }
}

// Sizes whose arrays would not fit a sensible memory budget, named at the key that makes them.
void check_sizes(Reader& r, const HagenWorkload& d, const std::string& key) {
    const uint64_t weights = uint64_t{d.in} * d.out;
    if (weights > HagenWorkload::kMaxWeights)
        r.error(d.origin_of("out"), key + ".out",
                "in x out = " + std::to_string(weights) + " weights exceed the limit of " +
                    std::to_string(HagenWorkload::kMaxWeights));
    const uint64_t values = uint64_t{d.batch} * std::max(d.in, d.out);
    if (values > HagenWorkload::kMaxValues)
        r.error(d.origin_of("batch"), key + ".batch",
                "batch x max(in, out) = " + std::to_string(values) +
                    " values exceed the limit of " + std::to_string(HagenWorkload::kMaxValues));
}

std::unique_ptr<WorkloadSpec> load_hagen(Reader& r, const YNode& n, const std::string& key) {
    Fields f = r.read_map(&n, key, schema().children(""));
    if (!f.ok) return nullptr;
    const size_t errors_before = r.error_count();
    auto d = std::make_unique<HagenWorkload>();
    d->origin = n.origin;
    for (const auto& k : schema().children("")) {
        const YNode* v = f.get(k);
        d->origins[k] = v ? v->origin : n.origin;
    }
    read_count(r, f.get("in"), key + ".in", HagenWorkload::kMaxDim, "an input count", d->in);
    read_count(r, f.get("out"), key + ".out", HagenWorkload::kMaxDim, "an output count", d->out);
    read_count(r, f.get("batch"), key + ".batch", kMaxBatch, "a vector count", d->batch);
    read_count(r, f.get("chips"), key + ".chips", kMaxChips, "a chip count", d->chips);
    read_count(r, f.get("num_sends"), key + ".num_sends", 255, "a repetition count", d->num_sends);
    read_count(r, f.get("wait_between_events"), key + ".wait_between_events", 65535,
               "an FPGA cycle count", d->wait_between_events);
    if (auto b = r.get_bool(f.get("baseline"), key + ".baseline")) d->baseline = *b;
    if (auto b = r.get_bool(f.get("rewrite_synapses"), key + ".rewrite_synapses"))
        d->rewrite_synapses = *b;
    if (auto x = r.get_real(f.get("input_density"), key + ".input_density", 0, 1,
                            "a probability (0..1)"))
        d->input_density = *x;
    if (auto x = r.get_uint(f.get("input_max"), key + ".input_max", 31, "a 5-bit activation"))
        d->input_max = static_cast<uint32_t>(*x);
    if (auto x = r.get_uint(f.get("weight_max"), key + ".weight_max", 63, "a 6-bit weight"))
        d->weight_max = static_cast<uint32_t>(*x);
    if (const YNode* v = f.get("max_program_words")) {
        if (auto x = r.get_uint(v, key + ".max_program_words", uint64_t{1} << 30,
                                "an instruction count")) {
            if (*x < 64)
                r.error(v->origin, key + ".max_program_words",
                        "expected an instruction count >= 64, got " + std::to_string(*x));
            else
                d->max_program_words = *x;
        }
    }
    if (auto b = r.get_bool(f.get("check"), key + ".check")) d->check = *b;
    if (r.error_count() == errors_before) check_sizes(r, *d, key);
    if (r.error_count() != errors_before) return nullptr;
    return d;
}

}  // namespace

Origin HagenWorkload::origin_of(const std::string& field) const {
    auto it = origins.find(field);
    return it == origins.end() ? origin : it->second;
}

std::unique_ptr<WorkloadSpec> HagenWorkload::clone() const {
    return std::make_unique<HagenWorkload>(*this);
}

void HagenWorkload::dump(YAML::Emitter& e) const {
    e << YAML::BeginMap;
    e << YAML::Key << "in" << YAML::Value << in;
    e << YAML::Key << "out" << YAML::Value << out;
    e << YAML::Key << "batch" << YAML::Value << batch;
    e << YAML::Key << "chips" << YAML::Value << chips;
    e << YAML::Key << "num_sends" << YAML::Value << num_sends;
    e << YAML::Key << "wait_between_events" << YAML::Value << wait_between_events;
    e << YAML::Key << "baseline" << YAML::Value << baseline;
    e << YAML::Key << "rewrite_synapses" << YAML::Value << rewrite_synapses;
    e << YAML::Key << "input_density" << YAML::Value << input_density;
    e << YAML::Key << "input_max" << YAML::Value << input_max;
    e << YAML::Key << "weight_max" << YAML::Value << weight_max;
    e << YAML::Key << "max_program_words" << YAML::Value
      << static_cast<unsigned long long>(max_program_words);
    e << YAML::Key << "check" << YAML::Value << check;
    e << YAML::EndMap;
}

void HagenWorkload::diff(const WorkloadSpec& other, const std::string& prefix, Differ& d) const {
    const HagenWorkload& y = dynamic_cast<const HagenWorkload&>(other);
    const std::string k = prefix + ".";
    d.field(k + "in", in, y.in)
        .field(k + "out", out, y.out)
        .field(k + "batch", batch, y.batch)
        .field(k + "chips", chips, y.chips)
        .field(k + "num_sends", num_sends, y.num_sends)
        .field(k + "wait_between_events", wait_between_events, y.wait_between_events)
        .field(k + "baseline", baseline, y.baseline)
        .field(k + "rewrite_synapses", rewrite_synapses, y.rewrite_synapses)
        .field(k + "input_density", input_density, y.input_density)
        .field(k + "input_max", input_max, y.input_max)
        .field(k + "weight_max", weight_max, y.weight_max)
        .field(k + "max_program_words", max_program_words, y.max_program_words)
        .field(k + "check", check, y.check);
}

const WorkloadSchema& schema() {
    static const WorkloadSchema s{
        "hagen",
        {"brainscales2"},
        "a matrix product on BrainScaleS-2 in hagen mode (analog vector-matrix multiplier, seeds "
        "002 and 004): tiles over chip halves and chips, host in the loop, values checked against "
        "the integer reference",
        {
            {"in", "int 1..16384", "128", "inputs per vector (rows of the weight matrix)"},
            {"out", "int 1..16384", "256", "outputs per vector (columns of the weight matrix)"},
            {"batch", "int 1..1000000", "100", "input vectors (the batch)"},
            {"chips", "int 1..64", "1",
             "chips, each with its FPGA, the tiles are placed on round-robin"},
            {"num_sends", "int 1..255", "1",
             "sends of every vector (v1 workaround for precision; seed 002 sec. 3.5)"},
            {"wait_between_events", "int 1..65535", "8",
             "FPGA cycles (8 ns) between input events (seed 004 Listing 25)"},
            {"baseline", "bool", "true",
             "CADC baseline read before every vector (grenade); false: resting level code 128"},
            {"rewrite_synapses", "bool", "false",
             "v1 workaround: rewrite the tile's synapses before every vector (seed 002 sec. 4.1)"},
            {"input_density", "real 0..1", "1", "probability that an input is non-zero"},
            {"input_max", "int 0..31", "31", "non-zero inputs uniform in [1, input_max]"},
            {"weight_max", "int 0..63", "63", "weights uniform in [-weight_max, weight_max]"},
            {"max_program_words", "int 64..2^30", "8388608",
             "instructions per playback program (64 MiB, seed 004 sec. 5.2.4); larger batches "
             "run as several programs"},
            {"check", "bool", "true",
             "compare with the integer reference: bit for bit in the ideal setting (mismatch and "
             "noise 0), else the deviation is reported"},
        },
        &load_hagen,
    };
    return s;
}

}  // namespace nmsim::workloads::hagen
