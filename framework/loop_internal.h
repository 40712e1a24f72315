/* Internals of tempo_loop shared by the loop's files (docs/layout.md):
 * loop.c (the object and the frame, the one writer of the pause, the
 * owed render and the statistics), loop_schedule.c (exact schedules and
 * the decisions), loop_present.c (display pacing: tempo__present),
 * loop_sources.c (the registry: tempo__registry), loop_events.c,
 * loop_wait.c, loop_stats.c and loop_overlay.c. Each part's state is a
 * struct of its own inside struct tempo_loop, written only by its file.
 * Everything here runs on the loop thread except the two atomics marked
 * [any thread]. */
#ifndef TEMPO_LOOP_INTERNAL_H
#define TEMPO_LOOP_INTERNAL_H

#include <stdatomic.h>

#include "loop_schedule.h"
#include "pacer.h"
#include "platform.h"
#include "tempo/loop.h"

/* ---- Schedules (loop_schedule.c) -----------------------------------------
 * A schedule of rate `hz` starting at `epoch` has its k-th slot at
 * epoch + floor(k * 1e9 / hz), computed exactly in 64-bit integers for any
 * k and hz <= TEMPO__LOOP_MAX_HZ, so a loop never drifts from the clock. */

#define TEMPO__LOOP_MAX_HZ 100000u

/* Time of slot k. Saturates at UINT64_MAX instead of wrapping. */
uint64_t tempo__sched_at(uint64_t epoch_ns, uint32_t hz, uint64_t k);

/* How many slots are due at time t (slots 0..count-1 have at() <= t), which
 * is also the index of the first slot after t. 0 when t < epoch. */
uint64_t tempo__sched_count(uint64_t epoch_ns, uint32_t hz, uint64_t t);

/* ---- Lateness histogram ----------------------------------------------------
 * Log-linear buckets: values below 32 ns exactly, then 32 buckets per power
 * of two (~3% wide), so p50/p99 come from a fixed 7.5 KiB table without
 * keeping samples. */

#define TEMPO__HIST_SUB 32
#define TEMPO__HIST_BUCKETS (TEMPO__HIST_SUB + (64 - 5) * TEMPO__HIST_SUB)

typedef struct tempo__hist {
    uint32_t bucket[TEMPO__HIST_BUCKETS];
    uint64_t count;
    uint64_t max;
} tempo__hist;

void tempo__hist_clear(tempo__hist *h);
void tempo__hist_add(tempo__hist *h, uint64_t v);
/* The p-th percentile (0 < p <= 100), nearest rank, as the middle of its
 * bucket capped at the exact maximum. 0 when empty. */
uint64_t tempo__hist_percentile(const tempo__hist *h, double p);

/* ---- Statistics state ------------------------------------------------------ */

typedef struct tempo__loop_stats {
    tempo_loop_stats pub;    /* what tempo_loop_get_stats() returns */
    tempo_loop_counts win;   /* the current window (raw counts only) */
    tempo_loop_counts done;  /* every completed window, summed */
    tempo__hist win_hist, all_hist;
    uint64_t first_ns;       /* the first frame's start */
    uint64_t win_start_ns;
    uint64_t last_render_ns; /* 0: no render yet */
    uint64_t sleep_since_render_ns; /* the frame adds each wait as it ends */
} tempo__loop_stats;

void tempo__stats_start(tempo__loop_stats *s, uint64_t now_ns);
void tempo__stats_lateness(tempo__loop_stats *s, uint64_t late_ns);
/* A render starts at now_ns: pushes the history ring entry. */
void tempo__stats_render(tempo__loop_stats *s, uint64_t now_ns);
/* The frame [t0, t_end] is over: it slept wait_ns (paused_wait: while
 * paused) and spent game_ns in callbacks. Rolls the window when a second is
 * full. */
void tempo__stats_frame(tempo__loop_stats *s, tempo_loop_wake wake, uint64_t t0, uint64_t t_end,
                        uint64_t wait_ns, uint64_t game_ns, bool paused_wait);
