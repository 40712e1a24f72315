/* The passive fixed-timestep loop (tempo/loop.h).
 *
 * One frame = one wait + one dispatch:
 *   1. compute the next deadline from the schedule and the policy (the next
 *      update tick, or the next render slot if a render is wanted);
 *   2. sleep in tempo_wait() on [wake event, timer, watched handles...] with
 *      TEMPO_WAIT_MESSAGES; the timer is a one-shot armed at that absolute
 *      deadline, so the wake-up is exact to the backend's precision and a
 *      relative timeout never adds the time spent computing it;
 *   3. dispatch SDL events, then watched handles (each signalled one once)
 *      and sources (each with work once, with the next due update or render
 *      as its deadline), then the due updates, then at most one render.
 *
 * The update schedule is absolute: tick k of the current epoch is due at
 * epoch + floor(k * 1e9 / hz) (tempo__sched_at), so rounding never
 * accumulates. Render slots with a cap use the same epoch, so when the
 * render rate is a multiple of the update rate both fall due at the same
 * instant and cost one wake-up, not two. The epoch moves only when the
 * schedule must restart: the first frame, a stall, a resume, a change of
 * policy to or from VARIABLE, or a change of rate (which keeps the phase of
 * the last update).
 *
 * What is due and when is decided by pure functions (loop_schedule.c, over
 * a snapshot of the schedule taken by sched_of); this file applies the
 * decisions, waits and dispatches. The wait is one path: a clock and a wait
 * chosen at create (the platform's, or desc.clock's adapter wait_clock). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handle_pool.h"
#include "loop_internal.h"
#include "loop_schedule.h"
#include "replay_internal.h"
#include "sources_internal.h"
#include "tempo_internal.h"

#define NS_PER_S UINT64_C(1000000000)
#define DEFAULT_HZ 60u
#define DEFAULT_FRAMESKIP 5u
#define DEFAULT_MAX_GAP_NS (250 * TEMPO_NS_PER_MS)
/* Most SDL events one frame dispatches. An event callback that pushes an
 * event for every event it gets would otherwise keep the frame forever; the
 * rest stay queued and make the next wait return at once. */
#define MAX_EVENTS_PER_FRAME 1024

static const char *const policy_names[TEMPO_LOOP_POLICY_COUNT] = {
    "interpolated", "lockstep", "constant-speed-max-fps", "variable"};
static const char *const wake_names[TEMPO_LOOP_WAKE_COUNT] = {"due",   "timer",  "input",
                                                              "watch", "signal", "source"};
static const char *const pacing_names[TEMPO_LOOP_PACING_COUNT] = {"timer", "vsync", "probing",
                                                                  "presents-withheld"};
/* A present that blocks longer than this many nominal refresh periods (and
 * at least WITHHELD_MIN_NS) was withheld, not paced by a vblank; two in a
 * row are the withheld state. */
#define WITHHELD_PERIODS 4
#define WITHHELD_MIN_NS (50 * TEMPO_NS_PER_MS)
#define WITHHELD_RUN 2
/* While presents are withheld, one probe render and present this often. */
#define WITHHELD_PROBE_NS (500 * TEMPO_NS_PER_MS)
/* Probe rounds that may end undecided before the loop picks a pacing. */
#define PROBE_MAX_ROUNDS 2
/* TIMER chosen by a measurement is measured again (presents that start
 * blocking on vblanks: vsync turned on in the driver, the window moved to
 * a display that has it): at the next present after a window event that
 * can change what the presents do (shown, restored, another display);
 * after REPROBE_RUN presents in a row that blocked more than a quarter
 * period (not sooner than REPROBE_FIRST_NS after the verdict); and
 * periodically, REPROBE_FIRST_NS after the verdict, the interval doubling
 * with each verdict up to REPROBE_MAX_NS (reset by a window event). */
#define REPROBE_FIRST_NS (2 * NS_PER_S)
#define REPROBE_MAX_NS (32 * NS_PER_S)
#define REPROBE_RUN 3

const char *tempo_loop_policy_name(tempo_loop_policy policy)
{
    return (unsigned)policy < TEMPO_LOOP_POLICY_COUNT ? policy_names[policy] : "?";
}

const char *tempo_loop_pacing_name(tempo_loop_pacing pacing)
{
    return (unsigned)pacing < TEMPO_LOOP_PACING_COUNT ? pacing_names[pacing] : "?";
}

const char *tempo_loop_wake_name(tempo_loop_wake wake)
{
    return (unsigned)wake < TEMPO_LOOP_WAKE_COUNT ? wake_names[wake] : "?";
}

static uint64_t step_of(uint32_t hz)
{
    return (NS_PER_S + hz / 2) / hz;
}

/* The loop's clock: tempo_now_ns(), or desc.clock's (L->clock.now is set
 * either way, at create). */
static uint64_t loop_now(const tempo_loop *L)
{
    return L->clock.now(L->clock.user);
}

static uint64_t real_now(void *user)
{
    (void)user;
    return tempo_now_ns();
}

/* ---- Display pacing -------------------------------------------------------------- */

/* The refresh rate of the window's display (the desktop's without a
 * window), or 60 when SDL does not know (Xvfb reports 0 Hz). */
static uint32_t detect_display_hz(SDL_Window *window)
{
    SDL_DisplayMode mode;
    int rate = 0;
    if (SDL_WasInit(SDL_INIT_VIDEO)) {
        int index = window != NULL ? SDL_GetWindowDisplayIndex(window) : 0;
        if (index >= 0 && SDL_GetCurrentDisplayMode(index, &mode) == 0)
            rate = mode.refresh_rate;
    }
    return tempo__pacer_display_hz(rate);
}

/* The rate of the render slot schedule: the cap, else (without vsync) the
 * display's refresh rate; 0 when the vblanks alone pace (vsync, no cap). */
static tempo__sched sched_of(const tempo_loop *L);

static uint32_t pace_hz(const tempo_loop *L)
{
    tempo__sched s = sched_of(L);
    return tempo__sched_pace_hz(&s);
}

/* Forget the vblank phase (resume, vsync toggle, another display): the
 * next presents teach it again. */
static void pace_reset(tempo_loop *L)
{
    tempo__pacer_reset(&L->pacer);
    L->pace_wake_ns = 0;
    L->last_return_ns = 0;
}

static void realign_render_slot(tempo_loop *L);

/* Switches the pacing in force. PROBING starts a new measurement with a
 * render at once (its present's return anchors the first probe). */
static void set_pacing(tempo_loop *L, tempo_loop_pacing pacing)
{
    L->pacing = pacing;
    L->vsync = pacing == TEMPO_LOOP_PACING_VSYNC;
    L->long_presents = 0;
    L->present_grid_ns = 0;
    L->reprobe_ns = 0;
    L->blocking_presents = 0;
    L->reprobing = false;
    L->slot_shift_ns = 0;
    pace_reset(L);
    if (pacing == TEMPO_LOOP_PACING_PROBING) {
        tempo__probe_start(&L->probe, L->pacer.nominal_period_ns);
        L->st.win.probes++;
    }
    realign_render_slot(L);
}

/* Switches the pacing on what the presents were measured to do (a probe's
 * verdict, presents that stopped blocking or block on a grid of their own,
 * a re-measurement). The run of presents that
 * blocked past the withheld bound goes on: a verdict reached on such a
 * present (a window minimized while the loop probed) must not make the
 * compositor's withholding wait for two more. */
static void set_measured_pacing(tempo_loop *L, tempo_loop_pacing pacing)
{
    int run = L->long_presents;
    set_pacing(L, pacing);
    L->long_presents = run;
}

/* A measurement at `now` chose the timer (`grid_ns`: the presents block on
 * a grid of their own of that period, else 0): measure again later. */
static void timer_verdict(tempo_loop *L, uint64_t now, uint64_t grid_ns)
{
    set_measured_pacing(L, TEMPO_LOOP_PACING_TIMER);
    L->present_grid_ns = grid_ns;
    L->timer_since_ns = now;
    if (L->reprobe_every_ns == 0)
        L->reprobe_every_ns = REPROBE_FIRST_NS;
    L->reprobe_ns = now + L->reprobe_every_ns;
    L->reprobe_every_ns = L->reprobe_every_ns * 2 < REPROBE_MAX_NS ? L->reprobe_every_ns * 2 : REPROBE_MAX_NS;
}

/* Something may have changed what the presents do: measure again at the
 * next present (when a measurement chose the timer), and restart the
 * periodic re-measurement's backoff. */
static void reprobe_soon(tempo_loop *L)
{
    L->reprobe_every_ns = REPROBE_FIRST_NS;
    if (L->pacing == TEMPO_LOOP_PACING_TIMER && L->reprobe_ns != 0)
        L->reprobe_ns = 1;
}

/* The pacing to start from: measure the presents the loop makes, unless
 * vsync is off or the game presents itself. */
static tempo_loop_pacing initial_pacing(const tempo_loop *L)
{
    return L->owns_present && L->vsync_mode != TEMPO_LOOP_VSYNC_OFF ? TEMPO_LOOP_PACING_PROBING
                                                                      : TEMPO_LOOP_PACING_TIMER;
}

