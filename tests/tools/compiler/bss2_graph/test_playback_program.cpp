// Playback program builder and response decoder: words against playback.h's own packers,
// packing of spikes, sequencing errors, rounding of times to FPGA cycles, decoder round trip.
#include <gtest/gtest.h>

#include "tools/compiler/bss2/playback_program.h"

namespace nmsim::compiler::bss2 {
namespace {

TEST(Bss2Playback, BuilderWords) {
    PlaybackProgramBuilder b;
    b.timer_reset();
    b.write(0xABCDEF, 0x12345678);
    const ReadTicket t0 = b.read(0x007100);
    b.run_begin(7);
    b.wait_until(125);
    b.spikes({0x4001, 0x8002, 0xC003, 0x0004, 0x0005, 0x0006, 0xFFFF});
    const ReadTicket t1 = b.read(0x000001);
    b.run_end();
    b.halt();
    EXPECT_EQ(t0.index, 0u);
    EXPECT_EQ(t1.index, 1u);
    EXPECT_EQ(b.reads(), 2u);
    const std::vector<uint64_t> expect = {
        0x0100000000000000ull,
        0x03ABCDEF12345678ull,
        0x0400710000000000ull,
        0x0600000000000007ull,
        0x020000000000007Dull,
        // count 3 at bits 49:48, labels at 47:32, 31:16, 15:0
        0x0503400180020000ull | 0xC003ull,
        0x0503000400050006ull,
        0x0501FFFF00000000ull,
        0x0400000100000000ull,
        0x0700000000000000ull,
        0x0F00000000000000ull,
    };
    EXPECT_EQ(b.words(), expect);
    // Same words through the header's packers.
    EXPECT_EQ(b.words()[5], bss2_pb_spikes(3, 0x4001, 0x8002, 0xC003));
    EXPECT_EQ(b.words()[7], bss2_pb_spikes(1, 0xFFFF, 0, 0));
    EXPECT_EQ(bss2_pb_spike_count(b.words()[6]), 3u);
    EXPECT_EQ(bss2_pb_spike_label(b.words()[6], 2), 0x0006u);
}

TEST(Bss2Playback, SequencingErrors) {
    {
        PlaybackProgramBuilder b;
        EXPECT_THROW(b.run_end(), PlaybackError);
        b.run_begin(0);
        EXPECT_THROW(b.run_begin(1), PlaybackError);
        EXPECT_THROW(b.halt(), PlaybackError);
        b.run_end();
        b.halt();
        EXPECT_THROW(b.timer_reset(), PlaybackError);
        EXPECT_TRUE(b.halted());
    }
    PlaybackProgramBuilder b;
    EXPECT_THROW(b.write(1u << 24, 0), PlaybackError);
    EXPECT_THROW(b.read(1u << 24), PlaybackError);
    EXPECT_THROW(b.spikes({0x10000}), PlaybackError);
    EXPECT_TRUE(b.words().empty());
}

TEST(Bss2Playback, TimesRoundToNearestCycle) {
    EXPECT_EQ(us_to_cycles(0.0), 0u);
    EXPECT_EQ(us_to_cycles(1.0), 125u);
    EXPECT_EQ(us_to_cycles(0.0039), 0u);  // 0.4875 cycles
    EXPECT_EQ(us_to_cycles(0.0041), 1u);  // 0.5125 cycles
    EXPECT_EQ(us_to_cycles(0.0121), 2u);  // 1.5125 cycles
    EXPECT_EQ(us_to_cycles(1000.003), 125000u);
    EXPECT_DOUBLE_EQ(cycles_to_us(125000), 1000.0);
    EXPECT_THROW(us_to_cycles(-0.1), PlaybackError);
    EXPECT_THROW(us_to_cycles(4.3e7), PlaybackError);  // beyond 2^32 cycles
}

TEST(Bss2Playback, DecoderRoundTrip) {
    const std::vector<uint64_t> rsp = {
        bss2_pb_make(BSS2_PB_RSP_READ, uint64_t(0x007101) << 32 | 200),
        bss2_pb_make(BSS2_PB_RSP_RUN, 0),
        bss2_pb_rsp_spike(0x4010, 100),
        bss2_pb_rsp_madc(1023, 101),
        bss2_pb_rsp_spike(0x0011, 4000000000u),
        bss2_pb_make(BSS2_PB_RSP_RUN, 1),
        bss2_pb_make(BSS2_PB_RSP_READ, uint64_t(0x007102) << 32 | 7),
        bss2_pb_rsp_madc(5, 3),
        bss2_pb_make(BSS2_PB_RSP_HALT, 12),
    };
    const ProgramResponses r = decode_responses(rsp);
    EXPECT_TRUE(r.halted);
    EXPECT_EQ(r.dropped, 12u);
    ASSERT_EQ(r.runs.size(), 2u);
    ASSERT_EQ(r.runs[0].spikes.size(), 2u);
    EXPECT_EQ(r.runs[0].spikes[0].event, 0x4010u);
    EXPECT_EQ(r.runs[0].spikes[0].cycles, 100u);
    EXPECT_EQ(r.runs[0].spikes[1].cycles, 4000000000u);
    ASSERT_EQ(r.runs[0].madc.size(), 1u);
    EXPECT_EQ(r.runs[0].madc[0].value, 1023u);
    EXPECT_EQ(r.run(1)->madc.at(0).cycles, 3u);
    EXPECT_TRUE(r.run(1)->spikes.empty());
    EXPECT_EQ(r.run(2), nullptr);
    EXPECT_EQ(r.read(ReadTicket{0}).addr, 0x007101u);
    EXPECT_EQ(r.read(ReadTicket{0}).data, 200u);
    EXPECT_EQ(r.read(ReadTicket{1}).data, 7u);
    EXPECT_THROW(r.read(ReadTicket{2}), PlaybackError);
}

TEST(Bss2Playback, DecoderRejectsMalformedStreams) {
    EXPECT_THROW(decode_responses({bss2_pb_rsp_spike(1, 1)}), PlaybackError);
    EXPECT_THROW(decode_responses({bss2_pb_rsp_madc(1, 1)}), PlaybackError);
    EXPECT_THROW(decode_responses({bss2_pb_make(0x99, 0)}), PlaybackError);
    EXPECT_THROW(
        decode_responses({bss2_pb_make(BSS2_PB_RSP_HALT, 0), bss2_pb_make(BSS2_PB_RSP_RUN, 0)}),
        PlaybackError);
    EXPECT_FALSE(decode_responses({bss2_pb_make(BSS2_PB_RSP_RUN, 0)}).halted);
}

}  // namespace
}  // namespace nmsim::compiler::bss2