/* Fills s->pub.total for the span up to now_ns. */
void tempo__stats_refresh(tempo__loop_stats *s, uint64_t now_ns);


/* ---- The loop -------------------------------------------------------------- */

enum {
    PAUSE_MINIMIZED = 1u << 0,
    PAUSE_HIDDEN = 1u << 1,
    PAUSE_FOCUS = 1u << 2,
    PAUSE_USER = 1u << 3,
    PAUSE_WITHHELD = 1u << 4, /* presents withheld from a window the window system does
                                 not say is shown (loop_present.c), and the game pauses
                                 when hidden */
};

/* Told of the loop's pauses: idle_paused is the idle pause (desc.on_pause's
 * view), game_paused tempo_loop_set_game_paused; quitting once the loop
 * has quit (the game is about to tear down: let go of anything a teardown
 * on another thread may wait for). [loop thread] */
typedef void (*tempo__source_pause_fn)(void *self, bool idle_paused, bool game_paused, bool quitting);

/* For the framework's own sources (the audio follows the loop's pauses):
 * calls fn(desc.self, ...) now and on every change of either pause, until
 * the source leaves. Returns 0 or TEMPO_EINVAL (no source has `handle`). */
int tempo__loop_source_pause_hook(tempo_loop *L, tempo_handle *handle, tempo__source_pause_fn fn);

/* A source's part of its registry entry: its descriptor, its scheduling
 * state and its counters. */
typedef struct tempo__source {
    tempo_source_desc desc;
    char name[24];
    bool more;           /* its last dispatch said work remains */
    bool parked;         /* out of the wait until the next frame */
    uint64_t progress_frame; /* frame_seq of its last dispatch with must_progress */
    uint64_t oldest_age_ns;
    tempo_loop_source_counts win, last, total; /* window, last complete window, total */
    tempo__source_pause_fn pause_hook; /* NULL: none (tempo__loop_source_pause_hook) */
    uint32_t channel;    /* its record/replay channel (desc.deliver); 0: none */
} tempo__source;

/* The record/replay channel classes the registry gave out (loop_sources.c;
 * the ids: sources_internal.h): how many sources each class has had, and
 * the names of the classes given by name. Classes in all, declared and
 * named: 64 (a class is 16 bits of the id; this keeps the table small). */
#define TEMPO__CHANNEL_CLASSES 64
typedef struct tempo__channels {
    uint32_t next[TEMPO__CHANNEL_CLASSES]; /* sources added so far, per class */
    char name[TEMPO__CHANNEL_CLASSES][24]; /* the named classes' names, in the order given */
    int nnamed;
} tempo__channels;

/* One entry of the loop's one registry of handles, in the order added: a
 * watch (tempo_loop_watch: a callback when signalled) or a source
 * (tempo_loop_add_source, the framework's attaches, native input: a
 * dispatch with a deadline, parking, progress and statistics). The frame
 * waits on every entry's handle (parked sources excepted) and serves them
 * in this order. */
typedef struct tempo__watch {
    tempo_handle *handle;
    tempo_loop_watch_fn fn; /* a watch's callback; NULL for a source */
    void *user;
    uint64_t id; /* unique per add: a re-watch is a new entry */
    int source;  /* >= 0 for a source (then `src` is its state), -1 for a watch */
    tempo__source src;
} tempo__watch;

/* ---- Display pacing's state (loop_present.c) --------------------------------
 * Only loop_present.c writes it. Each of its entry points returns what the
 * loop must change in its own state (tempo__present_verdict), and the loop
 * applies it; the pacing's inputs to the schedule (`pace`) are handed to it
 * whole (tempo_loop.sched.pace). */

