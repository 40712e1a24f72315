/* The record/replay file format (tempo/replay.h) as pure functions: no
 * files, no SDL, no loop, no globals, so the recorder, the replayer, the
 * unit tests and the libFuzzer target (tests/fuzz/fuzz_replay.c) all run the
 * same code. The format is described in the README ("Record and replay");
 * this header is its reference in code.
 *
 * Layout (every integer little-endian, every float as its IEEE-754 bits):
 *
 *   file   = header block* end-block
 *   header = "TEMPOREC" u16 version u16 header_size u32 flags
 *            u64 seed u64 start_ns u64 step_ns u32 update_hz u32 policy
 *            u32 max_frameskip u32 max_render_hz u32 hash_every
 *            char backend[16]
 *            u32 fingerprint u32 meta_size u8 meta[meta_size]       (version 2 and up)
 *            u32 identity_size u8 identity[identity_size]          (version 3)
 *            u32 crc32(all previous header bytes)
 *            (version 3: 92 + meta_size + identity_size bytes; version 2:
 *            88 + meta_size, no identity; version 1: 80 bytes, no
 *            fingerprint and no meta; 1 and 2 are still read, never written)
 *   block  = "TBLK" u32 payload_size u64 first_tick u32 tick_count
 *            u32 crc32(the 20 bytes before it, then the payload) payload
 *   payload = record*,  record = u8 kind u32 body_size body
 *
 * A block covers ticks [first_tick, first_tick + tick_count): its records
 * are, in order, what reached the game before each of those updates, each
 * tick closed by an ADVANCE record (n consecutive ticks with nothing in them
 * share one ADVANCE n). Blocks follow each other without gaps (first_tick
 * of a block = first_tick + tick_count of the one before). The recorder
 * writes and flushes one block at a time, so a crash loses at most the
 * block being built. The last block holds the END record (and nothing
 * after it); a file without one was not closed cleanly. */
#ifndef TEMPO_REPLAY_FILE_H
#define TEMPO_REPLAY_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/input.h"

/* Version 2 (Tempo 0.1, issue 19/22) added the fingerprint and the game's
 * meta blob to the header; version 3 (issue 38) the recording game's build
 * identity (TEMPO_BUILD_IDENTITY) after the meta. The blocks are unchanged. */
#define TEMPO__RPF_VERSION 3
#define TEMPO__RPF_HEADER_V1 80
/* A version-2 header without meta bytes. */
#define TEMPO__RPF_HEADER_MIN 88
/* A version-3 header without meta or identity bytes. */
#define TEMPO__RPF_HEADER_V3_MIN 92
/* The build identity's bytes, its NUL included (tempo/determinism.h's
 * TEMPO_BUILD_IDENTITY_MAX); the file holds at most one less, no NUL. */
#define TEMPO__RPF_IDENTITY_MAX 128
/* The largest meta blob (tempo/replay.h's TEMPO_RECORD_META_MAX). */
#define TEMPO__RPF_META_MAX 4096u
#define TEMPO__RPF_BLOCK_HEADER 24
#define TEMPO__RPF_RECORD_HEADER 5
/* Larger blocks are malformed: the writer closes a block past
 * TEMPO__RPF_BLOCK_TARGET bytes, and one record may exceed that. */
#define TEMPO__RPF_MAX_PAYLOAD (UINT32_C(1) << 26)
#define TEMPO__RPF_BLOCK_TARGET (UINT32_C(1) << 20)
/* The largest message body (the network's largest payload). */
#define TEMPO__RPF_MAX_MESSAGE (UINT32_C(1) << 24)

