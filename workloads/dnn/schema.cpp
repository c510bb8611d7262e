// Schema of the `dnn` workload: validation of workload.dnn, its dump and comparison. What needs
// the model (input sizes, layer counts) is checked by the host program's prepare stage.
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <limits>

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "tools/scenario/text.h"
#include "workloads/dnn/spec.h"

namespace nmsim::workloads::dnn {

using namespace scenario;
namespace fs = std::filesystem;

namespace {

// Global PE indices of the full chip (38 QPEs of 4 PEs). A platform built with fewer QPEs
// checks the indices against its own count.
constexpr uint32_t kChipPes = S2_NOC_N_PES;

// Reads workload.dnn in steps: files, the input range, PEs, lists, firmware. Every step records
// its problems and leaves the field at its default.
class DnnLoader {
public:
    DnnLoader(Reader& r, const YNode& n, const Fields& f, const std::string& key, DnnWorkload& d)
        : r(r), n(n), f(f), key(key), d(d) {}

    void files();
    void input_range();
    void pes();
    void lists();
    void firmware();

private:
    std::string file(const char* field, bool required);
    // A list of numbers at `field`: each item through `item` (which records its own errors).
    template <class F>
    void each_item(const char* field, const std::string& expected, F item);

    Reader& r;
    const YNode& n;
    const Fields& f;
    const std::string& key;
    DnnWorkload& d;
};

std::string DnnLoader::file(const char* field, bool required) {
    const YNode* v = f.get(field);
    if (!v) {
        if (required) r.missing(&f, field, n, key + "." + field);
        return "";
    }
    return r.existing_file(*v, key + "." + field, field);
}

void DnnLoader::files() {
    d.model = file("model", true);
    d.inputs = file("inputs", true);
    d.labels = file("labels", false);
    d.float_predictions = file("float_predictions", false);
    if (!d.inputs.empty()) {
        std::error_code ec;
        if (fs::file_size(d.inputs, ec) == 0 && !ec)
            r.error(f.get("inputs")->origin, key + ".inputs", "inputs file is empty: " + d.inputs);
    }
}

void DnnLoader::input_range() {
    bool range_ok = true;
    if (const YNode* v = f.get("first")) {
        if (auto x = r.get_uint(v, key + ".first", std::numeric_limits<uint64_t>::max(),
                                "an input index"))
            d.first = *x;
        else
            range_ok = false;
    }
    if (const YNode* v = f.get("count")) {
        if (auto x = r.get_uint(v, key + ".count", std::numeric_limits<uint64_t>::max(),
                                "an inference count")) {
            if (*x == 0) {
                r.error(v->origin, key + ".count",
                        "expected an inference count >= 1, got " + describe(*v));
                range_ok = false;
            } else {
                d.count = *x;
            }
        } else {
            range_ok = false;
        }
    }
    if (!range_ok) return;
    // Labels and float predictions hold one byte per input: the run's inputs must be among them
    // (the inputs file's entry size depends on the model, which the host program checks).
    for (const auto& [field, path] :
         {std::pair<const char*, const std::string*>{"labels", &d.labels},
          {"float_predictions", &d.float_predictions}}) {
        if (path->empty()) continue;
        std::error_code ec;
        uint64_t entries = fs::file_size(*path, ec);
        if (ec) continue;
        if (d.first >= entries || d.count > entries - d.first) {
            r.error(d.origins.at("count"), key + ".count",
                    "first " + std::to_string(d.first) + " + count " + std::to_string(d.count) +
                        " runs past the " + std::to_string(entries) + " entries of " + field + " " +
                        *path);
        }
    }
}

void DnnLoader::pes() {
    bool scheduler_ok = true;
    if (const YNode* v = f.get("scheduler_pe")) {
        if (auto x = r.get_uint(v, key + ".scheduler_pe", kChipPes - 1, "a global pe index"))
            d.scheduler_pe = static_cast<uint32_t>(*x);
        else
            scheduler_ok = false;
    }
    const YNode* workers = f.get("workers");
    const YNode* worker_pes = f.get("worker_pes");
    if (workers) {
        const std::string k = key + ".workers";
        IntLit x = workers->kind == YNode::Kind::scalar ? parse_int(workers->text) : IntLit{};
        if (workers->kind == YNode::Kind::scalar && workers->text == "all") {
            d.workers = 0;  // the platform knows how many PEs "all" is
            d.all_workers = true;
        } else if (in_range(x, 1, kChipPes - 1)) {
            d.workers = static_cast<uint32_t>(x.mag);
        } else {
            r.error(
                workers->origin, k,
                "expected a worker count in [1, " + std::to_string(kChipPes - 1) +
                    "] or \"all\", got " + describe(*workers) +
                    (workers->kind == YNode::Kind::scalar && x.status == IntLit::Status::malformed
                         ? did_you_mean(workers->text, {"all"})
                         : ""));
        }
    }
    if (worker_pes) {
        const std::string k = key + ".worker_pes";
        if (worker_pes->kind != YNode::Kind::seq || worker_pes->items.empty()) {
            r.error(worker_pes->origin, k,
                    "expected a non-empty list of global pe indices, got " +
                        (worker_pes->kind == YNode::Kind::seq ? "an empty list"
                                                              : describe(*worker_pes)));
        }
        std::map<uint32_t, const YNode*> seen;
        for (size_t i = 0; worker_pes->kind == YNode::Kind::seq && i < worker_pes->items.size();
             ++i) {
            const YNode& item = worker_pes->items[i];
            const std::string ik = k + "." + std::to_string(i);
            IntLit x = item.kind == YNode::Kind::scalar ? parse_int(item.text) : IntLit{};
            if (!in_range(x, 0, kChipPes - 1)) {
                r.error(item.origin, ik,
                        "expected a global pe index in [0, " + std::to_string(kChipPes - 1) +
                            "], got " + describe(item));
                continue;
            }
            const uint32_t pe = static_cast<uint32_t>(x.mag);
            d.origins["worker_pes." + std::to_string(i)] = item.origin;
            if (scheduler_ok && pe == d.scheduler_pe) {
                r.error(item.origin, ik,
                        "pe " + std::to_string(pe) +
                            " is the scheduler (scheduler_pe); workers must be other pes");
                continue;
            }
            auto it = seen.find(pe);
            if (it != seen.end()) {
                r.error(item.origin, ik,
                        "duplicate worker pe " + std::to_string(pe) + " (first at " +
                            it->second->origin.str() + ")");
                continue;
            }
            seen[pe] = &item;
            d.worker_pes.push_back(pe);
        }
    }
    if (workers && worker_pes) {
        r.error(key_node(n, "worker_pes")->origin, key + ".worker_pes",
                "give either workers (a count or \"all\") or worker_pes (a list), not both "
                "(workers at " +
                    key_node(n, "workers")->origin.str() + ")");
    }
    if (const YNode* v = f.get("max_workers_per_layer")) {
        if (auto x = r.get_uint(v, key + ".max_workers_per_layer", kChipPes - 1,
                                "a worker count (0 = no cap)"))
            d.max_workers_per_layer = *x;
    }
}

template <class F>
void DnnLoader::each_item(const char* field, const std::string& expected, F item) {
    const YNode* v = f.get(field);
    if (!v) return;
    const std::string k = key + "." + field;
    if (v->kind != YNode::Kind::seq) {
        r.error(v->origin, k, "expected " + expected + ", got " + describe(*v));
        return;
    }
    for (size_t i = 0; i < v->items.size(); ++i) item(v->items[i], k + "." + std::to_string(i));
}

void DnnLoader::lists() {
    if (const YNode* v = f.get("published_us");
        v && v->kind == YNode::Kind::seq && v->items.empty())
        r.error(
            v->origin, key + ".published_us",
            "expected a list of times in us (setup, layers, cleanup, total), got an empty list");
    each_item("published_us", "a list of times in us (setup, layers, cleanup, total)",
              [&](const YNode& item, const std::string& ik) {
                  char* end = nullptr;
                  const double x =
                      item.kind == YNode::Kind::scalar ? std::strtod(item.text.c_str(), &end) : -1;
                  if (item.kind != YNode::Kind::scalar || item.text.empty() || *end || !(x >= 0))
                      r.error(item.origin, ik, "expected a time in us >= 0, got " + describe(item));
                  else
                      d.published_us.push_back(x);
              });
    if (const YNode* v = f.get("published_source")) {
        if (auto x = r.get_string(v, key + ".published_source")) d.published_source = *x;
    }
    each_item("layer_workers", "a list of worker counts (0 = the compiler's choice)",
              [&](const YNode& item, const std::string& ik) {
                  IntLit x = item.kind == YNode::Kind::scalar ? parse_int(item.text) : IntLit{};
                  if (!in_range(x, 0, kChipPes - 1))
                      r.error(item.origin, ik,
                              "expected a worker count in [0, " + std::to_string(kChipPes - 1) +
                                  "] (0 = the compiler's choice), got " + describe(item));
                  else
                      d.layer_workers.push_back(x.mag);
              });
}

// Absent firmware keys resolve the built-in default; its errors point at the dnn map.
void DnnLoader::firmware() {
    auto one = [&](const char* field, std::string& name, std::string& path) {
        const YNode dflt = YNode::scalar(name, n.origin);
        const YNode* v = f.get(field);
        r.resolve_firmware(v ? *v : dflt, key + "." + field, name, path);
    };
    one("scheduler_firmware", d.scheduler_firmware, d.scheduler_firmware_path);
    one("worker_firmware", d.worker_firmware, d.worker_firmware_path);
}

std::unique_ptr<WorkloadSpec> load_dnn(Reader& r, const YNode& n, const std::string& key) {
    Fields f = r.read_map(&n, key, schema().children(""));
    if (!f.ok) return nullptr;
    const size_t errors_before = r.error_count();
    auto out = std::make_unique<DnnWorkload>();
    out->origin = n.origin;
    for (const auto& k : schema().children("")) {
        const YNode* v = f.get(k);
        out->origins[k] = v ? v->origin : n.origin;
    }
    DnnLoader l(r, n, f, key, *out);
    l.files();
    l.input_range();
    l.pes();
    l.lists();
    l.firmware();
    if (auto b = r.get_bool(f.get("check"), key + ".check")) out->check = *b;
    if (r.error_count() != errors_before) return nullptr;
    return out;
}

}  // namespace

Origin DnnWorkload::origin_of(const std::string& field) const {
    auto it = origins.find(field);
    return it == origins.end() ? origin : it->second;
}

std::unique_ptr<WorkloadSpec> DnnWorkload::clone() const {
    return std::make_unique<DnnWorkload>(*this);
}

// The dnn workload with resolved paths (built-in firmware names stay names).
void DnnWorkload::dump(YAML::Emitter& e) const {
    e << YAML::BeginMap;
    e << YAML::Key << "model" << YAML::Value << model;
    e << YAML::Key << "inputs" << YAML::Value << inputs;
    if (!labels.empty()) e << YAML::Key << "labels" << YAML::Value << labels;
    if (!float_predictions.empty())
        e << YAML::Key << "float_predictions" << YAML::Value << float_predictions;
    e << YAML::Key << "first" << YAML::Value << static_cast<unsigned long long>(first);
    e << YAML::Key << "count" << YAML::Value << static_cast<unsigned long long>(count);
    e << YAML::Key << "scheduler_pe" << YAML::Value << scheduler_pe;
    if (!worker_pes.empty()) {
        e << YAML::Key << "worker_pes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (uint32_t pe : worker_pes) e << pe;
        e << YAML::EndSeq;
    } else if (all_workers) {
        e << YAML::Key << "workers" << YAML::Value << "all";
    } else {
        e << YAML::Key << "workers" << YAML::Value << workers;
    }
    e << YAML::Key << "max_workers_per_layer" << YAML::Value
      << static_cast<unsigned long long>(max_workers_per_layer);
    if (!published_us.empty()) {
        e << YAML::Key << "published_us" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (double t : published_us) e << t;
        e << YAML::EndSeq;
    }
    if (!published_source.empty())
        e << YAML::Key << "published_source" << YAML::Value << published_source;
    if (!layer_workers.empty()) {
        e << YAML::Key << "layer_workers" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (uint64_t w : layer_workers) e << static_cast<unsigned long long>(w);
        e << YAML::EndSeq;
    }
    e << YAML::Key << "scheduler_firmware" << YAML::Value
      << (is_builtin_firmware(scheduler_firmware) ? scheduler_firmware : scheduler_firmware_path);
    e << YAML::Key << "worker_firmware" << YAML::Value
      << (is_builtin_firmware(worker_firmware) ? worker_firmware : worker_firmware_path);
    e << YAML::Key << "check" << YAML::Value << check;
    e << YAML::EndMap;
}

void DnnWorkload::diff(const WorkloadSpec& other, const std::string& prefix, Differ& d) const {
    const DnnWorkload& y = dynamic_cast<const DnnWorkload&>(other);
    const std::string k = prefix + ".";
    d.field(k + "model", model, y.model)
        .field(k + "inputs", inputs, y.inputs)
        .field(k + "labels", labels, y.labels)
        .field(k + "float_predictions", float_predictions, y.float_predictions)
        .field(k + "first", first, y.first)
        .field(k + "count", count, y.count)
        .field(k + "scheduler_pe", scheduler_pe, y.scheduler_pe)
        .field(k + "workers", workers, y.workers)
        .field(k + "all_workers", all_workers, y.all_workers)
        .list(k + "worker_pes", worker_pes, y.worker_pes)
        .list(k + "published_us", published_us, y.published_us)
        .field(k + "published_source", published_source, y.published_source)
        .list(k + "layer_workers", layer_workers, y.layer_workers)
        .field(k + "max_workers_per_layer", max_workers_per_layer, y.max_workers_per_layer)
        .field(k + "scheduler_firmware_path", scheduler_firmware_path, y.scheduler_firmware_path)
        .field(k + "worker_firmware_path", worker_firmware_path, y.worker_firmware_path)
        .field(k + "check", check, y.check);
}

const WorkloadSchema& schema() {
    static const WorkloadSchema s{
        "dnn",
        {"spinnaker2_chip"},
        "int8 ONNX DNN inference on the full SpiNNaker2 chip (seed 000), outputs checked "
        "bit-exactly",
        {
            {"model", "path", "required", "the int8 QDQ ONNX model"},
            {"inputs", "path", "required",
             "raw int8 model inputs back to back, one input tensor after the other"},
            {"labels", "path", "none", "one uint8 label per input, for the accuracy report"},
            {"float_predictions", "path", "none",
             "one uint8 class per input as predicted by the float model"},
            {"first", "unsigned int", "0", "index of the first input used"},
            {"count", "unsigned int >= 1", "100", "number of inferences, each of batch 1"},
            {"scheduler_pe", "int 0..151", "0", "global index of the scheduler PE"},
            {"workers", "int 1..151 or all", "8",
             "the first N PEs after the scheduler in global index order; all: every other PE"},
            {"worker_pes", "list of int 0..151", "none",
             "the worker PEs listed explicitly (instead of workers)"},
            {"max_workers_per_layer", "int 0..151", "0",
             "cap on the workers the tiling search gives one layer (0: no cap)"},
            {"layer_workers", "list of int 0..151", "[]",
             "worker count per entry of the compiled layer list, in list order (0: the "
             "compiler's choice); e.g. [8, 4, 1, 1] pins seed 000 Table II's worker counts"},
            {"published_us", "list of real >= 0", "[]",
             "published times (us) printed next to the simulated ones: setup, each layer-list "
             "entry, cleanup, total"},
            {"published_source", "string", "\"\"", "names the published times"},
            {"scheduler_firmware", "program name or path.elf", "dnn_scheduler",
             "the scheduler program"},
            {"worker_firmware", "program name or path.elf", "dnn_worker", "the worker program"},
            {"check", "bool", "true",
             "compare every output bit for bit with the integer reference"},
        },
        &load_dnn,
    };
    return s;
}

}  // namespace nmsim::workloads::dnn
