/* duel: two-player pong over the network in lockstep: every capability of
 * Tempo in one small game.
 *
 * Two clients connect to samples/duel/duel_server (a relay). Each sends its
 * input for simulation tick N + DELAY and runs tick N once it has both
 * players' inputs for it, so both simulate the same deterministic match
 * (duel_game.c) and print the same checkpoint hash every 60 ticks. A third
 * client of a relay started with --spectators watches: the relay's HELLO
 * numbers it 2 or more, and it simulates the match from both players'
 * inputs and prints the same checkpoints. What
 * the game uses, all through the public headers:
 *  - tempo_loop (60 updates/s, interpolated renders, the loop presents with
 *    vsync; V toggles it, F1 shows the loop's statistics overlay);
 *  - tempo_net attached to the loop: the relay's frames reach on_message
 *    on the loop thread; tempo_net_send sends our inputs;
 *  - tempo_input (desc.input): keyboard (W/S, arrows, P) and controller
 *    (d-pad, left stick, Start) read from the ring in update(); on a
 *    backend with native input (win32: DirectInput8) through
 *    tempo_input_attach_window;
 *  - tempo_loader: the music and the ball texture, generated at start into
 *    the temporary directory (never committed), decoded on a loader thread;
 *  - tempo_audio: the music loops with a mark on every beat; player 0's
 *    beats travel in its inputs (DUEL_BEAT) so both simulations spawn a
 *    power-up on the same tick, every bar;
 *  - pause: P or Start sends DUEL_PAUSE in the input, so both simulations
 *    pause on the same tick, and the music with them (tempo_audio_pause:
 *    no beat mark while paused, the music goes on from where it stood);
 *  - the loop keeps ticking while the window is hidden or minimized
 *    (desc.run_while_hidden): the other player waits for our inputs;
 *  - the handshake: each client sends its tempo_fingerprint() and
 *    TEMPO_BUILD_IDENTITY in DUEL_JOIN and refuses, in one line naming both
 *    builds, a player whose build may compute other bits
 *    (tempo_build_compare): lockstep would desync later, silently;
 *  - record and replay: --record FILE (with the protocol version and the
 *    options in the recording's metadata), then --replay FILE runs the
 *    same match again with no server, printing the same checkpoints.
 *
 * Test options: --bot (the computer plays, and player 0 pauses at ticks
 * 200-260), --ticks N (end after N simulation ticks; headless default 300),
 * --stall-peer SECONDS (at tick 120 the relay stops reading our socket for
 * that long while we stream 60 KB spectator snapshots per update: the game
 * must keep ticking; it prints its longest update and the loop's tick
 * lateness during the stall), --fingerprint HEX (announce this fingerprint
 * in DUEL_JOIN instead of ours: the test of the refusal). At the
 * end a live run prints what its music did while the match was paused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL_mixer.h>
#include <tempo/debugdraw.h>
#include <tempo/determinism.h>
#include <tempo/net.h>
#include <tempo/replay.h>
#include <tempo/tempo.h>

#include "duel_game.h"
#include "sample.h"

#define HZ 60
#define TICK_NS (TEMPO_NS_PER_S / HZ)
#define DELAY 4        /* a local input applies DELAY ticks after it was made */
#define RING 256       /* inputs kept per player at first (far more than DELAY) */
#define CHECK_EVERY 60 /* ticks between checkpoint hashes */
#define MAX_STEPS 3    /* simulation ticks one update may run to catch up */
#define BPM 120
#define STALL_AT 120
#define SNAPSHOT_BYTES 60000
/* The recording's metadata (tempo_record_desc.meta): what a replay needs
 * besides the recorded frames, as little-endian uint32s:
 * DUEL_PROTO_VERSION, META_* option bits, the --ticks end tick. */
#define META_BYTES 12
#define META_BOT 1u /* --bot: the bot decides our inputs again in the replay */

typedef struct duel {
    sample_app app;
    /* options */
    const char *host, *record, *replay;
    int port;
    bool bot;
    double stall_s;
    uint32_t end_tick; /* 0: endless */
    uint32_t fingerprint; /* what we announce in DUEL_JOIN: tempo_fingerprint() or --fingerprint */
    char identity[TEMPO_BUILD_IDENTITY_MAX]; /* and our TEMPO_BUILD_IDENTITY (a replay: the recorder's) */
    /* Tempo and SDL objects */
    tempo_loop *loop;
    tempo_input *in;
    tempo_netq *q;
    tempo_net *net;
    tempo_audio *au;
    tempo_loader *ld;
    SDL_Texture *ball;
    Mix_Music *music;
    char music_path[512], ball_path[512];
    const char *input_path; /* "SDL events" or "DirectInput" */
    /* the match: everything update() and the handlers change */
    int player; /* -1 until the relay's HELLO */
    bool joined; /* our DUEL_JOIN is sent */
    bool started, peer_left, over, failed;
    duel_sim sim;
    /* Each player's inputs by tick, in a ring of `ring` ticks (a power of
     * two) from the next tick to simulate on: buttons of player p at
     * inputs[p * ring + t % ring], flags at inputs[(2 + p) * ring + ...]. */
    uint8_t *inputs;
    uint32_t ring;
    uint32_t have[2]; /* each player's inputs are known up to this tick */
    uint32_t sent;    /* ours are sent up to this tick */
    uint32_t updates; /* updates since the match started: the simulation's pace */
    bool key_up, key_down, pad_up, pad_down, pause_wanted;
    int16_t stick;
    uint32_t beats_pending; /* music beats not yet put into an input */
    uint64_t next_beat;     /* the next beat of the music to mark */
    uint64_t flash_ns;      /* when the last beat was heard (display only) */
    bool music_paused;
    /* the music while paused (live runs; a replay has the marks' tags and
     * frames only): marks raised by the mixer between our pause and
     * resume, and the music's start on the device clock (device_frame -
     * frame), which a pause that holds the position moves by the pause */
    uint64_t pause_ns, resume_ns; /* the latest pause (after it returned) and resume (before it) */
    uint64_t paused_ns, marks, marks_paused; /* paused_ns: in all */
    uint64_t offset_first, offset_last;
    /* --stall-peer */
    bool stall_asked;
    uint64_t stall_end_ns, stall_late_ns, stall_update_ns, send_max_ns, snapshots, snapshots_refused;
    bool overlay;
    /* For the end (on_stop), which runs when the loop ends on every backend
     * (on the web tempo_loop_run() never returns). */
    tempo_replay *rp;         /* --replay, or NULL */
    tempo_handle *time_up;    /* --seconds */
    int exit_code;            /* main()'s */
} duel;

