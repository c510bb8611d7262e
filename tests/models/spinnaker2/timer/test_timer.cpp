// Unit tests of the SP804-style PE timer: reset values, VALUE over time, expiry times, prescale,
// BGLOAD, INTCLR, MIS masking and irq levels, plus a randomised differential test against a
// reference that steps every PE clock cycle (the model itself never steps ticks).
#include <gtest/gtest.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "models/common/sim_error.h"
#include "models/spinnaker2/timer/timer.h"
#include "nmsim/hw/spinnaker2/timer_regs.h"
#include "tests/support/bus_master.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using sc_core::sc_time;

constexpr uint64_t kClkPs = 4000;  // 250 MHz
const nmsim::Frequency kClock = nmsim::Frequency::from_mhz(250);

constexpr uint32_t kEn = 1u << S2_TIMER_CTRL_EN_SHIFT;
constexpr uint32_t kPeriodic = 1u << S2_TIMER_CTRL_PERIODIC_SHIFT;
constexpr uint32_t kIrqEn = 1u << S2_TIMER_CTRL_IRQ_EN_SHIFT;
constexpr uint32_t prescale(uint32_t p) { return p << S2_TIMER_CTRL_PRESCALE_SHIFT; }

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

using Bus = nmsim::test::BusMaster;

struct IrqRecorder : nmsim::IrqSink {
    std::vector<std::pair<uint64_t, bool>> edges;
    void irq_level(unsigned, bool level) override { edges.emplace_back(now_ps(), level); }
};

// Keeps the level at the end of each instant and drops non-changes: two processes running at
// the same time may order a set/clear pair either way.
std::vector<std::pair<uint64_t, bool>> settle(const std::vector<std::pair<uint64_t, bool>>& e) {
    std::vector<std::pair<uint64_t, bool>> by_time;
    for (const auto& x : e) {
        if (!by_time.empty() && by_time.back().first == x.first)
            by_time.back().second = x.second;
        else
            by_time.push_back(x);
    }
    std::vector<std::pair<uint64_t, bool>> out;
    bool level = false;
    for (const auto& x : by_time) {
        if (x.second == level) continue;
        out.push_back(x);
        level = x.second;
    }
    return out;
}

struct Bench {
    nmsim::test::MemorySink sink;
    Timer timer;
    Bus bus{"bus"};
    IrqRecorder rec;

    explicit Bench(const TimerParams& p = TimerParams{}) : timer("timer0", p, kClock, &sink) {
        bus.sock.bind(timer.cfg);
        timer.irq.bind(rec, 0);
    }
    void run(std::function<void(Bus&)> body) {
        bus.body = [this, fn = std::move(body)] {
            fn(bus);
            // running timers schedule events forever: the body's end ends the simulation
            if (!nmsim::sim_error().set) sc_core::sc_stop();  // a sim error has stopped it already
        };
        sc_core::sc_start();
    }
};

class TimerTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
        sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
        nmsim::sim_error() = nmsim::SimErrorInfo{};
    }
};

struct HeaderReg {
    const char* name;
    uint32_t off, acc, rst;
};
#define HEADER_REG(name, off, acc, rst, doc) HeaderReg{#name, off, acc, rst},
const HeaderReg kHeaderRegs[] = {S2_TIMER_REGS(HEADER_REG)};
#undef HEADER_REG

TEST_F(TimerTest, ResetValuesEqualHeaderTable) {
    Bench b;
    b.run([](Bus& bus) {
        for (const HeaderReg& r : kHeaderRegs) {
            const Bus::Result got = bus.read(r.off);
            if (r.acc == NM_WO) {
                EXPECT_EQ(got.status, tlm::TLM_COMMAND_ERROR_RESPONSE) << r.name;
            } else {
                EXPECT_EQ(got.status, tlm::TLM_OK_RESPONSE) << r.name;
                EXPECT_EQ(got.value, r.rst) << r.name;
            }
        }
        // VALUE is read-only, and the disabled timer holds its reset value over time
        EXPECT_EQ(bus.write(S2_TIMER_VALUE, 5).status, tlm::TLM_COMMAND_ERROR_RESPONSE);
        wait(sc_time(1, sc_core::SC_MS));
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 0xFFFFFFFFu);
    });
    EXPECT_EQ(b.timer.expiries(), 0u);
    EXPECT_TRUE(b.rec.edges.empty());
}

