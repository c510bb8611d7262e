// Schema of the `deepr` workload: validation of workload.deepr, its dump and comparison. What
// needs the data or the platform (the data memory budget, the DRAM size) is checked by the
// compile step.
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "nmsim/hw/spinnaker2/deepr_image.h"
#include "nmsim/hw/spinnaker2/exp_regs.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "tools/scenario/text.h"
#include "workloads/deepr/spec.h"

namespace nmsim::workloads::deepr {

using namespace scenario;

namespace {

// A list of exactly N counts, each in [1, max].
template <size_t N>
void read_counts(Reader& r, const YNode* v, const std::string& key, uint64_t max,
                 std::array<uint32_t, N>& out) {
    if (!v) return;
    if (v->kind != YNode::Kind::seq || v->items.size() != N) {
        r.error(v->origin, key,
                "expected a list of " + std::to_string(N) + " counts, got " + describe(*v));
        return;
    }
    for (size_t i = 0; i < N; ++i) {
        const std::string k = key + "." + std::to_string(i);
        if (auto x = r.get_uint(&v->items[i], k, max, "a count")) {
            if (*x == 0)
                r.error(v->items[i].origin, k, "expected a count >= 1, got 0");
            else
                out[i] = static_cast<uint32_t>(*x);
        }
    }
}

// An IDX file: the key's value, or Debian's Fashion-MNIST file `name` when the key is absent.
std::string data_file(Reader& r, const Fields& f, const YNode& map, const std::string& key,
                      const std::string& field, const std::string& name) {
    if (const YNode* v = f.get(field)) return r.existing_file(*v, key + "." + field, "IDX");
    const std::string dflt = std::string(DeeprWorkload::kDatasetDir) + "/" + name;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(dflt, ec))
        r.error(map.origin, key + "." + field,
                "Fashion-MNIST not found at " + dflt +
                    ": install Debian's dataset-fashion-mnist (./nmsim.sh does), or give IDX files "
                    "(MNIST or Fashion-MNIST, plain or .gz) in " +
                    key +
                    ".train_images, "
                    "train_labels, test_images, test_labels");
    return dflt;
}

std::unique_ptr<WorkloadSpec> load_deepr(Reader& r, const YNode& n, const std::string& key) {
    Fields f = r.read_map(&n, key, schema().children(""));
    if (!f.ok) return nullptr;
    const size_t errors_before = r.error_count();
    auto d = std::make_unique<DeeprWorkload>();
    d->origin = n.origin;
    for (const auto& k : schema().children("")) {
        const YNode* v = f.get(k);
        d->origins[k] = v ? v->origin : n.origin;
    }
    if (const YNode* v = f.get("cores")) {
        if (auto x = r.get_uint(v, key + ".cores", 4, "a core count (1 or 4)")) {
            if (*x != 1 && *x != 4)
                r.error(v->origin, key + ".cores",
                        "expected 1 (one PE) or 4 (the checkerboard of seed 003 Fig. 5), got " +
                            std::to_string(*x));
            else
                d->cores = static_cast<uint32_t>(*x);
        }
    }
    if (auto b = r.get_bool(f.get("accelerators"), key + ".accelerators")) d->accelerators = *b;
    if (const YNode* v = f.get("iterations"))
        if (auto x = r.get_uint(v, key + ".iterations", DeeprWorkload::kMaxIterations,
                                "an iteration count"))
            d->iterations = *x;
    if (const YNode* v = f.get("rewiring_period")) {
        if (auto x = r.get_uint(v, key + ".rewiring_period", 1'000'000, "an iteration count")) {
            if (*x == 0)
                r.error(v->origin, key + ".rewiring_period", "expected a period >= 1, got 0");
            else
                d->rewiring_period = static_cast<uint32_t>(*x);
        }
    }
    read_counts(r, f.get("layers"), key + ".layers", S2_DEEPR_MAX_N, d->layers);
    read_counts(r, f.get("connections"), key + ".connections", 1'000'000, d->connections);
    if (d->layers[3] > S2_DEEPR_MAX_OUT)
        r.error(d->origins["layers"], key + ".layers.3",
                "at most " + std::to_string(S2_DEEPR_MAX_OUT) + " outputs, got " +
                    std::to_string(d->layers[3]));
    if (auto x = r.get_real(f.get("learning_rate"), key + ".learning_rate", 1e-9, 10, "a rate"))
        d->learning_rate = *x;
    if (const YNode* v = f.get("lr_halving_epochs")) {
        if (auto x = r.get_uint(v, key + ".lr_halving_epochs", 1000, "an epoch count")) {
            if (*x == 0)
                r.error(v->origin, key + ".lr_halving_epochs", "expected >= 1, got 0");
            else
                d->lr_halving_epochs = static_cast<uint32_t>(*x);
        }
    }
    if (auto x = r.get_real(f.get("l1"), key + ".l1", 0, 1, "a regularisation factor")) d->l1 = *x;
    if (auto x = r.get_real(f.get("noise"), key + ".noise", 0, 1, "a noise amplitude"))
        d->noise = *x;
    if (const YNode* v = f.get("max_new")) {
        if (auto x = r.get_uint(v, key + ".max_new", 4096, "a connection count")) {
            if (*x == 0)
                r.error(v->origin, key + ".max_new", "expected >= 1, got 0");
            else
                d->max_new = static_cast<uint32_t>(*x);
        }
    }
    if (auto x = r.get_choice(f.get("rewiring"), key + ".rewiring", {"in_place", "linear"}))
        d->rewiring = *x;
    if (const YNode* v = f.get("exp_iterations")) {
        if (auto x = r.get_uint(v, key + ".exp_iterations", S2_EXP_MAX_ITERATIONS, "1..16")) {
            if (*x == 0)
                r.error(v->origin, key + ".exp_iterations", "expected 1..16, got 0");
            else
                d->exp_iterations = static_cast<uint32_t>(*x);
        }
    }
    d->train_images = data_file(r, f, n, key, "train_images", "train-images-idx3-ubyte.gz");
    d->train_labels = data_file(r, f, n, key, "train_labels", "train-labels-idx1-ubyte.gz");
    d->test_images = data_file(r, f, n, key, "test_images", "t10k-images-idx3-ubyte.gz");
    d->test_labels = data_file(r, f, n, key, "test_labels", "t10k-labels-idx1-ubyte.gz");
    if (const YNode* v = f.get("train_count")) {
        if (auto x = r.get_uint(v, key + ".train_count", 10'000'000, "an image count")) {
            if (*x == 0)
                r.error(v->origin, key + ".train_count", "expected >= 1, got 0");
            else
                d->train_count = *x;
        }
    }
    if (auto x = r.get_uint(f.get("epoch_size"), key + ".epoch_size", 10'000'000,
                            "iterations per epoch (0: train_count)"))
        d->epoch_size = *x;
    if (auto x = r.get_uint(f.get("test_count"), key + ".test_count", 10'000'000, "an image count"))
        d->test_count = *x;
    if (auto x =
            r.get_uint(f.get("first_pe"), key + ".first_pe", S2_NOC_N_PES - 1, "a global PE index"))
        d->first_pe = static_cast<uint32_t>(*x);
    if (auto b = r.get_bool(f.get("record"), key + ".record")) d->record = *b;
    if (auto b = r.get_bool(f.get("check"), key + ".check")) d->check = *b;
    if (d->check && !d->record)
        r.error(d->origins["check"], key + ".check",
                "the check compares the per-iteration records: set record: true or check: false");
    const YNode dflt = YNode::scalar(d->firmware, n.origin);
    const YNode* fw = f.get("firmware");
    r.resolve_firmware(fw ? *fw : dflt, key + ".firmware", d->firmware, d->firmware_path);
    if (r.error_count() != errors_before) return nullptr;
    return d;
}

}  // namespace