/* ---- Assets, generated at run time ----------------------------------------- */

static int write_wav(const char *path, const Sint16 *pcm, uint32_t frames, uint32_t rate)
{
    SDL_RWops *f = SDL_RWFromFile(path, "wb");
    if (f == NULL)
        return -1;
    uint32_t bytes = frames * 2;
    int ok = SDL_RWwrite(f, "RIFF", 4, 1) == 1 && SDL_WriteLE32(f, 36 + bytes) && SDL_RWwrite(f, "WAVEfmt ", 8, 1) == 1 &&
             SDL_WriteLE32(f, 16) && SDL_WriteLE16(f, 1) && SDL_WriteLE16(f, 1) && SDL_WriteLE32(f, rate) &&
             SDL_WriteLE32(f, rate * 2) && SDL_WriteLE16(f, 2) && SDL_WriteLE16(f, 16) &&
             SDL_RWwrite(f, "data", 4, 1) == 1 && SDL_WriteLE32(f, bytes);
    for (uint32_t i = 0; ok && i < frames; i++)
        ok = SDL_WriteLE16(f, (Uint16)pcm[i]);
    return SDL_RWclose(f) == 0 && ok ? 0 : -1;
}

/* Four bars at BPM: a kick on every beat and a little arpeggio. */
static int make_music(const char *path)
{
    const uint32_t rate = 22050, per_beat = rate * 60 / BPM, beats = 16;
    static const double notes[8] = {220.0, 261.6, 329.6, 392.0, 440.0, 392.0, 329.6, 293.7};
    Sint16 *pcm = calloc((size_t)per_beat * beats, sizeof *pcm);
    if (pcm == NULL)
        return -1;
    for (uint32_t b = 0; b < beats; b++)
        for (uint32_t i = 0; i < per_beat; i++) {
            double t = (double)i / rate;
            double kick = 9000.0 * sin(6.2831853 * (50.0 + 60.0 * exp(-t * 30.0)) * t) * exp(-t * 12.0);
            double half = (double)per_beat / rate / 2;
            double note = notes[(b * 2 + (t >= half)) % 8] * (b % 4 == 0 ? 2.0 : 1.0);
            double tt = t >= half ? t - half : t;
            double lead = 3500.0 * sin(6.2831853 * note * tt) * exp(-tt * 6.0);
            pcm[b * per_beat + i] = (Sint16)(kick + lead);
        }
    int r = write_wav(path, pcm, per_beat * beats, rate);
    free(pcm);
    return r;
}

/* A 16x16 ball with a soft edge, as a BMP with alpha. */
static int make_ball(const char *path)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, 16, 16, 32, SDL_PIXELFORMAT_ARGB8888);
    if (s == NULL)
        return -1;
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
            double d = sqrt((x - 7.5) * (x - 7.5) + (y - 7.5) * (y - 7.5));
            double a = d < 6.5 ? 1.0 : d < 8.0 ? (8.0 - d) / 1.5 : 0.0;
            Uint8 shade = (Uint8)(255 - (x + y) * 3);
            ((Uint32 *)s->pixels)[y * (s->pitch / 4) + x] = (Uint32)(a * 255) << 24 | (Uint32)shade << 16 |
                                                             (Uint32)shade << 8 | 240u;
        }
    int r = SDL_SaveBMP(s, path);
    SDL_FreeSurface(s);
    return r;
}

/* ---- Music and its marks ---------------------------------------------------- */

static void mark_ahead(duel *d, uint64_t up_to)
{
    for (; d->next_beat <= up_to; d->next_beat++)
        if (tempo_audio_mark_ms(d->au, TEMPO_AUDIO_MUSIC, d->next_beat * 60000 / BPM, NULL, d->next_beat) != 0)
            break;
}

/* [loop thread] The loader's results. */
static void on_loaded(tempo_loader *ld, const tempo_load_result *r, void *user)
{
    (void)ld;
    duel *d = user;
    if (r->error != 0) {
        fprintf(stderr, "duel: %s: %s\n", r->path, r->error_text);
        return;
    }
    if (r->type == TEMPO_LOAD_IMAGE) {
        d->ball = r->texture;
        SDL_SetTextureBlendMode(d->ball, SDL_BLENDMODE_BLEND);
    } else if (r->type == TEMPO_LOAD_MUSIC) {
        d->music = r->music;
        /* A replay gets the recorded beats from the file; no music needed. */
        if (!tempo_loop_is_replaying(d->loop) && tempo_audio_play_music(d->au, d->music, -1) == 0)
            mark_ahead(d, 4);
    }
}

/* [loop thread] A beat of our music was mixed. Player 0's beats become
 * DUEL_BEAT flags in its inputs: the simulations see them on the same tick. */