/* Record kinds. Values are part of the format. */
enum {
    TEMPO__RPF_ADVANCE = 1, /* u32 n >= 1: the cursor tick and n-1 empty ones ran */
    TEMPO__RPF_INPUT = 2,   /* one tempo_input_event, 72 bytes (replay_file.c) */
    TEMPO__RPF_MESSAGE = 3, /* u32 channel u32 type bytes: a message the game got */
    TEMPO__RPF_LOAD = 4,    /* u32 channel u32 type i32 error u32 group u64 id u64 bytes */
    TEMPO__RPF_AUDIO = 5,   /* u32 channel u32 kind i32 audio_channel u32 0 u64 tag u64 frame */
    TEMPO__RPF_HASH = 6,    /* u64: the game's state hash after the update before the cursor */
    TEMPO__RPF_DT = 7,      /* u64: dt_ns of the cursor tick when it is not step_ns */
    TEMPO__RPF_END = 8,     /* u64 ticks u64 final_hash u32 has_hash: a clean stop */
    TEMPO__RPF_KIND_MAX = 8
};

#define TEMPO__RPF_INPUT_SIZE 72

typedef struct tempo__rpf_header {
    uint16_t version;   /* as read; the writer always writes TEMPO__RPF_VERSION */
    uint16_t size;      /* header bytes, as read (tempo__rpf_header_size when writing) */
    uint32_t flags;
    uint64_t seed;
    uint64_t start_ns;  /* the loop's clock when recording started */
    uint64_t step_ns;   /* dt_ns of a tick without a DT record */
    uint32_t update_hz;
    uint32_t policy;
    uint32_t max_frameskip;
    uint32_t max_render_hz;
    uint32_t hash_every; /* ticks between HASH records; 0: none */
    char backend[16];    /* NUL-terminated: "sdl", "win32" */
    uint32_t fingerprint; /* the recorder's tempo_fingerprint(); 0: unknown (and version 1) */
    uint32_t meta_size;  /* at most TEMPO__RPF_META_MAX */
    const uint8_t *meta; /* meta_size bytes: the game's (writer: read during init
                            only) or into the reader's buffer; NULL when 0 */
    char identity[TEMPO__RPF_IDENTITY_MAX]; /* the recorder's build identity, NUL-
                            terminated (the writer stores at most 127 bytes); "":
                            unknown (and versions 1, 2) */
} tempo__rpf_header;

/* One decoded record. Pointers point into the decoded buffer. */
typedef struct tempo__rpf_record {
    uint8_t kind;
    uint64_t tick;   /* the cursor tick: the update this record comes before */
    size_t offset;   /* the record's first byte in the file */
    union {
        uint32_t advance;
        tempo_input_event input;
        struct {
            uint32_t channel, type, size;
            const uint8_t *data;
        } message;
        struct {
            uint32_t channel, type, group;
            int32_t error;
            uint64_t id, bytes;
        } load;
        struct {
            uint32_t channel, kind;
            int32_t audio_channel;
            uint64_t tag, frame;
        } audio;
        uint64_t hash;
        uint64_t dt_ns;
        struct {
            uint64_t ticks, hash;
            bool has_hash;
        } end;
    } u;
} tempo__rpf_record;

/* Where and why a file is bad. */
typedef struct tempo__rpf_error {
    size_t offset;  /* first byte that could not be trusted */
    uint64_t tick;  /* the tick being read there (ticks before it are good) */
    char why[120];  /* static-style English reason, NUL-terminated */
} tempo__rpf_error;

/* ---- Encoding ------------------------------------------------------------ */

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32): continue `crc` (0 to
 * start) over `size` bytes. */
uint32_t tempo__crc32(uint32_t crc, const void *data, size_t size);

/* The size of the header the writer makes for `h`: 92 + meta_size + the
 * identity's length. */
size_t tempo__rpf_header_size(const tempo__rpf_header *h);

/* Writes the current version's header for `h` into out
 * (tempo__rpf_header_size(h) bytes). h->meta_size must be at most
 * TEMPO__RPF_META_MAX. */
void tempo__rpf_encode_header(const tempo__rpf_header *h, uint8_t *out);

/* The writer builds one block in memory and hands finished blocks (and the
 * header) to `sink`, which writes them out (and flushes them: that is what
 * survives a crash). A sink failure sticks: every later call returns it. */
typedef int (*tempo__rpf_sink_fn)(void *user, const void *data, size_t size);

