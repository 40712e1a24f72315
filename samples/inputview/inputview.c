/* inputview: live keyboard, mouse and controller events as Tempo input
 * events, with the wake-up cost and latency of getting them.
 *
 * It runs in tempo_loop_run() (tempo/loop.h), LOCKSTEP at 60 Hz: the loop
 * feeds every SDL event into the tempo_input given as desc.input (stamped
 * with the time its wait returned) and update() reads the ring, so a burst
 * of input is shown at most 60 times a second. When a tick brings no input
 * the game pauses its loop: it then sleeps with no timeout until input
 * arrives (window messages) or its watched 1 Hz statistics timer fires; it
 * never polls keyboard or mouse. With a game controller connected the wait
 * polls it at the tempo_input rate (shown; +/- change it) instead of SDL2's
 * 1 kHz, and the wake-ups/s line shows what that costs.
 *
 * Keys: F1 starts/stops the injector (a thread that pushes keys F13-F24
 * through SDL_PushEvent and presses button A on the virtual pad, so the
 * "latency" column can show push -> wake and press -> poll -> wake times);
 * F2 plugs/unplugs a virtual controller; + / - change the controller poll
 * rate; Esc quits. Headless runs plug the virtual pad and inject by default,
 * then print the figures. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tempo/debugdraw.h>
#include <tempo/tempo.h>

#include "sample.h"

#define LINES 20
#define FIFO 256
#define SAMPLES 4096

/* Injection times, one single-producer FIFO per kind (injector -> loop). */
typedef struct fifo {
    _Atomic uint64_t t[FIFO];
    atomic_uint head, tail;
} fifo;

static void fifo_push(fifo *f, uint64_t t)
{
    unsigned h = atomic_load(&f->head);
    if (h - atomic_load(&f->tail) == FIFO)
        return; /* the loop is far behind: drop the sample */
    atomic_store(&f->t[h % FIFO], t);
    atomic_store(&f->head, h + 1);
}

static bool fifo_pop(fifo *f, uint64_t *t)
{
    unsigned tl = atomic_load(&f->tail);
    if (tl == atomic_load(&f->head))
        return false;
    *t = atomic_load(&f->t[tl % FIFO]);
    atomic_store(&f->tail, tl + 1);
    return true;
}

typedef struct injector {
    tempo_handle *stop; /* manual-reset */
    SDL_Thread *thread;
    atomic_int pad_id; /* instance id of the virtual pad, -1 if none */
    fifo keys, pads;
} injector;

/* [injector thread] Every 40-160 ms: a key press through SDL's queue, or a
 * button toggle on the virtual pad (seen at the next controller poll). */
static int injector_main(void *p)
{
    injector *inj = p;
    uint32_t seed = 777;
    for (unsigned k = 0;; k++) {
        seed = seed * 1103515245u + 12345u;
        if (tempo_wait(&inj->stop, 1, (40 + (seed >> 16) % 120) * TEMPO_NS_PER_MS, 0) == 0)
            return 0;
        int pad = atomic_load(&inj->pad_id);
        if (k % 2 == 1 && pad >= 0) {
            SDL_LockJoysticks(); /* the loop may close the pad meanwhile */
            SDL_Joystick *j = SDL_JoystickFromInstanceID(pad);
            if (j != NULL) {
                fifo_push(&inj->pads, tempo_now_ns());
                SDL_JoystickSetVirtualButton(j, SDL_CONTROLLER_BUTTON_A, (Uint8)((k / 2) % 2 == 0));
            }
            SDL_UnlockJoysticks();
        } else {
            SDL_Event e;
            SDL_zero(e);
            e.type = SDL_KEYDOWN;
            e.key.state = SDL_PRESSED;
            e.key.keysym.scancode = (SDL_Scancode)(SDL_SCANCODE_F13 + (int)(k / 2 % 12));
            fifo_push(&inj->keys, tempo_now_ns());
            SDL_PushEvent(&e);
            e.type = SDL_KEYUP;
            e.key.state = SDL_RELEASED;
            SDL_PushEvent(&e);
        }
    }
}

typedef struct line {
    double at_s;
    uint32_t type;
    char text[72];
    int64_t latency_ns; /* -1: not measured */
} line;

