#include "tools/sweep/sweep_file.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "models/common/param.h"
#include "tools/sweep/points.h"

namespace nmsim::sweep {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTopKeys = {"name", "description", "base",    "set",    "axes",
                                           "zip",  "random",      "metrics", "output", "slurm"};
const std::vector<std::string> kRandomKeys = {"n", "seed", "params"};
constexpr size_t kMaxValueNodes = 100000;  // one point's value of a list axis (e.g. rates_hz)
const std::vector<std::string> kDistKeys = {"uniform", "loguniform", "int", "choice"};
const std::vector<std::string> kSlurmKeys = {"partition", "time", "cpus_per_task", "max_parallel"};

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

class Loader {
public:
    explicit Loader(const std::string& path) : m_path(path) {}

    SweepSpec load() {
        SweepSpec s;
        s.path = m_path;
        std::ifstream in(m_path);
        if (!in) {
            error(Origin{m_path, 0, 0}, "", "cannot open the sweep file");
            throw ScenarioError(m_errors);
        }
        std::stringstream ss;
        ss << in.rdbuf();
        s.source_text = ss.str();
        s.dir = fs::absolute(fs::path(m_path)).lexically_normal().parent_path().string();
        s.name = fs::path(m_path).stem().string();
        YAML::Node root;
        try {
            root = YAML::Load(s.source_text);
        } catch (const YAML::DeepRecursion& e) {
            error(origin(e.mark), "",
                  "YAML nested deeper than " + std::to_string(e.depth() - 1) +
                      " levels (the parser's limit)");
            throw ScenarioError(m_errors);
        } catch (const YAML::Exception& e) {
            error(origin(e.mark), "", "malformed YAML: " + e.msg);
            throw ScenarioError(m_errors);
        }
        if (!root.IsMap()) {
            error(origin(root.Mark()), "", "expected a map with the keys " + join(kTopKeys));
            throw ScenarioError(m_errors);
        }
        for (const auto& kv : root) {
            const std::string key = kv.first.as<std::string>();
            const YAML::Node& v = kv.second;
            if (key == "name") {
                s.name = scalar(v, key);
            } else if (key == "description") {
                s.description = scalar(v, key);
            } else if (key == "base") {
                const std::string b = scalar(v, key);
                fs::path p(b);
                if (p.is_relative()) p = fs::path(s.dir) / p;
                s.base = p.lexically_normal().string();
                if (!b.empty() && !fs::is_regular_file(s.base))
                    error(origin(v.Mark()), key, "no such file: " + s.base);
            } else if (key == "set") {
                std::vector<Setting> items;
                flatten_values(v, key, "", &items);
                s.fixed = items;
            } else if (key == "axes" || key == "zip") {
                auto& lists = key == "axes" ? s.axes : s.zip;
                flatten_lists(v, key, "", &lists);
            } else if (key == "random") {
                load_random(v, &s.random);
            } else if (key == "metrics") {
                if (!v.IsSequence()) {
                    error(origin(v.Mark()), key, "expected a list of metric names");
                    continue;
                }
                for (const auto& m : v) {
                    const std::string name = scalar(m, key);
                    if (name.empty()) continue;
                    if (std::find(s.metrics.begin(), s.metrics.end(), name) != s.metrics.end())
                        error(origin(m.Mark()), key, "metric \"" + name + "\" listed twice");
                    else
                        s.metrics.push_back(name);
                }
            } else if (key == "output") {
                const std::string o = scalar(v, key);
                fs::path p(o);
                if (p.is_relative()) p = fs::path(s.dir) / p;
                s.output = p.lexically_normal().string();
            } else if (key == "slurm") {
                load_slurm(v, &s.slurm);
            } else {
                unknown(kv.first, key, kTopKeys, "");
            }
        }
        if (!root["base"]) error(origin(root.Mark()), "base", "missing (the base scenario file)");
        if (!root["output"]) {
            // Default: results/<name> next to the sweep file.
            s.output = (fs::path(s.dir) / "results" / s.name).lexically_normal().string();
        }
        check_lengths(s);
        check_duplicates(s);
        if (m_errors.empty()) check_point_count(s, root);
        if (!m_errors.empty()) throw ScenarioError(m_errors);
        return s;
    }

private:
    // The whole sweep within kMaxPoints (each part alone was checked where it is read).
    void check_point_count(const SweepSpec& s, const YAML::Node& root) {
        std::string parts;
        for (const auto& a : s.axes)
            parts += (parts.empty() ? "" : " x ") + std::to_string(a.values.size());
        if (!s.zip.empty())
            parts += (parts.empty() ? "" : " x ") + std::to_string(s.zip.front().values.size());
        if (s.random.n > 0) parts += (parts.empty() ? "" : " x ") + std::to_string(s.random.n);
        uint64_t n = 0;
        try {
            n = point_count(s);
        } catch (const std::invalid_argument&) {
            n = std::numeric_limits<uint64_t>::max();
        }
        if (n > kMaxPoints)
            error(origin(root.Mark()), "",
                  "the sweep has " +
                      (n == std::numeric_limits<uint64_t>::max() ? std::string("more than 2^32")
                                                                 : std::to_string(n)) +
                      " points (" + parts + "); at most " + std::to_string(kMaxPoints) +
                      " per sweep: split it, or sample the space with random");
    }

