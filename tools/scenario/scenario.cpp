// The scenario frame: the YAML text is parsed into a tree that keeps an origin per node
// (yaml_tree.h), edited by --set, then validated in one pass that collects every error. The
// frame reads its own keys and hands `workload.<kind>` to that kind's schema (workload.h).
#include "tools/scenario/scenario.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "tools/scenario/text.h"
#include "tools/scenario/variants.h"

namespace nmsim::scenario {

namespace fs = std::filesystem;

const std::vector<std::string>& platform_kinds() {
    static const std::vector<std::string> kinds = {"spinnaker2_pe", "spinnaker2_chip",
                                                   "brainscales2"};
    return kinds;
}

const std::vector<KeyDoc>& frame_keys() {
    static const std::vector<KeyDoc> keys = {
        {"name", "string", "file name without .yaml", "names the run; default for trace.file"},
        {"description", "string", "\"\"", "free text"},
        {"seed", "unsigned 64-bit integer", "1",
         "the run's seed: every random choice (random buffers, PRNG models, Poisson inputs, "
         "analog noise) derives from it"},
        {"platform.kind", "spinnaker2_pe|spinnaker2_chip|brainscales2", "required",
         "the platform to build: one SpiNNaker2 PE, the full SpiNNaker2 chip, or the "
         "BrainScaleS-2 chip with its FPGA"},
        {"platform.variant", "string", "none",
         "a named variant of the platform (`nmsim params <platform> --variant NAME` lists its "
         "values): parameter values applied over the defaults, below platform.params"},
        {"platform.params", "map", "{}",
         "parameter overrides, nested maps or dotted keys (`nmsim params <platform>` lists them); "
         "dimensioned values need units (\"500ns\", \"256KiB\")"},
        {"workload", "map", "required",
         "exactly one key, the workload kind (pe, dnn, bss2), whose value is that kind's section"},
        {"trace.file", "path", "<name>.h5",
         "trace output (relative to the working directory); -o "
         "and -d override it"},
        {"trace.events", "bool", "true", "false: write summaries only, no event tables"},
        {"trace.console_stdout", "bool", "true", "echo firmware console lines to stdout"},
        {"limits.max_wall_s", "real > 0 (seconds)", "none",
         "wall-time limit: the run stops cleanly with status timeout (--max-wall overrides it); "
         "the simulated-time limit is the platform parameter sim.max_time"},
    };
    return keys;
}

namespace {

const char* const kDocKeys[] = {"name",     "description", "seed",  "platform",
                                "workload", "trace",       "limits"};

std::vector<std::string> doc_keys() { return {std::begin(kDocKeys), std::end(kDocKeys)}; }

class Loader {
public:
    // `text`: the scenario text, or nullptr to read the file `path`.
    Loader(std::string path, const LoadOptions& opts, const std::string* text = nullptr)
        : m_r(path, opts), m_path(std::move(path)), m_text(text) {}

    Scenario run();

private:
    std::string read_text();
    void upgrade_pe_form(YNode& root);
    void apply_set(YNode& root, const std::string& item);
    void add_set_param(const std::string& path, const std::string& value);
    void load_variant(const YNode* n);
    void load_params(const YNode* n);
    void flatten_params(const YNode& n, const std::string& prefix, const std::string& key);
    void load_workload(const YNode* w, const YNode& root, const Fields& top);
    void load_trace(const YNode* n);
    void load_limits(const YNode* n);
    [[noreturn]] void fail(const std::string& msg) const {
        throw ScenarioError({ConfigError{Origin{m_path, 0, 0}, "", msg}});
    }