Origin DeeprWorkload::origin_of(const std::string& field) const {
    auto it = origins.find(field);
    return it == origins.end() ? origin : it->second;
}

std::unique_ptr<WorkloadSpec> DeeprWorkload::clone() const {
    return std::make_unique<DeeprWorkload>(*this);
}

void DeeprWorkload::dump(YAML::Emitter& e) const {
    auto ull = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    e << YAML::BeginMap;
    e << YAML::Key << "cores" << YAML::Value << cores;
    e << YAML::Key << "accelerators" << YAML::Value << accelerators;
    e << YAML::Key << "iterations" << YAML::Value << ull(iterations);
    e << YAML::Key << "rewiring_period" << YAML::Value << rewiring_period;
    e << YAML::Key << "layers" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (uint32_t v : layers) e << v;
    e << YAML::EndSeq;
    e << YAML::Key << "connections" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (uint32_t v : connections) e << v;
    e << YAML::EndSeq;
    e << YAML::Key << "learning_rate" << YAML::Value << learning_rate;
    e << YAML::Key << "lr_halving_epochs" << YAML::Value << lr_halving_epochs;
    e << YAML::Key << "l1" << YAML::Value << l1;
    e << YAML::Key << "noise" << YAML::Value << noise;
    e << YAML::Key << "max_new" << YAML::Value << max_new;
    e << YAML::Key << "rewiring" << YAML::Value << rewiring;
    e << YAML::Key << "exp_iterations" << YAML::Value << exp_iterations;
    e << YAML::Key << "train_images" << YAML::Value << train_images;
    e << YAML::Key << "train_labels" << YAML::Value << train_labels;
    e << YAML::Key << "test_images" << YAML::Value << test_images;
    e << YAML::Key << "test_labels" << YAML::Value << test_labels;
    e << YAML::Key << "train_count" << YAML::Value << ull(train_count);
    e << YAML::Key << "epoch_size" << YAML::Value << ull(epoch_size);
    e << YAML::Key << "test_count" << YAML::Value << ull(test_count);
    e << YAML::Key << "first_pe" << YAML::Value << first_pe;
    e << YAML::Key << "record" << YAML::Value << record;
    e << YAML::Key << "check" << YAML::Value << check;
    e << YAML::Key << "firmware" << YAML::Value
      << (is_builtin_firmware(firmware) ? firmware : firmware_path);
    e << YAML::EndMap;
}

