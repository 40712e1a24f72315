/* Tempo: deterministic record and replay of a tempo_loop game.
 *
 * A fixed-step loop replays a game exactly if everything that reaches the
 * game reaches it at the same tick. The recorder writes, per update tick,
 * what reached the game before it: the input events that entered
 * desc.input's ring since the previous update (so the ring, and anything
 * derived from it, is the same in update() whatever the game reads), the
 * items its sources delivered (network messages, loader completions, audio
 * marks, a game's own source: tempo_loop_source_deliver in tempo/loop.h)
 * and its replay channels, the tick's dt_ns when it is
 * not the constant step, and every hash_every ticks the game's own state
 * hash. The replayer drives the same loop from the file: before update k it
 * puts tick k's input events in the ring and hands tick k's items to the
 * sources and channels, after update k it compares the game's hash with
 * the recorded one and reports the first tick that diverges. The game's
 * code runs unchanged: what every source delivers (messages of an attached
 * tempo_netq / tempo_net, notices of an attached tempo_audio, completions
 * of an attached tempo_loader: id and result; in a replay the request is
 * loaded again, live, and its result is held until the recorded tick) is
 * recorded by the loop; the game only seeds its random numbers from the
 * recording, and routes through tempo_loop_deliver() what reaches it some
 * other way (or makes that a source).
 *
 *   // record
 *   tempo_loop_record(loop, &(tempo_record_desc){
 *       .path = "run.trec", .seed = seed, .hash = game_hash, .hash_user = g,
 *       .meta = &opts, .meta_size = sizeof opts});  // optional: the game's own header data
 *   tempo_loop_run(loop);
 *   tempo_loop_record_stop(loop);              // or tempo_loop_destroy()
 *
 *   // replay, as fast as possible, no window or server needed
 *   tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){
 *       .path = "run.trec", .hash = game_hash, .hash_user = g});
 *   const tempo_replay_info *info = tempo_replay_get_info(rp);
 *   game_seed(g, info->seed);
 *   desc.update_hz = info->update_hz;
 *   desc.clock = tempo_replay_clock(rp);       // the fake clock (zero: real time)
 *   tempo_loop *loop = tempo_loop_create(&desc);
 *   tempo_loop_replay(loop, rp);               // quits the loop after the last tick
 *   tempo_loop_run(loop);
 *   tempo_replay_result res;
 *   tempo_replay_get_result(rp, &res);         // res.matches, res.diverged_at
 *
 * What a replay reproduces: update() sees the same input, items, dt_ns and
 * order as when recording. State the game changes outside update() and
 * the channels (in render(), in the raw SDL event callback, from its own
 * clock reads) is its own business: keep game state in update(). Input
 * pushed by the game itself inside update() is not recorded: its code pushes
 * it again (stats: input_in_update).
 *
 * Events the game consumes on arrival (desc.input_event returning true: a
 * pause key, a screenshot key, an overlay toggle) are recorded like every
 * other input, and a replay hands them to desc.input_event again, at their
 * tick, before that tick's update: a consumed key that changes game state
 * must replay, and Tempo cannot tell which keys do. Live input does not
 * reach desc.input_event during a replay (the ring is held), while
 * desc.event still sees every live SDL event (replay-viewer controls go
 * there). So a handler whose effect must not repeat in a replay (take a
 * screenshot, write a file, tempo_loop_pause(), which would stop the
 * replay's updates) asks tempo_loop_is_replaying() first.
 *
 * Determinism across builds: the replay hands the game the same inputs;
 * whether its float code computes the same bits depends on its compiler
 * flags (docs/determinism.md). tempo_loop_record() stores the game's
 * tempo_fingerprint() and TEMPO_BUILD_IDENTITY (tempo/determinism.h) in the
 * file; tempo_loop_replay() refuses, before the first tick, a recording
 * whose build may compute other bits (tempo_build_compare: TEMPO_EBUILD,
 * both builds named in tempo_get_error()) unless desc.other_build asks to
 * replay anyway, and the desync report (a WARN line and result.report)
 * names the build difference when a hash differs.
 *
 * The file format is documented in docs/replay.md and
 * framework/replay_file.h (version 2 added the build fingerprint and the
 * game's meta to the header, version 3 the build identity,
 * docs/determinism.md; versions 1 and 2 still read): a
 * versioned, little-endian, CRC-32-checked header and blocks of per-tick
 * records, written and flushed every flush_every ticks so a crash keeps
 * every tick up to the last flush. A truncated or corrupt file fails to
 * open with the byte offset and the tick in tempo_get_error(), or replays
 * its intact ticks when desc.partial is set.
 *
 * Thread: every function here runs on the loop thread unless it says
 * otherwise. */