/* What a call into display pacing asks of the loop, which applies it. */
typedef struct tempo__present_verdict {
    bool realign;          /* the render slot schedule starts again from the last render */
    bool skip_past_slots;  /* ...and from the first slot after now (a TIMER verdict at a return) */
    bool phase;            /* the presents block on vblanks, one returned at phase_at_ns:
                              move the update ticks after it (tempo__sched_phase_move) */
    uint64_t phase_at_ns;
    unsigned pause_set;    /* PAUSE_WITHHELD set or cleared (never both) */
    unsigned pause_clear;
    bool dirty;            /* a render is owed (the presents came back) */
    uint64_t present_ns;   /* time blocked in presents */
    uint32_t probes;       /* measurements begun */
    uint32_t withheld_presents;
    uint64_t missed_vblanks;
} tempo__present_verdict;

typedef struct tempo__present {
    tempo__sched_pace pace;        /* the pacing in force, as the schedule sees it */
    tempo_loop_vsync vsync_mode;   /* what the game asked for (desc.vsync, set_vsync) */
    tempo_loop_pacing pacing_before_withheld; /* resumed when presents come back */
    tempo__probe probe;            /* PROBING: does the present block? */
    uint64_t last_return_ns;       /* when the last present returned (0: none) */
    int long_presents;             /* consecutive presents blocked past the withheld bound */
    uint64_t withheld_every_ns;    /* WITHHELD: the probes' interval (backoff on a shown window) */
    bool withheld_shown;           /* WITHHELD: the window system said shown at the last probe */
    /* What the window system says of L->window: plat_window_visibility,
     * set at create; a field so that tests can stand in for a window
     * system (a Wayland compositor that says nothing). */
    plat_visibility (*window_visibility)(struct SDL_Window *window);
    bool display_hz_given;         /* desc.display_hz: do not follow the window */
    tempo__pacer pacer;
    bool software_present;         /* desc.renderer is SDL's "software" renderer */
    uint64_t present_grid_ns;      /* TIMER: the presents' own grid (tempo__pacer_judge), or 0 */
    uint64_t reprobe_ns;           /* TIMER chosen by a measurement: the next one (0: none) */
    uint64_t reprobe_every_ns;     /* the periodic re-measurement's interval (backoff) */
    uint64_t timer_since_ns;       /* when the last measurement chose TIMER */
    int blocking_presents;         /* TIMER: consecutive presents that blocked > P/4 */
    bool reprobing;                /* TIMER: re-measuring by shifting the render phase */
    uint64_t probe_b_call, probe_b_return; /* its last "b" present */
    /* VSYNC: a frame rendered, its present waiting for an update due before
     * its vblank (loop_present.c, tempo__pacer_may_wait) */
    bool present_waits;
    uint64_t wait_start_ns;        /* its work's start, for the pacer's cost */
    uint64_t wait_render_end_ns;   /* when its render ended */
    uint64_t wait_vblank_ns;       /* the vblank its present blocks until */
    /* The last render whose vblank was given up (tempo__loop_pace_late_wake),
     * for traces: the wake the pacer had asked for, and the frame's wake. */
    uint64_t gave_up_planned_ns, gave_up_woke_ns;
    tempo__present_verdict told;   /* the verdict of the call under way */
} tempo__present;


/* The loop's one registry of watches and sources (loop_sources.c's state:
 * only that file writes it). */
typedef struct tempo__registry {
    tempo__watch watches[TEMPO_LOOP_MAX_WATCHES];
    int nwatch;
    uint64_t next_watch_id;
    int nsource;             /* entries that are sources */
    uint64_t frame_seq;      /* frames begun: parking lasts until it moves */
    uint64_t frame_seq_ns;   /* when it last moved */
    uint64_t dispatching;    /* entry id of the source inside dispatch, or 0 */
    tempo__channels channels; /* the sources' record/replay channel ids */
} tempo__registry;

/* What one frame's wait saw (loop_wait.c fills it for loop.c's frame). */
struct tempo__frame_wait {
    tempo__watch snap[TEMPO_LOOP_MAX_WATCHES]; /* the watches when the frame began */
    bool fired[TEMPO_LOOP_MAX_WATCHES];
    int nsnap;
    tempo_loop_wake wake;
    bool messages; /* the wait reported window messages: pump them */
    bool slept;
};