    Reader m_r;
    std::string m_path;
    const std::string* m_text;
    std::vector<ParamOverride> m_set_params;
    bool m_upgraded_sets = false;
    Scenario m_s;
};

std::string Loader::read_text() {
    std::error_code ec;
    if (!fs::exists(m_path, ec)) fail("cannot open scenario: no such file");
    if (fs::is_directory(m_path, ec)) fail("cannot open scenario: is a directory");
    std::ifstream in(m_path, std::ios::binary);
    if (!in) fail(std::string("cannot open scenario: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) fail("cannot read scenario");
    return text.str();
}

// Before the pe workload had its own key, its buffers and cores sat directly under `workload`
// and its checks at the top level. That form is read as workload.pe, with a warning.
void Loader::upgrade_pe_form(YNode& root) {
    YNode* w = value_node(root, "workload");
    if (!w || w->kind != YNode::Kind::map || key_node(*w, "pe")) return;
    if (!key_node(*w, "buffers") && !key_node(*w, "cores")) return;
    YNode pe = YNode::map(w->origin);
    YNode rest = YNode::map(w->origin);
    for (size_t i = 0; i < w->keys.size(); ++i) {
        const bool moves = w->keys[i].text == "buffers" || w->keys[i].text == "cores";
        YNode& dst = moves ? pe : rest;
        dst.keys.push_back(w->keys[i]);
        dst.items.push_back(w->items[i]);
    }
    for (size_t i = 0; i < root.keys.size(); ++i) {
        if (root.keys[i].text != "checks") continue;
        pe.keys.push_back(root.keys[i]);
        pe.items.push_back(root.items[i]);
        root.keys.erase(root.keys.begin() + static_cast<std::ptrdiff_t>(i));
        root.items.erase(root.items.begin() + static_cast<std::ptrdiff_t>(i));
        break;
    }
    const Origin at = pe.keys.front().origin;
    rest.keys.insert(rest.keys.begin(), YNode::scalar("pe", at));
    rest.items.insert(rest.items.begin(), std::move(pe));
    *w = std::move(rest);
    m_r.warning(at, "workload",
                "old form: buffers and cores (and the top-level checks) now sit under "
                "workload.pe; read as workload.pe");
}

void Loader::apply_set(YNode& root, const std::string& item) {
    if (const std::string why = utf8_problem(item); !why.empty()) {
        m_r.error(kSetOrigin, "", "malformed --set: " + why);
        return;
    }
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
        m_r.error(kSetOrigin, "", "malformed --set " + quote(item) + ": expected key.path=value");
        return;
    }
    std::string key = item.substr(0, eq);
    std::string value = item.substr(eq + 1);
    std::vector<std::string> segs = split(key, '.');
    if (std::any_of(segs.begin(), segs.end(), [](const std::string& s) { return s.empty(); })) {
        m_r.error(kSetOrigin, "",
                  "malformed --set " + quote(item) + ": empty segment in key " + quote(key));
        return;
    }
    // Old spellings of the pe workload's keys (upgrade_pe_form).
    const bool old_pe = segs[0] == "checks" || (segs[0] == "workload" && segs.size() > 1 &&
                                                (segs[1] == "buffers" || segs[1] == "cores"));
    if (old_pe) {
        if (segs[0] == "checks")
            segs.insert(segs.begin(), {"workload", "pe"});
        else
            segs.insert(segs.begin() + 1, "pe");
        const std::string now = join(segs, ".");
        if (!m_upgraded_sets)
            m_r.warning(kSetOrigin, key, "old form: the pe workload's keys are now " + now);
        m_upgraded_sets = true;
        key = now;
    }
    if (!contains(doc_keys(), segs[0])) {
        add_set_param(key, value);
        return;
    }
    if (segs.size() >= 3 && segs[0] == "platform" && segs[1] == "params") {
        std::vector<std::string> rest(segs.begin() + 2, segs.end());
        add_set_param(join(rest, "."), value);
        return;
    }
    std::vector<ConfigError> errors;
    set_in_doc(root, segs, key, value, errors);
    for (auto& e : errors) m_r.error(e.origin, e.key, e.message);
}

void Loader::add_set_param(const std::string& path, const std::string& value) {
    if (value.empty()) {
        m_r.error(kSetOrigin, path, "empty value");
        return;
    }
    if (value[0] == '[' || value[0] == '{') {
        m_r.error(kSetOrigin, path,
                  std::string("parameter values must be scalars, got a ") +
                      (value[0] == '[' ? "list" : "map") + " " + quote(value));
        return;
    }
    m_set_params.push_back(ParamOverride{path, value, kSetOrigin});
}

// The variant's name is checked here, its values when the platform resolves its parameters.
void Loader::load_variant(const YNode* n) {
    if (!n) return;
    auto name = m_r.get_string(n, "platform.variant");
    if (!name) return;
    if (m_s.platform_kind.empty()) return;  // the missing or bad kind is reported
    const std::vector<std::string> names = platform_variant_names(m_s.platform_kind);
    if (!find_platform_variant(m_s.platform_kind, *name)) {
        m_r.error(n->origin, "platform.variant",
                  "unknown variant " + quote(*name) + " of platform " + m_s.platform_kind +
                      did_you_mean(*name, names) +
                      (names.empty() ? " (this platform has no variants)"
                                     : " (valid: " + join(names, ", ") + ")"));
        return;
    }
    m_s.platform_variant = *name;
    m_s.platform_variant_origin = n->origin;
}

void Loader::load_params(const YNode* n) {
    if (!n || n->kind == YNode::Kind::null) return;
    if (n->kind != YNode::Kind::map) {
        m_r.error(n->origin, "platform.params",
                  "expected a map of parameter overrides, got " + describe(*n));
        return;
    }
    flatten_params(*n, "", "platform.params");
    // Each path appears once: a later value (nested vs dotted spelling, or --set) would be
    // ambiguous in the file and is reported there; --set replaces.
    std::map<std::string, const ParamOverride*> seen;
    std::vector<ParamOverride> unique;
    for (const auto& p : m_s.params) {
        auto it = seen.find(p.path);
        if (it != seen.end()) {
            m_r.error(p.origin, "platform.params." + p.path,
                      "parameter set twice (first at " + it->second->origin.str() + ")");
            continue;
        }
        seen[p.path] = &p;
        unique.push_back(p);
    }
    m_s.params = std::move(unique);
}

void Loader::flatten_params(const YNode& n, const std::string& prefix, const std::string& key) {
    if (n.keys.empty()) {
        m_r.error(n.origin, key, "expected a value or a map of parameters, got an empty map");
        return;
    }
    for (size_t i = 0; i < n.keys.size(); ++i) {
        const YNode& k = n.keys[i];
        const YNode& v = n.items[i];
        std::string sub = path_join(key, k.text);
        std::vector<std::string> segs = split(k.text, '.');
        if (std::any_of(segs.begin(), segs.end(), [](const std::string& s) { return s.empty(); })) {
            m_r.error(k.origin, sub,
                      "malformed parameter key " + quote(k.text) + ": empty segment");
            continue;
        }
        std::string path = path_join(prefix, k.text);
        switch (v.kind) {
            case YNode::Kind::map:
                flatten_params(v, path, sub);
                break;
            case YNode::Kind::scalar:
                m_s.params.push_back(ParamOverride{path, v.text, v.origin});
                break;
            case YNode::Kind::seq:
                m_r.error(v.origin, sub, "parameter values must be scalars, got a list");
                break;
            case YNode::Kind::null:
                m_r.error(v.origin, sub, "missing value");
                break;
        }
    }
}

// `workload` is a map with exactly one key, the kind; its value goes to the kind's schema.
void Loader::load_workload(const YNode* w, const YNode& root, const Fields& top) {
    const std::vector<std::string> kinds = workload_names();
    const std::string kinds_text = join(kinds, ", ");
    if (!w) {
        if (!top.report_missing("workload")) return;  // offered for a misspelt key already
        m_r.error(root.origin, "workload",
                  "missing required key: a map with one workload kind (" + kinds_text + ")");
        return;
    }
    if (w->kind != YNode::Kind::map || w->keys.empty()) {
        m_r.error(w->origin, "workload",
                  "expected a map with one workload kind (" + kinds_text + "), got " +
                      (w->kind == YNode::Kind::map ? "an empty map" : describe(*w)));
        return;
    }
    for (size_t i = 1; i < w->keys.size(); ++i)
        m_r.error(w->keys[i].origin, "workload." + w->keys[i].text,
                  "a scenario runs one workload; " + quote(w->keys[0].text) + " is given at " +
                      w->keys[0].origin.str());
    const YNode& k = w->keys[0];
    const WorkloadSchema* schema = find_workload_schema(k.text);
    if (!schema) {
        m_r.error(k.origin, "workload." + k.text,
                  "unknown workload kind " + quote(k.text) + did_you_mean(k.text, kinds) +
                      " (valid: " + kinds_text + ")");
        return;
    }
    // On the wrong platform its keys are not checked: the kind is the one problem to report.
    if (!m_s.platform_kind.empty() && !contains(schema->platforms, m_s.platform_kind)) {
        m_r.error(k.origin, "workload." + k.text,
                  "the " + schema->name + " workload runs on platform kind " +
                      join(schema->platforms, " or ") + ", not " + m_s.platform_kind);
        return;
    }
    auto spec = schema->load(m_r, w->items[0], "workload." + schema->name);
    if (spec) m_s.workload = Workload(schema->name, std::move(spec));
}

void Loader::load_trace(const YNode* n) {
    Fields f = m_r.read_map(n, "trace", {"file", "events", "console_stdout"}, true);
    if (const YNode* p = f.get("file")) {
        auto s = m_r.get_string(p, "trace.file");
        if (s && s->empty()) m_r.error(p->origin, "trace.file", "expected a file path, got \"\"");
        if (s && !s->empty()) m_s.trace.file = *s;
    }
    if (auto b = m_r.get_bool(f.get("events"), "trace.events")) m_s.trace.events = *b;
    if (auto b = m_r.get_bool(f.get("console_stdout"), "trace.console_stdout"))
        m_s.trace.console_stdout = *b;
    if (m_s.trace.file.empty()) m_s.trace.file = m_s.name + ".h5";
}

void Loader::load_limits(const YNode* n) {
    Fields f = m_r.read_map(n, "limits", {"max_wall_s"}, true);
    if (auto v = m_r.get_real(f.get("max_wall_s"), "limits.max_wall_s", 1e-3, 1e9,
                              "a wall-time limit in seconds"))
        m_s.limits.max_wall_s = *v;
}

Scenario Loader::run() {
    m_s.path = m_path;
    m_s.source_text = m_text ? *m_text : read_text();
    std::vector<ConfigError> tree_errors;
    YNode root = parse_yaml(m_s.source_text, m_path, tree_errors);
    for (auto& e : tree_errors) m_r.error(e.origin, e.key, e.message);
    if (root.kind == YNode::Kind::null) {  // empty file: report the missing keys
        root.kind = YNode::Kind::map;
        root.origin = Origin{m_path, 1, 1};
    }
    if (root.kind != YNode::Kind::map) {
        throw ScenarioError({ConfigError{root.origin, "",
                                         "expected a map of scenario keys (" +
                                             join(doc_keys(), ", ") + "), got " + describe(root)}});
    }
    upgrade_pe_form(root);
    for (const auto& item : m_r.options().sets) apply_set(root, item);

    if (const YNode* c = key_node(root, "checks"))
        m_r.error(c->origin, "checks",
                  "checks belong to the pe workload: write them as workload.pe.checks");
    std::vector<std::string> valid = doc_keys();
    if (key_node(root, "checks")) valid.push_back("checks");  // reported above
    Fields top = m_r.read_map(&root, "", valid);
    m_s.name = fs::path(m_path).stem().string();
    if (auto s = m_r.get_string(top.get("name"), "name")) {
        if (s->empty())
            m_r.error(top.get("name")->origin, "name", "expected a non-empty name");
        else
            m_s.name = *s;
    }
    if (auto s = m_r.get_string(top.get("description"), "description")) m_s.description = *s;
    if (const YNode* s = top.get("seed")) {
        if (auto v = m_r.get_uint(s, "seed", std::numeric_limits<uint64_t>::max(),
                                  "an unsigned 64-bit integer"))
            m_s.seed = *v;
    }

    if (const YNode* p = top.get("platform")) {
        Fields pf = m_r.read_map(p, "platform", {"kind", "variant", "params"});
        if (pf.ok) {
            if (const YNode* k = pf.get("kind")) {
                if (auto s = m_r.get_choice(k, "platform.kind", platform_kinds()))
                    m_s.platform_kind = *s;
            } else {
                m_r.missing(&pf, "kind", *p, "platform.kind");
            }
            load_variant(pf.get("variant"));
            load_params(pf.get("params"));
        }
    } else {
        m_r.missing(&top, "platform", root, "platform.kind");
    }
    // --set overrides replace an earlier value for the same path and keep --set order.
    for (const auto& sp : m_set_params) {
        auto& ps = m_s.params;
        ps.erase(std::remove_if(ps.begin(), ps.end(),
                                [&](const ParamOverride& p) { return p.path == sp.path; }),
                 ps.end());
        ps.push_back(sp);
    }

    load_workload(top.get("workload"), root, top);
    load_trace(top.get("trace"));
    load_limits(top.get("limits"));

    std::vector<ConfigError> errors = m_r.take_errors();
    if (!errors.empty()) throw ScenarioError(std::move(errors));
    m_s.warnings = m_r.take_warnings();
    sort_by_origin(m_s.warnings);
    return std::move(m_s);
}

}  // namespace

Scenario load(const std::string& path, const LoadOptions& opts) { return Loader(path, opts).run(); }

Scenario load_text(const std::string& text, const std::string& path, const LoadOptions& opts) {
    return Loader(path, opts, &text).run();
}

std::string dump(const Scenario& s) {
    YAML::Emitter e;
    e << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << s.name;
    e << YAML::Key << "description" << YAML::Value << YAML::DoubleQuoted << s.description;
    e << YAML::Key << "seed" << YAML::Value << static_cast<unsigned long long>(s.seed);

    e << YAML::Key << "platform" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "kind" << YAML::Value << s.platform_kind;
    if (!s.platform_variant.empty())
        e << YAML::Key << "variant" << YAML::Value << s.platform_variant;
    if (!s.params.empty()) {
        e << YAML::Key << "params" << YAML::Value << YAML::BeginMap;
        for (const auto& p : s.params) e << YAML::Key << p.path << YAML::Value << p.value;
        e << YAML::EndMap;
    }
    e << YAML::EndMap;

    if (const WorkloadSpec* w = s.workload.spec()) {
        e << YAML::Key << "workload" << YAML::Value << YAML::BeginMap;
        e << YAML::Key << s.workload.kind() << YAML::Value;
        w->dump(e);
        e << YAML::EndMap;
    }

    e << YAML::Key << "trace" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "file" << YAML::Value << s.trace.file;
    e << YAML::Key << "events" << YAML::Value << s.trace.events;
    e << YAML::Key << "console_stdout" << YAML::Value << s.trace.console_stdout;
    e << YAML::EndMap;
    if (s.limits.max_wall_s > 0)
        e << YAML::Key << "limits" << YAML::Value << YAML::BeginMap << YAML::Key << "max_wall_s"
          << YAML::Value << s.limits.max_wall_s << YAML::EndMap;
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

std::string diff_resolved(const Scenario& a, const Scenario& b) {
    Differ d;
    d.field("name", a.name, b.name)
        .field("description", a.description, b.description)
        .field("seed", a.seed, b.seed)
        .field("platform.kind", a.platform_kind, b.platform_kind)
        .field("platform.variant", a.platform_variant, b.platform_variant)
        .count("platform.params", a.params.size(), b.params.size());
    for (size_t i = 0; i < a.params.size() && !d.done(); ++i) {
        std::string k = "platform.params." + std::to_string(i);
        d.field(k + ".path", a.params[i].path, b.params[i].path)
            .field(k + ".value", a.params[i].value, b.params[i].value);
    }
    d.field("workload", a.workload.kind(), b.workload.kind());
    d.field("workload." + a.workload.kind(), a.workload.empty(), b.workload.empty());
    if (!d.done() && !a.workload.empty())
        a.workload.spec()->diff(*b.workload.spec(), "workload." + a.workload.kind(), d);
    d.field("trace.file", a.trace.file, b.trace.file)
        .field("trace.events", a.trace.events, b.trace.events)
        .field("trace.console_stdout", a.trace.console_stdout, b.trace.console_stdout)
        .field("limits.max_wall_s", a.limits.max_wall_s, b.limits.max_wall_s);
    return d.result();
}

}  // namespace nmsim::scenario