typedef struct view {
    sample_app app;
    tempo_loop *loop;
    tempo_input *in; /* filled by the loop (desc.input), read by update() */
    bool idle;       /* the game paused its loop: no input last tick */
    bool redraw;     /* something new to show */
    injector inj;
    bool injecting;
    int virtual_index; /* device index of our virtual pad, -1 if none */
    uint64_t start_ns;
    line lines[LINES];
    int nlines;
    uint64_t per_type[16];
    uint64_t total_events;
    /* the last second */
    double cpu_pct, wakes_per_s;
    uint64_t win_ns, win_cpu, win_switches;
    /* figures */
    int64_t key_lat[SAMPLES], pad_lat[SAMPLES];
    int nkey_lat, npad_lat;
    /* for the shutdown (on_stop) */
    tempo_handle *stats, *time_up;
    tempo_usage u0;
} view;

/* main()'s exit status, set by the shutdown (on_stop). */
static int g_exit_status = 1;

static void describe(const tempo_input_event *ev, char *out, size_t size)
{
    switch (ev->type) {
    case TEMPO_INPUT_KEY:
        snprintf(out, size, "%-10s %s%s mod %04x", SDL_GetScancodeName((SDL_Scancode)ev->u.key.scancode),
                 ev->u.key.down ? "down" : "up", ev->u.key.repeat ? " (repeat)" : "", ev->u.key.mod);
        break;
    case TEMPO_INPUT_MOUSE_BUTTON:
        snprintf(out, size, "button %d %s at %d,%d x%d", ev->u.button.button, ev->u.button.down ? "down" : "up",
                 ev->u.button.x, ev->u.button.y, ev->u.button.clicks);
        break;
    case TEMPO_INPUT_MOUSE_MOTION:
        snprintf(out, size, "at %d,%d rel %+d,%+d buttons %x", ev->u.motion.x, ev->u.motion.y,
                 ev->u.motion.dx, ev->u.motion.dy, ev->u.motion.buttons);
        break;
    case TEMPO_INPUT_MOUSE_WHEEL:
        snprintf(out, size, "wheel %+d,%+d (%.2f,%.2f)", ev->u.wheel.x, ev->u.wheel.y,
                 (double)ev->u.wheel.precise_x, (double)ev->u.wheel.precise_y);
        break;
    case TEMPO_INPUT_PAD_BUTTON:
        snprintf(out, size, "pad %u %s %s", ev->device,
                 SDL_GameControllerGetStringForButton((SDL_GameControllerButton)ev->u.pad_button.button),
                 ev->u.pad_button.down ? "down" : "up");
        break;
    case TEMPO_INPUT_PAD_AXIS:
        snprintf(out, size, "pad %u %s %+6d", ev->device,
                 SDL_GameControllerGetStringForAxis((SDL_GameControllerAxis)ev->u.pad_axis.axis),
                 ev->u.pad_axis.value);
        break;
    case TEMPO_INPUT_DEVICE_ADDED:
    case TEMPO_INPUT_DEVICE_REMOVED:
        snprintf(out, size, "pad %u \"%s\"", ev->device, ev->u.dev.name);
        break;
    default:
        snprintf(out, size, "?");
    }
}

/* One event from the ring: match it to an injection, log it. */
static void on_input(view *v, const tempo_input_event *ev)
{
    int64_t lat = -1;
    uint64_t t;
    if (ev->type == TEMPO_INPUT_KEY && ev->u.key.down && ev->u.key.scancode >= SDL_SCANCODE_F13 &&
        ev->u.key.scancode <= SDL_SCANCODE_F24 && fifo_pop(&v->inj.keys, &t)) {
        lat = (int64_t)(ev->time_ns - t);
        if (v->nkey_lat < SAMPLES)
            v->key_lat[v->nkey_lat++] = lat;
    } else if (ev->type == TEMPO_INPUT_PAD_BUTTON && (int)ev->device == atomic_load(&v->inj.pad_id) &&
               fifo_pop(&v->inj.pads, &t)) {
        lat = (int64_t)(ev->time_ns - t);
        if (v->npad_lat < SAMPLES)
            v->pad_lat[v->npad_lat++] = lat;
    }
    if (ev->type == TEMPO_INPUT_DEVICE_ADDED && v->virtual_index >= 0 &&
        (int)ev->device == SDL_JoystickGetDeviceInstanceID(v->virtual_index))
        atomic_store(&v->inj.pad_id, (int)ev->device);
    if (ev->type == TEMPO_INPUT_DEVICE_REMOVED && (int)ev->device == atomic_load(&v->inj.pad_id))
        atomic_store(&v->inj.pad_id, -1);

    v->per_type[ev->type < 16 ? ev->type : 0]++;
    v->total_events++;
    if (v->nlines == LINES) {
        memmove(v->lines, v->lines + 1, sizeof v->lines[0] * (LINES - 1));
        v->nlines--;
    }
    line *l = &v->lines[v->nlines++];
    l->at_s = (double)(ev->time_ns - v->start_ns) / 1e9;
    l->type = ev->type;
    l->latency_ns = lat;
    describe(ev, l->text, sizeof l->text);
}

