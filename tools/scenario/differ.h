// Field-by-field comparison of two resolved scenarios: the first difference as "key: a != b".
// The frame compares its keys, each workload schema its own.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tools/scenario/text.h"

namespace nmsim::scenario {

class Differ {
public:
    template <class T>
    Differ& field(const std::string& key, const T& a, const T& b) {
        if (m_diff.empty() && !(a == b)) m_diff = key + ": " + text(a) + " != " + text(b);
        return *this;
    }
    Differ& count(const std::string& key, size_t a, size_t b) {
        if (m_diff.empty() && a != b)
            m_diff = key + ": " + std::to_string(a) + " != " + std::to_string(b) + " entries";
        return *this;
    }
    // Element count, then element by element ("key.i").
    template <class T>
    Differ& list(const std::string& key, const std::vector<T>& a, const std::vector<T>& b) {
        count(key, a.size(), b.size());
        for (size_t i = 0; i < a.size() && !done(); ++i)
            field(key + "." + std::to_string(i), a[i], b[i]);
        return *this;
    }
    // Records a difference found by other means (e.g. a map entry missing in the second).
    void note(const std::string& diff) {
        if (m_diff.empty()) m_diff = diff;
    }
    bool done() const { return !m_diff.empty(); }
    std::string result() const { return m_diff; }

private:
    template <class T>
    static std::string text(const T& v) {
        std::ostringstream os;
        os << v;
        return os.str();
    }
    static std::string text(const std::string& v) { return quote(v); }
    static std::string text(bool v) { return v ? "true" : "false"; }
    static std::string text(double v) { return format_real(v); }
    static std::string text(const std::optional<uint32_t>& v) { return v ? text(*v) : "none"; }
    static std::string text(const std::vector<uint64_t>& v) { return shape_str(v); }

    std::string m_diff;
};

}  // namespace nmsim::scenario