static void on_notice(const tempo_audio_notice *n, void *user)
{
    duel *d = user;
    if (n->kind != TEMPO_AUDIO_MARK)
        return;
    d->flash_ns = tempo_now_ns();
    if (d->player == 0 && d->started)
        d->beats_pending++;
    if (tempo_loop_is_replaying(d->loop))
        return; /* the recorded marks; nothing to mark ahead, no mixer times */
    mark_ahead(d, n->tag + 4);
    /* Raised after our tempo_audio_pause() returned and (if it did) before
     * the resume: the pause took the device lock, so no buffer was being
     * mixed then, and the music's position must stand still until the
     * resume. (The notices of earlier pauses are all read by now.) */
    d->marks++;
    if (d->pause_ns != 0 && n->raised_ns > d->pause_ns && (d->resume_ns < d->pause_ns || n->raised_ns < d->resume_ns))
        d->marks_paused++;
    uint64_t offset = n->device_frame - n->frame;
    if (d->marks == 1)
        d->offset_first = offset;
    d->offset_last = offset;
}

/* ---- Inputs ----------------------------------------------------------------- */

static uint8_t *buttons_at(duel *d, int p, uint32_t t)
{
    return &d->inputs[(size_t)p * d->ring + (t & (d->ring - 1))];
}

static uint8_t *flags_at(duel *d, int p, uint32_t t)
{
    return &d->inputs[(size_t)(2 + p) * d->ring + (t & (d->ring - 1))];
}

/* Room for tick `t`'s inputs without overwriting one not simulated yet.
 * A player's peer is never more than 2 * DELAY ticks ahead of us (it waits
 * for our inputs), but a spectator waits for nobody: one that was stopped
 * for seconds (a slow start, a preempted or suspended process) is then
 * handed the match it missed at once. Overwriting those inputs desynced it
 * silently (a wine spectator under load ended 0:2 where the players ended
 * 0:0), so the ring grows to what is not simulated yet. False when out of
 * memory (the caller ends the match, loudly). */
static bool inputs_fit(duel *d, uint32_t t)
{
    if (d->ring != 0 && t - d->sim.tick < d->ring)
        return true;
    uint32_t cap = d->ring != 0 ? d->ring : RING;
    while (t - d->sim.tick >= cap) {
        if (cap >= (1u << 30))
            return false;
        cap *= 2;
    }
    uint8_t *grown = calloc(4, cap);
    if (grown == NULL)
        return false;
    for (int row = 0; d->inputs != NULL && row < 4; row++) /* buttons 0, 1, flags 0, 1 */
        for (uint32_t k = d->sim.tick + 1; k <= d->have[row % 2]; k++)
            grown[(size_t)row * cap + (k & (cap - 1))] = d->inputs[(size_t)row * d->ring + (k & (d->ring - 1))];
    free(d->inputs);
    d->inputs = grown;
    d->ring = cap;
    return true;
}

/* ---- Network ---------------------------------------------------------------- */

static int timed_send(duel *d, uint16_t type, const void *data, size_t size)
{
    uint64_t t0 = tempo_now_ns();
    int r = tempo_net_send(d->net, type, data, size);
    uint64_t took = tempo_now_ns() - t0;
    if (took > d->send_max_ns)
        d->send_max_ns = took;
    return r;
}

/* [loop thread] The relay's frames and the connection's fate. */
static void on_message(const tempo_netq_msg *m, void *user)
{
    duel *d = user;
    if (m->type == DUEL_HELLO && m->size == sizeof(duel_hello)) {
        duel_hello hi;
        memcpy(&hi, m->data, sizeof hi);
        if (hi.version != DUEL_PROTO_VERSION || hi.player > 255) {
            fprintf(stderr, "duel: the relay speaks version %u as player %u\n", hi.version, hi.player);
            d->failed = d->peer_left = true;
            return;
        }
        d->player = (int)hi.player;
        duel_sim_init(&d->sim, hi.seed);
        printf("duel: %s %d, seed %016llx\n", d->player >= 2 ? "spectator" : "player", d->player,
               (unsigned long long)hi.seed);
    } else if (m->type == DUEL_JOIN && m->size == sizeof(duel_join)) {
        /* The other player's handshake (a spectator gets both), before
         * DUEL_START (the relay sends it first). A lockstep game whose builds
         * may compute other bits
         * desyncs somewhere later, silently: refuse now, naming both, as a
         * replay of another build is refused (tempo_build_compare). */
        duel_join j;
        memcpy(&j, m->data, sizeof j);
        j.identity[sizeof j.identity - 1] = '\0';
        char why[1024];
        if (j.version != DUEL_PROTO_VERSION) {
            fprintf(stderr, "duel: the other player speaks protocol version %u, we %u\n", j.version,
                    DUEL_PROTO_VERSION);
            d->failed = d->peer_left = true;
        } else if (tempo_build_compare(&(tempo_build){j.fingerprint, j.identity, "theirs"},
                                       &(tempo_build){d->fingerprint, d->identity, "ours"}, why,
                                       sizeof why) == TEMPO_EBUILD) {
            fprintf(stderr, "duel: refused: the other player's build computes floats differently: %s\n", why);
            d->failed = d->peer_left = true;
        }
    } else if (m->type == DUEL_START) {
        d->started = true;
    } else if (m->type == DUEL_INPUT && m->size == sizeof(duel_input)) {
        duel_input in;
        memcpy(&in, m->data, sizeof in);
        int p = in.player;
        if (p > 1 || p == d->player || in.tick != d->have[p] + 1)
            return; /* TCP keeps order: anything else is not ours */
        if (!inputs_fit(d, in.tick)) {
            fprintf(stderr, "duel: no memory for the inputs of ticks %u-%u: the match ends here\n",
                    d->sim.tick + 1, in.tick);
            d->failed = d->peer_left = true;
            return;
        }
        *buttons_at(d, p, in.tick) = in.buttons;
        *flags_at(d, p, in.tick) = in.flags;
        d->have[p] = in.tick;
    } else if (m->type == DUEL_LEFT || m->type == TEMPO_NET_MSG_CLOSED || m->type == TEMPO_NET_MSG_ERROR) {
        if (m->type != DUEL_LEFT && !d->over)
            fprintf(stderr, "duel: connection: %s\n", ((const tempo_net_status *)m->data)->detail);
        d->peer_left = true;
    }
}