#ifndef TEMPO_REPLAY_H
#define TEMPO_REPLAY_H

#include "base.h"
#include "determinism.h"
#include "input.h"
#include "loop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The game's state hash, called on the loop thread right after an update
 * (never from inside one). Hash what update() computes (positions, RNG
 * state, scores), not pointers or times. */
typedef uint64_t (*tempo_replay_hash_fn)(tempo_loop *loop, void *user);

/* ---- Channels: what reaches the game outside the input ring ------------ */

/* tempo_replay_kind and tempo_replay_item, the items of channels and
 * sources, are in tempo/loop.h. */

/* Called with every item of channel `channel`, on the loop thread, from
 * tempo_loop_deliver() (live) or before the recorded update (replay).
 * `item` and its data are valid during the call only. */
typedef void (*tempo_replay_item_fn)(tempo_loop *loop, uint32_t channel, const tempo_replay_item *item,
                                     void *user);

/* Sets the handler of `channel` (a number the game chooses below
 * 0x80000000; one handler each, a second call replaces it; fn NULL removes
 * it). Register channels before tempo_loop_replay() so the replay can hand
 * them their items. Sources (tempo_loop_add_source with desc.deliver,
 * tempo/loop.h) need no channel: the loop records and replays what they
 * deliver, the framework's own included (tempo_netq_attach,
 * tempo_net_attach, tempo_audio_attach, tempo_loader_attach,
 * tempo_hotreload_attach), provided the replaying game attaches them in the
 * same order. In the file they are channels from 0x80000000 up.
 * Returns 0, TEMPO_EINVAL (NULL loop, channel >= 0x80000000) or
 * TEMPO_ENOMEM. */
TEMPO_API int tempo_loop_channel(tempo_loop *loop, uint32_t channel, tempo_replay_item_fn fn, void *user);

/* Hands `item` to the game through `channel`: the game's drain or watch
 * callbacks call this instead of handling the item directly. Live (and
 * while recording, which also writes it for the current tick) it calls the
 * channel's handler at once. During a replay it does nothing and returns 0:
 * the recorded item reaches the handler at its tick instead, so live
 * sources may keep running (or be absent). Deliver between updates (watch
 * or source callbacks); an item delivered inside update() is replayed
 * before that update. Returns 0, TEMPO_EINVAL (NULL, no handler for the
 * channel), TEMPO_ERANGE (payload over 16 MiB) or a recording write error
 * (the handler has then still been called). */
TEMPO_API int tempo_loop_deliver(tempo_loop *loop, uint32_t channel, const tempo_replay_item *item);

/* ---- Recording --------------------------------------------------------- */

/* The most bytes of game metadata a recording's header holds. */
#define TEMPO_RECORD_META_MAX 4096u