/* [loop thread] desc.input's listener: every input event on arrival. */
static bool input_listener(const tempo_input_event *ev, void *user)
{
    tempo_loop *L = user;
    uint64_t a = loop_now(L);
    bool consumed = L->input_event(L, ev, L->user);
    L->frame_game_ns += loop_now(L) - a;
    return consumed;
}

typedef struct tempo__frame_wait frame_wait;
static int wait_real(tempo_loop *L, frame_wait *fw, uint64_t now, uint64_t deadline);
static int wait_clock(tempo_loop *L, frame_wait *fw, uint64_t now, uint64_t deadline);

/* ---- Creation ----------------------------------------------------------------- */

tempo_loop *tempo_loop_create(const tempo_loop_desc *desc)
{
    static const tempo_loop_desc defaults;
    if (desc == NULL)
        desc = &defaults;
    if ((unsigned)desc->policy >= TEMPO_LOOP_POLICY_COUNT) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loop_create: policy %d out of range", (int)desc->policy);
        return NULL;
    }
    if (desc->update_hz > TEMPO__LOOP_MAX_HZ) {
        tempo__set_error(TEMPO_ERANGE, "tempo_loop_create: update_hz %u above %u", desc->update_hz,
                         TEMPO__LOOP_MAX_HZ);
        return NULL;
    }
    if (desc->max_render_hz > TEMPO__LOOP_MAX_HZ) {
        tempo__set_error(TEMPO_ERANGE, "tempo_loop_create: max_render_hz %u above %u", desc->max_render_hz,
                         TEMPO__LOOP_MAX_HZ);
        return NULL;
    }
    tempo_loop *L = calloc(1, sizeof *L);
    if (L == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_loop_create: out of memory");
        return NULL;
    }
    L->policy = desc->policy;
    L->update_hz = desc->update_hz ? desc->update_hz : DEFAULT_HZ;
    L->render_hz = desc->max_render_hz;
    L->max_frameskip = desc->max_frameskip ? desc->max_frameskip : DEFAULT_FRAMESKIP;
    L->max_gap_ns = desc->max_gap_ns ? desc->max_gap_ns : DEFAULT_MAX_GAP_NS;
    L->step_ns = step_of(L->update_hz);
    L->on_demand = desc->render_on_demand;
    L->pause_on_focus = desc->pause_on_focus_loss;
    L->run_hidden = desc->run_while_hidden;
    L->update = desc->update;
    L->render = desc->render;
    L->event = desc->event;
    L->user = desc->user;
    L->window = desc->window;
    /* The clock and the wait, chosen once: the real ones, or desc.clock's
     * adapter (wait_clock). Nothing else in the loop tells them apart. */
    const bool fake = desc->clock.now != NULL;
    L->clock = fake ? desc->clock : (tempo_clock){real_now, NULL, NULL};
    L->wait = fake ? wait_clock : wait_real;
    L->thread = SDL_ThreadID();
    L->renderer = desc->renderer;
    L->present = desc->present;
    L->owns_present = desc->renderer != NULL || desc->present != NULL;
    L->input_event = desc->input_event;
    L->on_pause = desc->on_pause;
    L->on_stop = desc->on_stop;
    L->display_hz_given = desc->display_hz != 0;
    L->display_hz = L->display_hz_given ? tempo__pacer_display_hz((int)desc->display_hz)
                                        : detect_display_hz(L->window);
    tempo__pacer_init(&L->pacer, step_of(L->display_hz), 0);
    /* Not SDL_RENDERER_PRESENTVSYNC: the software renderer reports it and
     * does not block. The presents themselves are measured; SDL's software
     * renderer has no vblank of its own to wait for (tempo__pacer_judge). */
    SDL_RendererInfo rinfo;
    L->software_present = desc->renderer != NULL && desc->present == NULL &&
                          SDL_GetRendererInfo(desc->renderer, &rinfo) == 0 && rinfo.name != NULL &&
                          strcmp(rinfo.name, "software") == 0;
    L->vsync_mode = (unsigned)desc->vsync <= TEMPO_LOOP_VSYNC_OFF ? desc->vsync : TEMPO_LOOP_VSYNC_AUTO;
    set_pacing(L, initial_pacing(L));
    atomic_init(&L->quit, false);
    atomic_init(&L->render_requested, false);

    L->wake = tempo_event_create(false, false);
    L->timer = tempo_timer_create(false);
    if (L->wake == NULL || L->timer == NULL) {
        tempo_event_destroy(L->wake);
        tempo_timer_destroy(L->timer);
        free(L);
        return NULL; /* detail set by the handle's creation */
    }
    if (desc->input != NULL && tempo_input_attach(desc->input, L) < 0) {
        tempo_event_destroy(L->wake);
        tempo_timer_destroy(L->timer);
        free(L);
        tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EBUSY,
                            "tempo_loop_create: desc.input is attached to another loop");
        return NULL;
    }
    if (L->window != NULL && !L->run_hidden) {
        Uint32 flags = SDL_GetWindowFlags(L->window);
        if (flags & SDL_WINDOW_MINIMIZED)
            L->pause_mask |= PAUSE_MINIMIZED;
        if (flags & SDL_WINDOW_HIDDEN)
            L->pause_mask |= PAUSE_HIDDEN;
    }
    return L;
}

static void detach_all_sources(tempo_loop *L);

void tempo_loop_destroy(tempo_loop *L)
{
    if (L == NULL)
        return;
    if (L->in_frame) {
        /* The frame reads the loop after the callback returns: freeing it
         * here was a use-after-free. Refuse loudly instead. */
        (void)tempo__set_error(TEMPO_EBUSY, "tempo_loop_destroy: called from inside tempo_loop_frame() "
                                            "(a loop callback); quit, and destroy after the loop returns");
        return;
    }
    detach_all_sources(L);
    if (L->input != NULL)
        tempo_input_detach(L->input); /* it may outlive the loop: it lets go of it */
    if (L->replay != NULL)
        tempo__replay_loop_destroy(L); /* after the sources: their detach may still deliver */
    tempo_event_destroy(L->wake);
    tempo_timer_destroy(L->timer);
    free(L);
}

/* ---- Settings ------------------------------------------------------------------- */

int tempo_loop_quit(tempo_loop *L)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    atomic_store(&L->quit, true);
    tempo_event_set(L->wake);
    return 0;
}

int tempo_loop_request_render(tempo_loop *L)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    /* Only the first request since the last frame needs to wake the loop,
     * and only from another thread: the loop thread is awake already and
     * reads the flag at its next frame (setting the event would make that
     * frame's wait return at once, counted as a cross-thread signal). */
    if (!atomic_exchange(&L->render_requested, true) && SDL_ThreadID() != L->thread)
        tempo_event_set(L->wake);
    return 0;
}

int tempo_loop_pause(tempo_loop *L, bool paused)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    if (paused)
        L->pause_mask |= PAUSE_USER;
    else
        L->pause_mask &= ~(unsigned)PAUSE_USER;
    return 0;
}

bool tempo_loop_is_paused(const tempo_loop *L)
{
    return L != NULL && L->pause_mask != 0;
}

static float alpha_at(const tempo_loop *L, uint64_t t);

static void tell_sources_pause(tempo_loop *L);

int tempo_loop_set_game_paused(tempo_loop *L, bool paused)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    if (paused == L->game_paused)
        return 0;
    L->game_paused = paused;
    tell_sources_pause(L);
    if (paused)
        L->frozen_alpha = L->started ? alpha_at(L, loop_now(L)) : 0.0f;
    else
        L->game_resumed = true; /* no catch-up for the time in the menu */
    L->dirty = true;
    realign_render_slot(L);
    return 0;
}

bool tempo_loop_is_game_paused(const tempo_loop *L)
{
    return L != NULL && L->game_paused;
}

int tempo_loop_set_vsync(tempo_loop *L, bool on)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    if (!L->owns_present)
        return tempo__set_error(TEMPO_ENOTSUP, "tempo_loop_set_vsync: the loop does not present "
                                               "(no desc.renderer or desc.present)");
    if (L->present == NULL && SDL_RenderSetVSync(L->renderer, on ? 1 : 0) != 0)
        return tempo__set_error(TEMPO_EPLATFORM, "SDL_RenderSetVSync(%d): %s", on, SDL_GetError());
    L->vsync_mode = on ? TEMPO_LOOP_VSYNC_ON : TEMPO_LOOP_VSYNC_OFF;
    L->pause_mask &= ~(unsigned)PAUSE_WITHHELD;
    set_pacing(L, initial_pacing(L));
    return 0;
}

bool tempo_loop_get_vsync(const tempo_loop *L)
{
    return L != NULL && L->owns_present && L->vsync_mode != TEMPO_LOOP_VSYNC_OFF;
}

tempo_loop_pacing tempo_loop_get_pacing(const tempo_loop *L)
{
    return L != NULL ? L->pacing : TEMPO_LOOP_PACING_TIMER;
}

