#include "tools/sweep/points.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace nmsim::sweep {

namespace {

// splitmix64: a fixed, portable generator, so a seed gives the same samples on every platform
// and standard library (std:: distributions are implementation-defined).
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : m_state(seed) {}
    uint64_t next() {
        uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    // Uniform in [0, n) without modulo bias.
    uint64_t below(uint64_t n) {
        const uint64_t limit =
            std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
        uint64_t x;
        do {
            x = next();
        } while (x >= limit);
        return x % n;
    }

private:
    uint64_t m_state;
};

std::string real_text(double x, const std::string& unit) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return buf + unit;
}

}  // namespace

std::vector<std::string> varied_paths(const SweepSpec& s) {
    std::vector<std::string> p;
    for (const auto& a : s.axes) p.push_back(a.path);
    for (const auto& z : s.zip) p.push_back(z.path);
    for (const auto& d : s.random.params) p.push_back(d.path);
    return p;
}

std::vector<std::vector<std::string>> draw_samples(const RandomSpec& r) {
    SplitMix64 rng(r.seed);
    std::vector<std::vector<std::string>> rows;
    for (uint64_t i = 0; i < r.n; ++i) {
        std::vector<std::string> row;
        for (const auto& d : r.params) {
            switch (d.kind) {
                case Distribution::Kind::uniform:
                    row.push_back(real_text(d.lo + (d.hi - d.lo) * rng.unit(), d.unit));
                    break;
                case Distribution::Kind::loguniform:
                    row.push_back(real_text(
                        std::exp(std::log(d.lo) + (std::log(d.hi) - std::log(d.lo)) * rng.unit()),
                        d.unit));
                    break;
                case Distribution::Kind::integer: {
                    const auto lo = static_cast<long long>(d.lo);
                    const auto span = static_cast<uint64_t>(static_cast<long long>(d.hi) - lo) + 1;
                    row.push_back(std::to_string(lo + static_cast<long long>(rng.below(span))) +
                                  d.unit);
                    break;
                }
                case Distribution::Kind::choice:
                    row.push_back(d.choices[rng.below(d.choices.size())]);
                    break;
            }
        }
        rows.push_back(row);
    }
    return rows;
}

uint64_t point_count(const SweepSpec& s) {
    uint64_t n = 1;
    auto mul = [&](uint64_t k) {
        if (k != 0 && n > std::numeric_limits<uint32_t>::max() / k)
            throw std::invalid_argument("the sweep has more than 2^32 points");
        n *= k;
    };
    for (const auto& a : s.axes) mul(a.values.size());
    if (!s.zip.empty()) mul(s.zip.front().values.size());
    if (s.random.n > 0 && !s.random.params.empty()) mul(s.random.n);
    return n;
}

std::vector<Point> expand_points(const SweepSpec& s) {
    const uint64_t total = point_count(s);
    const uint64_t nzip = s.zip.empty() ? 1 : s.zip.front().values.size();
    const bool has_random = s.random.n > 0 && !s.random.params.empty();
    const auto samples =
        has_random ? draw_samples(s.random) : std::vector<std::vector<std::string>>{};
    const uint64_t nrand = has_random ? s.random.n : 1;
    std::vector<Point> pts;
    pts.reserve(total);
    for (uint64_t id = 0; id < total; ++id) {
        Point p;
        p.id = static_cast<uint32_t>(id);
        // Decompose id as mixed radix: [axis0 ... axisK-1, zip, random], random least significant.
        uint64_t rest = id;
        const uint64_t r = rest % nrand;
        rest /= nrand;
        const uint64_t z = rest % nzip;
        rest /= nzip;
        std::vector<size_t> ai(s.axes.size());
        for (size_t k = s.axes.size(); k-- > 0;) {
            ai[k] = rest % s.axes[k].values.size();
            rest /= s.axes[k].values.size();
        }
        for (size_t k = 0; k < s.axes.size(); ++k)
            p.params.emplace_back(s.axes[k].path, s.axes[k].values[ai[k]]);
        for (const auto& l : s.zip) p.params.emplace_back(l.path, l.values[z]);
        if (has_random)
            for (size_t k = 0; k < s.random.params.size(); ++k)
                p.params.emplace_back(s.random.params[k].path, samples[r][k]);
        pts.push_back(std::move(p));
    }
    return pts;
}

}  // namespace nmsim::sweep