    Origin origin(const YAML::Mark& m) const {
        if (m.is_null()) return Origin{m_path, 0, 0};
        return Origin{m_path, m.line + 1, m.column + 1};
    }

    void error(const Origin& o, const std::string& key, const std::string& msg) {
        m_errors.push_back(ConfigError{o, key, msg});
    }

    void unknown(const YAML::Node& key_node, const std::string& key,
                 const std::vector<std::string>& valid, const std::string& prefix) {
        std::string msg = "unknown key \"" + key + "\"";
        const std::string near = closest_match(key, valid);
        if (!near.empty()) msg += "; did you mean \"" + near + "\"?";
        msg += " (valid keys: " + join(valid) + ")";
        error(origin(key_node.Mark()), prefix.empty() ? key : prefix + "." + key, msg);
    }

    std::string scalar(const YAML::Node& v, const std::string& key) {
        if (v.IsScalar()) return v.Scalar();
        error(origin(v.Mark()), key, "expected a scalar value");
        return "";
    }

    // A value as the text `nmsim run --set` takes: scalars as written, lists/maps as flow YAML.
    // Nodes in `v` (aliases count every time they appear), counting stops at `cap`.
    static size_t node_count(const YAML::Node& v, size_t cap, size_t n = 0) {
        if (++n >= cap || !(v.IsSequence() || v.IsMap())) return n;
        for (const auto& x : v) {
            n = v.IsMap() ? node_count(x.second, cap, n) : node_count(x, cap, n);
            if (n >= cap) break;
        }
        return n;
    }

    static std::string value_text(const YAML::Node& v) {
        if (v.IsScalar()) return v.Scalar();
        if (v.IsNull()) return "";
        YAML::Emitter e;
        e << YAML::Flow << v;
        return e.c_str();
    }

    bool parse_u64(const YAML::Node& v, const std::string& key, uint64_t* out) {
        const std::string t = v.IsScalar() ? v.Scalar() : "";
        char* end = nullptr;
        const unsigned long long x = std::strtoull(t.c_str(), &end, 0);
        if (t.empty() || *end || t[0] == '-') {
            error(origin(v.Mark()), key, "expected a non-negative integer, got \"" + t + "\"");
            return false;
        }
        *out = x;
        return true;
    }

    // Nested maps become dotted paths; any other value is one setting.
    void flatten_values(const YAML::Node& v, const std::string& key, const std::string& path,
                        std::vector<Setting>* out) {
        if (!v.IsMap()) {
            if (path.empty()) {
                error(origin(v.Mark()), key, "expected a map of parameter paths to values");
                return;
            }
            out->push_back(Setting{path, value_text(v), origin(v.Mark())});
            return;
        }
        for (const auto& kv : v) {
            const std::string k = kv.first.as<std::string>();
            flatten_values(kv.second, key, path.empty() ? k : path + "." + k, out);
        }
    }