uint64_t tempo_loop_get_refresh_ns(const tempo_loop *L)
{
    if (L == NULL)
        return 0;
    /* With vsync, the period learnt from the presents: the fit's once it
     * locked, or the interval the pacer restarted from when the display
     * delivers fewer (or more) frames than its mode says. */
    if (L->pacing == TEMPO_LOOP_PACING_VSYNC &&
        (L->pacer.locked || L->pacer.guess_ns != (double)L->pacer.nominal_period_ns))
        return tempo__pacer_period_ns(&L->pacer);
    return step_of(L->display_hz);
}

/* First render slot after the last render on the current epoch. */
static void realign_render_slot(tempo_loop *L)
{
    tempo__sched s = sched_of(L);
    L->slot = tempo__sched_realigned_slot(&s);
}

/* Restarts the schedule with an update due at `now` (first frame, stall,
 * resume). */
static void rebase(tempo_loop *L, uint64_t now)
{
    L->epoch_ns = now;
    L->tick = 0;
    L->slot = 0;
    /* VARIABLE measures dt from here: its first frame gets one step. */
    L->last_update_ns = now >= L->step_ns ? now - L->step_ns : 0;
}

/* Re-anchors the schedule on the last update so the next one is due one
 * (new) step after it: a change of rate or policy without a burst or gap. */
static void rephase(tempo_loop *L)
{
    if (!L->started)
        return;
    L->epoch_ns = L->last_update_ns;
    L->tick = 1;
    realign_render_slot(L);
}

int tempo_loop_set_policy(tempo_loop *L, tempo_loop_policy policy)
{
    if (L == NULL || (unsigned)policy >= TEMPO_LOOP_POLICY_COUNT)
        return TEMPO_EINVAL;
    bool variable_change = (policy == TEMPO_LOOP_VARIABLE) != (L->policy == TEMPO_LOOP_VARIABLE);
    L->policy = policy;
    if (variable_change)
        rephase(L); /* VARIABLE's last update time becomes the fixed phase, and back */
    L->dirty = true;
    return 0;
}

int tempo_loop_set_update_hz(tempo_loop *L, uint32_t update_hz)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    if (update_hz == 0 || update_hz > TEMPO__LOOP_MAX_HZ)
        return TEMPO_ERANGE;
    L->update_hz = update_hz;
    L->step_ns = step_of(update_hz);
    rephase(L);
    return 0;
}

int tempo_loop_set_max_render_hz(tempo_loop *L, uint32_t max_render_hz)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    if (max_render_hz > TEMPO__LOOP_MAX_HZ)
        return TEMPO_ERANGE;
    L->render_hz = max_render_hz;
    realign_render_slot(L);
    return 0;
}

int tempo_loop_skip_render(tempo_loop *L)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    L->skip_render = true;
    return 0;
}

int tempo_loop_set_render_on_demand(tempo_loop *L, bool on)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    L->on_demand = on;
    L->dirty = true;
    return 0;
}

tempo_loop_policy tempo_loop_get_policy(const tempo_loop *L)
{
    return L ? L->policy : TEMPO_LOOP_INTERPOLATED;
}

uint32_t tempo_loop_get_update_hz(const tempo_loop *L)
{
    return L ? L->update_hz : 0;
}

uint32_t tempo_loop_get_max_render_hz(const tempo_loop *L)
{
    return L ? L->render_hz : 0;
}

uint64_t tempo_loop_get_step_ns(const tempo_loop *L)
{
    return L ? L->step_ns : 0;
}

/* ---- The registry: watches and sources ---------------------------------------------- */

static int find_watch(const tempo_loop *L, const tempo_handle *h)
{
    for (int i = 0; i < L->nwatch; i++)
        if (L->watches[i].handle == h)
            return i;
    return -1;
}

static int find_watch_by_id(const tempo_loop *L, uint64_t id)
{
    for (int i = 0; i < L->nwatch; i++)
        if (L->watches[i].id == id)
            return i;
    return -1;
}

/* The source added with `h`, or NULL. */
static tempo__source *find_source(tempo_loop *L, const tempo_handle *h)
{
    int i = h != NULL ? find_watch(L, h) : -1;
    return i >= 0 && L->watches[i].source >= 0 ? &L->watches[i].src : NULL;
}

/* A new entry at the end of the table, or NULL when it is full. */
static tempo__watch *add_entry(tempo_loop *L, tempo_handle *handle)
{
    if (L->nwatch == TEMPO_LOOP_MAX_WATCHES)
        return NULL;
    tempo__watch *w = &L->watches[L->nwatch++];
    memset(w, 0, sizeof *w);
    w->handle = handle;
    w->id = ++L->next_watch_id;
    w->source = -1;
    return w;
}

int tempo_loop_watch(tempo_loop *L, tempo_handle *handle, tempo_loop_watch_fn fn, void *user)
{
    if (L == NULL || fn == NULL || tempo__handle_kind(handle) == 0) /* NULL or destroyed */
        return TEMPO_EINVAL;
    if (find_watch(L, handle) >= 0)
        return TEMPO_EBUSY;
    tempo__watch *w = add_entry(L, handle);
    if (w == NULL)
        return TEMPO_ETOOMANY;
    w->fn = fn;
    w->user = user;
    return 0;
}

static void drop_watch(tempo_loop *L, int i)
{
    /* The frame dispatches from a snapshot and looks entries up by id before
     * each call, so compacting the live array here is safe mid-dispatch. */
    memmove(&L->watches[i], &L->watches[i + 1], sizeof L->watches[0] * (size_t)(L->nwatch - i - 1));
    L->nwatch--;
}

int tempo_loop_unwatch(tempo_loop *L, tempo_handle *handle)
{
    if (L == NULL || handle == NULL)
        return TEMPO_EINVAL;
    int i = find_watch(L, handle);
    if (i < 0 || L->watches[i].source >= 0)
        return TEMPO_EINVAL; /* a source leaves with tempo_loop_remove_source */
    drop_watch(L, i);
    return 0;
}

int tempo_loop_add_source(tempo_loop *L, const tempo_source_desc *desc)
{
    if (L == NULL || desc == NULL || desc->handle == NULL || desc->dispatch == NULL)
        return TEMPO_EINVAL;
    if (find_watch(L, desc->handle) >= 0)
        return TEMPO_EBUSY;
    if (L->nsource == TEMPO_LOOP_MAX_SOURCES)
        return TEMPO_ETOOMANY;
    tempo__watch *w = add_entry(L, desc->handle);
    if (w == NULL)
        return TEMPO_ETOOMANY;
    w->source = 0;
    L->nsource++;
    tempo__source *src = &w->src;
    src->desc = *desc;
    snprintf(src->name, sizeof src->name, "%s", desc->name ? desc->name : "source");
    /* A new source owes no progress in a frame it has not seen. */
    src->progress_frame = UINT64_MAX;
    /* What it delivers is recorded and replayed through its channel. */
    if (desc->deliver != NULL)
        src->channel = tempo__replay_source_added(L, src->name, desc->deliver, desc->self);
    return 0;
}

int tempo__loop_source_lookup(tempo_loop *L, tempo_handle *handle, tempo_source_deliver_fn *deliver, void **self,
                              uint32_t *channel)
{
    const tempo__source *src = find_source(L, handle);
    if (src == NULL || src->desc.deliver == NULL)
        return TEMPO_EINVAL;
    *deliver = src->desc.deliver;
    *self = src->desc.self;
    *channel = src->channel;
    return 0;
}

/* Removes the source entry i, then runs its detach. */
static void drop_source(tempo_loop *L, int i)
{
    tempo__source gone = L->watches[i].src;
    drop_watch(L, i);
    L->nsource--;
    tempo__replay_source_removed(L, gone.channel);
    if (gone.desc.detach != NULL)
        gone.desc.detach(gone.desc.self);
}

int tempo_loop_remove_source(tempo_loop *L, tempo_handle *handle)
{
    if (L == NULL || handle == NULL)
        return TEMPO_EINVAL;
    int i = find_watch(L, handle);
    if (i < 0 || L->watches[i].source < 0)
        return TEMPO_EINVAL;
    if (L->watches[i].id == L->dispatching)
        return TEMPO_EBUSY; /* its dispatch is still running: detach would free it */
    drop_source(L, i);
    return 0;
}

int tempo__leave_loop(tempo_loop *L, tempo_handle *handle, const char *what)
{
    if (L == NULL)
        return 0;
    int r = tempo_loop_remove_source(L, handle);
    if (r == TEMPO_EBUSY)
        return tempo__set_error(TEMPO_EBUSY, "%s called from the object's own loop callback: ignored "
                                             "(destroy it after the callback returns)", what);
    return 0;
}

/* Last added first. A detach may remove other sources (a hot-reload has
 * two): start again from the end each time. */
static void detach_all_sources(tempo_loop *L)
{
    while (L->nsource > 0) {
        int i = L->nwatch - 1;
        while (L->watches[i].source < 0)
            i--;
        drop_source(L, i);
    }
}

/* A new frame for the sources: an update or render ran, the loop paused or
 * resumed, or a paused frame (one step) passed with work parked. Parking
 * ends here, so no parking outlives a frame, a pause or a resume. */
static void new_source_frame(tempo_loop *L, uint64_t now)
{
    L->frame_seq++;
    L->frame_seq_ns = now;
    for (int i = 0; i < L->nwatch; i++)
        L->watches[i].src.parked = false; /* false for every watch too */
}