/* ---- The game ---------------------------------------------------------------- */

/* Simulation ticks whose inputs are all here: a player makes its own ahead,
 * so the other player's; a spectator (player 2 and up) has no paddle and
 * waits for both. */
static uint32_t known(const duel *d)
{
    if (d->player >= 2)
        return d->have[0] < d->have[1] ? d->have[0] : d->have[1];
    return d->have[1 - d->player];
}

static void read_input(duel *d)
{
    tempo_input_event ev;
    while (tempo_input_poll(d->in, &ev) > 0) {
        if (ev.type == TEMPO_INPUT_KEY && !ev.u.key.repeat) {
            int sc = ev.u.key.scancode;
            if (sc == SDL_SCANCODE_W || sc == SDL_SCANCODE_UP)
                d->key_up = ev.u.key.down;
            else if (sc == SDL_SCANCODE_S || sc == SDL_SCANCODE_DOWN)
                d->key_down = ev.u.key.down;
            else if (sc == SDL_SCANCODE_P && ev.u.key.down)
                d->pause_wanted = true;
        } else if (ev.type == TEMPO_INPUT_PAD_BUTTON) {
            uint8_t b = ev.u.pad_button.button;
            if (b == SDL_CONTROLLER_BUTTON_DPAD_UP)
                d->pad_up = ev.u.pad_button.down;
            else if (b == SDL_CONTROLLER_BUTTON_DPAD_DOWN)
                d->pad_down = ev.u.pad_button.down;
            else if (b == SDL_CONTROLLER_BUTTON_START && ev.u.pad_button.down)
                d->pause_wanted = true;
        } else if (ev.type == TEMPO_INPUT_PAD_AXIS && ev.u.pad_axis.axis == SDL_CONTROLLER_AXIS_LEFTY) {
            d->stick = ev.u.pad_axis.value;
        }
    }
}

/* Our inputs up to DELAY ticks ahead of the simulation, each decided from
 * the state as it is now (the bot) or the keys and pad held now. */
static void make_inputs(duel *d)
{
    int me = d->player;
    while (d->have[me] < d->sim.tick + DELAY) {
        uint32_t t = ++d->have[me];
        uint8_t b = d->bot ? duel_bot(&d->sim, me)
                           : (uint8_t)((d->key_up || d->pad_up || d->stick < -12000 ? DUEL_UP : 0) |
                                       (d->key_down || d->pad_down || d->stick > 12000 ? DUEL_DOWN : 0));
        uint8_t f = 0;
        if (d->pause_wanted || (d->bot && me == 0 && (t == 200 || t == 260)))
            f |= DUEL_PAUSE;
        d->pause_wanted = false;
        if (d->beats_pending > 0) {
            f |= DUEL_BEAT;
            d->beats_pending--;
        }
        *buttons_at(d, me, t) = b; /* within the ring: main() made it RING ticks */
        *flags_at(d, me, t) = f;
    }
}

/* Sends what is not sent yet; a send refused now (not connected yet, or a
 * full queue) is tried again next update, so no input is ever lost. */
static void send_inputs(duel *d)
{
    int me = d->player;
    if (tempo_loop_is_replaying(d->loop)) {
        d->sent = d->have[me];
        return;
    }
    for (; d->sent < d->have[me]; d->sent++) {
        uint32_t t = d->sent + 1;
        duel_input in = {t, (uint8_t)me, *buttons_at(d, me, t), *flags_at(d, me, t), 0};
        if (timed_send(d, DUEL_INPUT, &in, sizeof in) != 0)
            break;
    }
}

/* --stall-peer: at STALL_AT the relay stops reading our socket; meanwhile
 * we stream spectator snapshots (what fills the socket buffers, as a slow
 * real link would) and watch the loop's tick lateness. */
static void stall_peer(duel *d)
{
    uint64_t now = tempo_now_ns();
    if (!d->stall_asked && d->sim.tick >= STALL_AT) {
        duel_stall st = {(uint32_t)(d->stall_s * 1000)};
        if (timed_send(d, DUEL_STALL, &st, sizeof st) != 0)
            return;
        d->stall_asked = true;
        d->stall_end_ns = now + (uint64_t)(d->stall_s * 1e9);
    }
    if (!d->stall_asked || now > d->stall_end_ns + 2500 * TEMPO_NS_PER_MS)
        return;
    if (now < d->stall_end_ns) {
        static uint8_t snapshot[SNAPSHOT_BYTES];
        memcpy(snapshot, &d->sim, sizeof d->sim);
        if (timed_send(d, DUEL_SNAPSHOT, snapshot, sizeof snapshot) == 0)
            d->snapshots++;
        else
            d->snapshots_refused++;
    }
    /* The loop's last complete 1 s window, sampled until it covers the
     * stall's end. */
    uint64_t late = tempo_loop_get_stats(d->loop)->last_second.lateness_max_ns;
    if (late > d->stall_late_ns)
        d->stall_late_ns = late;
}

/* One update: input, then one simulation tick if both
 * players' inputs for it are here (a few, to catch up after a wait: the
 * simulation keeps the pace of the updates since the start). */
