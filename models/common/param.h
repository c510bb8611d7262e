// Parameters declared once: type, name, default, unit, range, doc and source on one line.
//
//   struct MlaParams {
//       NMSIM_PARAMSET(MlaParams);
//       NMSIM_PARAM(uint32_t, n_rows, 4, "cells", nmsim::range(1, 64), "rows of the MAC array",
//                   "seed 001 sec. II: 64 MAC units in a 4x16 layout");
//       NMSIM_PARAM(nmsim::Time, t_startup, nmsim::Time::from_ns(20), "", nmsim::any(), ...);
//   };
//
// The macro declares a plain member (so parameter structs stay copyable value types that models
// take by const reference) and registers its metadata with the struct's registry at static
// initialisation. Defaults live only in the member initialiser; `nmsim params` reads them from a
// default-constructed instance. Dimensioned types (Time, Frequency, Bytes, Voltage) carry their
// unit in the type and pass "" as unit; plain numbers name their unit ("cycles", "bits", "1").
// Groups nest parameter sets: NMSIM_GROUP(MlaParams, mla, "MAC array").
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "models/common/units.h"

namespace nmsim {

enum class ParamType {
    boolean,
    u32,
    u64,
    i64,
    f64,
    string,
    time,
    frequency,
    bytes,
    voltage,
    energy,
    power,
    bandwidth
};

const char* param_type_name(ParamType t);

struct Range {
    bool has_bounds = false;
    double lo = 0, hi = 0;
    std::vector<std::string> choices;  // for string parameters: the allowed values
};
inline Range any() { return Range{}; }
inline Range range(double lo, double hi) { return Range{true, lo, hi, {}}; }
// Variadic (not an initializer list) so that it can appear inside NMSIM_PARAM's arguments.
template <class... S>
Range one_of(S... choices) {
    Range r;
    (r.choices.emplace_back(choices), ...);
    return r;
}

struct ParamRegistry;

// One registered field of a parameter struct (a value or a nested group), type-erased.
struct ParamEntry {
    std::string name;
    ParamType type = ParamType::u32;
    std::string unit;
    Range range;
    std::string doc;
    std::string source;
    // groups
    const ParamRegistry* group = nullptr;
    std::function<void*(void*)> sub;  // object -> group member
    // values
    std::function<std::string(const void*)> get;                       // formatted value
    std::function<bool(void*, const std::string&, std::string&)> set;  // parse + range check
};

struct ParamRegistry {
    std::vector<ParamEntry> entries;
    std::function<void*()> make_default;  // heap instance with defaults (caller frees via destroy)
    std::function<void(void*)> destroy;
};

template <class C>
ParamRegistry& registry_of() {
    static ParamRegistry r = [] {
        ParamRegistry reg;
        reg.make_default = [] { return static_cast<void*>(new C()); };
        reg.destroy = [](void* p) { delete static_cast<C*>(p); };
        return reg;
    }();
    return r;
}

// Value conversion, one overload set per supported C++ type.
namespace detail {
bool parse_value(const std::string& s, bool& out, std::string& err);
bool parse_value(const std::string& s, uint32_t& out, std::string& err);
bool parse_value(const std::string& s, uint64_t& out, std::string& err);
bool parse_value(const std::string& s, int64_t& out, std::string& err);
bool parse_value(const std::string& s, double& out, std::string& err);
bool parse_value(const std::string& s, std::string& out, std::string& err);
bool parse_value(const std::string& s, Time& out, std::string& err);
bool parse_value(const std::string& s, Frequency& out, std::string& err);
bool parse_value(const std::string& s, Bytes& out, std::string& err);
bool parse_value(const std::string& s, Voltage& out, std::string& err);
bool parse_value(const std::string& s, Energy& out, std::string& err);
bool parse_value(const std::string& s, Power& out, std::string& err);
bool parse_value(const std::string& s, Bandwidth& out, std::string& err);
std::string format_value(bool v);
std::string format_value(uint32_t v);
std::string format_value(uint64_t v);
std::string format_value(int64_t v);
std::string format_value(double v);
std::string format_value(const std::string& v);
std::string format_value(Time v);
std::string format_value(Frequency v);
std::string format_value(Bytes v);
std::string format_value(Voltage v);
std::string format_value(Energy v);
std::string format_value(Power v);
std::string format_value(Bandwidth v);
// Numeric magnitude used for range checks (Time in ps, Frequency in Hz, Bytes, Voltage in V).
double magnitude(bool v);
double magnitude(uint32_t v);
double magnitude(uint64_t v);
double magnitude(int64_t v);
double magnitude(double v);
double magnitude(Time v);
double magnitude(Frequency v);
double magnitude(Bytes v);
double magnitude(Voltage v);
double magnitude(Energy v);     // J
double magnitude(Power v);      // W
double magnitude(Bandwidth v);  // B/s
bool check_range(const Range& r, double mag, const std::string& text, std::string& err);
bool check_choice(const Range& r, const std::string& v, std::string& err);

template <class T>
constexpr ParamType type_of();
template <>
constexpr ParamType type_of<bool>() {
    return ParamType::boolean;
}
template <>
constexpr ParamType type_of<uint32_t>() {
    return ParamType::u32;
}
template <>
constexpr ParamType type_of<uint64_t>() {
    return ParamType::u64;
}
template <>
constexpr ParamType type_of<int64_t>() {
    return ParamType::i64;
}
template <>
constexpr ParamType type_of<double>() {
    return ParamType::f64;
}
template <>
constexpr ParamType type_of<std::string>() {
    return ParamType::string;
}
template <>
constexpr ParamType type_of<Time>() {
    return ParamType::time;
}
template <>
constexpr ParamType type_of<Frequency>() {
    return ParamType::frequency;
}
template <>
constexpr ParamType type_of<Bytes>() {
    return ParamType::bytes;
}
template <>
constexpr ParamType type_of<Voltage>() {
    return ParamType::voltage;
}
template <>
constexpr ParamType type_of<Energy>() {
    return ParamType::energy;
}
template <>
constexpr ParamType type_of<Power>() {
    return ParamType::power;
}
template <>
constexpr ParamType type_of<Bandwidth>() {
    return ParamType::bandwidth;
}

template <class C, class T>
bool register_param(T C::*member, const char* name, const char* unit, Range range, const char* doc,
                    const char* source) {
    ParamEntry e;
    e.name = name;
    e.type = type_of<T>();
    e.unit = unit;
    e.range = std::move(range);
    e.doc = doc;
    e.source = source;
    e.get = [member](const void* obj) { return format_value(static_cast<const C*>(obj)->*member); };
    Range r = e.range;
    e.set = [member, r](void* obj, const std::string& text, std::string& err) {
        T v{};
        if (!parse_value(text, v, err)) return false;
        if constexpr (std::is_same_v<T, std::string>) {
            if (!check_choice(r, v, err)) return false;
        } else {
            if (!check_range(r, magnitude(v), text, err)) return false;
        }
        static_cast<C*>(obj)->*member = v;
        return true;
    };
    registry_of<C>().entries.push_back(std::move(e));
    return true;
}

template <class C, class G>
bool register_group(G C::*member, const char* name, const char* doc) {
    ParamEntry e;
    e.name = name;
    e.doc = doc;
    e.group = &registry_of<G>();
    e.sub = [member](void* obj) { return static_cast<void*>(&(static_cast<C*>(obj)->*member)); };
    registry_of<C>().entries.push_back(std::move(e));
    return true;
}
}  // namespace detail

// A flattened view of a parameter tree rooted at one object: dotted paths to entries.
struct FlatParam {
    std::string path;  // "pe.mla.acc_bits"
    const ParamEntry* entry;
    void* object;  // the struct that holds the value
    std::string get() const { return entry->get(object); }
    bool set(const std::string& text, std::string& err) const {
        return entry->set(object, text, err);
    }
};

std::vector<FlatParam> flatten(const ParamRegistry& reg, void* root,
                               const std::string& prefix = "");

template <class C>
std::vector<FlatParam> flatten(C& root, const std::string& prefix = "") {
    return flatten(registry_of<C>(), &root, prefix);
}

// Checks every parameter of a registry tree for a doc, a source, a unit where required, unique
// docs within each set and defaults inside their own range. Returns one message per problem.
std::vector<std::string> check_registry(const ParamRegistry& reg, const std::string& prefix = "");

// Closest candidate by edit distance, or "" if none is close (for did-you-mean hints).
std::string closest_match(const std::string& key, const std::vector<std::string>& candidates);

}  // namespace nmsim

#define NMSIM_PARAMSET(Self) using nmsim_self_t = Self

#define NMSIM_PARAM(T, name, def, unit, rng, doc, source)                                       \
    T name = def;                                                                               \
    static inline const bool nmsim_reg_##name##_ =                                              \
        ::nmsim::detail::register_param<nmsim_self_t, T>(&nmsim_self_t::name, #name, unit, rng, \
                                                         doc, source)

#define NMSIM_GROUP(G, name, doc)                  \
    G name{};                                      \
    static inline const bool nmsim_reg_##name##_ = \
        ::nmsim::detail::register_group<nmsim_self_t, G>(&nmsim_self_t::name, #name, doc)