static void toggle_virtual_pad(view *v)
{
    if (v->virtual_index >= 0) {
        atomic_store(&v->inj.pad_id, -1);
        SDL_JoystickDetachVirtual(v->virtual_index);
        v->virtual_index = -1;
        return;
    }
    v->virtual_index = SDL_JoystickAttachVirtual(SDL_JOYSTICK_TYPE_GAMECONTROLLER, SDL_CONTROLLER_AXIS_MAX,
                                                 SDL_CONTROLLER_BUTTON_MAX, 0);
    if (v->virtual_index < 0)
        fprintf(stderr, "virtual pad: %s\n", SDL_GetError());
}

static void toggle_injector(view *v)
{
    if (v->injecting) {
        tempo_event_set(v->inj.stop);
        SDL_WaitThread(v->inj.thread, NULL);
        tempo_event_reset(v->inj.stop);
        v->injecting = false;
    } else {
        v->inj.thread = SDL_CreateThread(injector_main, "inputview-injector", &v->inj);
        v->injecting = v->inj.thread != NULL;
    }
}

static void change_poll_rate(view *v, int dir)
{
    static const uint32_t rates[] = {30, 60, 125, 250, 500, 1000};
    tempo_input_stats st;
    tempo_input_get_stats(v->in, &st);
    int i = 0;
    while (i < 5 && rates[i] < st.poll_hz)
        i++;
    i += dir;
    i = i < 0 ? 0 : i > 5 ? 5 : i;
    tempo_input_set_poll_hz(v->in, rates[i]);
}

static void sample_usage(view *v)
{
    uint64_t now = tempo_now_ns();
    tempo_usage u;
    if (tempo_process_usage(&u) != 0)
        return;
    double wall = (double)(now - v->win_ns);
    if (v->win_ns != 0 && wall > 0) {
        v->cpu_pct = 100.0 * (double)(u.cpu_ns - v->win_cpu) / wall;
        v->wakes_per_s = (double)(u.voluntary_switches - v->win_switches) * 1e9 / wall;
    }
    v->win_ns = now;
    v->win_cpu = u.cpu_ns;
    v->win_switches = u.voluntary_switches;
}

static void draw(view *v)
{
    static const SDL_Color colour[] = {
        {200, 200, 200, 255}, {120, 230, 120, 255}, {255, 190, 60, 255}, {150, 150, 170, 255},
        {255, 150, 200, 255}, {90, 170, 255, 255},  {90, 210, 230, 255}, {255, 255, 255, 255},
        {255, 110, 110, 255},
    };
    SDL_Renderer *r = v->app.renderer;
    SDL_SetRenderDrawColor(r, 16, 18, 24, 255);
    SDL_RenderClear(r);
    tempo_input_stats st;
    tempo_input_get_stats(v->in, &st);
    SDL_SetRenderDrawColor(r, 235, 235, 235, 255);
    tempo_debug_textf(r, 16, 12, 2, "Tempo inputview  %.1f s", (double)(tempo_now_ns() - v->start_ns) / 1e9);
    tempo_debug_textf(r, 16, 36, 1, "route %s   CPU %.2f%%   %.0f wake-ups/s   %llu events",
                      tempo_wait_route(), v->cpu_pct, v->wakes_per_s, (unsigned long long)v->total_events);
    tempo_debug_textf(r, 16, 50, 1, "controllers open %u: %s   poll rate %u Hz   injector %s   ring max %u, dropped %llu",
                      st.pads_open, st.polling ? "polling" : "no polling", st.poll_hz,
                      v->injecting ? "on" : "off", st.max_queued, (unsigned long long)st.dropped);
    SDL_SetRenderDrawColor(r, 140, 140, 140, 255);
    tempo_debug_text(r, 16, 72, 1, "   time  type            event                                          latency");
    for (int i = 0; i < v->nlines; i++) {
        const line *l = &v->lines[i];
        SDL_Color c = colour[l->type < 9 ? l->type : 0];
        SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 255);
        char lat[24] = "";
        if (l->latency_ns >= 0)
            snprintf(lat, sizeof lat, "%8.3f ms", (double)l->latency_ns / 1e6);
        tempo_debug_textf(r, 16, 86 + i * 14, 1, "%7.3f  %-14s  %-46.46s %s", l->at_s,
                          tempo_input_type_name(l->type), l->text, lat);
    }
    SDL_SetRenderDrawColor(r, 140, 140, 140, 255);
    tempo_debug_text(r, 16, v->app.height - 20, 1,
                     "F1 injector  F2 virtual pad  +/- poll rate  Esc quits");
}