typedef struct tempo_record_desc {
    const char *path;          /* the file to create (replaced if it exists); required */
    uint64_t seed;             /* stored in the file for the game's RNG; 0 => 0 */
    tempo_replay_hash_fn hash; /* NULL => no state hashes: a replay can then only run, not check */
    void *hash_user;           /* passed to hash */
    uint32_t hash_every;       /* ticks between state hashes; 0 => 60 (1: exact divergence tick) */
    uint32_t flush_every;      /* ticks per flushed block; 0 => 1 (every tick reaches the OS) */
    /* The game's own data for the header (its version, options, level,
     * several seeds: any bytes, e.g. a small struct written
     * field by field in a fixed byte order), stored as is and handed back
     * by tempo_replay_get_info(). Copied during the call; not owned.
     * NULL with meta_size 0 => none. */
    const void *meta;
    uint32_t meta_size;        /* at most TEMPO_RECORD_META_MAX bytes */
} tempo_record_desc;

/* Starts recording the loop from its next update. The header takes the
 * loop's current settings (update rate, policy, frame skip, render cap),
 * the seed, the meta bytes, the clock's time now and `fingerprint` (the
 * recording build's tempo_fingerprint(); 0 => unknown). desc, path and
 * meta are read during the call only. Returns 0, TEMPO_EINVAL (NULL, no
 * path, meta NULL with a size), TEMPO_ERANGE (meta_size over
 * TEMPO_RECORD_META_MAX), TEMPO_EBUSY (already recording or replaying),
 * TEMPO_EIO (cannot create or write the file; tempo_get_error() says why)
 * or TEMPO_ENOMEM. Use tempo_loop_record(), which passes the fingerprint
 * of the game's own code; call this one to pass a fingerprint computed in
 * another translation unit (the one with the game's physics, if it is
 * built with other flags) or a fabricated one (tests). */
TEMPO_API int tempo_loop_record_fp(tempo_loop *loop, const tempo_record_desc *desc, uint32_t fingerprint);

/* tempo_loop_record_fp with the whole build: its fingerprint and its
 * identity (TEMPO_BUILD_IDENTITY of the game's code, at most
 * TEMPO_BUILD_IDENTITY_MAX - 1 bytes stored; NULL or "": unknown), both
 * stored in the header. build NULL => both unknown. Same returns. */
TEMPO_API int tempo_loop_record_build(tempo_loop *loop, const tempo_record_desc *desc, const tempo_build *build);

/* tempo_loop_record_build(loop, desc, tempo_build_this()): inline, so the
 * probe runs and the identity is expanded with the flags of the game's
 * translation unit that calls it (tempo/determinism.h). Same returns. */
static inline int tempo_loop_record(tempo_loop *loop, const tempo_record_desc *desc)
{
    tempo_build b = tempo_build_this(NULL);
    return tempo_loop_record_build(loop, desc, &b);
}

/* Ends the recording: writes the final hash (if desc.hash) and the END
 * record, flushes and closes the file. tempo_loop_destroy() does this too.
 * Not from inside update(). Returns 0, TEMPO_EINVAL (not recording) or
 * TEMPO_EIO (a write failed at any point since the start; the file then
 * holds the ticks up to the failure). */
TEMPO_API int tempo_loop_record_stop(tempo_loop *loop);

/* Counters of the recording (zero when not recording). */
typedef struct tempo_record_stats {
    uint64_t ticks;                /* updates recorded */
    uint64_t inputs, items, hashes;
    uint64_t bytes;                /* written to the file so far (flushed blocks) */
    uint64_t input_in_update;      /* events the game pushed into the ring inside update():
                                      not recorded (its code pushes them again in a replay) */
    uint64_t cost_ns;              /* real time spent recording (records, flushes, the hash
                                      callback; input taps excepted), on tempo_now_ns() */
} tempo_record_stats;

/* Fills *out. Returns 0 or TEMPO_EINVAL (NULL). */
TEMPO_API int tempo_loop_get_record_stats(const tempo_loop *loop, tempo_record_stats *out);

/* ---- Replay -------------------------------------------------------------- */

typedef struct tempo_replay tempo_replay;