void DeeprWorkload::diff(const WorkloadSpec& other, const std::string& prefix, Differ& d) const {
    const DeeprWorkload& y = dynamic_cast<const DeeprWorkload&>(other);
    const std::string k = prefix + ".";
    d.field(k + "cores", cores, y.cores)
        .field(k + "accelerators", accelerators, y.accelerators)
        .field(k + "iterations", iterations, y.iterations)
        .field(k + "rewiring_period", rewiring_period, y.rewiring_period)
        .field(k + "learning_rate", learning_rate, y.learning_rate)
        .field(k + "lr_halving_epochs", lr_halving_epochs, y.lr_halving_epochs)
        .field(k + "l1", l1, y.l1)
        .field(k + "noise", noise, y.noise)
        .field(k + "max_new", max_new, y.max_new)
        .field(k + "rewiring", rewiring, y.rewiring)
        .field(k + "exp_iterations", exp_iterations, y.exp_iterations)
        .field(k + "train_images", train_images, y.train_images)
        .field(k + "train_labels", train_labels, y.train_labels)
        .field(k + "test_images", test_images, y.test_images)
        .field(k + "test_labels", test_labels, y.test_labels)
        .field(k + "train_count", train_count, y.train_count)
        .field(k + "epoch_size", epoch_size, y.epoch_size)
        .field(k + "test_count", test_count, y.test_count)
        .field(k + "first_pe", first_pe, y.first_pe)
        .field(k + "record", record, y.record)
        .field(k + "check", check, y.check)
        .field(k + "firmware_path", firmware_path, y.firmware_path);
    for (size_t i = 0; i < layers.size(); ++i)
        d.field(k + "layers." + std::to_string(i), layers[i], y.layers[i]);
    for (size_t i = 0; i < connections.size(); ++i)
        d.field(k + "connections." + std::to_string(i), connections[i], y.connections[i]);
}

