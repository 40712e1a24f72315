/* A tempo_input and the loop it feeds, destroyed in either order (issue 20:
 * no destroy-order rule). Destroying an input the loop uses makes it leave
 * the loop, like the framework's other sources; before, the loop went on
 * using the freed input (the next SDL event, the loop's destroy: ASan
 * reports a heap-use-after-free). Also tempo_input_attach/detach, the long
 * form of desc.input, and a recording that follows them. SDL video (x11 under Xvfb, or the dummy driver) for
 * the event queue; the loops run on a fake clock; the recording goes into
 * the working directory (the build directory) and is removed. */
#include <stdio.h>
#include <string.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/tempo.h"

#define S TEMPO_NS_PER_S

static bool video_ok;

typedef struct game {
    uint64_t now;
    int events;       /* desc.event calls */
    int key_events;   /* desc.event calls for SDL_KEYDOWN */
    int input_events; /* desc.input_event calls */
    uint64_t updates;
} game;

static uint64_t fc_now(void *user)
{
    return ((game *)user)->now;
}

static void fc_wait(void *user, uint64_t deadline)
{
    game *g = user;
    if (deadline != TEMPO_INFINITE && deadline > g->now)
        g->now = deadline;
    else if (deadline == TEMPO_INFINITE)
        g->now += S / 60;
}

static void on_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    ((game *)user)->updates++;
}

static void on_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    (void)user;
}

static void on_event(tempo_loop *loop, const SDL_Event *e, void *user)
{
    (void)loop;
    game *g = user;
    g->events++;
    if (e->type == SDL_KEYDOWN)
        g->key_events++;
}

static bool on_input(tempo_loop *loop, const tempo_input_event *ev, void *user)
{
    (void)loop;
    (void)ev;
    ((game *)user)->input_events++;
    return false;
}

static tempo_loop *new_loop(game *g, tempo_input *in)
{
    memset(g, 0, sizeof *g);
    g->now = 100 * S;
    return tempo_loop_create(&(tempo_loop_desc){.update_hz = 60, .max_render_hz = 60, .update = on_update,
                                                .render = on_render, .event = on_event, .input_event = on_input,
                                                .user = g, .input = in, .clock = {fc_now, fc_wait, g}});
}

static tempo_input *new_input(void)
{
    tempo_input *in = tempo_input_create(&(tempo_input_desc){.no_controllers = true});
    CHECK(in != NULL);
    return in;
}

static void push_key(int scancode)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.keysym.scancode = (SDL_Scancode)scancode;
    e.key.keysym.sym = SDLK_a;
    e.key.state = SDL_PRESSED;
    SDL_PushEvent(&e);
}

static void frames(tempo_loop *loop, int n)
{
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
}

static void drain_sdl(void)
{
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
    }
}

/* The input is destroyed first: the loop goes on without it (SDL events
 * still reach desc.event), and its own destroy touches nothing freed. */
static void an_input_destroyed_before_its_loop_leaves_it(void)
{
    if (!video_ok)
        TT_SKIP("no SDL video");
    drain_sdl();
    game g;
    tempo_input *in = new_input();
    tempo_loop *loop = new_loop(&g, in);
    CHECK(loop != NULL);
    push_key(SDL_SCANCODE_A);
    frames(loop, 3);
    CHECK_EQ_INT(g.key_events, 1);
    CHECK_EQ_INT(g.input_events, 1);
    tempo_input_stats st;
    CHECK_EQ_INT(tempo_input_get_stats(in, &st), 0);
    CHECK_EQ_U64(st.pushed, 1);

    tempo_input_destroy(in); /* before the loop: no rule against it any more */
    push_key(SDL_SCANCODE_B);
    frames(loop, 3);
    CHECK_EQ_INT(g.key_events, 2);   /* the event callback still sees it */
    CHECK_EQ_INT(g.input_events, 2); /* translated from SDL's event, as without desc.input */
    tempo_loop_destroy(loop);
}

/* The old order still works. */
static void a_loop_destroyed_before_its_input_lets_go_of_it(void)
{
    if (!video_ok)
        TT_SKIP("no SDL video");
    drain_sdl();
    game g;
    tempo_input *in = new_input();
    tempo_loop *loop = new_loop(&g, in);
    push_key(SDL_SCANCODE_A);
    frames(loop, 2);
    tempo_loop_destroy(loop);
    /* No listener of the dead loop is left on the input. */
    tempo_input_event ev = {.type = TEMPO_INPUT_KEY};
    ev.u.key.scancode = SDL_SCANCODE_C;
    ev.u.key.down = true;
    CHECK_EQ_INT(tempo_input_push(in, &ev), 0);
    CHECK_EQ_INT(g.input_events, 1);
    tempo_input_stats st;
    tempo_input_get_stats(in, &st);
    CHECK_EQ_U64(st.pushed, 2);
    tempo_input_destroy(in);
}