typedef struct tempo_replay_desc {
    const char *path;          /* the recording; required */
    tempo_replay_hash_fn hash; /* the game's state hash; NULL => nothing is checked */
    void *hash_user;
    bool real_time;            /* false => the fake clock of tempo_replay_clock, as fast as
                                  possible; true => the real clock, ticks at their recorded rate */
    bool partial;              /* false => a file that is truncated or corrupt anywhere fails to
                                  open; true => it replays the ticks before the damage */
    bool other_build;          /* false => tempo_loop_replay refuses a recording whose build may
                                  compute other bits (TEMPO_EBUILD); true => replay it anyway
                                  (one WARN line names both builds) */
} tempo_replay_desc;

typedef struct tempo_replay_info {
    uint64_t seed;
    uint64_t ticks;            /* ticks the replay will run */
    uint64_t start_ns;         /* the recording loop's clock at the start */
    uint32_t update_hz;
    tempo_loop_policy policy;
    uint32_t max_frameskip;
    uint32_t max_render_hz;    /* 0: no cap */
    uint32_t hash_every;       /* 0: no hashes in the file */
    char backend[16];          /* tempo_backend_name() of the recorder */
    bool complete;             /* the file ends with its END record */
    char damage[200];          /* "" when complete; else where and why it stops */
    uint32_t version;          /* the file format's version (1: no fingerprint, no meta;
                                  2: no build identity) */
    uint32_t fingerprint;      /* the recording build's tempo_fingerprint(); 0: unknown */
    char identity[TEMPO_BUILD_IDENTITY_MAX]; /* the recording build's TEMPO_BUILD_IDENTITY;
                                  "": unknown (versions 1 and 2) */
    const void *meta;          /* the desc.meta bytes of the recording (NULL: none); valid
                                  until tempo_replay_destroy; no alignment beyond 1 */
    uint32_t meta_size;
} tempo_replay_info;

typedef struct tempo_replay_result {
    uint64_t ticks;            /* updates replayed */
    bool finished;             /* all info.ticks ran */
    uint64_t hash;             /* the game's hash after the last replayed tick (0: no desc.hash) */
    uint64_t checks;           /* hashes compared */
    bool matches;              /* finished and every compared hash was equal */
    uint64_t diverged_at;      /* 0, or the tick count at the first hash that differed */
    uint64_t last_match;       /* the tick count at the last equal hash before it (0: none) */
    uint64_t expected, actual; /* the hashes at diverged_at */
    uint32_t fingerprint_recorded; /* info.fingerprint (0: unknown) */
    uint32_t fingerprint_replay;   /* the replaying build's (tempo_loop_replay_fp; 0: unknown) */
    bool fingerprint_differs;  /* both known and different: the floats may not agree */
    bool build_differs;        /* tempo_build_compare refused the pair (replayed anyway through
                                  desc.other_build), or both identities known and different */
    /* "" until a hash differs; then the desync report, one line: the file,
     * the tick, both hashes, the last equal tick, and the builds (a
     * difference tempo_build_compare refuses: both named and the flags to
     * change; portable but other compilers: libm first; the same build:
     * the causes a fingerprint cannot see). Also logged once at
     * TEMPO_LOG_WARN. */
    char report[1024];
} tempo_replay_result;

/* Reads and validates the whole file. desc is read during the call only.
 * Returns the replay, owned by the caller (tempo_replay_destroy), or NULL
 * with the detail in tempo_get_error(): TEMPO_EINVAL (no path),
 * TEMPO_ENOENT/TEMPO_EIO (cannot read it), TEMPO_EFORMAT (not a recording,
 * another version, truncated or corrupt: the text names the byte offset
 * and the tick, e.g. "run.trec: byte 4242, tick 96: block checksum ...";
 * with desc.partial only a bad header fails), TEMPO_ENOMEM. ENOENT and
 * EFORMAT are the caller's to handle and are logged at DEBUG only. */
TEMPO_API tempo_replay *tempo_replay_create(const tempo_replay_desc *desc);