static bool any_parked(const tempo_loop *L)
{
    for (int i = 0; i < L->nwatch; i++)
        if (L->watches[i].src.parked)
            return true;
    return false;
}

/* A source that said work remains and is not parked must be called again
 * without waiting (its handle may be an auto-reset one already consumed). */
static bool any_ready(const tempo_loop *L)
{
    for (int i = 0; i < L->nwatch; i++)
        if (L->watches[i].src.more && !L->watches[i].src.parked)
            return true;
    return false;
}

static void add_source_counts(tempo_loop_source_counts *c, uint64_t busy, uint32_t items, bool overrun,
                              bool forced, uint64_t age)
{
    c->calls++;
    c->items += items;
    c->busy_ns += busy;
    c->overruns += overrun;
    c->forced += forced;
    if (age > c->max_age_ns)
        c->max_age_ns = age;
}

static uint64_t source_deadline(const tempo_loop *L, uint64_t now);

/* Dispatches the source of entry i once. Returns 0 or the dispatch's error
 * (the source is then removed). */
static int dispatch_source(tempo_loop *L, int i)
{
    tempo__source *src = &L->watches[i].src;
    uint64_t id = L->watches[i].id;
    uint64_t now = loop_now(L);
    tempo_source_call call = {
        .now_ns = now,
        .deadline_ns = source_deadline(L, now),
        .must_progress = src->progress_frame != L->frame_seq,
        .frame = L->frame_seq,
        .replaying = tempo__replay_active(L),
    };
    if (call.must_progress)
        src->progress_frame = L->frame_seq;
    L->dispatching = id;
    int r = src->desc.dispatch(src->desc.self, &call);
    L->dispatching = 0;
    uint64_t t = loop_now(L);
    L->frame_game_ns += t - now;
    /* The dispatch may have added or removed other entries (not itself):
     * find it again. */
    i = find_watch_by_id(L, id);
    src = &L->watches[i].src;
    bool overrun = t > call.deadline_ns;
    bool forced = now >= call.deadline_ns && call.items > 0;
    add_source_counts(&src->win, t - now, call.items, overrun, forced, call.oldest_age_ns);
    add_source_counts(&src->total, t - now, call.items, overrun, forced, call.oldest_age_ns);
    src->oldest_age_ns = call.oldest_age_ns;
    if (r < 0) {
        tempo__set_error(r, "loop: source \"%s\" failed (%s): removed", src->name, tempo_strerror(r));
        drop_source(L, i);
        return r;
    }
    src->more = r > 0;
    /* Park a source that has used its time (or could not use it): it waits
     * for the next frame instead of waking the loop again at once. One that
     * stopped early on its own budget is called again next iteration. */
    src->parked = src->more && (t >= call.deadline_ns || call.items == 0);
    return 0;
}

/* ---- Callbacks (timed) ---------------------------------------------------------- */

static void call_update(tempo_loop *L, uint64_t dt_ns)
{
    L->frame_ran = true;
    /* Recording or replaying: the tick's input, items and dt go in (or are
     * written) around the update. */
    if (L->replay != NULL)
        dt_ns = tempo__replay_before_update(L, dt_ns);
    if (L->update != NULL) {
        uint64_t a = loop_now(L);
        L->update(L, dt_ns, L->user);
        L->frame_game_ns += loop_now(L) - a;
    }
    if (L->replay != NULL)
        tempo__replay_after_update(L);
}

static void call_render(tempo_loop *L, float alpha)
{
    L->frame_ran = true;
    if (L->render == NULL)
        return;
    uint64_t a = loop_now(L);
    L->render(L, alpha, L->user);
    L->frame_game_ns += loop_now(L) - a;
}

static void call_event(tempo_loop *L, const SDL_Event *e)
{
    if (L->event == NULL)
        return;
    uint64_t a = loop_now(L);
    L->event(L, e, L->user);
    L->frame_game_ns += loop_now(L) - a;
}

/* ---- Events -------------------------------------------------------------------- */

/* Window state that pauses, resumes or dirties the loop. */
static void window_event(tempo_loop *L, const SDL_WindowEvent *we)
{
    if (L->window != NULL && we->windowID != SDL_GetWindowID(L->window))
        return;
    switch (we->event) {
    case SDL_WINDOWEVENT_MINIMIZED:
        if (!L->run_hidden)
            L->pause_mask |= PAUSE_MINIMIZED;
        break;
    case SDL_WINDOWEVENT_HIDDEN:
        if (!L->run_hidden)
            L->pause_mask |= PAUSE_HIDDEN;
        break;
    case SDL_WINDOWEVENT_RESTORED:
    case SDL_WINDOWEVENT_MAXIMIZED:
    case SDL_WINDOWEVENT_EXPOSED: /* an exposed window is visible, whatever we missed */
        L->pause_mask &= ~(unsigned)PAUSE_MINIMIZED;
        L->dirty = true;
        L->withheld_probe_ns = 0; /* withheld presents: probe at once */
        if (we->event == SDL_WINDOWEVENT_RESTORED)
            reprobe_soon(L);
        break;
    case SDL_WINDOWEVENT_SHOWN:
        L->pause_mask &= ~(unsigned)PAUSE_HIDDEN;
        L->dirty = true;
        L->withheld_probe_ns = 0;
        reprobe_soon(L);
        break;
    case SDL_WINDOWEVENT_SIZE_CHANGED:
        L->dirty = true;
        break;
    case SDL_WINDOWEVENT_FOCUS_LOST:
        if (L->pause_on_focus)
            L->pause_mask |= PAUSE_FOCUS;
        break;
    case SDL_WINDOWEVENT_FOCUS_GAINED:
        L->pause_mask &= ~(unsigned)PAUSE_FOCUS;
        L->withheld_probe_ns = 0;
        break;
    case SDL_WINDOWEVENT_DISPLAY_CHANGED:
        /* Another monitor: another refresh rate and another vblank phase. */
        if (!L->display_hz_given) {
            L->display_hz = detect_display_hz(L->window);
            tempo__pacer_init(&L->pacer, step_of(L->display_hz), 0);
            L->pause_mask &= ~(unsigned)PAUSE_WITHHELD;
            set_pacing(L, initial_pacing(L)); /* measure the new display's presents */
        } else {
            reprobe_soon(L);
        }
        break;
    default:
        break;
    }
}

/* Dispatches SDL's queue. `pump`: read new window-system input first
 * (SDL_PollEvent). Without it the queue is drained as it is: the message
 * wait pumped it just before deciding why it returned. Input events are
 * stamped `wake_ns`, when the wait returned: that is when the loop learnt
 * of them, and the same instant for all of a frame's events, so a slow
 * event callback does not skew the later ones. */
static void dispatch_events(tempo_loop *L, bool pump, uint64_t wake_ns)
{
    if (!SDL_WasInit(SDL_INIT_EVENTS))
        return;
    SDL_Event e;
    for (int i = 0; i < MAX_EVENTS_PER_FRAME; i++) {
        int got = pump ? SDL_PollEvent(&e) : SDL_PeepEvents(&e, 1, SDL_GETEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT);
        if (got <= 0)
            break;
        if (e.type == SDL_WINDOWEVENT)
            window_event(L, &e.window);
        L->event_dirty = true;
        if (L->input != NULL) {
            /* Input reaches desc.input_event through the input's listener. */
            tempo_input_handle_sdl(L->input, &e, wake_ns); /* 0 for non-input events */
        } else if (L->input_event != NULL) {
            tempo_input_event ev;
            if (tempo_input_from_sdl(&e, wake_ns, &ev) > 0) {
                uint64_t a = loop_now(L);
                L->input_event(L, &ev, L->user); /* nothing to consume it from */
                L->frame_game_ns += loop_now(L) - a;
            }
        }
        call_event(L, &e);
        if (e.type == SDL_QUIT)
            atomic_store(&L->quit, true);
    }
}

/* ---- Native input --------------------------------------------------------------- */

/* [loop thread] desc.input's native devices signalled: drain them into the
 * ring with the time this frame's wait returned, like SDL's events. One read
 * takes everything buffered, so nothing remains. */
static int native_input_dispatch(void *self, tempo_source_call *call)
{
    tempo_loop *L = self;
    if (L->input == NULL)
        return 0;
    /* A failed read (a device lost for a moment) is the input's to report
     * (tempo_get_error): it must not end the game's loop. */
    int n = tempo_input_read_native(L->input, L->wake_ns);
    call->items = n > 0 ? (uint32_t)n : 0;
    return 0;
}

/* ---- The input (desc.input, tempo_input_attach) ------------------------------------ */

int tempo_input_attach(tempo_input *in, tempo_loop *L)
{
    if (in == NULL || L == NULL)
        return TEMPO_EINVAL;
    tempo_loop **at = tempo__input_loop(in);
    if (*at == L && L->input == in)
        return 0;
    if (*at != NULL || L->input != NULL)
        return TEMPO_EBUSY;
    *at = L;
    L->input = in;
    if (L->input_event != NULL)
        tempo_input_set_listener(in, input_listener, L);
    if (L->notified_paused)
        tempo_input_suspend_polling(in, true); /* as the loop did when it paused */
    if (L->replay != NULL)
        tempo__replay_input_attached(L);
    /* Its native handle joins the sources at the next frame (sync_native_input). */
    return 0;
}

