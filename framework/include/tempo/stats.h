/* Tempo: what a loop reports about itself: the pacing in force, why each
 * frame woke, counters over the last second and the whole run (updates,
 * renders, lateness, where the time went), per-source counters and the
 * frame-time history (tempo_loop_get_stats). tempo_loop_draw_stats()
 * (tempo/debugdraw.h) draws them as an overlay. docs/loop.md
 * ("Statistics and the overlay") says what the numbers mean; docs/pacing.md how the pacing
 * is measured.
 */
#ifndef TEMPO_STATS_H
#define TEMPO_STATS_H

#include "base.h"
#include "source.h" /* TEMPO_LOOP_MAX_SOURCES */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_loop tempo_loop; /* tempo/loop.h */

/* The pacing in force (tempo_loop_get_pacing, tempo_loop_stats.pacing). */
typedef enum tempo_loop_pacing {
    TEMPO_LOOP_PACING_TIMER = 0, /* renders on the loop's timer: the cap, else the
                                    display's refresh rate (presents do not block) */
    TEMPO_LOOP_PACING_VSYNC,     /* presents block on vblanks: the loop wakes just in
                                    time for the next one (docs/pacing.md) */
    TEMPO_LOOP_PACING_PROBING,   /* measuring whether presents block (a few presents) */
    /* Presents stopped coming back: two presents in a row blocked more than
     * 4 refresh periods (at least 50 ms): the compositor withholds frames
     * (minimized or occluded on Wayland, screen off), or the machine is
     * slow. The loop then renders and presents only as a probe and updates
     * on its timer at the full update rate (no catch-up cap, nothing
     * dropped). On a window the window system says is shown the first probe
     * comes a refresh period later, the interval doubling up to 500 ms while
     * the presents stay withheld; where it says hidden, or says nothing
     * (Wayland, whose compositors only stop a hidden surface's frames), a
     * probe every 500 ms, and the hidden-pause (desc.run_while_hidden false,
     * the default) pauses as for a minimized window. The first probe present
     * that returns within 4 periods ends the state and the pacing before it
     * resumes. */
    TEMPO_LOOP_PACING_WITHHELD,
    TEMPO_LOOP_PACING_COUNT
} tempo_loop_pacing;

/* "timer", "vsync", "probing", "presents-withheld", or "?". Static
 * string. Thread: any. */
TEMPO_API const char *tempo_loop_pacing_name(tempo_loop_pacing pacing);

/* Why a frame started. One reason per frame. */
typedef enum tempo_loop_wake {
    TEMPO_LOOP_WAKE_DUE = 0,  /* did not sleep: work was already due */
    TEMPO_LOOP_WAKE_TIMER,    /* slept until the next update or render */
    TEMPO_LOOP_WAKE_MESSAGES, /* window messages or input arrived */
    TEMPO_LOOP_WAKE_WATCH,    /* a watched handle (tempo_loop_watch) was signalled */
    TEMPO_LOOP_WAKE_SIGNAL,   /* tempo_loop_quit/request_render from a thread */
    TEMPO_LOOP_WAKE_SOURCE,   /* a source's handle was signalled (tempo_loop_add_source,
                                 the framework's attaches, native input) */
    TEMPO_LOOP_WAKE_COUNT
} tempo_loop_wake;

/* "due", "timer", "input", "watch", "signal", "source", or "?".
 * Thread: any. */
TEMPO_API const char *tempo_loop_wake_name(tempo_loop_wake wake);

/* Counters over a span of time (one window, or the whole run). Times are on
 * the loop's clock. */