// Count of an enabled periodic timer n ticks after LOAD = load was written (plain formula).
uint32_t periodic_value(uint32_t load, uint64_t n) {
    if (n <= load) return static_cast<uint32_t>(load - n);
    return static_cast<uint32_t>(load - (n - load - 1) % (static_cast<uint64_t>(load) + 1));
}

TEST_F(TimerTest, PeriodicValueAndExpiryTimes) {
    const uint32_t load = 37;
    const uint64_t t0 = 10 * kClkPs + 123;  // not on a clock edge: ticks count from the LOAD write
    const uint64_t p = kClkPs;
    Bench b;
    std::vector<uint64_t> rises;
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_CTRL, kPeriodic | kIrqEn);
        bus.at(t0);
        bus.wr(S2_TIMER_LOAD, load);
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | kIrqEn);
        std::mt19937_64 rng(7);
        uint64_t t = t0;
        for (int i = 0; i < 300; ++i) {
            t += rng() % (3 * p);
            bus.at(t);
            const uint64_t n = (t - t0) / p;
            ASSERT_EQ(bus.rd(S2_TIMER_VALUE), periodic_value(load, n)) << "t=" << t << " n=" << n;
        }
        // RIS rises exactly at each expiry: 1 ps before it is still clear
        const uint64_t first = t0 + load * p, period = (load + 1) * p;
        for (int k = 0; k < 5; ++k) {
            bus.wr(S2_TIMER_INTCLR, 0);
            const uint64_t te =
                first + (now_ps() < first ? 0 : ((now_ps() - first) / period + 1) * period);
            bus.at(te - 1);
            EXPECT_EQ(bus.rd(S2_TIMER_RIS), 0u);
            EXPECT_FALSE(b.timer.irq.level());
            bus.at(te);
            EXPECT_EQ(bus.rd(S2_TIMER_RIS), 1u);
            EXPECT_TRUE(b.timer.irq.level());
            EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 0u);
            rises.push_back(te);
        }
    });
    // every expiry up to now was counted, including those no access looked at
    ASSERT_FALSE(rises.empty()) << "the bench body stopped before the first expiry";
    const uint64_t last = rises.back();
    EXPECT_EQ(b.timer.expiries(), 1 + (last - t0 - load * p) / ((load + 1) * p));
    for (uint64_t te : rises) EXPECT_EQ((te - t0 - load * p) % ((load + 1) * p), 0u);
}

TEST_F(TimerTest, IrqEdgesFollowExpiriesWithoutAccesses) {
    // One INTCLR per expiry from a handler-like thread; the irq line rises at each expiry time.
    const uint32_t load = 99;
    Bench b;
    std::vector<uint64_t> expect_rise;
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_LOAD, load);
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | kIrqEn | prescale(1));
        const uint64_t p = 16 * kClkPs;
        for (int k = 0; k < 6; ++k) expect_rise.push_back(load * p + k * (load + 1) * p);
        for (int k = 0; k < 6; ++k) {
            bus.at(expect_rise[k] + 5 * kClkPs);  // "interrupt latency"
            bus.wr(S2_TIMER_INTCLR, 1);
            EXPECT_FALSE(b.timer.irq.level());
        }
    });
    std::vector<std::pair<uint64_t, bool>> want;
    for (uint64_t t : expect_rise) {
        want.emplace_back(t, true);
        want.emplace_back(t + 5 * kClkPs, false);
    }
    EXPECT_EQ(b.rec.edges, want);
}