int tempo_input_detach(tempo_input *in)
{
    tempo_loop *L = in != NULL ? *tempo__input_loop(in) : NULL;
    if (L == NULL)
        return TEMPO_EINVAL;
    /* Its native handle is the input's: it leaves the wait set now, or,
     * from inside its own dispatch (the listener), at the start of the next
     * frame (sync_native_input), before the loop waits again. */
    if (L->input_watch != NULL && tempo_loop_remove_source(L, L->input_watch) != TEMPO_EBUSY)
        L->input_watch = NULL;
    if (L->input_event != NULL)
        tempo_input_set_listener(in, NULL, NULL);
    if (L->notified_paused)
        tempo_input_suspend_polling(in, false);
    if (L->replay != NULL)
        tempo__replay_input_detached(L, in);
    L->input = NULL;
    *tempo__input_loop(in) = NULL;
    return 0;
}

/* [loop thread] Keeps desc.input's native handle (tempo_input_attach_window)
 * among the sources, so a game attaches or detaches at any time and the
 * loop follows at the next frame. As a source on purpose: it then gets the
 * same wait, progress and statistics as every other one. If no slot is free
 * the input is detached instead: it falls back to SDL events rather than
 * going deaf. */
static void sync_native_input(tempo_loop *L)
{
    tempo_handle *h = L->input != NULL ? tempo_input_native_handle(L->input) : NULL;
    if (L->input_watch != NULL && L->input_watch != h) {
        tempo_loop_remove_source(L, L->input_watch); /* detached: the handle may be gone */
        L->input_watch = NULL;
    }
    if (h == NULL || find_watch(L, h) >= 0)
        return;
    tempo_source_desc d = {.name = "input", .handle = h, .dispatch = native_input_dispatch, .self = L};
    if (tempo_loop_add_source(L, &d) == 0) {
        L->input_watch = h;
    } else {
        tempo__set_error(TEMPO_EFULL, "loop: no source slot for native input, using SDL events");
        tempo_input_detach_window(L->input);
    }
}

/* ---- The wait ----------------------------------------------------------------- */

struct tempo__frame_wait {
    tempo__watch snap[TEMPO_LOOP_MAX_WATCHES]; /* the watches when the frame began */
    bool fired[TEMPO_LOOP_MAX_WATCHES];
    int nsnap;
    tempo_loop_wake wake;
    bool messages; /* the wait reported window messages: pump them */
    bool slept;
};

/* Polls the snapshot's handles that have not fired yet, without waiting.
 * Each zero-timeout wait reports the lowest signalled one, which is then
 * left out, so this costs one call plus one per signalled handle. */
static int poll_watches(frame_wait *fw)
{
    tempo_handle *sub[TEMPO_LOOP_MAX_WATCHES];
    int map[TEMPO_LOOP_MAX_WATCHES], m = 0;
    for (int j = 0; j < fw->nsnap; j++)
        if (!fw->fired[j]) {
            sub[m] = fw->snap[j].handle;
            map[m++] = j;
        }
    while (m > 0) {
        int q = tempo_wait(sub, m, 0, 0);
        if (q == TEMPO_ETIMEDOUT)
            break;
        if (q < 0)
            return q;
        fw->fired[map[q]] = true;
        memmove(&sub[q], &sub[q + 1], sizeof sub[0] * (size_t)(m - q - 1));
        memmove(&map[q], &map[q + 1], sizeof map[0] * (size_t)(m - q - 1));
        m--;
    }
    return 0;
}

/* Sleeps until `deadline` (TEMPO_INFINITE: no timeout; <= now: do not
 * sleep) or until something arrives, on the real wait. */
static int wait_real(tempo_loop *L, frame_wait *fw, uint64_t now, uint64_t deadline)
{
    tempo_handle *set[TEMPO_WAIT_MAX_HANDLES];
    set[0] = L->wake;
    set[1] = L->timer;
    for (int j = 0; j < fw->nsnap; j++)
        set[2 + j] = fw->snap[j].handle;
    int n = 2 + fw->nsnap;

    uint64_t timeout = TEMPO_INFINITE;
    if (deadline == TEMPO_INFINITE) {
        if (L->timer_due != 0) {
            tempo_timer_cancel(L->timer);
            L->timer_due = 0;
        }
    } else if (deadline <= now) {
        timeout = 0;
    } else if (L->timer_due != deadline) {
        tempo_timer_set(L->timer, deadline, 0);
        L->timer_due = deadline;
    }
    int r = tempo_wait(set, n, timeout, TEMPO_WAIT_MESSAGES);
    fw->slept = timeout != 0;
    if (r == TEMPO_ETIMEDOUT) {
        fw->wake = TEMPO_LOOP_WAKE_DUE;
        return poll_watches(fw);
    }
    if (r < 0)
        return r;
    if (r == 0) {
        fw->wake = TEMPO_LOOP_WAKE_SIGNAL;
    } else if (r == 1) {
        fw->wake = TEMPO_LOOP_WAKE_TIMER;
        L->timer_due = 0; /* the one-shot fired and disarmed itself */
    } else if (r < n) {
        fw->wake = fw->snap[r - 2].source >= 0 ? TEMPO_LOOP_WAKE_SOURCE : TEMPO_LOOP_WAKE_WATCH;
        fw->fired[r - 2] = true; /* its signal is consumed: remember it */
    } else {
        fw->wake = TEMPO_LOOP_WAKE_MESSAGES;
        fw->messages = true;
    }
    if (!fw->slept)
        fw->wake = TEMPO_LOOP_WAKE_DUE;
    return poll_watches(fw); /* the wait returned one: the others too */
}

/* desc.clock's wait, the same contract as wait_real: hand the deadline to
 * the clock (which moves its time there, or as far as it likes), then look
 * at what arrived meanwhile without blocking. A wake is reported as the
 * real wait would: the first fired watch or source, else pending SDL
 * events, else the timer. */
static int wait_clock(tempo_loop *L, frame_wait *fw, uint64_t now, uint64_t deadline)
{
    fw->slept = deadline > now;
    if (fw->slept && L->clock.wait_until != NULL)
        L->clock.wait_until(L->clock.user, deadline);
    fw->messages = SDL_WasInit(SDL_INIT_EVENTS) != 0; /* pump: nobody else did */
    fw->wake = fw->slept ? TEMPO_LOOP_WAKE_TIMER : TEMPO_LOOP_WAKE_DUE;
    int rc = poll_watches(fw);
    if (rc < 0 || fw->wake != TEMPO_LOOP_WAKE_TIMER)
        return rc;
    for (int j = 0; j < fw->nsnap; j++)
        if (fw->fired[j]) { /* the first, as the real wait reports the lowest */
            fw->wake = fw->snap[j].source >= 0 ? TEMPO_LOOP_WAKE_SOURCE : TEMPO_LOOP_WAKE_WATCH;
            return 0;
        }
    if (fw->messages && SDL_HasEvents(SDL_FIRSTEVENT, SDL_LASTEVENT))
        fw->wake = TEMPO_LOOP_WAKE_MESSAGES;
    return 0;
}

/* ---- Deciding what is due ---------------------------------------------------------
 * The decisions themselves are pure functions in loop_schedule.c, over a
 * snapshot of the schedule state taken here. */

static tempo__sched sched_of(const tempo_loop *L)
{
    return (tempo__sched){
        .policy = L->policy,
        .update_hz = L->update_hz,
        .render_hz = L->render_hz,
        .display_hz = L->display_hz,
        .max_frameskip = L->max_frameskip,
        .max_gap_ns = L->max_gap_ns,
        .step_ns = L->step_ns,
        .on_demand = L->on_demand,
        .pacing = L->pacing,
        .vsync = L->vsync,
        .nominal_period_ns = L->pacer.nominal_period_ns,
        .pace_wake_ns = L->pace_wake_ns,
        .withheld_probe_ns = L->withheld_probe_ns,
        .probe_n = L->probe.n,
        .probe_period_ns = L->probe.period_ns,
        .epoch_ns = L->epoch_ns,
        .tick = L->tick,
        .slot = L->slot,
        .slot_shift_ns = L->slot_shift_ns,
        .last_update_ns = L->last_update_ns,
        .last_render_ns = L->last_render_ns,
        .updates_since_render = L->updates_since_render,
        .dirty = L->dirty,
        .event_dirty = L->event_dirty,
        .game_paused = L->game_paused,
        .display_driven = L->display_driven,
        .in_display_frame = L->in_display_frame,
        .last_display_ns = L->last_display_ns,
    };
}

static uint64_t next_tick_ns(const tempo_loop *L)
{
    tempo__sched s = sched_of(L);
    return tempo__sched_next_tick_ns(&s);
}

static bool render_scheduled(const tempo_loop *L)
{
    tempo__sched s = sched_of(L);
    return tempo__sched_render_scheduled(&s);
}

static uint64_t render_slot_ns(const tempo_loop *L, uint64_t now)
{
    tempo__sched s = sched_of(L);
    return tempo__sched_render_slot_ns(&s, now);
}