static void play(tempo_loop *loop, duel *d)
{
    bool replaying = tempo_loop_is_replaying(loop);
    read_input(d);
    /* Our half of the handshake, tried again next update if refused. */
    if (d->player >= 0 && !d->joined && !replaying) {
        duel_join j;
        memset(&j, 0, sizeof j);
        j.version = DUEL_PROTO_VERSION;
        j.fingerprint = d->fingerprint;
        snprintf(j.identity, sizeof j.identity, "%s", d->identity);
        d->joined = timed_send(d, DUEL_JOIN, &j, sizeof j) == 0;
    }
    if (!d->started && d->peer_left && !replaying) {
        fprintf(stderr, "duel: the match ended before it started\n");
        d->failed = true;
        tempo_loop_quit(loop);
        return;
    }
    if (!d->started || d->player < 0)
        return;
    int me = d->player;
    bool playing = me < 2; /* a spectator makes and sends no inputs */
    d->updates++;
    if (playing)
        make_inputs(d);
    for (int n = 0; n < MAX_STEPS && !d->over && d->sim.tick < d->updates && known(d) > d->sim.tick; n++) {
        uint32_t t = d->sim.tick + 1;
        uint8_t b[2] = {*buttons_at(d, 0, t), *buttons_at(d, 1, t)};
        uint8_t f[2] = {*flags_at(d, 0, t), *flags_at(d, 1, t)};
        duel_sim_step(&d->sim, b, f);
        if (t % CHECK_EVERY == 0)
            printf("checkpoint %u %016llx\n", t, (unsigned long long)duel_sim_hash(&d->sim));
        if (d->end_tick != 0 && t >= d->end_tick) {
            d->over = true;
            printf("final %u %016llx score %u:%u\n", t, (unsigned long long)duel_sim_hash(&d->sim),
                   d->sim.score[0], d->sim.score[1]);
        }
        if (playing)
            make_inputs(d);
    }
    /* The music pauses with the match: its position stands still, so no
     * beat mark comes while paused, and it goes on from there. (A replay
     * plays no music: the recorded marks arrive at their ticks.) */
    if (d->sim.paused != d->music_paused && !replaying && d->music != NULL) {
        if (d->sim.paused) {
            tempo_audio_pause(d->au);
            d->pause_ns = tempo_now_ns();
        } else {
            d->resume_ns = tempo_now_ns();
            d->paused_ns += d->resume_ns - d->pause_ns;
            tempo_audio_resume(d->au);
        }
        d->music_paused = d->sim.paused;
    }
    if (playing)
        send_inputs(d);
    if (d->stall_s > 0 && !replaying && playing)
        stall_peer(d);
    /* A replay ends by itself after the recorded ticks. */
    if (replaying)
        return;
    if (d->over && (!playing || d->sent == d->have[me]) && (d->bot || d->app.headless))
        tempo_loop_quit(loop);
    if (!d->over && d->peer_left && known(d) <= d->sim.tick) {
        fprintf(stderr, "duel: %s left at tick %u\n", playing ? "the other player" : "a player", d->sim.tick);
        d->failed = true;
        tempo_loop_quit(loop);
    }
}

/* [loop thread] desc.update. */
static void update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    duel *d = user;
    uint64_t t0 = tempo_now_ns();
    play(loop, d);
    /* --stall-peer: the game's own time per update while the relay does not
     * read: a send that blocks shows here, whatever the machine's load. */
    uint64_t t1 = tempo_now_ns();
    if (d->stall_asked && t0 <= d->stall_end_ns + 500 * TEMPO_NS_PER_MS && t1 - t0 > d->stall_update_ns)
        d->stall_update_ns = t1 - t0;
}

static uint64_t hash_state(tempo_loop *loop, void *user)
{
    (void)loop;
    const duel *d = user;
    return duel_sim_hash(&d->sim) ^ (uint64_t)(d->player + 1) << 56;
}

static void draw(duel *d)
{
    SDL_Renderer *r = d->app.renderer;
    const duel_sim *s = &d->sim;
    uint64_t since = tempo_now_ns() - d->flash_ns;
    Uint8 glow = since < 150 * TEMPO_NS_PER_MS ? (Uint8)(40 - since * 40 / (150 * TEMPO_NS_PER_MS)) : 0;
    SDL_SetRenderDrawColor(r, (Uint8)(12 + glow), 14, (Uint8)(28 + glow), 255);
    SDL_RenderClear(r);
    SDL_SetRenderDrawColor(r, 60, 64, 90, 255);
    for (int y = 4; y < DUEL_H; y += 24)
        SDL_RenderFillRect(r, &(SDL_Rect){DUEL_W / 2 - 1, y, 3, 12});
    for (int p = 0; p < 2; p++) {
        if (p == d->player)
            SDL_SetRenderDrawColor(r, 120, 220, 255, 255);
        else
            SDL_SetRenderDrawColor(r, 255, 150, 120, 255);
        int x = p == 0 ? 20 : DUEL_W - 28;
        SDL_RenderFillRect(r, &(SDL_Rect){x, s->py[p] / DUEL_FP - s->half[p], 8, 2 * s->half[p]});
    }
    if (s->pu_live) {
        SDL_SetRenderDrawColor(r, 250, 220, 60, 255);
        SDL_RenderFillRect(r, &(SDL_Rect){s->pux - 9, s->puy - 9, 18, 18});
    }
    SDL_Rect ball = {s->bx / DUEL_FP - 8, s->by / DUEL_FP - 8, 16, 16};
    if (d->ball != NULL) {
        SDL_RenderCopy(r, d->ball, NULL, &ball);
    } else {
        SDL_SetRenderDrawColor(r, 240, 240, 240, 255);
        SDL_RenderFillRect(r, &ball);
    }
    SDL_SetRenderDrawColor(r, 235, 235, 235, 255);
    tempo_debug_textf(r, DUEL_W / 2 - 70, 10, 3, "%2u  %-2u", s->score[0], s->score[1]);
    const char *status = d->player < 0 ? "connecting..."
                         : !d->started ? "waiting for the other player"
                         : d->over     ? "match over"
                         : s->paused   ? "paused (P / Start)"
                         : known(d) <= s->tick ? (d->player >= 2 ? "waiting for the players' inputs"
                                                                 : "waiting for the other player's input")
                                               : NULL;
    if (status != NULL)
        tempo_debug_text(r, DUEL_W / 2 - (int)strlen(status) * 8, DUEL_H / 2 + 30, 2, status);
    SDL_SetRenderDrawColor(r, 140, 140, 160, 255);
    tempo_debug_textf(r, 8, DUEL_H - 24, 1, "%s %d   tick %u   input %s   vsync %s",
                      d->player >= 2 ? "spectator" : "player", d->player, s->tick,
                      d->input_path, tempo_loop_get_vsync(d->loop) ? "on" : "off");
    tempo_debug_text(r, 8, DUEL_H - 12, 1, "W/S arrows d-pad stick: move   P/Start: pause   V vsync   F1 stats   Esc quit");
    if (d->overlay)
        tempo_loop_draw_stats(d->loop, r, DUEL_W - TEMPO_LOOP_STATS_W - 4, 40);
}