TEST_F(TimerTest, OneShotStopsAtZeroAndLoadRestarts) {
    const uint32_t load = 250;
    Bench b;
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_LOAD, load);
        bus.wr(S2_TIMER_CTRL, kEn | kIrqEn);  // PERIODIC = 0: one-shot
        bus.at(load * kClkPs - 1);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 1u);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 0u);
        bus.at(load * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 0u);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 1u);
        bus.at(100 * load * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 0u);
        EXPECT_EQ(b.timer.expiries(), 1u);
        EXPECT_EQ(bus.rd(S2_TIMER_CTRL) & kEn, kEn);  // EN stays set; the count is halted
        bus.wr(S2_TIMER_INTCLR, 0);
        const uint64_t t1 = now_ps();
        bus.wr(S2_TIMER_LOAD, 10);
        bus.at(t1 + 10 * kClkPs - 1);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 0u);
        bus.at(t1 + 10 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 1u);
        bus.at(t1 + 1000 * kClkPs);
    });
    EXPECT_EQ(b.timer.expiries(), 2u);
    ASSERT_EQ(b.rec.edges.size(), 3u);
    EXPECT_EQ(b.rec.edges[0], std::make_pair(uint64_t{load * kClkPs}, true));
    EXPECT_FALSE(b.rec.edges[1].second);
    EXPECT_EQ(b.rec.edges[2], std::make_pair(uint64_t{100 * load * kClkPs + 10 * kClkPs}, true));
}

TEST_F(TimerTest, PrescaleDividesTheTickRate) {
    for (uint32_t ps = 0; ps < 3; ++ps) {
        nmsim::test::fresh_systemc();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
        const uint64_t div = uint64_t{1} << (4 * ps);
        const uint64_t p = kClkPs * div;
        const uint32_t load = 20;
        Bench b;
        b.run([&](Bus& bus) {
            bus.wr(S2_TIMER_LOAD, load);
            bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | prescale(ps));
            EXPECT_EQ(b.timer.tick_ps(), p);
            for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{20}, uint64_t{21},
                               uint64_t{22}, uint64_t{100}}) {
                bus.at(n * p + p / 2);
                EXPECT_EQ(bus.rd(S2_TIMER_VALUE), periodic_value(load, n)) << "prescale " << ps;
            }
        });
        EXPECT_EQ(b.timer.expiries(), 4u) << "prescale " << ps;  // at 20, 41, 62, 83 ticks
    }
}

TEST_F(TimerTest, PrescaleChangeRestartsThePrescaler) {
    Bench b;
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_LOAD, 1000);
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic);
        bus.at(100 * kClkPs + kClkPs / 2);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 900u);
        const uint64_t tc = now_ps();
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | prescale(2));  // the half tick is dropped
        bus.at(tc + 256 * kClkPs - 1);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 900u);
        bus.at(tc + 256 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 899u);
        bus.at(tc + 10 * 256 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 890u);
    });
}

TEST_F(TimerTest, TimclkDivParameterSlowsTheCounter) {
    TimerParams p;
    p.timclk_div = 3;
    Bench b(p);
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_LOAD, 50);
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | prescale(1));
        EXPECT_EQ(b.timer.tick_ps(), 3 * 16 * kClkPs);
        bus.at(10 * 48 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 40u);
        bus.at(50 * 48 * kClkPs - 1);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 0u);
        bus.at(50 * 48 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 1u);
    });
}