static bool render_wanted(const tempo_loop *L, bool variable_ran)
{
    tempo__sched s = sched_of(L);
    return tempo__sched_render_wanted(&s, variable_ran);
}

/* The next instant something is due, for the wait. */
static uint64_t next_deadline(const tempo_loop *L, uint64_t now)
{
    tempo__sched s = sched_of(L);
    return tempo__sched_next_deadline(&s, now);
}

/* ---- Updates and render ------------------------------------------------------------- */

/* Runs the updates due at `t` under a fixed policy: the plan
 * (tempo__sched_plan_fixed) says how many and which clamp applies first. */
static void run_fixed_updates(tempo_loop *L, uint64_t t)
{
    tempo__sched s = sched_of(L);
    tempo__sched_plan plan = tempo__sched_plan_fixed(&s, t, L->absent_ns);
    if (!plan.run)
        return;
    tempo_loop_counts *c = &L->st.win;
    uint64_t pending = plan.pending, limit = plan.limit;
    tempo__stats_lateness(&L->st, plan.late_ns);
    if (plan.clamp == TEMPO__SCHED_STALL) {
        c->stalls++;
        c->dropped_updates += plan.dropped;
        rebase(L, t);
    } else if (plan.clamp == TEMPO__SCHED_DEBT_CAP) {
        c->slowdown_ns += plan.slowdown_ns;
        L->epoch_ns = plan.new_epoch_ns;
        L->tick = 0;
        realign_render_slot(L);
    }
    uint64_t ran = 0;
    while (ran < pending && ran < limit && !atomic_load(&L->quit)) {
        /* Re-read the schedule: an update may change the rate or policy. */
        uint64_t tick_due = next_tick_ns(L);
        if (tick_due > t || L->policy == TEMPO_LOOP_VARIABLE)
            break;
        L->last_update_ns = tick_due;
        L->tick++;
        ran++;
        L->updates_since_render++;
        c->updates++;
        L->skip_render = false;
        call_update(L, L->step_ns);
        if (L->skip_render) {
            /* tempo_loop_skip_render(): nothing to show, so no render to
             * wait for either: it does not count toward the catch-up limit
             * (which would otherwise block the next updates forever). */
            L->unchanged_updates++;
            L->updates_since_render--;
        } else {
            L->dirty = true;
        }
    }
    if (ran == limit && pending > ran)
        c->capped_frames++;
}

/* VARIABLE: one update with the measured delta when the frame's slot is due.
 * Returns whether it ran. */
static bool run_variable_update(tempo_loop *L, uint64_t t)
{
    uint64_t slot = render_slot_ns(L, t);
    if (t < slot)
        return false;
    if (pace_hz(L) != 0)
        tempo__stats_lateness(&L->st, t - slot);
    tempo__sched s = sched_of(L);
    bool stall;
    uint64_t dt = tempo__sched_variable_dt(&s, t, &stall);
    L->st.win.stalls += stall;
    L->last_update_ns = t;
    L->st.win.updates++;
    call_update(L, dt);
    return true;
}

static float alpha_at(const tempo_loop *L, uint64_t t)
{
    if (L->game_paused)
        return L->frozen_alpha;
    tempo__sched s = sched_of(L);
    return tempo__sched_alpha(&s, t);
}

/* The verdict of a measurement whose rounds all ended undecided (the
 * first probe's and a timer's re-measurement alike): ON paces by the
 * presents (the game asked for vsync); AUTO too when they lasted a quarter
 * period or more (they wait, for frame callbacks too irregular for the
 * quarter-period test: a compositor repainting slower than its mode), else
 * by the timer. */
static int undecided_verdict(const tempo_loop *L)
{
    return L->vsync_mode == TEMPO_LOOP_VSYNC_ON || TEMPO__PROBE_WAITED(&L->probe) ? TEMPO__PROBE_BLOCKS
                                                                                  : TEMPO__PROBE_FREE;
}

/* Measure the presents from scratch (the first probe's way: calls timed
 * from the previous return, so a present that blocks loses no vblank). */
static void reprobe_from_scratch(tempo_loop *L, uint64_t b)
{
    set_measured_pacing(L, TEMPO_LOOP_PACING_PROBING);
    L->last_return_ns = b; /* the next render (at once) anchors the probe */
}

/* A present paced by the timer returned (called at `a`, returned at `b`).
 * When a measurement chose the timer, it is measured again:
 *  - presents that now block more than a quarter period (REPROBE_RUN in a
 *    row, not sooner than REPROBE_FIRST_NS after the verdict): from
 *    scratch, as at the start;
 *  - periodically, on the timer's own renders, without a visible frame
 *    lost: the first probe's test (does a present called a quarter period
 *    earlier block a quarter period longer?) made by moving the render
 *    phase. Each pair is a present "b" on the schedule, then the schedule
 *    moved a quarter period earlier and a present "a" on it: one render
 *    interval of 3/4 period per pair, none longer than a period. After the
 *    4 pairs the schedule has moved a whole period: back on its grid, one
 *    render more in all. (A present blocking more than a quarter period
 *    would delay the "a" render; the run above catches those.) */
static void timer_present(tempo_loop *L, uint64_t a, uint64_t b)
{
    if (L->reprobe_ns == 0)
        return; /* the timer was asked for */
    uint64_t P = L->pacer.nominal_period_ns;
    /* SDL's software renderer waits for no vblank, ever: if its present
     * blocks, SDL sleeps (emulated vsync, decided when it was created), and
     * a call moved a quarter period earlier sleeps longer, like a vsync
     * present. Only a window event measures it again. Nor does a present
     * known to sleep to a grid of its own say anything by blocking. */
    if (L->software_present && L->reprobe_ns != 1)
        return;
    L->blocking_presents = b - a > P / 4 && L->present_grid_ns == 0 ? L->blocking_presents + 1 : 0;
    if (L->blocking_presents >= REPROBE_RUN && b >= L->timer_since_ns + REPROBE_FIRST_NS) {
        reprobe_from_scratch(L, b);
        return;
    }
    if (L->reprobing) {
        if (L->probe_b_call == 0) { /* this is a "b": the next render a quarter period earlier */
            L->probe_b_call = a;
            L->probe_b_return = b;
            L->slot_shift_ns += P / 4;
            return;
        }
        tempo__probe_presented(&L->probe, a, b); /* "a" first, then its "b" */
        int verdict = tempo__probe_presented(&L->probe, L->probe_b_call, L->probe_b_return);
        L->probe_b_call = 0;
        /* A present known to sleep to a regular grid of its own (the judge
         * saw its returns on the line) drifts against the timer's calls, so
         * some pairs differ: the median alone says free, as before the
         * every-pair rule, which is for irregular frame callbacks. */
        if (verdict == TEMPO__PROBE_UNSURE && L->present_grid_ns != 0 &&
            llabs(L->probe.last_median_ns) < (int64_t)P / 8)
            verdict = TEMPO__PROBE_FREE;
        if (L->slot_shift_ns >= P - P / 16) { /* a whole period: back on the grid */
            L->slot_shift_ns = 0;
            realign_render_slot(L);
        }
        /* Undecided: as the first probe, but a present known to sleep to
         * a grid of its own waits by design and says nothing by it. */
        if (verdict == TEMPO__PROBE_UNSURE && L->probe.rounds >= PROBE_MAX_ROUNDS)
            verdict = L->present_grid_ns != 0 ? TEMPO__PROBE_FREE : undecided_verdict(L);
        /* It blocks, or (undecided) the presents waited: measure from
         * scratch, where the first probe's rules decide and the pacer
         * learns the vblanks. */
        if (verdict == TEMPO__PROBE_BLOCKS)
            reprobe_from_scratch(L, b);
        else if (verdict == TEMPO__PROBE_FREE)
            timer_verdict(L, b, L->present_grid_ns);
        return;
    }
    if (b < L->reprobe_ns)
        return;
    if (!L->display_hz_given) {
        /* The display mode may have changed meanwhile. */
        uint32_t hz = detect_display_hz(L->window);
        if (hz != L->display_hz) {
            L->display_hz = hz;
            tempo__pacer_init(&L->pacer, step_of(hz), 0);
            reprobe_from_scratch(L, b); /* another display: measure from scratch */
            return;
        }
    }
    if (L->reprobe_ns == 1) { /* a window event: at once, from scratch */
        reprobe_from_scratch(L, b);
        return;
    }
    if (!render_scheduled(L)) {
        /* LOCKSTEP renders after its ticks, on no phase the measurement
         * could move without a longer interval: only a run of blocking
         * presents or a window event measures it again. */
        L->reprobe_ns = UINT64_MAX;
        return;
    }
    tempo__probe_start(&L->probe, P);
    L->st.win.probes++;
    L->reprobing = true;
    L->probe_b_call = a; /* this present is the first "b" */
    L->probe_b_return = b;
    L->slot_shift_ns = P / 4;
}

/* Presents the frame rendered at `t`. The time blocked in the present is
 * waiting, not game time; with vsync the pacer learns the vblanks from it
 * and sets the next wake. */