    // Nested maps become dotted paths; the leaves must be non-empty lists.
    void flatten_lists(const YAML::Node& v, const std::string& key, const std::string& path,
                       std::vector<ValueList>* out) {
        const std::string full = path.empty() ? key : key + "." + path;
        if (v.IsMap()) {
            for (const auto& kv : v) {
                const std::string k = kv.first.as<std::string>();
                flatten_lists(kv.second, key, path.empty() ? k : path + "." + k, out);
            }
            return;
        }
        if (path.empty()) {
            error(origin(v.Mark()), key, "expected a map of parameter paths to lists of values");
            return;
        }
        if (!v.IsSequence()) {
            error(origin(v.Mark()), full,
                  "expected a list of values, got \"" + value_text(v) + "\"");
            return;
        }
        if (v.size() == 0) {
            error(origin(v.Mark()), full, "empty list: give at least one value");
            return;
        }
        if (v.size() > kMaxPoints) {
            error(origin(v.Mark()), full,
                  std::to_string(v.size()) + " values; a sweep has at most " +
                      std::to_string(kMaxPoints) + " points");
            return;
        }
        ValueList l{path, {}, origin(v.Mark())};
        for (const auto& x : v) {
            if (node_count(x, kMaxValueNodes) >= kMaxValueNodes) {
                error(origin(x.Mark()), full,
                      "a value of more than " + std::to_string(kMaxValueNodes) +
                          " nodes (aliases are copied)");
                return;
            }
            l.values.push_back(value_text(x));
        }
        out->push_back(l);
    }

    // "1.5e9" -> (1.5e9, ""), "300MHz" / "300 MHz" -> (300, "MHz").
    bool number_with_unit(const YAML::Node& v, const std::string& key, double* x,
                          std::string* unit) {
        const std::string t = v.IsScalar() ? v.Scalar() : "";
        char* end = nullptr;
        *x = std::strtod(t.c_str(), &end);
        if (t.empty() || end == t.c_str() || !std::isfinite(*x)) {
            error(origin(v.Mark()), key,
                  "expected a number (optionally with a unit), got \"" + value_text(v) + "\"");
            return false;
        }
        std::string u(end);
        u.erase(0, u.find_first_not_of(' '));
        *unit = u;
        return true;
    }

    void load_random(const YAML::Node& v, RandomSpec* r) {
        if (!v.IsMap()) {
            error(origin(v.Mark()), "random", "expected a map with the keys " + join(kRandomKeys));
            return;
        }
        for (const auto& kv : v) {
            const std::string k = kv.first.as<std::string>();
            const std::string key = "random." + k;
            if (k == "n") {
                if (parse_u64(kv.second, key, &r->n) && r->n == 0)
                    error(origin(kv.second.Mark()), key, "must be at least 1");
                if (r->n > kMaxPoints) {
                    error(origin(kv.second.Mark()), key,
                          std::to_string(r->n) + " samples; a sweep has at most " +
                              std::to_string(kMaxPoints) + " points");
                    r->n = 0;
                }
            } else if (k == "seed") {
                parse_u64(kv.second, key, &r->seed);
            } else if (k == "params") {
                if (!kv.second.IsMap() || kv.second.size() == 0) {
                    error(origin(kv.second.Mark()), key,
                          "expected a non-empty map of parameter paths to distributions");
                    continue;
                }
                for (const auto& p : kv.second) load_distribution(p.first, p.second, r);
            } else {
                unknown(kv.first, k, kRandomKeys, "random");
            }
        }
        if (!v["n"]) error(origin(v.Mark()), "random.n", "missing (the number of samples)");
        if (!v["params"]) error(origin(v.Mark()), "random.params", "missing");
    }