TEST_F(TimerTest, BgloadChangesTheNextReloadWithoutRestarting) {
    Bench b;
    std::vector<uint64_t> rises;
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_LOAD, 100);
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | kIrqEn);
        bus.at(30 * kClkPs);
        bus.wr(S2_TIMER_BGLOAD, 10);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 70u);  // not restarted
        EXPECT_EQ(bus.rd(S2_TIMER_LOAD), 10u);   // LOAD and BGLOAD read the one reload value
        EXPECT_EQ(bus.rd(S2_TIMER_BGLOAD), 10u);
        bus.at(100 * kClkPs);  // first expiry at 100 ticks
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 1u);
        bus.wr(S2_TIMER_INTCLR, 0);
        bus.at(101 * kClkPs);  // wrap: reloads the background value
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 10u);
        bus.at(111 * kClkPs - 1);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 0u);
        bus.at(111 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 1u);
        bus.wr(S2_TIMER_INTCLR, 0);
        // written while the count sits at zero: it applies to the wrap one tick later
        bus.at(111 * kClkPs + kClkPs / 2);
        bus.wr(S2_TIMER_BGLOAD, 4);
        bus.at(112 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 4u);
        bus.at(116 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 1u);
        bus.wr(S2_TIMER_INTCLR, 0);
        bus.at(200 * kClkPs);
    });
    // expiries at 100, 111, 116, then every 5 ticks: 121, ..., 196
    EXPECT_EQ(b.timer.expiries(), 3u + (196 - 116) / 5);
}

TEST_F(TimerTest, IntclrMisMaskingAndIrqLevels) {
    Bench b;
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_LOAD, 10);
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic);  // IRQ_EN = 0
        bus.at(10 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 1u);
        EXPECT_EQ(bus.rd(S2_TIMER_MIS), 0u);
        EXPECT_FALSE(b.timer.irq.level());
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | kIrqEn);  // unmasking a pending RIS raises irq
        EXPECT_EQ(bus.rd(S2_TIMER_MIS), 1u);
        EXPECT_TRUE(b.timer.irq.level());
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic);  // masking lowers irq, RIS stays
        EXPECT_FALSE(b.timer.irq.level());
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 1u);
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | kIrqEn);
        EXPECT_TRUE(b.timer.irq.level());
        bus.wr(S2_TIMER_INTCLR, 0xFFFFFFFFu);  // any value clears
        EXPECT_FALSE(b.timer.irq.level());
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 0u);
        EXPECT_EQ(bus.rd(S2_TIMER_MIS), 0u);
        EXPECT_EQ(bus.read(S2_TIMER_INTCLR).status, tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_EQ(bus.write(S2_TIMER_RIS, 0).status, tlm::TLM_COMMAND_ERROR_RESPONSE);
        bus.at(21 * kClkPs);  // next expiry: 10 + 11 ticks
        EXPECT_TRUE(b.timer.irq.level());
        // undefined CTRL bits read back as zero
        bus.wr(S2_TIMER_CTRL, 0xFFFFFFF3u);
        EXPECT_EQ(bus.rd(S2_TIMER_CTRL), kEn | kPeriodic | kIrqEn);
    });
    EXPECT_EQ(b.timer.expiries(), 2u);
    const std::vector<std::pair<uint64_t, bool>> want = {{10 * kClkPs, true},
                                                         {10 * kClkPs, false},
                                                         {10 * kClkPs, true},
                                                         {10 * kClkPs, false},
                                                         {21 * kClkPs, true}};
    EXPECT_EQ(b.rec.edges, want);
}

TEST_F(TimerTest, DisabledTimerKeepsItsValue) {
    Bench b;
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_LOAD, 500);
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | kIrqEn);
        bus.at(123 * kClkPs + 17);
        bus.wr(S2_TIMER_CTRL, kPeriodic | kIrqEn);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 377u);
        bus.at(10000 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 377u);
        EXPECT_EQ(bus.rd(S2_TIMER_RIS), 0u);
        const uint64_t te = now_ps();
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic | kIrqEn);  // continues from the held count
        bus.at(te + 377 * kClkPs - 1);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 1u);
        bus.at(te + 377 * kClkPs);
        EXPECT_TRUE(b.timer.irq.level());
        // a LOAD write while disabled sets the count but does not start it
        bus.wr(S2_TIMER_CTRL, kPeriodic);
        bus.wr(S2_TIMER_LOAD, 9);
        bus.at(te + 1000 * kClkPs);
        EXPECT_EQ(bus.rd(S2_TIMER_VALUE), 9u);
    });
    EXPECT_EQ(b.timer.expiries(), 1u);
}