static void do_present(tempo_loop *L, uint64_t t)
{
    uint64_t a = loop_now(L);
    if (L->present != NULL)
        L->present(L, L->user);
    else
        SDL_RenderPresent(L->renderer);
    uint64_t b = loop_now(L);
    L->frame_present_ns += b - a;
    L->st.win.present_ns += b - a;
    if (L->vsync_mode == TEMPO_LOOP_VSYNC_OFF)
        return;
    bool had_return = L->last_return_ns != 0;
    L->last_return_ns = b;

    /* Presents that stop coming back are a state, not a stall. */
    uint64_t bound = WITHHELD_PERIODS * L->pacer.nominal_period_ns;
    if (bound < WITHHELD_MIN_NS)
        bound = WITHHELD_MIN_NS;
    if (b - a > bound) {
        L->st.win.withheld_presents++;
        if (L->pacing != TEMPO_LOOP_PACING_WITHHELD && ++L->long_presents >= WITHHELD_RUN) {
            L->pacing_before_withheld = L->pacing;
            L->pacing = TEMPO_LOOP_PACING_WITHHELD;
            L->vsync = false;
            if (!L->run_hidden)
                L->pause_mask |= PAUSE_WITHHELD; /* counts as hidden: the hidden-pause */
        }
        if (L->pacing == TEMPO_LOOP_PACING_WITHHELD) {
            L->withheld_probe_ns = b + WITHHELD_PROBE_NS;
            return;
        }
    } else {
        L->long_presents = 0;
        if (L->pacing == TEMPO_LOOP_PACING_WITHHELD) {
            /* Frames come back: the pacing from before, learnt afresh. */
            L->pause_mask &= ~(unsigned)PAUSE_WITHHELD;
            L->dirty = true;
            set_pacing(L, L->pacing_before_withheld);
            L->last_return_ns = b;
            return;
        }
    }
    if (L->pacing == TEMPO_LOOP_PACING_TIMER) {
        timer_present(L, a, b);
        return;
    }
    /* The render's cost counts from the wake the pacer asked for when the
     * render was on its schedule, so late wake-ups count as cost and the
     * pacer learns to wake earlier. */
    uint64_t planned = L->pace_wake_ns;
    uint64_t half = tempo__pacer_period_ns(&L->pacer) / 2;
    uint64_t start = planned != 0 && t >= planned && t - planned < half ? planned : L->wake_ns;
    uint64_t missed = L->pacer.st.missed;
    int fit = tempo__pacer_presented(&L->pacer, start <= a ? start : a, a, b);
    if (L->pacing == TEMPO_LOOP_PACING_PROBING) {
        /* The first present of a measurement only anchors the next one. */
        int verdict = had_return && planned != 0 ? tempo__probe_presented(&L->probe, a, b) : TEMPO__PROBE_MORE;
        if (verdict == TEMPO__PROBE_UNSURE && L->probe.rounds >= PROBE_MAX_ROUNDS)
            verdict = undecided_verdict(L);
        if (verdict == TEMPO__PROBE_BLOCKS) {
            /* Keep the fit the probes started: the vblanks are known. */
            L->pacing = TEMPO_LOOP_PACING_VSYNC;
            L->vsync = true;
            L->pace_wake_ns = tempo__pacer_wake_ns(&L->pacer, b);
        } else if (verdict == TEMPO__PROBE_FREE) {
            timer_verdict(L, b, 0);
        } else {
            L->pace_wake_ns = tempo__probe_wake_ns(&L->probe, b, L->pacer.predicted_cost_ns);
        }
        return;
    }
    L->st.win.missed_vblanks += L->pacer.st.missed - missed;
    if (fit == TEMPO__PACER_UNBLOCKED) {
        /* Returns off every vblank for a while: do the presents still block? */
        set_measured_pacing(L, TEMPO_LOOP_PACING_PROBING);
        L->last_return_ns = b; /* the next render (at once) anchors the probe */
        return;
    }
    /* Blocks, but returns more often than the display refreshes: a grid of
     * the present's own (SDL's emulated vsync), no vblank to pace by. */
    if (tempo__pacer_judge(&L->pacer, L->pacer.nominal_period_ns, L->software_present) ==
        TEMPO__PACER_JUDGE_OWN_GRID) {
        timer_verdict(L, b, tempo__pacer_period_ns(&L->pacer));
        return;
    }
    L->pace_wake_ns = tempo__pacer_wake_ns(&L->pacer, b);
}

static void maybe_render(tempo_loop *L, bool variable_ran)
{
    uint64_t unchanged = L->unchanged_updates;
    L->unchanged_updates = 0;
    if (atomic_load(&L->quit))
        return;
    if (!render_wanted(L, variable_ran)) {
        if (unchanged != 0)
            L->st.win.skipped_renders++; /* the updates said nothing visible changed */
        return;
    }
    uint64_t t = loop_now(L);
    if (t < render_slot_ns(L, t))
        return;
    L->dirty = false;
    L->event_dirty = false;
    L->last_render_ns = t;
    L->updates_since_render = 0;
    tempo__sched s = sched_of(L);
    if (tempo__sched_pace_hz(&s) != 0 && tempo__sched_render_scheduled(&s))
        L->slot = tempo__sched_slot_after_render(&s, t); /* skip missed slots */
    tempo__stats_render(&L->st, t);
    call_render(L, alpha_at(L, t));
    if (L->owns_present && !atomic_load(&L->quit))
        do_present(L, t);
}

/* ---- Pause ----------------------------------------------------------------------------- */

/* Acts on a change of the idle pause since the last look: a paused loop
 * suspends desc.input's controller polling (SDL2 can only poll them, and
 * the poll interval would wake the paused loop hundreds of times a
 * second), forgets the vblank phase on resume, and tells the game. */
static void tell_sources_pause(tempo_loop *L)
{
    for (int i = 0; i < L->nwatch; i++) {
        tempo__source *src = &L->watches[i].src;
        if (src->pause_hook != NULL)
            src->pause_hook(src->desc.self, L->notified_paused, L->game_paused, L->told_quit);
    }
}

/* The loop has quit: tell the pause hooks once. */
static void note_quit(tempo_loop *L)
{
    if (!L->told_quit && atomic_load(&L->quit)) {
        L->told_quit = true;
        tell_sources_pause(L);
    }
}

int tempo__loop_source_pause_hook(tempo_loop *L, tempo_handle *handle, tempo__source_pause_fn fn)
{
    tempo__source *src = L != NULL ? find_source(L, handle) : NULL;
    if (src == NULL)
        return TEMPO_EINVAL;
    src->pause_hook = fn;
    if (fn != NULL)
        fn(src->desc.self, L->notified_paused, L->game_paused, L->told_quit);
    return 0;
}

static void note_pause(tempo_loop *L)
{
    bool paused = L->pause_mask != 0;
    if (paused == L->notified_paused)
        return;
    L->notified_paused = paused;
    if (L->input != NULL)
        tempo_input_suspend_polling(L->input, paused);
    tell_sources_pause(L);
    if (!paused)
        pace_reset(L);
    if (L->on_pause != NULL) {
        uint64_t a = loop_now(L);
        L->on_pause(L, paused, L->user);
        L->frame_game_ns += loop_now(L) - a;
    }
}

/* ---- The frame ----------------------------------------------------------------------- */

/* Paused only because presents are withheld (the hidden-pause on Wayland):
 * the loop still probes. */
static bool withheld_pause_only(const tempo_loop *L)
{
    return L->pause_mask == PAUSE_WITHHELD && L->pacing == TEMPO_LOOP_PACING_WITHHELD;
}

static uint64_t source_deadline(const tempo_loop *L, uint64_t now)
{
    /* While paused there is no schedule: a paused frame is one step (a
     * source woken long after the last one gets a step from now). */
    if (L->pause_mask != 0) {
        uint64_t d = L->frame_seq_ns + L->step_ns;
        return d > now ? d : now + L->step_ns;
    }
    if (L->display_driven) {
        tempo__sched s = sched_of(L);
        return tempo__sched_display_source_by(&s, L->wake_ns);
    }
    return next_deadline(L, now);
}

/* Pausing and resuming re-arm every parked source: a parking taken before a
 * pause must not last the whole pause (nor one taken while paused last past
 * the resume). */
static void source_pause_edge(tempo_loop *L, uint64_t now)
{
    bool p = L->pause_mask != 0;
    if (p != L->src_paused) {
        L->src_paused = p;
        new_source_frame(L, now);
    }
}

/* While paused, parked work gets a frame every step. */
static void paused_source_frame(tempo_loop *L, uint64_t now)
{
    if (L->pause_mask != 0 && any_parked(L) && now >= L->frame_seq_ns + L->step_ns)
        new_source_frame(L, now);
}

