/* bench_latency's pure parts (tests/bench/bench_latency.h): the id a frame shows,
 * coded as its colour, and the record of which frame first showed each
 * input, on chosen times. */
#include <string.h>

#include "bench_latency.h"
#include "bench_vsync.h"
#include "harness.h"

static void colour_round_trip(void)
{
    static const uint32_t ids[] = {0, 1, 2, 255, 256, 65535, 65536, 0x123456, LAT_ID_MAX - 1, LAT_ID_MAX};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        uint8_t r, g, b;
        lat_colour_of(ids[i], &r, &g, &b);
        CHECK_EQ_U64(lat_id_of(r, g, b), ids[i]);
    }
    uint8_t r, g, b;
    lat_colour_of(0x123456, &r, &g, &b);
    CHECK_EQ_INT(r, 0x12);
    CHECK_EQ_INT(g, 0x34);
    CHECK_EQ_INT(b, 0x56);
}

static void vblank_after(void)
{
    /* vblank k at 1000 + 10k: a present done at t is shown on the first after t. */
    CHECK_EQ_U64(bench_vblank_after(1000, 10, 500), 1);  /* before the origin */
    CHECK_EQ_U64(bench_vblank_after(1000, 10, 1000), 1); /* on vblank 0: the next */
    CHECK_EQ_U64(bench_vblank_after(1000, 10, 1009), 1);
    CHECK_EQ_U64(bench_vblank_after(1000, 10, 1010), 2);
    CHECK_EQ_U64(bench_vblank_after(1000, 10, 1055), 6);
}

/* Inputs 1..5 injected at 100, 200, ... 500; frames on vblanks 1..6 at
 * 1000 + 1000k show 0, 2, 2 (replaced on its vblank), 2, then 5 after two
 * vblanks with no frame. */
static void first_frame_showing_each_input(void)
{
    lat_input in[8];
    memset(in, 0, sizeof in);
    for (int id = 1; id <= 5; id++)
        in[id].injected = 100 * (uint64_t)id;
    in[1].read = 150;
    in[2].read = 250;
    in[5].read = 3500; /* 3 and 4: a later input was read first (never on their own) */
    lat_track t = {.in = in, .cap = 8, .from_k = 1};
    lat_track_present(&t, 0, 1, 900, 950, 960, 2000);
    CHECK_EQ_U64(t.shown, 0);
    lat_track_present(&t, 2, 2, 1900, 1950, 1970, 3000);
    CHECK_EQ_U64(t.shown, 2);
    lat_track_present(&t, 2, 2, 1960, 1990, 1995, 3000); /* the same vblank: the previous frame never shown */
    lat_track_present(&t, 5, 5, 4900, 4950, 4980, 6000); /* vblanks 3 and 4 without a new frame */
    CHECK_EQ_U64(t.shown, 5);
    CHECK_EQ_U64(t.presents, 4);
    CHECK_EQ_U64(t.unseen, 1);
    CHECK_EQ_U64(t.missed, 2);
    CHECK_EQ_U64(t.regressed, 0);
    /* Input 1: injected 100, read 150, first frame rendered 1900, presented 1950, ready 1970,
     * shown 3000. */
    uint64_t v = 0;
    CHECK(lat_stage_ns(&in[1], LAT_TOTAL, &v));
    CHECK_EQ_U64(v, 2900);
    CHECK(lat_stage_ns(&in[1], LAT_WAIT, &v));
    CHECK_EQ_U64(v, 50);
    CHECK(lat_stage_ns(&in[1], LAT_SLOT, &v));
    CHECK_EQ_U64(v, 1750);
    CHECK(lat_stage_ns(&in[1], LAT_RENDER, &v));
    CHECK_EQ_U64(v, 50);
    CHECK(lat_stage_ns(&in[1], LAT_PRESENT, &v));
    CHECK_EQ_U64(v, 20);
    CHECK(lat_stage_ns(&in[1], LAT_VBLANK, &v));
    CHECK_EQ_U64(v, 1030);
    CHECK(lat_stage_ns(&in[1], LAT_LEAD, &v));
    CHECK_EQ_U64(v, 1100);
    /* Input 3: shown by the frame that showed 5, never read on its own. */
    CHECK(lat_stage_ns(&in[3], LAT_TOTAL, &v));
    CHECK_EQ_U64(v, 6000 - 300);
    CHECK(!lat_stage_ns(&in[3], LAT_WAIT, &v));
    CHECK(!lat_stage_ns(&in[3], LAT_SLOT, &v));
    CHECK_EQ_U64(in[3].shown, 6000);
    /* A frame showing an older input than the one before is counted. */
    lat_track_present(&t, 4, 6, 5900, 5950, 5960, 7000);
    CHECK_EQ_U64(t.regressed, 1);
    CHECK_EQ_U64(t.shown, 5);
}

/* Frames before from_k (the warm-up) are not counted; ids past cap are
 * ignored, never written. */
static void warm_up_and_capacity(void)
{
    lat_input in[4];
    memset(in, 0, sizeof in);
    lat_track t = {.in = in, .cap = 4, .from_k = 10};
    lat_track_present(&t, 0, 3, 1, 2, 2, 3);
    lat_track_present(&t, 0, 7, 1, 2, 2, 3); /* 3 vblanks missed, before from_k */
    CHECK_EQ_U64(t.presents, 0);
    CHECK_EQ_U64(t.missed, 0);
    lat_track_present(&t, 9, 10, 10, 20, 25, 30);
    lat_track_present(&t, 9, 12, 40, 50, 55, 60);
    CHECK_EQ_U64(t.presents, 2);
    CHECK_EQ_U64(t.missed, 1);
    CHECK_EQ_U64(t.shown, 3);
    CHECK_EQ_U64(in[3].shown, 30);
}

static const tt_case cases[] = {
    TT_CASE(colour_round_trip),
    TT_CASE(vblank_after),
    TT_CASE(first_frame_showing_each_input),
    TT_CASE(warm_up_and_capacity),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