static void render(tempo_loop *loop, float alpha, void *user)
{
    (void)alpha;
    duel *d = user;
    /* The loop runs while the window is hidden (desc.run_while_hidden):
     * nothing to draw then. A replay has no window to draw in. */
    Uint32 hidden = SDL_GetWindowFlags(d->app.window) & (SDL_WINDOW_HIDDEN | SDL_WINDOW_MINIMIZED);
    if (tempo_loop_is_replaying(loop) || hidden != 0)
        return;
    draw(d); /* the loop presents (desc.renderer) */
}

/* [loop thread] Keys that act at once, also while paused: not game input. */
static bool on_key(tempo_loop *loop, const tempo_input_event *ev, void *user)
{
    duel *d = user;
    if (ev->type != TEMPO_INPUT_KEY || !ev->u.key.down || ev->u.key.repeat)
        return false;
    switch (ev->u.key.scancode) {
    case SDL_SCANCODE_ESCAPE:
        tempo_loop_quit(loop);
        return true;
    case SDL_SCANCODE_V:
        sample_toggle_vsync(loop);
        return true;
    case SDL_SCANCODE_F1:
        d->overlay = !d->overlay;
        return true;
    default:
        return false;
    }
}

static void on_pause(tempo_loop *loop, bool paused, void *user)
{
    (void)loop;
    (void)user;
    /* desc.run_while_hidden: a hidden or minimized window does not pause
     * the loop (the other player would wait for our inputs), so only
     * tempo_loop_pause() would, and the game never calls it. */
    printf("duel: loop %s\n", paused ? "paused (tempo_loop_pause): the other player waits for our inputs" : "resumed");
}

/* ---- Setup ----------------------------------------------------------------- */

static int extra(const char *arg, const char *value, void *user)
{
    duel *d = user;
    if (strcmp(arg, "--bot") == 0) {
        d->bot = true;
        return 0;
    }
    if (value == NULL)
        return -1;
    if (strcmp(arg, "--host") == 0)
        d->host = value;
    else if (strcmp(arg, "--port") == 0)
        d->port = atoi(value);
    else if (strcmp(arg, "--record") == 0)
        d->record = value;
    else if (strcmp(arg, "--replay") == 0)
        d->replay = value;
    else if (strcmp(arg, "--ticks") == 0)
        d->end_tick = (uint32_t)atoi(value);
    else if (strcmp(arg, "--stall-peer") == 0)
        d->stall_s = atof(value);
    else if (strcmp(arg, "--fingerprint") == 0)
        d->fingerprint = (uint32_t)strtoul(value, NULL, 16);
    else
        return -1;
    return 1;
}

static void on_stop(tempo_loop *loop, int rc, void *user);

static int open_all(duel *d, tempo_replay *rp)
{
    if (d->app.headless && SDL_getenv("SDL_AUDIODRIVER") == NULL)
        SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    d->au = tempo_audio_create(NULL);
    if (d->au == NULL) {
        fprintf(stderr, "duel: audio: %s; using the dummy driver (silent)\n", tempo_get_error());
        SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
        d->au = tempo_audio_create(NULL);
    }
    d->in = tempo_input_create(NULL);
    d->ld = tempo_loader_create(&(tempo_loader_desc){.renderer = d->app.renderer});
    if (d->au == NULL || d->in == NULL || d->ld == NULL)
        return -1;
    d->input_path = "SDL events";
    /* Before tempo_loop_replay() the loop does not know it will replay:
     * the setup asks the option (rp), the callbacks the loop. */
    if (rp == NULL && tempo_backend_has(TEMPO_CAP_NATIVE_INPUT)) {
        int r = tempo_input_attach_window(d->in, d->app.window,
                                          TEMPO_INPUT_NATIVE_KEYBOARD | TEMPO_INPUT_NATIVE_PADS);
        if (r == 0)
            d->input_path = "DirectInput";
        else
            printf("duel: native input: %s (%s): SDL events instead\n", tempo_strerror(r), tempo_get_error());
    }
    /* Generated now, never committed: a unique name per run in the temp dir. */
    char name[96];
    unsigned long long id = (unsigned long long)tempo_now_ns();
    sample_temp_path(d->music_path, sizeof d->music_path, (snprintf(name, sizeof name, "tempo-duel-%llx.wav", id), name));
    sample_temp_path(d->ball_path, sizeof d->ball_path, (snprintf(name, sizeof name, "tempo-duel-%llx.bmp", id), name));
    if (make_music(d->music_path) != 0 || make_ball(d->ball_path) != 0) {
        fprintf(stderr, "duel: cannot write the assets: %s\n", SDL_GetError());
        return -1;
    }
    tempo_loader_submit(d->ld, &(tempo_load_request){.type = TEMPO_LOAD_IMAGE, .path = d->ball_path, .done = on_loaded, .user = d});
    tempo_loader_submit(d->ld, &(tempo_load_request){.type = TEMPO_LOAD_MUSIC, .path = d->music_path, .done = on_loaded, .user = d});

    d->loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = HZ,
        .window = d->app.window,
        .renderer = rp ? NULL : d->app.renderer, /* the loop presents, vsync paced */
        .update = update,
        .render = render,
        .user = d,
        .input = d->in,
        .input_event = on_key,
        .on_pause = on_pause,
        /* Lockstep: hidden or minimized, we keep ticking and sending our
         * inputs, or the other player's game would wait for them. */
        .run_while_hidden = true,
        .clock = rp ? tempo_replay_clock(rp) : (tempo_clock){0},
        .on_stop = on_stop,
    });
    d->q = tempo_netq_create(NULL);
    if (d->loop == NULL || d->q == NULL)
        return -1;
    if (rp != NULL) {
        /* The recorded frames reach on_message through a queue attached as
         * the network's was (tempo_net_attach is tempo_netq_attach of it). */
        if (tempo_netq_attach(d->q, d->loop, on_message, d) != 0)
            return -1;
    } else {
        /* The largest frame the relay sends is the other player's DUEL_JOIN. */
        d->net = tempo_net_create(&(tempo_net_desc){.host = d->host, .port = (uint16_t)d->port, .queue = d->q,
                                                    .max_type = DUEL_MAX_TYPE,
                                                    .max_payload_bytes = sizeof(duel_join)});
        if (d->net == NULL || tempo_net_attach(d->net, d->loop, on_message, d) != 0)
            return -1;
    }
    if (tempo_audio_attach(d->au, d->loop, on_notice, d) != 0 || tempo_loader_attach(d->ld, d->loop) != 0)
        return -1;
    return 0;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The recording's metadata (see META_BYTES): its protocol version must be
 * ours, or the recorded frames mean something else. Sets the options the
 * replay needs. Returns 0, or -1 after saying why. */