const WorkloadSchema& schema() {
    static const WorkloadSchema s{
        "deepr",
        {"spinnaker2_chip"},
        "DEEP R training of a sparse perceptron on the SpiNNaker2 prototype's PEs (seed 003): one "
        "PE (1P, 1PA) or four in the checkerboard (4PA), every iteration checked bit for bit",
        {
            {"cores", "1 | 4", "1",
             "PEs: one, or four in seed 003's checkerboard partition (Fig. 5)"},
            {"accelerators", "bool", "true",
             "PRNG and EXP accelerators (1PA, 4PA); false: the same generator and exponential "
             "in software (1P)"},
            {"iterations", "unsigned int", "100", "training iterations, one image each (batch 1)"},
            {"rewiring_period", "int >= 1", "10",
             "iterations between rewiring steps (seed 003 sec. 3.2 chose 10)"},
            {"layers", "[n0, n1, n2, n3]", "[784, 300, 100, 10]", "layer sizes (n3 <= 16)"},
            {"connections", "[k1, k2, k3]", "[2352, 900, 300]",
             "active connections per weight matrix (seed 003: 1 %, 3 %, 30 %)"},
            {"learning_rate", "real", "0.05", "SGD learning rate at epoch 0 (seed 003 sec. 2.2)"},
            {"lr_halving_epochs", "int >= 1", "2", "epochs per halving of the learning rate"},
            {"l1", "real", "1e-5", "L1 regularisation alpha (per step: learning_rate * l1)"},
            {"noise", "real", "3e-4",
             "sigma of the gradient noise (per step: learning_rate * sigma * N(0,1))"},
            {"max_new", "int >= 1", "64",
             "new connections per block and rewiring step, at most (seed 003: bounded, value not "
             "given)"},
            {"rewiring", "in_place | linear", "in_place",
             "in_place: as seed 003 sec. 2.4 describes it (dormant entries swapped to the end, "
             "new ones quicksorted at the tail and merged in place: time grows with entries x "
             "changes); linear: compaction and a merge through a buffer of max_new entries. "
             "The same connections either way, only the time differs"},
            {"exp_iterations", "1..16", "16", "EXP table steps (hardware and software)"},
            {"train_images", "path (IDX, .gz)", "Fashion-MNIST train",
             "training images (MNIST format); default /usr/share/datasets/fashion-mnist"},
            {"train_labels", "path (IDX, .gz)", "Fashion-MNIST train", "training labels"},
            {"test_images", "path (IDX, .gz)", "Fashion-MNIST t10k", "held-out images"},
            {"test_labels", "path (IDX, .gz)", "Fashion-MNIST t10k", "held-out labels"},
            {"train_count", "int >= 1", "50000",
             "training images used, the first of the file (seed 003: 50 k training images)"},
            {"epoch_size", "unsigned int", "0", "iterations per epoch (0: train_count)"},
            {"test_count", "unsigned int", "100",
             "held-out images classified on the chip after training"},
            {"first_pe", "int", "0", "global index of the first PE (then upwards)"},
            {"record", "bool", "true", "one record per iteration and PE to DRAM"},
            {"check", "bool", "true",
             "compare every iteration and the final weights with the bit-exact reference"},
            {"firmware", "program name or path.elf", "deepr", "the training program"},
        },
        &load_deepr,
    };
    return s;
}

}  // namespace nmsim::workloads::deepr
