// Workload kinds as plug-ins. A scenario names one platform and one workload kind: the single key
// of its `workload` map (`workload: {dnn: {...}}`). Each kind registers a WorkloadSchema (name,
// platform kinds it runs on, its keys with types, defaults and docs, and a loader) and parses its
// section into its own WorkloadSpec. The frame (scenario.cpp) knows only the registry; the host
// programs (platforms/common/host_program.h) are registered separately, by the same name.
// Adding a kind: docs/workloads.md. Nothing here knows SystemC or models.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "tools/scenario/differ.h"
#include "tools/scenario/reader.h"

namespace YAML {
class Emitter;
}

namespace nmsim::scenario {

// One documented key of a workload section, for `nmsim params --workloads` and the docs. `key`
// is dotted below `workload.<kind>`; "[]" marks the items of a list and "<name>" a free-form
// map key: "cores[].args.<name>", "runs[].inputs[].rate_hz".
struct KeyDoc {
    std::string key;
    std::string type;           // "int", "path", "list of int", "poisson|regular|times", ...
    std::string default_value;  // "required" for required keys
    std::string doc;
};

// A workload section after validation: plain data, every value resolved (paths absolute).
class WorkloadSpec {
public:
    virtual ~WorkloadSpec() = default;
    virtual std::unique_ptr<WorkloadSpec> clone() const = 0;
    // The section's value (the map under workload.<kind>) as YAML that loads back to an equal spec.
    virtual void dump(YAML::Emitter& e) const = 0;
    // Records the first difference to `other` (same kind) under `prefix` ("workload.dnn").
    virtual void diff(const WorkloadSpec& other, const std::string& prefix, Differ& d) const = 0;
};

struct WorkloadSchema {
    std::string name;                    // the workload key: "pe", "dnn", "bss2"
    std::vector<std::string> platforms;  // platform kinds it runs on
    std::string doc;                     // one line
    std::vector<KeyDoc> keys;
    // Validates `node` (the value of workload.<name>, at key path `key`), recording every
    // problem in `r`; returns the spec, or nullptr if there were errors.
    std::unique_ptr<WorkloadSpec> (*load)(Reader& r, const YNode& node, const std::string& key);

    // The documented direct children of `prefix` ("" for the section's own keys; "cores[]" for
    // the keys of a core), in declaration order: the keys a map accepts.
    std::vector<std::string> children(const std::string& prefix) const;
};

// Every registered kind, in registration order (workloads/schemas.cpp lists them).
const std::vector<const WorkloadSchema*>& workload_schemas();
const WorkloadSchema* find_workload_schema(const std::string& name);
std::vector<std::string> workload_names();

// A scenario's workload: its kind and spec, copied by value (a copy clones the spec).
class Workload {
public:
    Workload() = default;
    Workload(std::string kind, std::unique_ptr<WorkloadSpec> spec)
        : m_kind(std::move(kind)), m_spec(std::move(spec)) {}
    Workload(const Workload& o)
        : m_kind(o.m_kind), m_spec(o.m_spec ? o.m_spec->clone() : nullptr) {}
    Workload& operator=(const Workload& o) {
        if (this != &o) {
            m_kind = o.m_kind;
            m_spec = o.m_spec ? o.m_spec->clone() : nullptr;
        }
        return *this;
    }
    Workload(Workload&&) = default;
    Workload& operator=(Workload&&) = default;

    const std::string& kind() const { return m_kind; }
    bool empty() const { return !m_spec; }
    const WorkloadSpec* spec() const { return m_spec.get(); }

    // The spec as its concrete type; throws std::logic_error naming both kinds on a mismatch.
    template <class T>
    const T& as() const {
        if (auto* p = dynamic_cast<const T*>(m_spec.get())) return *p;
        throw std::logic_error("workload \"" + m_kind + "\" is not a " + typeid(T).name());
    }
    template <class T>
    T& as() {
        return const_cast<T&>(static_cast<const Workload&>(*this).as<T>());
    }
    template <class T>
    const T* get() const {
        return dynamic_cast<const T*>(m_spec.get());
    }

private:
    std::string m_kind;
    std::unique_ptr<WorkloadSpec> m_spec;
};

}  // namespace nmsim::scenario
