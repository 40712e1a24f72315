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
 * the last update). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handle_pool.h"
#include "loop_internal.h"
#include "replay_internal.h"
#include "sources_internal.h"
#include "tempo_internal.h"

#define NS_PER_S UINT64_C(1000000000)
#define DEFAULT_HZ 60u
#define DEFAULT_FRAMESKIP 5u
#define DEFAULT_MAX_GAP_NS (250 * TEMPO_NS_PER_MS)
/* The largest float below 1: alpha must stay in [0,1) even when the float
 * conversion of a value just below 1 rounds up. */
#define ALPHA_MAX 0x1.fffffep-1f
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

static uint64_t loop_now(const tempo_loop *L)
{
    return L->fake ? L->clock.now(L->clock.user) : tempo_now_ns();
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
static uint32_t pace_hz(const tempo_loop *L)
{
    if (L->render_hz != 0)
        return L->render_hz;
    return L->pacing == TEMPO_LOOP_PACING_TIMER ? L->display_hz : 0;
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
    pace_reset(L);
    if (pacing == TEMPO_LOOP_PACING_PROBING)
        tempo__probe_start(&L->probe, L->pacer.nominal_period_ns);
    realign_render_slot(L);
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
    L->clock = desc->clock;
    L->fake = desc->clock.now != NULL;
    L->input = desc->input;
    L->thread = SDL_ThreadID();
    L->dispatching = -1;
    L->renderer = desc->renderer;
    L->present = desc->present;
    L->owns_present = desc->renderer != NULL || desc->present != NULL;
    L->input_event = desc->input_event;
    L->on_pause = desc->on_pause;
    L->display_hz_given = desc->display_hz != 0;
    L->display_hz = L->display_hz_given ? tempo__pacer_display_hz((int)desc->display_hz)
                                        : detect_display_hz(L->window);
    tempo__pacer_init(&L->pacer, step_of(L->display_hz), 0);
    /* Not SDL_RENDERER_PRESENTVSYNC: the software renderer reports it and
     * does not block. The presents themselves are measured. */
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
    if (L->input != NULL && L->input_event != NULL)
        tempo_input_set_listener(L->input, input_listener, L);
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

int tempo_loop_destroy(tempo_loop *L)
{
    if (L == NULL)
        return 0;
    if (L->in_frame) {
        /* The frame reads the loop after the callback returns: freeing it
         * here was a use-after-free. Refuse loudly instead. */
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_destroy: called from inside tempo_loop_frame() "
                                             "(a loop callback); quit, and destroy after the loop returns");
    }
    detach_all_sources(L);
    if (L->input != NULL && L->input_event != NULL)
        tempo_input_set_listener(L->input, NULL, NULL);
    if (L->input != NULL && L->notified_paused)
        tempo_input_suspend_polling(L->input, false); /* the input outlives the loop */
    if (L->replay != NULL)
        tempo__replay_loop_destroy(L); /* after the sources: their detach may still deliver */
    tempo_event_destroy(L->wake);
    tempo_timer_destroy(L->timer);
    free(L);
    return 0;
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
    uint32_t hz = pace_hz(L);
    L->slot = hz && L->last_render_ns >= L->epoch_ns ? tempo__sched_count(L->epoch_ns, hz, L->last_render_ns)
                                                     : 0;
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

/* ---- Watches ---------------------------------------------------------------------- */

static int find_watch(const tempo_loop *L, const tempo_handle *h)
{
    for (int i = 0; i < L->nwatch; i++)
        if (L->watches[i].handle == h)
            return i;
    return -1;
}

int tempo_loop_watch(tempo_loop *L, tempo_handle *handle, tempo_loop_watch_fn fn, void *user)
{
    if (L == NULL || fn == NULL || tempo__handle_kind(handle) == 0) /* NULL or destroyed */
        return TEMPO_EINVAL;
    if (find_watch(L, handle) >= 0)
        return TEMPO_EBUSY;
    if (L->nwatch == TEMPO_LOOP_MAX_WATCHES)
        return TEMPO_ETOOMANY;
    L->watches[L->nwatch++] = (tempo__watch){handle, fn, user, ++L->next_watch_id, -1};
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

/* ---- Sources ------------------------------------------------------------------------ */

static int find_source_by_id(const tempo_loop *L, uint64_t id)
{
    for (int k = 0; k < L->nsource; k++)
        if (L->sources[k].id == id)
            return k;
    return -1;
}

int tempo_loop_add_source(tempo_loop *L, const tempo_source_desc *desc)
{
    if (L == NULL || desc == NULL || desc->handle == NULL || desc->dispatch == NULL)
        return TEMPO_EINVAL;
    if (find_watch(L, desc->handle) >= 0)
        return TEMPO_EBUSY;
    if (L->nwatch == TEMPO_LOOP_MAX_WATCHES || L->nsource == TEMPO_LOOP_MAX_SOURCES)
        return TEMPO_ETOOMANY;
    uint64_t id = ++L->next_watch_id;
    tempo__source *src = &L->sources[L->nsource++];
    memset(src, 0, sizeof *src);
    src->desc = *desc;
    snprintf(src->name, sizeof src->name, "%s", desc->name ? desc->name : "source");
    src->id = id;
    /* A new source owes no progress in a frame it has not seen. */
    src->progress_frame = UINT64_MAX;
    L->watches[L->nwatch++] = (tempo__watch){desc->handle, NULL, NULL, id, 0};
    return 0;
}

/* Removes source k (and its watch entry), then runs its detach. */
static void drop_source(tempo_loop *L, int k)
{
    tempo__source gone = L->sources[k];
    for (int i = 0; i < L->nwatch; i++)
        if (L->watches[i].id == gone.id) {
            drop_watch(L, i);
            break;
        }
    memmove(&L->sources[k], &L->sources[k + 1], sizeof L->sources[0] * (size_t)(L->nsource - k - 1));
    L->nsource--;
    if (L->dispatching > k)
        L->dispatching--;
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
    int k = find_source_by_id(L, L->watches[i].id);
    if (k < 0)
        return TEMPO_EINVAL;
    if (k == L->dispatching)
        return TEMPO_EBUSY; /* its dispatch is still running: detach would free it */
    drop_source(L, k);
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

static void detach_all_sources(tempo_loop *L)
{
    while (L->nsource > 0)
        drop_source(L, L->nsource - 1);
}

/* A new frame for the sources: an update or render ran, the loop paused or
 * resumed, or a paused frame (one step) passed with work parked. Parking
 * ends here, so no parking outlives a frame, a pause or a resume. */
static void new_source_frame(tempo_loop *L, uint64_t now)
{
    L->frame_seq++;
    L->frame_seq_ns = now;
    for (int k = 0; k < L->nsource; k++)
        L->sources[k].parked = false;
}

static bool any_parked(const tempo_loop *L)
{
    for (int k = 0; k < L->nsource; k++)
        if (L->sources[k].parked)
            return true;
    return false;
}

/* A source that said work remains and is not parked must be called again
 * without waiting (its handle may be an auto-reset one already consumed). */
static bool any_ready(const tempo_loop *L)
{
    for (int k = 0; k < L->nsource; k++)
        if (L->sources[k].more && !L->sources[k].parked)
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

/* Dispatches source k once. Returns 0 or the dispatch's error (the source
 * is then removed). */
static int dispatch_source(tempo_loop *L, int k)
{
    tempo__source *src = &L->sources[k];
    uint64_t id = src->id;
    uint64_t now = loop_now(L);
    tempo_source_call call = {
        .now_ns = now,
        .deadline_ns = source_deadline(L, now),
        .must_progress = src->progress_frame != L->frame_seq,
        .frame = L->frame_seq,
    };
    if (call.must_progress)
        src->progress_frame = L->frame_seq;
    L->dispatching = k;
    int r = src->desc.dispatch(src->desc.self, &call);
    L->dispatching = -1;
    uint64_t t = loop_now(L);
    L->frame_game_ns += t - now;
    /* The dispatch may have removed other sources (not itself): find it again. */
    k = find_source_by_id(L, id);
    src = &L->sources[k];
    bool overrun = t > call.deadline_ns;
    bool forced = now >= call.deadline_ns && call.items > 0;
    add_source_counts(&src->win, t - now, call.items, overrun, forced, call.oldest_age_ns);
    add_source_counts(&src->total, t - now, call.items, overrun, forced, call.oldest_age_ns);
    src->oldest_age_ns = call.oldest_age_ns;
    if (r < 0) {
        tempo__set_error(r, "loop: source \"%s\" failed (%s): removed", src->name, tempo_strerror(r));
        drop_source(L, k);
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
        break;
    case SDL_WINDOWEVENT_SHOWN:
        L->pause_mask &= ~(unsigned)PAUSE_HIDDEN;
        L->dirty = true;
        L->withheld_probe_ns = 0;
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

typedef struct frame_wait {
    tempo__watch snap[TEMPO_LOOP_MAX_WATCHES]; /* the watches when the frame began */
    bool fired[TEMPO_LOOP_MAX_WATCHES];
    int nsnap;
    tempo_loop_wake wake;
    bool messages; /* the wait reported window messages: pump them */
    bool slept;
} frame_wait;

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
        return 0;
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
    return 0;
}

/* The fake clock's "wait": hand the deadline to the clock, then look at
 * what arrived meanwhile without blocking. */
static void wait_fake(tempo_loop *L, frame_wait *fw, uint64_t now, uint64_t deadline)
{
    fw->slept = deadline > now;
    if (fw->slept && L->clock.wait_until != NULL)
        L->clock.wait_until(L->clock.user, deadline);
    fw->messages = SDL_WasInit(SDL_INIT_EVENTS) != 0; /* pump: nobody else did */
    fw->wake = fw->slept ? TEMPO_LOOP_WAKE_TIMER : TEMPO_LOOP_WAKE_DUE;
}

/* ---- Deciding what is due --------------------------------------------------------- */

static uint64_t next_tick_ns(const tempo_loop *L)
{
    return tempo__sched_at(L->epoch_ns, L->update_hz, L->tick);
}

/* Whether render slots follow a schedule (pace_hz) rather than the ticks:
 * LOCKSTEP's renders follow its ticks and ignore the pace, except in the
 * game's pause, where no tick runs. */
static bool render_scheduled(const tempo_loop *L)
{
    return L->policy != TEMPO_LOOP_LOCKSTEP || L->game_paused;
}

/* When the next render may happen: the next slot of the pace (cap or
 * display rate), and with vsync not before the pacer's wake. */
static uint64_t render_slot_ns(const tempo_loop *L, uint64_t now)
{
    if (L->pacing == TEMPO_LOOP_PACING_WITHHELD)
        return L->withheld_probe_ns; /* renders only as the probe */
    /* The host calls a frame per displayed frame (tempo_loop_display_frame):
     * the display is the vsync, so a render happens in such a frame and
     * only there. A slot schedule of our own would beat against the
     * display's: with both at 60 Hz and a slot a hair after the display's
     * call, every other displayed frame would go without a render. A render
     * cap still holds. */
    if (L->display_driven) {
        if (!L->in_display_frame)
            return TEMPO_INFINITE;
        if (L->render_hz == 0 || !render_scheduled(L))
            return now;
        uint64_t cap = tempo__sched_at(L->epoch_ns, L->render_hz, L->slot);
        return cap > now ? cap : now;
    }
    /* LOCKSTEP renders after its ticks: its probe renders alternate
     * between the tick and a quarter period after it, and wait for the
     * probe's instant after the previous return as well (a present that
     * blocks past the next tick would otherwise put every call right
     * after a return, a quarter period apart from nothing). */
    if (L->pacing == TEMPO_LOOP_PACING_PROBING && !render_scheduled(L)) {
        uint64_t at = L->last_update_ns + (L->probe.n % 2 ? L->probe.period_ns / 4 : 0);
        if (L->pace_wake_ns > at)
            at = L->pace_wake_ns; /* and never right after the previous return */
        return at > now ? at : now;
    }
    if (!render_scheduled(L))
        return now;
    uint32_t hz = pace_hz(L);
    uint64_t slot = hz != 0 ? tempo__sched_at(L->epoch_ns, hz, L->slot) : now;
    if (L->pacing == TEMPO_LOOP_PACING_PROBING) {
        /* The probe's call times (tempo__probe_wake_ns); never before the
         * previous present returned, so a probe does not spin. */
        if (L->pace_wake_ns > slot)
            slot = L->pace_wake_ns;
    } else if (L->vsync) {
        if (L->pace_wake_ns > slot)
            slot = L->pace_wake_ns;
        /* A present that does not block (vsync refused by the driver or
         * compositor, SDL's offscreen software renderer, whatever the
         * renderer flags say) must not make the loop spin, locked or not:
         * with jittery render costs its returns look like a faster display
         * and the pacer would follow them. So never more than one render per
         * nominal refresh period (the display mode's, or desc.display_hz),
         * less 1/16 for a display slightly faster than its integer mode
         * (59.94 vs 60) and for wake-up jitter. A blocking present paces
         * the loop anyway; a display faster than its mode says gets the
         * mode's rate unless the game sets desc.display_hz. */
        uint64_t nominal = L->pacer.nominal_period_ns;
        uint64_t floor = L->last_render_ns + nominal - nominal / 16;
        if (L->last_render_ns != 0 && floor > slot)
            slot = floor;
    }
    return slot;
}

/* Whether the policy wants a render now that events and updates ran. */
static bool render_wanted(const tempo_loop *L, bool variable_ran)
{
    if (L->pacing == TEMPO_LOOP_PACING_WITHHELD)
        return true; /* the probe: the only way to learn that presents come back */
    if (L->game_paused)
        return true; /* the pause menu animates at the render pace */
    switch (L->policy) {
    case TEMPO_LOOP_INTERPOLATED:
        return !L->on_demand || L->dirty || L->event_dirty;
    case TEMPO_LOOP_VARIABLE:
        return variable_ran || L->dirty;
    default: /* LOCKSTEP and CONSTANT_SPEED_MAX_FPS: after updates, or when asked */
        return L->dirty;
    }
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* The most updates that may run between two renders: max_frameskip, or,
 * when a render cap is below update_hz / max_frameskip, the updates one
 * render interval holds (so a low cap does not slow the game down).
 * LOCKSTEP renders after each of its ticks. */
static uint64_t updates_per_render_limit(const tempo_loop *L)
{
    if (L->policy == TEMPO_LOOP_LOCKSTEP)
        return 1;
    uint64_t limit = L->max_frameskip;
    /* The render rate: the cap, the display rate, or the vblanks (the
     * display rate is their nominal rate). */
    uint32_t hz = pace_hz(L) != 0 ? pace_hz(L) : L->display_hz;
    uint64_t per = (L->update_hz + hz - 1) / hz;
    if (per > limit)
        limit = per;
    return limit;
}

/* Updates may not run until a render has: the catch-up limit is used up. */
static bool updates_blocked(const tempo_loop *L)
{
    /* Withheld presents: no render to wait for; updates keep the clock. */
    return L->policy != TEMPO_LOOP_VARIABLE && L->pacing != TEMPO_LOOP_PACING_WITHHELD &&
           L->updates_since_render >= updates_per_render_limit(L);
}

/* The next instant something is due, for the wait. */
static uint64_t next_deadline(const tempo_loop *L, uint64_t now)
{
    uint64_t slot = render_slot_ns(L, now);
    if (L->game_paused)
        return slot; /* no ticks while the game is paused */
    uint64_t tick = next_tick_ns(L);
    switch (L->policy) {
    case TEMPO_LOOP_VARIABLE:
        return slot; /* a frame (update + render) per render slot */
    case TEMPO_LOOP_INTERPOLATED:
        if (!render_wanted(L, false))
            return tick;
        break;
    default:
        if (!L->dirty)
            return tick;
        break;
    }
    /* A render is owed: when the catch-up limit is used up, only the render
     * slot counts (the overdue ticks wait for it). */
    return updates_blocked(L) ? slot : min_u64(tick, slot);
}

/* ---- Updates and render ------------------------------------------------------------- */

/* Runs the updates due at `t` under a fixed policy. */
static void run_fixed_updates(tempo_loop *L, uint64_t t)
{
    uint64_t due = next_tick_ns(L);
    if (t < due)
        return;
    /* The catch-up cap bounds the updates between two renders, not per
     * frame: a frame that cannot render yet (render cap) must not be
     * followed by another batch. The overdue ticks wait for the render. */
    uint64_t per_render = updates_per_render_limit(L);
    if (updates_blocked(L))
        return;
    uint64_t limit = L->pacing == TEMPO_LOOP_PACING_WITHHELD ? UINT64_MAX : per_render - L->updates_since_render;
    tempo_loop_counts *c = &L->st.win;
    uint64_t pending = tempo__sched_count(L->epoch_ns, L->update_hz, t) - L->tick;
    tempo__stats_lateness(&L->st, t - due);
    if (t - due > L->max_gap_ns) {
        if (L->absent_ns > L->max_gap_ns) {
            /* A stall: the loop did not run at all for longer than the
             * clamp (a suspended process, a debugger, a clock jump). Drop
             * what is owed and restart at the present. */
            c->stalls++;
            c->dropped_updates += pending - 1;
            rebase(L, t);
            pending = 1;
        } else {
            /* A slow machine: the loop ran all along (renders or updates
             * slower than the schedule). Keep the debt at max_gap instead
             * of throwing it away, so up to max_frameskip updates still run
             * per render and the game slows down only as far as it must
             * (deWiTTERS' loop); what is given up is game time behind the
             * wall clock (slowdown_ns). */
            uint64_t new_due = t - L->max_gap_ns;
            c->slowdown_ns += new_due - due;
            L->epoch_ns = new_due;
            L->tick = 0;
            realign_render_slot(L);
            pending = tempo__sched_count(L->epoch_ns, L->update_hz, t) - L->tick;
        }
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
    uint64_t dt = t >= L->last_update_ns ? t - L->last_update_ns : 0;
    if (dt > L->max_gap_ns) {
        L->st.win.stalls++;
        dt = L->step_ns; /* drop the gap: advance one nominal step */
    }
    L->last_update_ns = t;
    L->st.win.updates++;
    call_update(L, dt);
    return true;
}

static float alpha_at(const tempo_loop *L, uint64_t t)
{
    if (L->game_paused)
        return L->frozen_alpha;
    if (L->policy != TEMPO_LOOP_INTERPOLATED || L->tick == 0)
        return 0.0f;
    uint64_t prev = L->last_update_ns, next = next_tick_ns(L);
    if (t <= prev || next <= prev)
        return 0.0f;
    if (t >= next)
        return ALPHA_MAX; /* behind schedule: the most extrapolation allowed */
    float a = (float)((double)(t - prev) / (double)(next - prev));
    return a < ALPHA_MAX ? a : ALPHA_MAX;
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
    if (L->pacing == TEMPO_LOOP_PACING_TIMER)
        return;
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
            verdict = L->vsync_mode == TEMPO_LOOP_VSYNC_ON ? TEMPO__PROBE_BLOCKS : TEMPO__PROBE_FREE;
        if (verdict == TEMPO__PROBE_BLOCKS) {
            /* Keep the fit the probes started: the vblanks are known. */
            L->pacing = TEMPO_LOOP_PACING_VSYNC;
            L->vsync = true;
            L->pace_wake_ns = tempo__pacer_wake_ns(&L->pacer, b);
        } else if (verdict == TEMPO__PROBE_FREE) {
            set_pacing(L, TEMPO_LOOP_PACING_TIMER);
        } else {
            L->pace_wake_ns = tempo__probe_wake_ns(&L->probe, b, L->pacer.predicted_cost_ns);
        }
        return;
    }
    L->st.win.missed_vblanks += L->pacer.st.missed - missed;
    if (fit == TEMPO__PACER_UNBLOCKED) {
        /* Returns off every vblank for a while: do the presents still block? */
        set_pacing(L, TEMPO_LOOP_PACING_PROBING);
        L->last_return_ns = b; /* the next render (at once) anchors the probe */
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
    uint32_t hz = pace_hz(L);
    if (hz != 0 && render_scheduled(L))
        L->slot = tempo__sched_count(L->epoch_ns, hz, t); /* skip missed slots */
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
    for (int k = 0; k < L->nsource; k++) {
        tempo__source *src = &L->sources[k];
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
    for (int k = 0; L != NULL && k < L->nsource; k++) {
        tempo__source *src = &L->sources[k];
        if (src->desc.handle == handle) {
            src->pause_hook = fn;
            if (fn != NULL)
                fn(src->desc.self, L->notified_paused, L->game_paused, L->told_quit);
            return 0;
        }
    }
    return TEMPO_EINVAL;
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
        /* The host's display frames render (tempo_loop_display_frame), and
         * the host runs one thing at a time: in a display frame the render
         * follows the sources, which get half a refresh period from the
         * frame's start; between display frames they get until the next
         * one is expected. Due updates come first, as always. */
        uint64_t period = step_of(L->display_hz);
        uint64_t by = L->in_display_frame ? L->wake_ns + period / 2 : L->last_display_ns + period;
        if (!L->game_paused && L->policy != TEMPO_LOOP_VARIABLE)
            by = min_u64(by, next_tick_ns(L));
        return by;
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
        if (w->source >= 0) {
            int k = find_source_by_id(L, w->id);
            if (k >= 0 && L->sources[k].parked)
                continue; /* out of the wait until the next frame */
        }
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
    int rc = 0;
    if (L->fake)
        wait_fake(L, &fw, t0, deadline);
    else
        rc = wait_real(L, &fw, t0, deadline);
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
    if (rc == 0 && fw.nsnap > 0)
        rc = poll_watches(&fw);
    if (rc < 0) {
        L->in_frame = false;
        return rc;
    }
    if (atomic_exchange(&L->render_requested, false))
        L->dirty = true;
    if (L->fake && fw.wake == TEMPO_LOOP_WAKE_TIMER) {
        for (int j = 0; j < fw.nsnap; j++)
            if (fw.fired[j]) { /* the first, as the real wait reports the lowest */
                fw.wake = fw.snap[j].source >= 0 ? TEMPO_LOOP_WAKE_SOURCE : TEMPO_LOOP_WAKE_WATCH;
                break;
            }
    }
    if (atomic_load(&L->quit) && fw.wake != TEMPO_LOOP_WAKE_DUE)
        fw.wake = TEMPO_LOOP_WAKE_SIGNAL;
    else if (L->fake && fw.wake == TEMPO_LOOP_WAKE_TIMER && SDL_WasInit(SDL_INIT_EVENTS) &&
             SDL_HasEvents(SDL_FIRSTEVENT, SDL_LASTEVENT))
        fw.wake = TEMPO_LOOP_WAKE_MESSAGES;

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
        tempo__watch w = L->watches[i];
        if (w.source >= 0) {
            int k = find_source_by_id(L, w.id);
            if (k < 0 || L->sources[k].parked || !(fw.fired[j] || L->sources[k].more))
                continue;
            int r = dispatch_source(L, k);
            if (r < 0 && src_err == 0)
                src_err = r;
            continue;
        }
        if (!fw.fired[j])
            continue;
        uint64_t a = loop_now(L);
        w.fn(L, w.handle, w.user);
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
        for (int k = 0; k < L->nsource; k++) {
            L->sources[k].last = L->sources[k].win;
            memset(&L->sources[k].win, 0, sizeof L->sources[k].win);
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
    L->st.pub.source_count = L->nsource;
    for (int k = 0; k < L->nsource; k++) {
        const tempo__source *src = &L->sources[k];
        tempo_loop_source_stats *o = &L->st.pub.sources[k];
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
    return &L->st.pub;
}