/* Frees the replay. A loop replaying it stops replaying (in any order, as
 * every attached object: tempo_loop_is_replaying() turns false). A loop
 * created with this replay's clock (tempo_replay_clock) reads it every
 * frame, as a loop reads any desc.clock: destroy that loop first. NULL is
 * a no-op. */
TEMPO_API void tempo_replay_destroy(tempo_replay *rp);

/* The file's header and extent. Valid until tempo_replay_destroy. NULL for NULL. */
TEMPO_API const tempo_replay_info *tempo_replay_get_info(const tempo_replay *rp);

/* The clock for tempo_loop_desc.clock: a fake clock that starts at the
 * recording's start time and jumps to every deadline (desc.real_time: a
 * zero clock, i.e. the real one). Its user pointer is rp. */
TEMPO_API tempo_loop_clock tempo_replay_clock(tempo_replay *rp);

/* Attaches rp to the loop: from the loop's next update, tick k gets the
 * recorded input (desc.input's ring is emptied now, and from then on only
 * the recorded events, and the game's own pushes inside update(), enter
 * it: live input is ignored), items and dt_ns, hashes
 * are compared after each recorded one, and the loop quits after the last
 * tick. Sets the loop's update rate and policy to the recorded ones; with
 * the fake clock and no render cap, caps renders at the update rate so the
 * fake time moves. `fingerprint` is the replaying build's
 * tempo_fingerprint() (0 => unknown, and nothing is checked), its identity
 * unknown: tempo_loop_replay_build(loop, rp, &(tempo_build){fingerprint}),
 * so a fingerprint that differs from the recording's, or a non-portable
 * one, is refused (TEMPO_EBUILD) unless desc.other_build is set; the desync
 * report names both builds. Returns 0, TEMPO_EINVAL (NULL), TEMPO_EBUSY
 * (the loop is recording or replaying, or rp is attached elsewhere) or
 * TEMPO_EBUILD. */
TEMPO_API int tempo_loop_replay_fp(tempo_loop *loop, tempo_replay *rp, uint32_t fingerprint);

/* tempo_loop_replay_fp with the replaying build's fingerprint and identity
 * (build NULL => both unknown), checked against the recording's with
 * tempo_build_compare (tempo/determinism.h) before anything else: when they
 * may compute other bits (fingerprints differ; or either is not portable
 * and the identities are not both known and equal), it returns
 * TEMPO_EBUILD and leaves the loop as it was, with one line in
 * tempo_get_error() naming both builds and what to change ("tempo_loop_replay:
 * run.trec: built differently (recorded: ...; this build: ...): ...; or set
 * tempo_replay_desc.other_build to replay it anyway"), unless the replay's
 * desc.other_build is set: then it replays, after one WARN line saying the
 * same. Otherwise the returns of tempo_loop_replay_fp. */
TEMPO_API int tempo_loop_replay_build(tempo_loop *loop, tempo_replay *rp, const tempo_build *build);

/* tempo_loop_replay_build(loop, rp, tempo_build_this()), inline like
 * tempo_loop_record(): a recording of another build is refused (TEMPO_EBUILD)
 * before the first tick. Same returns. */
static inline int tempo_loop_replay(tempo_loop *loop, tempo_replay *rp)
{
    tempo_build b = tempo_build_this(NULL);
    return tempo_loop_replay_build(loop, rp, &b);
}

/* True while a replay is attached to the loop: from tempo_loop_replay()
 * until tempo_replay_destroy() or tempo_loop_destroy(), so also in the
 * callbacks of the last frame and after tempo_loop_run() returns. A game
 * asks it to skip what a replay must not repeat (writing highscores or
 * screenshots, pausing on a replayed pause key) or to show a replay UI.
 * false for NULL. */
TEMPO_API bool tempo_loop_is_replaying(const tempo_loop *loop);

/* Fills *out with where the replay stands (during or after the run).
 * Returns 0 or TEMPO_EINVAL. */
TEMPO_API int tempo_replay_get_result(const tempo_replay *rp, tempo_replay_result *out);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_REPLAY_H */