typedef struct tempo_loop_counts {
    uint64_t elapsed_ns;       /* span covered */
    uint64_t frames;           /* loop iterations */
    uint64_t updates, renders;
    uint64_t wakes[TEMPO_LOOP_WAKE_COUNT]; /* frames by reason */
    uint64_t capped_frames;    /* frames that hit max_frameskip with updates still due */
    uint64_t stalls;           /* times the stall clamp fired */
    uint64_t dropped_updates;  /* updates skipped by the stall clamp */
    /* Game time given up because the machine is too slow for the update
     * rate (renders or updates slower than the schedule, the loop running
     * all along): the update debt is kept at max_gap_ns and what lies
     * beyond is this; the game runs slower than the wall clock by this
     * much over the span. 0 on a machine that keeps up. */
    uint64_t slowdown_ns;
    uint64_t wait_ns;          /* asleep in the wait (or in clock.wait_until) */
    uint64_t game_ns;          /* inside the game's callbacks, watch callbacks and
                                  source dispatches included */
    uint64_t loop_ns;          /* the rest: the loop's own cost */
    uint64_t paused_ns;        /* paused (part of wait_ns) */
    uint64_t present_ns;       /* blocked in the loop's presents (part of wait_ns) */
    uint64_t missed_vblanks;   /* vsync: vblanks that passed without a present */
    uint64_t withheld_presents; /* presents that blocked > 4 refresh periods (withheld) */
    uint64_t withheld_ns;      /* time spent in TEMPO_LOOP_PACING_WITHHELD */
    uint64_t skipped_renders;  /* renders not made because every update since the last
                                  one called tempo_loop_skip_render() */
    uint64_t probes;           /* measurements of what the presents do that began (the
                                  first, and each re-measurement: tempo_loop_vsync) */
    /* Tick lateness: when the loop woke for an update (VARIABLE: for a
     * frame) minus when it was due. Never negative: nothing runs early. */
    uint64_t late_samples;
    uint64_t lateness_p50_ns, lateness_p99_ns, lateness_max_ns; /* ~3% resolution; max exact */
    /* Derived for display: per second of elapsed_ns, and shares of
     * wait_ns + game_ns + loop_ns (0 when nothing was measured). */
    double updates_per_s, renders_per_s, frames_per_s;
    double sleeps_per_s;       /* frames that had to wake from a sleep */
    double wait_share, game_share, loop_share;
} tempo_loop_counts;

/* Frames kept for the frame-time graph. */
#define TEMPO_LOOP_HISTORY 240

/* One source's counters over a span (as in tempo_loop_counts). */
typedef struct tempo_loop_source_counts {
    uint64_t calls;       /* dispatch calls */
    uint64_t items;       /* units handled (as the source reported them) */
    uint64_t busy_ns;     /* time inside dispatch */
    uint64_t overruns;    /* calls that ended after their deadline */
    uint64_t forced;      /* calls that began at or after their deadline: the
                             one unit per frame the loop guarantees */
    uint64_t max_age_ns;  /* the oldest unit any call reported */
} tempo_loop_source_counts;

typedef struct tempo_loop_source_stats {
    char name[24];
    bool pending;           /* reported work remaining at its last call */
    bool parked;            /* out of the wait until the next frame */
    uint64_t oldest_age_ns; /* from its last call */
    tempo_loop_source_counts last_second, total;
} tempo_loop_source_stats;

typedef struct tempo_loop_stats {
    tempo_loop_counts last_second; /* the last complete window of >= 1 s (zero before) */
    tempo_loop_counts total;       /* since the first frame */
    /* The sources now added, in the order added (tempo_loop_add_source):
     * last_second covers the same window as last_second above. */
    int source_count;
    tempo_loop_source_stats sources[TEMPO_LOOP_MAX_SOURCES];
    /* A ring of the last renders: interval since the previous render, and
     * how much of it the loop was awake (busy = interval - sleep). The
     * oldest entry is at (history_next - history_count) mod
     * TEMPO_LOOP_HISTORY, the newest at history_next - 1. */
    uint64_t interval_ns[TEMPO_LOOP_HISTORY];
    uint64_t busy_ns[TEMPO_LOOP_HISTORY];
    int history_count;
    int history_next;
    bool paused;
    bool game_paused;     /* tempo_loop_set_game_paused */
    bool vsync;           /* pacing by the presents' vblanks (pacing == VSYNC) */
    tempo_loop_pacing pacing; /* the pacing in force (tempo_loop_get_pacing) */
    uint64_t refresh_ns;  /* tempo_loop_get_refresh_ns() */
    uint64_t predicted_render_ns; /* vsync: the render cost the wake allows for: the
                                     second largest of the last 32 renders (a cost seen
                                     once, a preempted render, is not predicted; seen
                                     twice, it is) */
    /* TIMER because the presents block, but on a grid of their own instead
     * of the display's vblanks (SDL's emulated vsync, the software renderer
     * created with SDL_RENDERER_PRESENTVSYNC: 16 ms on a 60 Hz display):
     * that grid's period. 0 otherwise. */
    uint64_t present_grid_ns;
} tempo_loop_stats;

/* The loop's statistics, refreshed by this call (totals and percentiles are
 * computed here). The struct belongs to the loop and stays valid and
 * unchanged until the next tempo_loop_frame() or tempo_loop_get_stats() on
 * it. NULL for a NULL loop. */
TEMPO_API const tempo_loop_stats *tempo_loop_get_stats(tempo_loop *loop);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_STATS_H */