static int read_meta(duel *d, const char *path, const tempo_replay_info *info)
{
    const uint8_t *m = info->meta;
    if (m == NULL || info->meta_size < META_BYTES) {
        fprintf(stderr, "duel: replay: %s has no duel metadata (%u bytes): not a recording of this duel (protocol "
                "version %u)\n", path, info->meta_size, DUEL_PROTO_VERSION);
        return -1;
    }
    uint32_t version = get_le32(m);
    if (version != DUEL_PROTO_VERSION) {
        fprintf(stderr, "duel: replay: %s was recorded with duel protocol version %u, this duel speaks version %u: "
                "replay it with the duel that recorded it\n", path, version, DUEL_PROTO_VERSION);
        return -1;
    }
    d->bot = (get_le32(m + 4) & META_BOT) != 0; /* the bot decides our inputs again */
    d->end_tick = get_le32(m + 8);             /* the same "final" line */
    d->fingerprint = info->fingerprint;        /* what we announced in DUEL_JOIN */
    if (info->identity[0] != '\0')
        snprintf(d->identity, sizeof d->identity, "%s", info->identity);
    return 0;
}

/* The README's shutdown order; after on_stop's report, or when the set-up
 * failed. */
static void close_all(duel *d)
{
    tempo_net_destroy(d->net);
    tempo_netq_destroy(d->q);
    tempo_loop_destroy(d->loop);
    tempo_timer_destroy(d->time_up);
    tempo_input_destroy(d->in);
    tempo_loader_destroy(d->ld);
    tempo_audio_destroy(d->au);
    if (d->music != NULL)
        Mix_FreeMusic(d->music);
    if (d->ball != NULL)
        SDL_DestroyTexture(d->ball);
    tempo_replay_destroy(d->rp);
    free(d->inputs);
    d->inputs = NULL;
    tempo_shutdown();
    if (d->music_path[0] != '\0')
        remove(d->music_path);
    if (d->ball_path[0] != '\0')
        remove(d->ball_path);
    sample_close(&d->app);
}

/* [loop thread] desc.on_stop: the match ended (its ticks, the other player
 * gone, Esc, --seconds, a replay's end, or the loop's error `rc`). The
 * report, the recording's end and the shutdown, here rather than after
 * tempo_loop_run() so that the same source runs in a browser page, where
 * that call never returns (docs/web.md). */
static void on_stop(tempo_loop *loop, int rc, void *user)
{
    (void)loop;
    duel *d = user;
    if (rc != 0)
        fprintf(stderr, "duel: loop: %s (%s)\n", tempo_strerror(rc), tempo_get_error());
    const tempo_loop_counts *t = &tempo_loop_get_stats(d->loop)->total;
    if (d->record != NULL) {
        tempo_record_stats rs;
        tempo_loop_get_record_stats(d->loop, &rs);
        if (tempo_loop_record_stop(d->loop) != 0)
            fprintf(stderr, "duel: record: %s\n", tempo_get_error());
        printf("record: %llu ticks, %llu items, %llu bytes in %s\n", (unsigned long long)rs.ticks,
               (unsigned long long)rs.items, (unsigned long long)rs.bytes, d->record);
    }
    if (d->rp != NULL) {
        tempo_replay_result res;
        tempo_replay_get_result(d->rp, &res);
        printf("replay: %llu ticks, hash %016llx, %s\n", (unsigned long long)res.ticks, (unsigned long long)res.hash,
               res.matches ? "matches" : res.diverged_at ? "diverges" : "did not finish");
        if (res.diverged_at != 0)
            printf("replay: first divergence at tick %llu (last match %llu)\n", (unsigned long long)res.diverged_at,
                   (unsigned long long)res.last_match);
        rc = rc == 0 && res.matches ? 0 : 1;
    } else {
        rc = rc == 0 && !d->failed && (d->over || !d->app.headless) ? 0 : 1;
    }
    if (d->rp == NULL) {
        /* The pause's proof: no mark raised between our pause and resume,
         * and the music's start moved on the device clock by about the
         * time paused (its position stood still meanwhile). */
        tempo_audio_spec spec = {0};
        tempo_audio_get_spec(d->au, &spec);
        if (d->music_paused) /* the match ended paused */
            d->paused_ns += tempo_now_ns() - d->pause_ns;
        printf("music: %llu beat marks, %llu raised while paused; paused %.0f ms in all, the music's start moved "
               "%.0f ms on the device clock\n",
               (unsigned long long)d->marks, (unsigned long long)d->marks_paused, (double)d->paused_ns / 1e6,
               spec.frequency > 0 ? (double)(d->offset_last - d->offset_first) * 1000.0 / spec.frequency : 0.0);
    }
    if (d->stall_s > 0)
        printf("stall: relay stopped reading for %.1f s; %llu snapshots of %d bytes sent, %llu refused; longest send "
               "%.1f ms; stall longest update %llu us, tick lateness max %llu us (one tick %llu us)\n",
               d->stall_s, (unsigned long long)d->snapshots, SNAPSHOT_BYTES, (unsigned long long)d->snapshots_refused,
               (double)d->send_max_ns / 1e6, (unsigned long long)(d->stall_update_ns / 1000),
               (unsigned long long)(d->stall_late_ns / 1000), (unsigned long long)(TICK_NS / 1000));
    printf("duel summary (%s, video %s, route %s, input %s): %s %d, %u ticks, score %u:%u, %s; %.1f updates/s, "
           "lateness p99 %.2f ms max %.2f ms, vsync %s\n",
           tempo_backend_name(), d->app.video_driver, tempo_wait_route(), d->input_path,
           d->player >= 2 ? "spectator" : "player", d->player, d->sim.tick,
           d->sim.score[0], d->sim.score[1], d->over ? "complete" : d->rp != NULL ? "replayed" : "cut short",
           t->updates_per_s, (double)t->lateness_p99_ns / 1e6, (double)t->lateness_max_ns / 1e6,
           tempo_loop_get_vsync(d->loop) ? "on" : "off");
    if (d->app.screenshot != NULL) {
        draw(d);
        sample_screenshot(&d->app, d->app.screenshot);
    }
    d->exit_code = rc;
    close_all(d);
}