    void load_distribution(const YAML::Node& key_node, const YAML::Node& v, RandomSpec* r) {
        Distribution d;
        d.path = key_node.as<std::string>();
        d.origin = origin(v.Mark());
        const std::string key = "random.params." + d.path;
        if (!v.IsMap() || v.size() != 1) {
            error(d.origin, key,
                  "expected one distribution: {uniform: [lo, hi]}, {loguniform: [lo, hi]}, "
                  "{int: [lo, hi]} or {choice: [a, b, ...]}");
            return;
        }
        const auto kv = *v.begin();
        const std::string kind = kv.first.as<std::string>();
        const YAML::Node& a = kv.second;
        if (kind == "choice") {
            d.kind = Distribution::Kind::choice;
            if (!a.IsSequence() || a.size() == 0) {
                error(origin(a.Mark()), key + ".choice", "expected a non-empty list of values");
                return;
            }
            for (const auto& x : a) d.choices.push_back(value_text(x));
            r->params.push_back(d);
            return;
        }
        if (kind != "uniform" && kind != "loguniform" && kind != "int") {
            unknown(kv.first, kind, kDistKeys, key);
            return;
        }
        d.kind = kind == "uniform"      ? Distribution::Kind::uniform
                 : kind == "loguniform" ? Distribution::Kind::loguniform
                                        : Distribution::Kind::integer;
        const std::string dkey = key + "." + kind;
        if (!a.IsSequence() || a.size() != 2) {
            error(origin(a.Mark()), dkey, "expected [lo, hi]");
            return;
        }
        std::string u0, u1;
        if (!number_with_unit(a[0], dkey, &d.lo, &u0) || !number_with_unit(a[1], dkey, &d.hi, &u1))
            return;
        if (u0 != u1) {
            error(origin(a.Mark()), dkey,
                  "lo and hi need the same unit, got \"" + u0 + "\" and \"" + u1 + "\"");
            return;
        }
        d.unit = u0;
        if (d.lo > d.hi) {
            error(origin(a.Mark()), dkey, "lo is greater than hi");
            return;
        }
        if (d.kind == Distribution::Kind::loguniform && d.lo <= 0) {
            error(origin(a.Mark()), dkey, "loguniform needs lo > 0");
            return;
        }
        if (d.kind == Distribution::Kind::integer &&
            (d.lo != std::floor(d.lo) || d.hi != std::floor(d.hi))) {
            error(origin(a.Mark()), dkey, "int needs integer bounds");
            return;
        }
        r->params.push_back(d);
    }

    void load_slurm(const YAML::Node& v, SlurmOptions* o) {
        if (!v.IsMap()) {
            error(origin(v.Mark()), "slurm", "expected a map with the keys " + join(kSlurmKeys));
            return;
        }
        for (const auto& kv : v) {
            const std::string k = kv.first.as<std::string>();
            const std::string key = "slurm." + k;
            uint64_t x = 0;
            if (k == "partition") {
                o->partition = scalar(kv.second, key);
            } else if (k == "time") {
                o->time = scalar(kv.second, key);
            } else if (k == "cpus_per_task") {
                if (parse_u64(kv.second, key, &x)) {
                    if (x < 1 || x > 4096)
                        error(origin(kv.second.Mark()), key, "expected 1 .. 4096");
                    o->cpus_per_task = static_cast<uint32_t>(x);
                }
            } else if (k == "max_parallel") {
                if (parse_u64(kv.second, key, &x)) o->max_parallel = static_cast<uint32_t>(x);
            } else {
                unknown(kv.first, k, kSlurmKeys, "slurm");
            }
        }
    }

    void check_lengths(const SweepSpec& s) {
        if (s.zip.empty()) return;
        const ValueList& first = s.zip.front();
        for (const auto& l : s.zip)
            if (l.values.size() != first.values.size())
                error(l.origin, "zip." + l.path,
                      std::to_string(l.values.size()) + " values, but zip." + first.path + " has " +
                          std::to_string(first.values.size()) +
                          " (zipped lists vary together and need equal lengths)");
    }

    // A parameter may be set in one place only.
    void check_duplicates(const SweepSpec& s) {
        std::map<std::string, std::string> where;  // path -> section
        auto add = [&](const std::string& path, const std::string& section, const Origin& o) {
            auto [it, fresh] = where.emplace(path, section);
            if (!fresh)
                error(o, section + "." + path,
                      "parameter already varied or set in `" + it->second +
                          "`; a parameter may appear in one place only");
        };
        for (const auto& x : s.fixed) add(x.path, "set", x.origin);
        for (const auto& x : s.axes) add(x.path, "axes", x.origin);
        for (const auto& x : s.zip) add(x.path, "zip", x.origin);
        for (const auto& x : s.random.params) add(x.path, "random.params", x.origin);
    }

    std::string m_path;
    std::vector<ConfigError> m_errors;
};

}  // namespace

SweepSpec load_sweep(const std::string& path) { return Loader(path).load(); }

}  // namespace nmsim::sweep