/* ---- Loop callbacks --------------------------------------------------------- */

static bool resume(view *v)
{
    if (!v->idle)
        return false;
    v->idle = false;
    tempo_loop_pause(v->loop, false);
    return true;
}

/* [loop] One tick: everything the ring holds, oldest first; pause the loop
 * when the tick brought nothing (this tick's render then draws nothing). */
static void update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    view *v = user;
    int n = 0;
    tempo_input_event ev;
    while (tempo_input_poll(v->in, &ev) > 0) {
        n++;
        on_input(v, &ev);
        if (ev.type != TEMPO_INPUT_KEY || !ev.u.key.down || ev.u.key.repeat)
            continue;
        switch (ev.u.key.scancode) {
        case SDL_SCANCODE_ESCAPE: tempo_loop_quit(loop); break;
        case SDL_SCANCODE_F1: toggle_injector(v); break;
        case SDL_SCANCODE_F2: toggle_virtual_pad(v); break;
        case SDL_SCANCODE_EQUALS:
        case SDL_SCANCODE_KP_PLUS: change_poll_rate(v, +1); break;
        case SDL_SCANCODE_MINUS:
        case SDL_SCANCODE_KP_MINUS: change_poll_rate(v, -1); break;
        default: break;
        }
    }
    if (n > 0) {
        v->redraw = true;
    } else if (!v->idle) {
        v->idle = true;
        tempo_loop_pause(loop, true);
    }
}

static void render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    view *v = user;
    if (!v->redraw)
        return;
    v->redraw = false;
    draw(v);
    SDL_RenderPresent(v->app.renderer);
}

/* [loop] Every SDL event (input is already in the ring): an idle loop
 * resumes, so update() reads the ring now. A running one reads it at its
 * next tick: a 1 kHz mouse costs wake-ups, not renders. */
static void on_event(tempo_loop *loop, const SDL_Event *e, void *user)
{
    (void)loop;
    view *v = user;
    if (e->type == SDL_WINDOWEVENT)
        v->redraw = true;
    resume(v);
}