int main(int argc, char **argv)
{
    static duel d;
    d.player = -1;
    snprintf(d.identity, sizeof d.identity, "%s", TEMPO_BUILD_IDENTITY); /* this file's, as duel_game.c's */
    if (sample_parse(&d.app, argc, argv,
                     "(--port N [--host H] [--bot] [--ticks N] [--record FILE] [--stall-peer SECONDS] [--fingerprint HEX] | "
                     "--replay FILE)",
                     extra, &d) != 0)
        return 1;
    if (d.replay == NULL && d.port == 0) {
        fprintf(stderr, "duel: start build/samples/duel_server, then: duel --port N (twice)\n");
        return 2;
    }
    bool give_up_set = d.app.seconds > 0;
    if (d.replay != NULL)
        d.app.headless = true;
    /* Headless: SDL's software renderer, its window not copied through a
     * GL texture. The offscreen driver's default is GL on llvmpipe, whose
     * worker threads must all be scheduled for every frame: on a loaded
     * machine that made frames take seconds. */
    if (d.app.headless)
        sample_use_software_renderer();
    /* Controllers in a window without focus (the second player's) still count. */
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    if (sample_open(&d.app, "Tempo duel", DUEL_W, DUEL_H) != 0)
        return 1;
    if (!inputs_fit(&d, 0)) { /* the input ring's first RING ticks */
        fprintf(stderr, "duel: out of memory\n");
        sample_close(&d.app);
        return 1;
    }
    if (d.app.headless && d.end_tick == 0)
        d.end_tick = 300;
    if (d.app.headless && !give_up_set) /* a limit for a peer that never comes */
        d.app.seconds = d.end_tick / (double)HZ + 30 + d.stall_s;

    tempo_replay *rp = NULL;
    if (d.replay != NULL) {
        rp = d.rp = tempo_replay_create(&(tempo_replay_desc){.path = d.replay, .hash = hash_state, .hash_user = &d});
        if (rp == NULL) {
            fprintf(stderr, "duel: replay: %s\n", tempo_get_error());
            sample_close(&d.app);
            return 1;
        }
        if (read_meta(&d, d.replay, tempo_replay_get_info(rp)) != 0) {
            tempo_replay_destroy(rp);
            sample_close(&d.app);
            return 1;
        }
    } else if (d.fingerprint == 0) {
        d.fingerprint = tempo_fingerprint(); /* this file's flags: tempo-deterministic's, as duel_game.c's */
    }
    d.time_up = tempo_timer_create(false);
    if (open_all(&d, rp) != 0 || d.time_up == NULL) {
        fprintf(stderr, "duel: %s\n", tempo_get_error());
        goto out;
    }
    /* The options a replay needs go in the recording's metadata, with the
     * protocol version of the frames it records. No seed: the match seed
     * arrives in the relay's HELLO, recorded like every frame. The
     * fingerprint and identity stored are the ones we announce
     * (--fingerprint's, if given), so a replay judges the recorded
     * handshake as the live run did. */
    uint8_t meta[META_BYTES];
    put_le32(meta, DUEL_PROTO_VERSION);
    put_le32(meta + 4, d.bot ? META_BOT : 0);
    put_le32(meta + 8, d.end_tick);
    if (d.record != NULL &&
        tempo_loop_record_build(d.loop,
                                &(tempo_record_desc){.path = d.record, .hash = hash_state, .hash_user = &d,
                                                     .meta = meta, .meta_size = sizeof meta},
                                &(tempo_build){d.fingerprint, d.identity, NULL}) != 0) {
        fprintf(stderr, "duel: record: %s\n", tempo_get_error());
        goto out;
    }
    if (rp != NULL && tempo_loop_replay(d.loop, rp) != 0) {
        fprintf(stderr, "duel: replay: %s\n", tempo_get_error());
        goto out;
    }
    if (rp == NULL && d.app.seconds > 0) {
        tempo_timer_set(d.time_up, tempo_now_ns() + (uint64_t)(d.app.seconds * 1e9), 0);
        tempo_loop_watch(d.loop, d.time_up, sample_quit_loop, NULL);
    }

    d.exit_code = 1;
    tempo_loop_run(d.loop); /* on the web it does not return: the end is on_stop's */
    return d.exit_code;
out:
    close_all(&d);
    return 1;
}