typedef struct tempo__rpf_writer {
    tempo__rpf_sink_fn sink;
    void *sink_user;
    uint8_t *buf;      /* block header space + payload */
    size_t len, cap;
    uint64_t tick;     /* the cursor tick */
    uint64_t block_first;
    uint32_t block_ticks;
    uint32_t pending;  /* empty ticks not yet written as an ADVANCE */
    bool open_tick;    /* the cursor tick has records already */
    bool ended;
    int error;         /* first failure (sink or memory); 0 */
} tempo__rpf_writer;

/* Starts a file: writes the header through sink. Returns 0, TEMPO_ERANGE
 * (meta over TEMPO__RPF_META_MAX), or the sink's / TEMPO_ENOMEM error. */
int tempo__rpf_writer_init(tempo__rpf_writer *w, const tempo__rpf_header *h, tempo__rpf_sink_fn sink,
                           void *sink_user);
/* Frees the block buffer (does not write anything). */
void tempo__rpf_writer_free(tempo__rpf_writer *w);

/* Records for the cursor tick. Return 0 or the sticky error. */
int tempo__rpf_write_input(tempo__rpf_writer *w, const tempo_input_event *ev);
int tempo__rpf_write_message(tempo__rpf_writer *w, uint32_t channel, uint32_t type, const void *data,
                             uint32_t size);
int tempo__rpf_write_load(tempo__rpf_writer *w, uint32_t channel, uint32_t type, int32_t error, uint32_t group,
                          uint64_t id, uint64_t bytes);
int tempo__rpf_write_audio(tempo__rpf_writer *w, uint32_t channel, uint32_t kind, int32_t audio_channel,
                           uint64_t tag, uint64_t frame);
int tempo__rpf_write_hash(tempo__rpf_writer *w, uint64_t hash);
int tempo__rpf_write_dt(tempo__rpf_writer *w, uint64_t dt_ns);
/* The cursor tick's update ran: the cursor moves to the next tick. */
int tempo__rpf_end_tick(tempo__rpf_writer *w);
/* Closes the current block and hands it to the sink (nothing if it covers
 * no tick and holds no record). */
int tempo__rpf_flush(tempo__rpf_writer *w);
/* Writes the END record in a last block and flushes. Records of the
 * cursor tick (which never ran) stay in the file before it. */
int tempo__rpf_finish(tempo__rpf_writer *w, uint64_t final_hash, bool has_hash);

/* ---- Decoding ------------------------------------------------------------ */

/* Reads through a whole file image, checking everything before returning
 * anything from it: a block's records are returned only after its length,
 * checksum, tick range and every record in it were validated. */
typedef struct tempo__rpf_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;          /* next record, or next block when pos == block_end */
    size_t block_end;
    uint64_t tick;       /* cursor tick */
    uint64_t block_last; /* first_tick + tick_count of the current block */
    bool ended;          /* END was returned */
    tempo__rpf_header header;
} tempo__rpf_reader;

/* Validates the header (version 1, 2 or 3). Returns 0, or TEMPO_EFORMAT with
 * *err filled. r->header.meta then points into buf. */
int tempo__rpf_reader_init(tempo__rpf_reader *r, const uint8_t *buf, size_t len, tempo__rpf_error *err);

/* The next record: 1 (filled *out), 0 after the END record (the file is
 * whole), TEMPO_EFORMAT with *err filled (truncated, corrupt, or no END).
 * After an error, the records already returned stay valid: a file cut by a
 * crash replays up to err->tick. */
int tempo__rpf_next(tempo__rpf_reader *r, tempo__rpf_record *out, tempo__rpf_error *err);

/* Validates a whole image: the header and every record. Returns the number
 * of ticks or TEMPO_EFORMAT with *err filled (ticks_ok, if not NULL, gets
 * the ticks before the error either way). */
int64_t tempo__rpf_check(const uint8_t *buf, size_t len, uint64_t *ticks_ok, tempo__rpf_error *err);

#endif /* TEMPO_REPLAY_FILE_H */