/* Told of the loop's idle pause: at once when the loop is paused as the
 * input joins it, on every change after, and of its end when the input
 * leaves a paused loop. [loop thread] */
typedef void (*tempo__input_pause_fn)(tempo_input *in, bool idle_paused);

/* How the loop tells the layer above it (record/replay, replay.c) what it
 * cannot see from there: the update about to run and the one that ran, a
 * change of the input attached, the loop's end. The upper layer installs
 * them (tempo__loop_set_hooks); the loop calls them and never that layer by
 * name. NULL members: nothing to tell. [loop thread] */
typedef struct tempo__loop_hooks {
    void *user; /* the installer's state, passed to each hook */
    /* Right before update(): returns the dt_ns the update gets. */
    uint64_t (*before_update)(void *user, tempo_loop *L, uint64_t dt_ns);
    /* Right after update(). */
    void (*after_update)(void *user, tempo_loop *L);
    /* `in` became the loop's input (attached: L->input is `in`), or is
     * about to stop being it (L->input is still `in`). */
    void (*input_changed)(void *user, tempo_loop *L, tempo_input *in, bool attached);
    /* tempo_loop_destroy, after the sources and the input left: the last
     * call; the installer frees `user`. */
    void (*loop_destroyed)(void *user, tempo_loop *L);
    bool replaying; /* what the sources are told (tempo_source_call.replaying) */
} tempo__loop_hooks;

/* Installs `hooks` (copied; NULL: none) in place of the ones before. */
void tempo__loop_set_hooks(tempo_loop *L, const tempo__loop_hooks *hooks);

struct tempo_loop {
    /* The schedule: its settings (defaults applied) and state, and the
     * pacing's inputs to it; loop_schedule.h decides on it in place. */
    tempo__sched sched;

    /* settings */
    bool pause_on_focus;
    bool run_hidden;   /* desc.run_while_hidden: no pause for minimized or hidden */
    tempo_loop_update_fn update;
    tempo_loop_render_fn render;
    tempo_loop_event_fn event;
    void *user;
    SDL_Window *window;
    /* The clock and the wait, chosen once at create: tempo_now_ns() and the
     * real wait, or desc.clock and its adapter (loop.c, wait_clock). */
    tempo_loop_clock clock; /* .now always set */
    int (*wait)(struct tempo_loop *L, struct tempo__frame_wait *fw, uint64_t now, uint64_t deadline);
    tempo_input *input; /* not owned; NULL: events go to the callback only */
    /* Its attacher's (input_source.c, tempo__loop_take_input): told of each
     * change of the idle pause, and of the input leaving the loop. */
    tempo__input_pause_fn input_paused;
    void (*input_detached)(tempo_input *in);
    tempo_handle *input_watch; /* input's native handle while the loop has it as a source */
    uint64_t wake_ns;          /* when this frame's wait returned (stamps native input) */
    uint64_t prev_end_ns;      /* when the previous frame ended (0: none yet) */
    uint64_t absent_ns;        /* this frame: time the loop did not run at all (between
                                  frames, or overslept past its wait's deadline) */

    /* own handles: index 0 and 1 of every wait set */
    tempo_handle *wake;  /* auto-reset; set by quit/request_render */
    tempo_handle *timer; /* one-shot, armed at the next absolute deadline */
    uint64_t timer_due;  /* its armed deadline; 0 when disarmed or fired */
    atomic_bool quit;              /* [any thread] */
    atomic_bool render_requested;  /* [any thread] */

    /* the frame */
    bool started;
    bool skip_render;        /* the running update called tempo_loop_skip_render() */
    uint64_t unchanged_updates; /* updates since the last render check that did */
    unsigned pause_mask;
    bool was_paused;
    bool in_frame;
    SDL_threadID thread;     /* the loop thread: the one that created the loop */
    uint64_t frame_game_ns;  /* callback time in the current frame */

    /* display pacing (see loop.h, desc.renderer) */
    SDL_Renderer *renderer;        /* not owned */
    tempo_loop_present_fn present;
    bool owns_present;             /* renderer or present: the loop presents */
    tempo__present pres;           /* loop_present.c's */
    uint64_t frame_present_ns;     /* blocked in the present this frame */