TEST_F(TimerTest, LoadZeroExpiresAtOnce) {
    Bench b;
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_CTRL, kEn | kIrqEn);
        bus.at(5 * kClkPs);
        bus.wr(S2_TIMER_LOAD, 0);
        EXPECT_TRUE(b.timer.irq.level());
        EXPECT_EQ(b.timer.expiries(), 1u);
        bus.at(50 * kClkPs);
        EXPECT_EQ(b.timer.expiries(), 1u);  // one-shot: halted at zero
    });
}

TEST_F(TimerTest, UndefinedPrescaleIsASimulationError) {
    Bench b;
    b.run([&](Bus& bus) {
        bus.at(kClkPs);
        bus.wr(S2_TIMER_CTRL, kEn | prescale(3));
    });
    ASSERT_TRUE(nmsim::sim_error().set);
    EXPECT_EQ(nmsim::sim_error().component, "timer0");
    EXPECT_NE(nmsim::sim_error().message.find("PRESCALE"), std::string::npos);
    nmsim::sim_error() = nmsim::SimErrorInfo{};
}

TEST_F(TimerTest, SummaryCounter) {
    Bench b;
    b.run([&](Bus& bus) {
        bus.wr(S2_TIMER_LOAD, 9);
        bus.wr(S2_TIMER_CTRL, kEn | kPeriodic);
        bus.at(1000 * kClkPs);
    });
    b.timer.write_summary();
    // expiries at 9, 19, ..., 999 ticks
    EXPECT_EQ(b.sink.counter_value("timer0", "expiries"), 100.0);
}

// --- randomised differential test ------------------------------------------------------------

// Reference: steps the counter once per PE clock cycle with an explicit prescaler counter.
struct RefTimer {
    uint32_t timclk_div = 1;
    bool en = false, periodic = false, irq_en = false;
    uint32_t ps = 0;
    uint32_t reload = 0, count = 0xFFFFFFFFu;
    uint64_t phase = 0;
    bool ris = false;
    uint64_t expiries = 0;

    uint64_t cycles_per_tick() const {
        return uint64_t{timclk_div} * (ps == 0 ? 1 : ps == 1 ? 16 : 256);
    }
    bool mis() const { return ris && irq_en; }
    void fire() {
        ris = true;
        ++expiries;
    }
    void cycle() {
        if (!en) return;
        if (++phase < cycles_per_tick()) return;
        phase = 0;
        if (count > 0) {
            if (--count == 0) fire();
        } else if (periodic) {
            count = reload;
            if (count == 0) fire();
        }
    }
    void load(uint32_t v) {
        reload = count = v;
        phase = 0;
        if (en && v == 0) fire();
    }
    void ctrl(uint32_t v) {
        const bool was = en;
        const uint32_t old_ps = ps;
        en = (v & kEn) != 0;
        periodic = (v & kPeriodic) != 0;
        irq_en = (v & kIrqEn) != 0;
        ps = (v >> S2_TIMER_CTRL_PRESCALE_SHIFT) & 3u;
        if ((en && !was) || ps != old_ps) phase = 0;
    }
};

enum class Op { load, bgload, ctrl, intclr, read_value, read_ris, read_mis };
struct Step {
    uint64_t cycle;
    Op op;
    uint32_t v;
};