int tempo_loop_frame(tempo_loop *L)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    if (L->in_frame)
        return TEMPO_EBUSY;
    if (atomic_load(&L->quit)) {
        note_quit(L);
        return 1;
    }
    L->in_frame = true;
    L->frame_game_ns = 0;
    L->frame_ran = false;

    uint64_t t0 = loop_now(L);
    if (!L->started) {
        L->started = true;
        tempo__stats_start(&L->st, t0);
        L->st.win.probes = L->pacing == TEMPO_LOOP_PACING_PROBING; /* the one set_pacing began */
        rebase(L, t0);
        L->dirty = true;
        L->frame_seq_ns = t0;
    }
    if (atomic_exchange(&L->render_requested, false))
        L->dirty = true;
    L->frame_present_ns = 0;
    note_pause(L); /* a pause asked for between frames: suspend before the wait */
    /* A pacer wake in the past (no render was wanted for a while, or the
     * frame ran late) is left there: the render is due at once, its present
     * blocks until the next vblank and the pacer sets the following wake.
     * (Moving it forward could keep pushing the render away while frames
     * run late.) */

    sync_native_input(L);
    source_pause_edge(L, t0);
    paused_source_frame(L, t0);
    frame_wait fw;
    fw.nsnap = 0;
    for (int i = 0; i < L->nwatch; i++) {
        const tempo__watch *w = &L->watches[i];
        if (w->src.parked)
            continue; /* a source out of the wait until the next frame */
        fw.snap[fw.nsnap++] = *w;
    }
    memset(fw.fired, 0, sizeof fw.fired[0] * (size_t)fw.nsnap);
    fw.messages = false;
    bool paused_before = L->pause_mask != 0;
    uint64_t deadline = paused_before ? TEMPO_INFINITE : next_deadline(L, t0);
    if (paused_before && any_parked(L))
        deadline = L->frame_seq_ns + L->step_ns; /* the next paused frame */
    if (withheld_pause_only(L) && L->withheld_probe_ns < deadline)
        deadline = L->withheld_probe_ns; /* paused for withheld presents: keep probing */
    if (any_ready(L))
        deadline = t0; /* work remains and may go on now: do not sleep */
    int rc = L->wait(L, &fw, t0, deadline); /* fills fw: the wake and every fired watch */
    uint64_t t1 = loop_now(L);
    uint64_t wait_ns = fw.slept ? t1 - t0 : 0;
    /* Time nothing of the loop ran: since the previous frame ended, and
     * past the wait's deadline (a process suspended in its sleep). */
    L->absent_ns = L->prev_end_ns != 0 && t0 > L->prev_end_ns ? t0 - L->prev_end_ns : 0;
    if (fw.slept && deadline != TEMPO_INFINITE) {
        uint64_t from = deadline > t0 ? deadline : t0;
        L->absent_ns += t1 > from ? t1 - from : 0;
    }
    L->st.sleep_since_render_ns += wait_ns; /* before this frame's render */
    if (rc < 0) {
        L->in_frame = false;
        return rc;
    }
    if (atomic_exchange(&L->render_requested, false))
        L->dirty = true;
    if (atomic_load(&L->quit) && fw.wake != TEMPO_LOOP_WAKE_DUE)
        fw.wake = TEMPO_LOOP_WAKE_SIGNAL;

    /* Events first (they may pause, resume or quit), then the watches and
     * sources in the order they were added. */
    L->wake_ns = t1;
    dispatch_events(L, fw.messages, t1);
    source_pause_edge(L, t1);
    paused_source_frame(L, t1);
    int src_err = 0;
    for (int j = 0; j < fw.nsnap; j++) {
        int i = find_watch(L, fw.snap[j].handle);
        if (i < 0 || L->watches[i].id != fw.snap[j].id)
            continue; /* unwatched (or re-watched) by an earlier callback */
        const tempo__watch *w = &L->watches[i];
        if (w->source >= 0) {
            if (w->src.parked || !(fw.fired[j] || w->src.more))
                continue;
            int r = dispatch_source(L, i);
            if (r < 0 && src_err == 0)
                src_err = r;
            continue;
        }
        if (!fw.fired[j])
            continue;
        /* A watch: its callback (which may change the table). */
        tempo_loop_watch_fn fn = w->fn;
        tempo_handle *handle = w->handle;
        void *user = w->user;
        uint64_t a = loop_now(L);
        fn(L, handle, user);
        L->frame_game_ns += loop_now(L) - a;
    }

    note_pause(L);
    bool paused = L->pause_mask != 0;
    if (!paused && L->game_resumed) {
        L->game_resumed = false;
        rebase(L, loop_now(L)); /* the game's pause ended: no catch-up */
        realign_render_slot(L);
    }
    if (!paused && L->was_paused) {
        /* Resume: no catch-up for the time spent paused. */
        uint64_t now = loop_now(L);
        rebase(L, now);
        L->dirty = true;
        L->st.last_render_ns = 0; /* the pause is not a frame interval */
    }
    L->was_paused = paused;
    if (!paused && !atomic_load(&L->quit)) {
        uint64_t t = loop_now(L);
        bool variable_ran = false;
        if (L->game_paused)
            ; /* game time stands still; the menu still renders */
        else if (L->policy == TEMPO_LOOP_VARIABLE)
            variable_ran = run_variable_update(L, t);
        else
            run_fixed_updates(L, t);
        maybe_render(L, variable_ran);
    } else if (withheld_pause_only(L) && !atomic_load(&L->quit)) {
        /* Paused because presents are withheld: a probe render and present
         * every WITHHELD_PROBE_NS tells when the compositor shows the
         * window again (nothing else does on Wayland). */
        uint64_t t = loop_now(L);
        if (t >= L->withheld_probe_ns) {
            L->last_render_ns = t;
            tempo__stats_render(&L->st, t);
            call_render(L, alpha_at(L, t));
            if (L->owns_present)
                do_present(L, t);
        }
    }

    /* A pause asked for by update() or render() starts after this frame:
     * remember it, so the frame that resumes (maybe the very next one,
     * woken by input) restarts the schedule instead of catching up. */
    L->was_paused = L->pause_mask != 0;
    note_pause(L);
    /* Blocked in the present is waiting too (after this frame's render, so
     * it belongs to the next render interval's sleep). */
    L->st.sleep_since_render_ns += L->frame_present_ns;
    uint64_t t_end = loop_now(L);
    L->prev_end_ns = t_end;
    if (L->pacing == TEMPO_LOOP_PACING_WITHHELD)
        L->st.win.withheld_ns += t_end - t0;
    if (L->frame_ran)
        new_source_frame(L, t_end); /* parked sources get their next turn */
    source_pause_edge(L, t_end);
    uint64_t win_start = L->st.win_start_ns;
    tempo__stats_frame(&L->st, fw.wake, t0, t_end, wait_ns + L->frame_present_ns, L->frame_game_ns,
                       paused_before && fw.slept);
    if (L->st.win_start_ns != win_start) {
        for (int i = 0; i < L->nwatch; i++) {
            tempo__source *src = &L->watches[i].src;
            src->last = src->win;
            memset(&src->win, 0, sizeof src->win);
        }
    }
    L->in_frame = false;
    if (src_err < 0)
        return src_err;
    note_quit(L);
    return atomic_load(&L->quit) ? 1 : 0;
}

int tempo_loop_display_frame(tempo_loop *L)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    if (L->in_frame)
        return TEMPO_EBUSY;
    L->display_driven = true;
    L->in_display_frame = true;
    L->last_display_ns = loop_now(L);
    int r = tempo_loop_frame(L);
    L->in_display_frame = false;
    return r;
}

void tempo__loop_run_ended(tempo_loop *L, int result)
{
    tempo_loop_stop_fn fn = L->on_stop;
    if (fn != NULL)
        fn(L, result, L->user); /* it may destroy L: nothing touches L after */
}

int tempo_loop_run(tempo_loop *L)
{
    if (L == NULL)
        return TEMPO_EINVAL;
    return plat_loop_run(L); /* the backend owns how frames follow each other */
}

uint64_t tempo_loop_next_due_ns(const tempo_loop *L)
{
    if (L == NULL || L->pause_mask != 0)
        return TEMPO_INFINITE;
    uint64_t now = loop_now(L);
    /* The first frame starts the schedule with an update at once. */
    return L->started ? next_deadline(L, now) : now;
}

const tempo_loop_stats *tempo_loop_get_stats(tempo_loop *L)
{
    if (L == NULL)
        return NULL;
    if (L->started)
        tempo__stats_refresh(&L->st, loop_now(L));
    L->st.pub.paused = L->pause_mask != 0;
    L->st.pub.source_count = 0;
    for (int i = 0; i < L->nwatch; i++) {
        if (L->watches[i].source < 0)
            continue;
        const tempo__source *src = &L->watches[i].src;
        tempo_loop_source_stats *o = &L->st.pub.sources[L->st.pub.source_count++];
        memcpy(o->name, src->name, sizeof o->name);
        o->pending = src->more;
        o->parked = src->parked;
        o->oldest_age_ns = src->oldest_age_ns;
        o->last_second = src->last;
        o->total = src->total;
    }
    L->st.pub.game_paused = L->game_paused;
    L->st.pub.vsync = L->vsync;
    L->st.pub.pacing = L->pacing;
    L->st.pub.refresh_ns = tempo_loop_get_refresh_ns(L);
    L->st.pub.predicted_render_ns = L->vsync ? L->pacer.predicted_cost_ns : 0;
    L->st.pub.present_grid_ns = L->pacing == TEMPO_LOOP_PACING_TIMER ? L->present_grid_ns : 0;
    return &L->st.pub;
}