    /* pause notifications and the game's own pause */
    tempo_loop_input_fn input_event;
    tempo_loop_pause_fn on_pause;
    tempo_loop_stop_fn on_stop; /* desc.on_stop: tempo_loop_run() ended */
    bool notified_paused;          /* what on_pause / the input were last told */
    bool told_quit;                /* the sources' pause hooks heard of the quit */
    bool game_resumed;             /* restart the update schedule at the next frame */
    float frozen_alpha;            /* alpha while game-paused */

    tempo__registry reg;     /* the watches and sources (loop_sources.c's) */

    /* Sources. A "frame" for them is an iteration that ran an update or a
     * render, or, while paused with parked work, one update step. */
    bool frame_ran;          /* this iteration ran an update or a render */
    bool src_paused;         /* the pause state the sources last saw */

    tempo__loop_stats st;

    /* The layer above's hooks (record/replay); all NULL until the game
     * uses either. */
    tempo__loop_hooks hooks;
};

/* ---- Shared by the loop's files (loop.c, loop_present.c) ---- */

/* loop.c: the loop of `desc` (NULL: the defaults) with nothing attached
 * yet, or NULL with the detail set (loop_create.c attaches desc.input). */
tempo_loop *tempo__loop_new(const tempo_loop_desc *desc);
/* loop.c: frees a loop that has nothing attached (any more). */
void tempo__loop_free(tempo_loop *L);

/* The period of `hz` in ns, rounded. */
static inline uint64_t step_of(uint32_t hz)
{
    return (TEMPO_NS_PER_S + hz / 2) / hz;
}

/* The loop's clock: tempo_now_ns(), or desc.clock's (L->clock.now is set
 * either way, at create). */
static inline uint64_t loop_now(const tempo_loop *L)
{
    return L->clock.now(L->clock.user);
}

/* loop_wait.c: the frame's wait, the same contract both ways: sleeps until
 * `deadline` (TEMPO_INFINITE: no timeout; <= now: do not sleep) or until
 * something arrives, and fills `fw` (the wake and every fired watch). */
int tempo__loop_wait_real(tempo_loop *L, struct tempo__frame_wait *fw, uint64_t now, uint64_t deadline);
int tempo__loop_wait_clock(tempo_loop *L, struct tempo__frame_wait *fw, uint64_t now, uint64_t deadline);
/* The wait refused a handle: sets the error naming the watch or source. */
void tempo__loop_name_dead_watch(const struct tempo__frame_wait *fw);

/* loop_present.c: display pacing. Each call returns its verdict, which
 * the caller applies at once (loop.c, apply_present). */
/* Sets the pacing up from `desc` at create. */
tempo__present_verdict tempo__loop_present_start(tempo_loop *L, const tempo_loop_desc *desc);
/* The game asked for vsync on or off (tempo_loop_set_vsync): measure again. */
tempo__present_verdict tempo__loop_set_vsync_mode(tempo_loop *L, tempo_loop_vsync mode);
/* Forgets the vblank phase (resume). */
tempo__present_verdict tempo__loop_pace_reset(tempo_loop *L);
/* The window was shown, restored or exposed: withheld presents are probed
 * at once; `reprobe`: a timer chosen by a measurement is measured again. */
tempo__present_verdict tempo__loop_window_shown(tempo_loop *L, bool reprobe);
/* The window moved to another display: its rate, and a new measurement. */
tempo__present_verdict tempo__loop_display_changed(tempo_loop *L);
/* Presents the frame rendered at `t` and learns from the present's return;
 * with vsync the present may wait for the update due at `due` (UINT64_MAX:
 * none may run first) before its vblank (L->pres.present_waits). */
