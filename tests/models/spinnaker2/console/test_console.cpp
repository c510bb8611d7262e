// Unit tests of the debug console: register reset value and access rights, line assembly from
// bus writes and putc(), '\r' handling, splitting of long lines into continued trace rows (on
// UTF-8 boundaries), flush, stdout echo and counters.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>

#include "models/common/trace_records.h"
#include "models/spinnaker2/console/console.h"
#include "nmsim/hw/spinnaker2/console_regs.h"
#include "tests/support/bus_master.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;

using nmsim::test::BusMaster;

class ConsoleTest : public nmsim::test::SystemCTest {
protected:
    void build(bool echo = false, std::string prefix = "pe0", bool with_sink = true) {
        sc_core::sc_set_time_resolution(1, SC_PS);
        console = std::make_unique<Console>("console", with_sink ? &sink : nullptr, prefix, echo);
        master = std::make_unique<BusMaster>("master");
        master->sock.bind(console->cfg);
    }
    void run(std::function<void()> body) {
        master->body = std::move(body);
        sc_core::sc_start();
    }
    // Writes the characters to PUTC, 10 ns apart.
    void put_text(const std::string& s) {
        for (char c : s) {
            EXPECT_TRUE(master->write(S2_CONSOLE_PUTC, static_cast<unsigned char>(c)).ok);
            sc_core::wait(10, SC_NS);
        }
    }
    std::vector<ConsoleRecord> rows() const { return sink.rows<ConsoleRecord>("events/console"); }
    static std::string text_of(const ConsoleRecord& r) {
        return std::string(r.text, strnlen(r.text, sizeof r.text));
    }

    nmsim::test::MemorySink sink;
    std::unique_ptr<Console> console;
    std::unique_ptr<BusMaster> master;
};

TEST_F(ConsoleTest, ResetValueAndWriteOnly) {
    build();
    const RegDesc table[] = {S2_CONSOLE_REGS(NMSIM_REG_DESC)};
    ASSERT_EQ(std::size(table), 2u);
    EXPECT_EQ(console->regs().value(S2_CONSOLE_PUTC), table[0].reset);
    run([&] {
        BusMaster::Result r = master->read(S2_CONSOLE_PUTC);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.why.find("read of write-only PUTC"), std::string::npos) << r.why;
        r = master->read(S2_CONSOLE_MARK);
        EXPECT_FALSE(r.ok);
        r = master->write(0x08, 0);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.why.find("no register"), std::string::npos) << r.why;
    });
    EXPECT_TRUE(rows().empty());
}

TEST_F(ConsoleTest, MarkReportsValueAndAccessTime) {
    build();
    std::vector<std::pair<uint32_t, uint64_t>> marks;
    console->on_mark = [&](uint32_t v, uint64_t t) { marks.emplace_back(v, t); };
    uint64_t t_write = 0;
    run([&] {
        wait(sc_core::sc_time(5, sc_core::SC_NS));
        t_write = sc_core::sc_time_stamp().value();
        EXPECT_TRUE(master->write(S2_CONSOLE_MARK, 3).ok);
        EXPECT_TRUE(master->write(S2_CONSOLE_MARK, S2_CONSOLE_MARK_IDLE).ok);
    });
    ASSERT_EQ(marks.size(), 2u);
    EXPECT_EQ(marks[0].first, 3u);
    EXPECT_GE(marks[0].second, t_write);
    EXPECT_EQ(marks[1].first, S2_CONSOLE_MARK_IDLE);
    EXPECT_TRUE(rows().empty());  // marks are not console text
}

TEST_F(ConsoleTest, LinesFromBusWritesWithEndTimes) {
    build();
    uint64_t t_end1 = 0, t_end2 = 0;
    run([&] {
        put_text("hello\r");
        // The line ends with the '\n' write, 60 ns after start (6 characters of 10 ns each).
        t_end1 = sc_core::sc_time_stamp().value();
        put_text("\n");
        put_text("  world!");
        t_end2 = sc_core::sc_time_stamp().value();
        put_text("\n");
        put_text("\n");  // an empty line
        put_text("partial");
    });
    ASSERT_EQ(console->lines().size(), 3u);
    EXPECT_EQ(console->lines()[0], "hello");
    EXPECT_EQ(console->lines()[1], "  world!");
    EXPECT_EQ(console->lines()[2], "");
    EXPECT_EQ(console->text(), "hello\n  world!\n\npartial");
    auto r = rows();
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(text_of(r[0]), "hello");
    EXPECT_EQ(r[0].t_ps, t_end1);
    EXPECT_EQ(t_end1, 60000u);
    EXPECT_EQ(text_of(r[1]), "  world!");
    EXPECT_EQ(r[1].t_ps, t_end2);
    EXPECT_EQ(text_of(r[2]), "");
    for (const auto& row : r) {
        EXPECT_EQ(row.continued, 0);
        EXPECT_EQ(sink.components().at(row.component), "console");
    }
    // flush() ends the partial line at the current time; a second flush adds nothing.
    console->flush();
    console->flush();
    ASSERT_EQ(console->lines().size(), 4u);
    EXPECT_EQ(console->lines()[3], "partial");
    EXPECT_EQ(rows().size(), 4u);
    EXPECT_EQ(console->text(), "hello\n  world!\n\npartial");

    console->write_summary();
    EXPECT_EQ(sink.counter_value("console", "lines"), 4.0);
    EXPECT_EQ(sink.counter_value("console", "chars"), 5.0 + 8.0 + 7.0);
}