void differential(uint64_t seed, uint32_t timclk_div) {
    nmsim::test::fresh_systemc();
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    std::mt19937_64 rng(seed);
    std::vector<Step> steps;
    uint64_t c = 0;
    for (int i = 0; i < 400; ++i) {
        c += rng() % 4 == 0 ? 0 : rng() % 1500;
        const unsigned k = static_cast<unsigned>(rng() % 16);
        Step s{c, Op::read_value, 0};
        if (k < 2) {
            s.op = Op::load;
            s.v = rng() % 8 == 0 ? static_cast<uint32_t>(rng() % 3)
                                 : static_cast<uint32_t>(rng() % 400);
        } else if (k < 3) {
            s.op = Op::bgload;
            s.v = static_cast<uint32_t>(rng() % 300);
        } else if (k < 5) {
            s.op = Op::ctrl;
            s.v = (rng() % 6 ? kEn : 0) | (rng() % 3 ? kPeriodic : 0) | (rng() % 3 ? kIrqEn : 0) |
                  prescale(rng() % 5 == 0 ? static_cast<uint32_t>(rng() % 3) : 0);
        } else if (k < 7) {
            s.op = Op::intclr;
        } else if (k < 12) {
            s.op = Op::read_value;
        } else if (k < 14) {
            s.op = Op::read_ris;
        } else {
            s.op = Op::read_mis;
        }
        steps.push_back(s);
    }
    const uint64_t end_cycle = c + 3000;

    // reference run: per cycle, ticks due at that cycle happen before the accesses at it
    RefTimer ref;
    ref.timclk_div = timclk_div;
    std::vector<uint32_t> want_reads;
    std::vector<std::pair<uint64_t, bool>> want_edges;
    bool level = false;
    auto note = [&](uint64_t cyc) {
        if (ref.mis() != level) {
            level = ref.mis();
            want_edges.emplace_back(cyc * kClkPs, level);
        }
    };
    size_t si = 0;
    for (uint64_t cyc = 0; cyc <= end_cycle; ++cyc) {
        if (cyc > 0) ref.cycle();
        note(cyc);
        for (; si < steps.size() && steps[si].cycle == cyc; ++si) {
            const Step& s = steps[si];
            switch (s.op) {
                case Op::load:
                    ref.load(s.v);
                    break;
                case Op::bgload:
                    ref.reload = s.v;
                    break;
                case Op::ctrl:
                    ref.ctrl(s.v);
                    break;
                case Op::intclr:
                    ref.ris = false;
                    break;
                case Op::read_value:
                    want_reads.push_back(ref.count);
                    break;
                case Op::read_ris:
                    want_reads.push_back(ref.ris);
                    break;
                case Op::read_mis:
                    want_reads.push_back(ref.mis());
                    break;
            }
            note(cyc);
        }
    }

    TimerParams p;
    p.timclk_div = timclk_div;
    Bench b(p);
    std::vector<uint32_t> got_reads;
    b.run([&](Bus& bus) {
        for (const Step& s : steps) {
            bus.at(s.cycle * kClkPs);
            switch (s.op) {
                case Op::load:
                    bus.wr(S2_TIMER_LOAD, s.v);
                    break;
                case Op::bgload:
                    bus.wr(S2_TIMER_BGLOAD, s.v);
                    break;
                case Op::ctrl:
                    bus.wr(S2_TIMER_CTRL, s.v);
                    break;
                case Op::intclr:
                    bus.wr(S2_TIMER_INTCLR, 0);
                    break;
                case Op::read_value:
                    got_reads.push_back(bus.rd(S2_TIMER_VALUE));
                    break;
                case Op::read_ris:
                    got_reads.push_back(bus.rd(S2_TIMER_RIS));
                    break;
                case Op::read_mis:
                    got_reads.push_back(bus.rd(S2_TIMER_MIS));
                    break;
            }
        }
        bus.at(end_cycle * kClkPs + 1);
    });

    ASSERT_EQ(got_reads.size(), want_reads.size());
    for (size_t i = 0; i < got_reads.size(); ++i)
        ASSERT_EQ(got_reads[i], want_reads[i]) << "seed " << seed << " read #" << i;
    EXPECT_EQ(settle(b.rec.edges), settle(want_edges)) << "seed " << seed;
    EXPECT_EQ(b.timer.expiries(), ref.expiries) << "seed " << seed;
    EXPECT_GT(ref.expiries, 20u);  // the sequence exercised the timer
}

TEST_F(TimerTest, RandomAccessesMatchCycleSteppedReference) {
    for (uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) differential(seed, 1);
    differential(11, 3);
}

}  // namespace
}  // namespace nmsim::spinnaker2