/* tempo_input_attach/detach: desc.input's long form, at any time. */
static void attach_and_detach_at_any_time(void)
{
    if (!video_ok)
        TT_SKIP("no SDL video");
    drain_sdl();
    game g;
    tempo_loop *loop = new_loop(&g, NULL);
    tempo_input *in = new_input();
    CHECK_EQ_INT(tempo_input_attach(NULL, loop), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_attach(in, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_detach(in), TEMPO_EINVAL); /* not attached */
    CHECK_EQ_INT(tempo_input_detach(NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_attach(in, loop), 0);
    CHECK_EQ_INT(tempo_input_attach(in, loop), 0); /* again: already there */
    tempo_input *other = new_input();
    CHECK_EQ_INT(tempo_input_attach(other, loop), TEMPO_EBUSY); /* one input per loop */
    game g2;
    tempo_loop *loop2 = new_loop(&g2, NULL);
    CHECK_EQ_INT(tempo_input_attach(in, loop2), TEMPO_EBUSY); /* one loop per input */
    /* desc.input of an input attached elsewhere: the create fails. */
    game g3;
    CHECK(new_loop(&g3, in) == NULL);

    push_key(SDL_SCANCODE_A);
    frames(loop, 2);
    tempo_input_stats st;
    tempo_input_get_stats(in, &st);
    CHECK_EQ_U64(st.pushed, 1);
    CHECK_EQ_INT(g.input_events, 1);

    CHECK_EQ_INT(tempo_input_detach(in), 0);
    push_key(SDL_SCANCODE_B);
    frames(loop, 2);
    tempo_input_get_stats(in, &st);
    CHECK_EQ_U64(st.pushed, 1); /* detached: the ring got nothing */
    CHECK_EQ_INT(g.key_events, 2);

    /* Attached to the other loop now; that loop is destroyed first. */
    CHECK_EQ_INT(tempo_input_attach(in, loop2), 0);
    CHECK_EQ_INT(tempo_input_attach(other, loop), 0);
    tempo_loop_destroy(loop2);
    CHECK_EQ_INT(tempo_input_detach(in), TEMPO_EINVAL); /* the loop let go of it */
    tempo_input_destroy(other); /* leaves `loop` */
    push_key(SDL_SCANCODE_C);
    frames(loop, 2);
    CHECK_EQ_INT(g.key_events, 3);
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
}

/* An input attached while the loop records is recorded from then on, and
 * one destroyed in the middle of a recording stops being recorded. */
static void a_recording_follows_attach_and_destroy(void)
{
    if (!video_ok)
        TT_SKIP("no SDL video");
    drain_sdl();
    game g;
    tempo_loop *loop = new_loop(&g, NULL);
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = "test_input_lifetime.trec"}), 0);
    push_key(SDL_SCANCODE_A); /* no input yet: not recorded */
    frames(loop, 2);
    tempo_input *in = new_input();
    CHECK_EQ_INT(tempo_input_attach(in, loop), 0);
    push_key(SDL_SCANCODE_B);
    frames(loop, 2);
    tempo_record_stats rs;
    tempo_loop_get_record_stats(loop, &rs);
    CHECK_EQ_U64(rs.inputs, 1);
    tempo_input_destroy(in);
    push_key(SDL_SCANCODE_C);
    frames(loop, 2);
    tempo_loop_get_record_stats(loop, &rs);
    CHECK_EQ_U64(rs.inputs, 1);
    CHECK_EQ_INT(g.key_events, 3);
    CHECK_EQ_INT(tempo_loop_record_stop(loop), 0);
    tempo_loop_destroy(loop);
    remove("test_input_lifetime.trec");
}

/* With native input (the win32 backend's DirectInput), the input's handle
 * is one of the loop's sources: destroying the input takes it out of the
 * wait set at once (the loop waited on the freed handle before). The sdl
 * backend has no native input: skipped there. */
static void a_destroyed_input_takes_its_native_handle_out_of_the_wait(void)
{
    if (!video_ok)
        TT_SKIP("no SDL video");
    drain_sdl();
    SDL_Window *win = SDL_CreateWindow("tempo input-lifetime", 0, 0, 160, 120, SDL_WINDOW_SHOWN);
    if (win == NULL)
        TT_SKIP("no window");
    tempo_input *in = new_input();
    int r = tempo_input_attach_window(in, win, 0);
    if (r == TEMPO_ENOTSUP) {
        tempo_input_destroy(in);
        SDL_DestroyWindow(win);
        TT_SKIP("no native input on this backend");
    }
    CHECK_EQ_INT(r, 0);
    game g;
    tempo_loop *loop = new_loop(&g, in);
    frames(loop, 3);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    CHECK_EQ_INT(st->source_count, 1); /* the native input */
    if (st->source_count == 1)
        CHECK_STR_EQ(st->sources[0].name, "input");
    tempo_input_destroy(in);
    st = tempo_loop_get_stats(loop);
    CHECK_EQ_INT(st->source_count, 0);
    frames(loop, 3); /* TEMPO_EINVAL from the wait if the freed handle were still in it */
    tempo_loop_destroy(loop);
    SDL_DestroyWindow(win);
}

static const tt_case cases[] = {
    TT_CASE(a_destroyed_input_takes_its_native_handle_out_of_the_wait),
    TT_CASE(attach_and_detach_at_any_time),
    TT_CASE(a_recording_follows_attach_and_destroy),
    TT_CASE(an_input_destroyed_before_its_loop_leaves_it),
    TT_CASE(a_loop_destroyed_before_its_input_lets_go_of_it),
};

int main(int argc, char **argv)
{
    video_ok = SDL_Init(SDL_INIT_VIDEO) == 0;
    if (!video_ok)
        printf("# no SDL video: %s\n", SDL_GetError());
    int r = TT_MAIN(argc, argv, cases);
    SDL_Quit();
    return r;
}