tempo__present_verdict tempo__loop_present(tempo_loop *L, uint64_t t, uint64_t due);
/* A render is about to run at `t` for the vblank at `vblank_ns`
 * (tempo__sched_render_at): if its wake came too late for that
 * vblank, the pacer gives it up and the wake moves to the next one
 * (tempo__pacer_give_up); the render then waits for its slot again. */
tempo__present_verdict tempo__loop_pace_late_wake(tempo_loop *L, uint64_t vblank_ns, uint64_t due, uint64_t t);
/* The frame's updates ran: makes a waiting present now, unless the next
 * update (`due`, as above) still falls due before its vblank and may run
 * first; `now_too`: now whatever is due (the loop pauses or quits). */
tempo__present_verdict tempo__loop_present_waiting(tempo_loop *L, bool now_too, uint64_t due);

/* loop_sources.c: the registry of watches and sources. */
/* The entry watching `h`, or -1. */
int tempo__loop_find_watch(const tempo_loop *L, const tempo_handle *h);
/* The source added with `h`, or NULL. */
tempo__source *tempo__loop_find_source(tempo_loop *L, const tempo_handle *h);
/* Detaches every source (their detach runs) and forgets the watches. */
void tempo__loop_detach_all(tempo_loop *L);
/* A new frame for the sources: parked ones may run again. */
void tempo__loop_new_source_frame(tempo_loop *L, uint64_t now);
/* Some source is parked with work left / has work it may do now. */
bool tempo__loop_any_parked(const tempo_loop *L);
bool tempo__loop_any_ready(const tempo_loop *L);
/* What a source's dispatch asks of the frame: its error (the source was
 * removed; 0: none) and the time it took, which is the game's. */
typedef struct tempo__dispatch_verdict {
    int err;
    uint64_t game_ns;
} tempo__dispatch_verdict;
/* Dispatches entry `i` (a source) once, starting at `now` (the loop's
 * clock), with the frame's `deadline` (the next due update or render). */
tempo__dispatch_verdict tempo__loop_dispatch_source(tempo_loop *L, int i, uint64_t now, uint64_t deadline);
/* The first frame began at `now`. */
void tempo__loop_sources_start(tempo_loop *L, uint64_t now);
/* A statistics window is complete: each source's counts become its last. */
void tempo__loop_sources_roll_window(tempo_loop *L);
/* Calls every source's pause hook with the pauses given. */
void tempo__loop_tell_sources(tempo_loop *L, bool idle_paused, bool game_paused, bool quitting);

/* loop_events.c: SDL's events and the attached input. */
/* Makes `in` the loop's input (it has none; the caller checked): SDL's
 * input events reach it, desc.input_event becomes its listener, `paused`
 * hears of the idle pause from now on, `detached` of its leaving (any
 * way: tempo__loop_drop_input), and the hooks of the change. */
void tempo__loop_take_input(tempo_loop *L, tempo_input *in, tempo__input_pause_fn paused,
                            void (*detached)(tempo_input *in));
/* The loop lets go of its input (it has one): its native handle leaves the
 * wait set, its listener goes, a paused loop's pause ends for it, the
 * hooks are told, then its `detached`. */
void tempo__loop_drop_input(tempo_loop *L);
/* What a window event asks of the loop, which applies it. */
typedef struct tempo__window_verdict {
    unsigned pause_set, pause_clear; /* PAUSE_* bits */
    bool dirty;           /* a render is owed */
    bool shown;           /* the window is shown: tempo__loop_window_shown */
    bool reprobe;         /* ... and the presents may have changed */
    bool display_changed; /* another display: tempo__loop_display_changed */
} tempo__window_verdict;
tempo__window_verdict tempo__loop_window_event(const tempo_loop *L, const SDL_WindowEvent *we);
/* Hands one of SDL's events to the input and the game, input stamped
 * `wake_ns`; SDL_QUIT quits the loop. */
void tempo__loop_deliver_event(tempo_loop *L, const SDL_Event *e, uint64_t wake_ns);
/* Keeps the input's native handle in the registry as a source. */
void tempo__loop_sync_native_input(tempo_loop *L);

#endif /* TEMPO_LOOP_INTERNAL_H */