/* [loop watch] The 1 Hz statistics timer. */
static void on_stats(tempo_loop *loop, tempo_handle *timer, void *user)
{
    (void)timer;
    view *v = user;
    sample_usage(v);
    v->redraw = true;
    if (!resume(v))
        tempo_loop_request_render(loop);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void figures(const char *what, int64_t *v, int n)
{
    if (n == 0) {
        printf("  %-46s (none)\n", what);
        return;
    }
    qsort(v, (size_t)n, sizeof v[0], cmp_i64);
    printf("  %-46s p50 %8.3f ms   p99 %8.3f ms   max %8.3f ms   (%d)\n", what, (double)v[n / 2] / 1e6,
           (double)v[(n * 99) / 100] / 1e6, (double)v[n - 1] / 1e6, n);
}

/* [loop] desc.on_stop: the loop quit (Esc, the window closed, --seconds) or
 * failed. The whole shutdown is here, not after tempo_loop_run() in main():
 * on the web tempo_loop_run() never returns (docs/web.md, "One source for
 * every backend"). */
static void on_stop(tempo_loop *loop, int rc, void *user)
{
    view *v = user;
    if (rc != 0)
        fprintf(stderr, "inputview: loop: %s (%s)\n", tempo_strerror(rc), tempo_get_error());
    if (v->injecting)
        toggle_injector(v);
    if (tempo_now_ns() - v->win_ns >= TEMPO_NS_PER_S / 2)
        sample_usage(v); /* a shorter window would give noise, not a rate */
    draw(v);
    if (v->app.screenshot)
        sample_screenshot(&v->app, v->app.screenshot);

    tempo_input_stats st;
    tempo_input_get_stats(v->in, &st);
    const tempo_loop_counts *t = &tempo_loop_get_stats(loop)->total;
    tempo_usage u1 = {0};
    tempo_process_usage(&u1);
    double wall = (double)(tempo_now_ns() - v->start_ns) / 1e9;
    printf("inputview summary (%s, video %s, wait route %s)\n", tempo_backend_name(), v->app.video_driver,
           tempo_wait_route());
    printf("  %.2f s, %llu loop wake-ups (%.1f/s), %llu input events: key %llu, mouse %llu, pad %llu, devices %llu\n",
           wall, (unsigned long long)t->frames, (double)t->frames / wall, (unsigned long long)v->total_events,
           (unsigned long long)v->per_type[TEMPO_INPUT_KEY],
           (unsigned long long)(v->per_type[TEMPO_INPUT_MOUSE_BUTTON] + v->per_type[TEMPO_INPUT_MOUSE_MOTION] +
                                v->per_type[TEMPO_INPUT_MOUSE_WHEEL]),
           (unsigned long long)(v->per_type[TEMPO_INPUT_PAD_BUTTON] + v->per_type[TEMPO_INPUT_PAD_AXIS]),
           (unsigned long long)(v->per_type[TEMPO_INPUT_DEVICE_ADDED] + v->per_type[TEMPO_INPUT_DEVICE_REMOVED]));
    printf("  loop: lockstep 60 Hz, %llu updates, %llu renders; woke for input %llu, timer %llu, watch %llu, "
           "source %llu, signal %llu, without sleeping %llu; idle (paused by the game) %.1f%% of the time\n",
           (unsigned long long)t->updates, (unsigned long long)t->renders,
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_MESSAGES], (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_TIMER],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_WATCH], (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_SOURCE],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_SIGNAL],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_DUE],
           t->elapsed_ns ? 100.0 * (double)t->paused_ns / (double)t->elapsed_ns : 0.0);
    printf("  controllers open %u, poll rate %u Hz; ring max depth %u, dropped %llu\n", st.pads_open, st.poll_hz,
           st.max_queued, (unsigned long long)st.dropped);
    printf("  whole run: CPU %.2f%% of one core, %.0f process wake-ups/s (with the injector and drawing)\n",
           100.0 * (double)(u1.cpu_ns - v->u0.cpu_ns) / 1e9 / wall,
           (double)(u1.voluntary_switches - v->u0.voluntary_switches) / wall);
    figures("injected key: SDL_PushEvent -> loop wake", v->key_lat, v->nkey_lat);
    figures("virtual pad: button set -> poll -> loop wake", v->pad_lat, v->npad_lat);

    tempo_loop_destroy(loop);
    if (v->virtual_index >= 0)
        SDL_JoystickDetachVirtual(v->virtual_index);
    tempo_input_destroy(v->in);
    tempo_timer_destroy(v->stats);
    tempo_timer_destroy(v->time_up);
    tempo_event_destroy(v->inj.stop);
    tempo_shutdown();
    sample_close(&v->app);
    free(v);
    g_exit_status = rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    view *v = calloc(1, sizeof *v);
    if (sample_parse(&v->app, argc, argv, NULL, NULL, NULL) != 0)
        return 1;
    /* Offscreen windows never have focus, and SDL drops controller events
     * of unfocused programs by default; a viewer wants them anyway. */
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    /* It draws and presents only when something changed (and measures its
     * own latency): a blocking vsync present would sit in its render time. */
    v->app.no_vsync = true;
    if (sample_open(&v->app, "Tempo inputview", 760, 400) != 0)
        return 1;
    v->in = tempo_input_create(NULL);
    v->inj.stop = tempo_event_create(true, false);
    tempo_handle *stats = v->stats = tempo_timer_create(false);
    tempo_handle *time_up = v->time_up = tempo_timer_create(false);
    v->loop = v->in ? tempo_loop_create(&(tempo_loop_desc){
                          .update_hz = 60,
                          .policy = TEMPO_LOOP_LOCKSTEP, /* update + render per tick, renders on request at once */
                          .window = v->app.window,
                          .update = update,
                          .render = render,
                          .event = on_event,
                          .user = v,
                          .input = v->in,
                          .on_stop = on_stop,
                      })
                    : NULL;
    if (v->in == NULL || v->inj.stop == NULL || stats == NULL || time_up == NULL || v->loop == NULL) {
        fprintf(stderr, "inputview: %s\n", tempo_get_error());
        return 1;
    }
    atomic_store(&v->inj.pad_id, -1);
    v->virtual_index = -1;
    v->redraw = true;
    v->start_ns = tempo_now_ns();
    tempo_process_usage(&v->u0);
    sample_usage(v);
    tempo_timer_set(stats, v->start_ns + TEMPO_NS_PER_S, TEMPO_NS_PER_S);
    tempo_loop_watch(v->loop, stats, on_stats, v);
    if (v->app.seconds > 0) {
        tempo_timer_set(time_up, v->start_ns + (uint64_t)(v->app.seconds * 1e9), 0);
        tempo_loop_watch(v->loop, time_up, sample_quit_loop, NULL);
    }
    if (v->app.headless) {
        toggle_virtual_pad(v);
        toggle_injector(v);
    }

    /* Returns here on the native backends; on the web it never returns
     * (the browser runs the loop): the shutdown is on_stop's, on both. */
    tempo_loop_run(v->loop);
    return g_exit_status;
}