TEST_F(ConsoleTest, AnnotatedDelayGivesLineEndTime) {
    build();
    run([&] {
        sc_core::wait(100, SC_NS);
        ASSERT_TRUE(master->write(S2_CONSOLE_PUTC, 'a').ok);
        ASSERT_TRUE(master->write(S2_CONSOLE_PUTC, '\n', sc_time(7, SC_NS)).ok);
    });
    auto r = rows();
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].t_ps, 107000u);
}

TEST_F(ConsoleTest, LongLinesSplitIntoContinuedRows) {
    build();
    std::string line;
    for (int i = 0; i < 250; ++i) line.push_back(static_cast<char>('a' + i % 26));
    const std::string exact(112, 'x');
    for (char c : line) console->putc(c);
    console->putc('\n');
    for (char c : exact) console->putc(c);
    console->putc('\n');
    auto r = rows();
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].continued, 1);
    EXPECT_EQ(r[1].continued, 1);
    EXPECT_EQ(r[2].continued, 0);
    EXPECT_EQ(text_of(r[0]), line.substr(0, 112));
    EXPECT_EQ(text_of(r[1]), line.substr(112, 112));
    EXPECT_EQ(text_of(r[2]), line.substr(224));
    EXPECT_EQ(text_of(r[3]), exact);  // exactly one full row, no continuation
    EXPECT_EQ(r[3].continued, 0);
    ASSERT_EQ(console->lines().size(), 2u);
    EXPECT_EQ(console->lines()[0], line);
}

// Long runs keep memory bounded: only the most recent lines stay (the trace has every one), a
// line without '\n' is ended at kMaxLineBytes.
TEST_F(ConsoleTest, RetentionIsBounded) {
    build();
    const std::string line(999, 'z');  // 1000 bytes with its '\n'
    const size_t n = 3 * Console::kRetainBytes / 1000;
    for (size_t i = 0; i < n; ++i) {
        for (char c : line) console->putc(c);
        console->putc('\n');
    }
    EXPECT_LE(console->lines().size() * 1000, Console::kRetainBytes);
    EXPECT_EQ(console->lines().size() + console->lines_dropped(), n);
    EXPECT_GT(console->lines_dropped(), 0u);
    EXPECT_EQ(console->text().rfind("[" + std::to_string(console->lines_dropped()) +
                                        " earlier lines not kept]\n",
                                    0),
              0u);
    // A line that never ends is cut at kMaxLineBytes.
    for (size_t i = 0; i < Console::kMaxLineBytes + 10; ++i) console->putc('q');
    EXPECT_EQ(console->lines().back(), std::string(Console::kMaxLineBytes, 'q'));
}

TEST_F(ConsoleTest, SplitKeepsUtf8SequencesWhole) {
    build();
    // 111 ASCII bytes then U+20AC (3 bytes, E2 82 AC): a cut at 112 would split it.
    const std::string line = std::string(111, 'a') + "\xE2\x82\xAC" + "end";
    for (char c : line) console->putc(c);
    console->putc('\n');
    auto r = rows();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(text_of(r[0]), std::string(111, 'a'));
    EXPECT_EQ(r[0].continued, 1);
    EXPECT_EQ(text_of(r[1]),
              "\xE2\x82\xAC"
              "end");
    EXPECT_EQ(text_of(r[0]) + text_of(r[1]), line);
}

TEST_F(ConsoleTest, EchoToStdout) {
    build(true, "s2.pe0");
    testing::internal::CaptureStdout();
    for (char c : std::string("hi there\r\nsecond\n")) console->putc(c);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "s2.pe0: hi there\ns2.pe0: second\n");
}

TEST_F(ConsoleTest, NoEchoAndNoSink) {
    build(false, "pe0", false);
    testing::internal::CaptureStdout();
    for (char c : std::string("quiet\n")) console->putc(c);
    console->write_summary();
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
    EXPECT_EQ(console->text(), "quiet");
}

}  // namespace
}  // namespace nmsim::spinnaker2
