/* The record/replay file format (replay_file.h): encoder and validating
 * decoder, pure functions over memory. */
#include "replay_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tempo/base.h"
#include "tempo_internal.h"

static const char file_magic[8] = {'T', 'E', 'M', 'P', 'O', 'R', 'E', 'C'};
static const char block_magic[4] = {'T', 'B', 'L', 'K'};

/* ---- CRC-32 ------------------------------------------------------------------ */

/* Table for the reflected polynomial 0xEDB88320, built on first use. Two
 * threads building it at once write the same values, and each entry is
 * complete before `ready` is set by the one that finishes. */
static uint32_t crc_table[256];
static volatile int crc_ready;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
    crc_ready = 1;
}

uint32_t tempo__crc32(uint32_t crc, const void *data, size_t size)
{
    if (!crc_ready)
        crc_init();
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < size; i++)
        crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

/* ---- Little-endian fields ------------------------------------------------------ */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* strnlen is POSIX, not C11. */
static size_t bounded_len(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n] != '\0')
        n++;
    return n;
}

/* ---- Header -------------------------------------------------------------------- */

void tempo__rpf_encode_header(const tempo__rpf_header *h, uint8_t out[TEMPO__RPF_HEADER_SIZE])
{
    memset(out, 0, TEMPO__RPF_HEADER_SIZE);
    memcpy(out, file_magic, 8);
    put16(out + 8, TEMPO__RPF_VERSION);
    put16(out + 10, TEMPO__RPF_HEADER_SIZE);
    put32(out + 12, h->flags);
    put64(out + 16, h->seed);
    put64(out + 24, h->start_ns);
    put64(out + 32, h->step_ns);
    put32(out + 40, h->update_hz);
    put32(out + 44, h->policy);
    put32(out + 48, h->max_frameskip);
    put32(out + 52, h->max_render_hz);
    put32(out + 56, h->hash_every);
    size_t n = bounded_len(h->backend, sizeof h->backend - 1);
    memcpy(out + 60, h->backend, n);
    put32(out + 76, tempo__crc32(0, out, 76));
}

/* ---- Input events: 24 common bytes + a 48-byte per-type area -------------------- */

static void encode_input(const tempo_input_event *ev, uint8_t *p)
{
    memset(p, 0, TEMPO__RPF_INPUT_SIZE);
    put32(p, ev->type);
    put32(p + 4, ev->device_kind);
    put32(p + 8, ev->device);
    put32(p + 12, ev->os_time_ms);
    put64(p + 16, ev->time_ns);
    uint8_t *u = p + 24;
    switch (ev->type) {
    case TEMPO_INPUT_KEY:
        put32(u, (uint32_t)ev->u.key.scancode);
        put32(u + 4, (uint32_t)ev->u.key.keycode);
        put16(u + 8, ev->u.key.mod);
        u[10] = ev->u.key.down;
        u[11] = ev->u.key.repeat;
        break;
    case TEMPO_INPUT_MOUSE_BUTTON:
        put32(u, (uint32_t)ev->u.button.x);
        put32(u + 4, (uint32_t)ev->u.button.y);
        u[8] = ev->u.button.button;
        u[9] = ev->u.button.down;
        u[10] = ev->u.button.clicks;
        break;
    case TEMPO_INPUT_MOUSE_MOTION:
        put32(u, (uint32_t)ev->u.motion.x);
        put32(u + 4, (uint32_t)ev->u.motion.y);
        put32(u + 8, (uint32_t)ev->u.motion.dx);
        put32(u + 12, (uint32_t)ev->u.motion.dy);
        put32(u + 16, ev->u.motion.buttons);
        break;
    case TEMPO_INPUT_MOUSE_WHEEL:
        put32(u, (uint32_t)ev->u.wheel.x);
        put32(u + 4, (uint32_t)ev->u.wheel.y);
        put32(u + 8, float_bits(ev->u.wheel.precise_x));
        put32(u + 12, float_bits(ev->u.wheel.precise_y));
        break;
    case TEMPO_INPUT_PAD_BUTTON:
        u[0] = ev->u.pad_button.button;
        u[1] = ev->u.pad_button.down;
        break;
    case TEMPO_INPUT_PAD_AXIS:
        u[0] = ev->u.pad_axis.axis;
        put16(u + 2, (uint16_t)ev->u.pad_axis.value);
        break;
    case TEMPO_INPUT_DEVICE_ADDED:
    case TEMPO_INPUT_DEVICE_REMOVED:
        memcpy(u, ev->u.dev.name, bounded_len(ev->u.dev.name, sizeof ev->u.dev.name - 1));
        break;
    default:
        break;
    }
}

static const char *decode_input(const uint8_t *p, tempo_input_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->type = get32(p);
    ev->device_kind = get32(p + 4);
    ev->device = get32(p + 8);
    ev->os_time_ms = get32(p + 12);
    ev->time_ns = get64(p + 16);
    const uint8_t *u = p + 24;
    switch (ev->type) {
    case TEMPO_INPUT_KEY:
        ev->u.key.scancode = (int32_t)get32(u);
        ev->u.key.keycode = (int32_t)get32(u + 4);
        ev->u.key.mod = get16(u + 8);
        ev->u.key.down = u[10];
        ev->u.key.repeat = u[11];
        break;
    case TEMPO_INPUT_MOUSE_BUTTON:
        ev->u.button.x = (int32_t)get32(u);
        ev->u.button.y = (int32_t)get32(u + 4);
        ev->u.button.button = u[8];
        ev->u.button.down = u[9];
        ev->u.button.clicks = u[10];
        break;
    case TEMPO_INPUT_MOUSE_MOTION:
        ev->u.motion.x = (int32_t)get32(u);
        ev->u.motion.y = (int32_t)get32(u + 4);
        ev->u.motion.dx = (int32_t)get32(u + 8);
        ev->u.motion.dy = (int32_t)get32(u + 12);
        ev->u.motion.buttons = get32(u + 16);
        break;
    case TEMPO_INPUT_MOUSE_WHEEL:
        ev->u.wheel.x = (int32_t)get32(u);
        ev->u.wheel.y = (int32_t)get32(u + 4);
        ev->u.wheel.precise_x = bits_float(get32(u + 8));
        ev->u.wheel.precise_y = bits_float(get32(u + 12));
        break;
    case TEMPO_INPUT_PAD_BUTTON:
        ev->u.pad_button.button = u[0];
        ev->u.pad_button.down = u[1];
        break;
    case TEMPO_INPUT_PAD_AXIS:
        ev->u.pad_axis.axis = u[0];
        ev->u.pad_axis.value = (int16_t)get16(u + 2);
        break;
    case TEMPO_INPUT_DEVICE_ADDED:
    case TEMPO_INPUT_DEVICE_REMOVED:
        if (memchr(u, 0, 48) == NULL)
            return "input event: device name not NUL-terminated";
        memcpy(ev->u.dev.name, u, 48);
        break;
    default:
        return "input event: unknown type";
    }
    return NULL;
}

/* ---- Writer ---------------------------------------------------------------------- */

static int fail(tempo__rpf_writer *w, int code)
{
    if (w->error == 0)
        w->error = code;
    return w->error;
}

/* Reserves `n` bytes at the end of the block and returns them. */
static uint8_t *grow(tempo__rpf_writer *w, size_t n)
{
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + n)
            cap *= 2;
        uint8_t *b = realloc(w->buf, cap);
        if (b == NULL) {
            fail(w, TEMPO_ENOMEM);
            return NULL;
        }
        w->buf = b;
        w->cap = cap;
    }
    uint8_t *p = w->buf + w->len;
    w->len += n;
    return p;
}

static void put_advance(tempo__rpf_writer *w)
{
    uint8_t *p = grow(w, TEMPO__RPF_RECORD_HEADER + 4);
    if (p == NULL)
        return;
    p[0] = TEMPO__RPF_ADVANCE;
    put32(p + 1, 4);
    put32(p + 5, w->pending);
    w->pending = 0;
}

/* Starts a record of `kind` with `size` body bytes, after writing out the
 * empty ticks before it. Returns the body, or NULL after an error. */
static uint8_t *record(tempo__rpf_writer *w, uint8_t kind, uint32_t size)
{
    if (w->error)
        return NULL;
    if (w->ended) {
        fail(w, TEMPO_EINVAL);
        return NULL;
    }
    if (w->pending)
        put_advance(w);
    uint8_t *p = grow(w, TEMPO__RPF_RECORD_HEADER + (size_t)size);
    if (p == NULL)
        return NULL;
    p[0] = kind;
    put32(p + 1, size);
    w->open_tick = true;
    return p + TEMPO__RPF_RECORD_HEADER;
}

int tempo__rpf_writer_init(tempo__rpf_writer *w, const tempo__rpf_header *h, tempo__rpf_sink_fn sink,
                           void *sink_user)
{
    memset(w, 0, sizeof *w);
    w->sink = sink;
    w->sink_user = sink_user;
    if (grow(w, TEMPO__RPF_BLOCK_HEADER) == NULL)
        return w->error;
    uint8_t hdr[TEMPO__RPF_HEADER_SIZE];
    tempo__rpf_encode_header(h, hdr);
    int r = sink(sink_user, hdr, sizeof hdr);
    return r < 0 ? fail(w, r) : 0;
}

void tempo__rpf_writer_free(tempo__rpf_writer *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

int tempo__rpf_write_input(tempo__rpf_writer *w, const tempo_input_event *ev)
{
    uint8_t *p = record(w, TEMPO__RPF_INPUT, TEMPO__RPF_INPUT_SIZE);
    if (p != NULL)
        encode_input(ev, p);
    return w->error;
}

int tempo__rpf_write_message(tempo__rpf_writer *w, uint32_t channel, uint32_t type, const void *data,
                             uint32_t size)
{
    if (size > TEMPO__RPF_MAX_MESSAGE)
        return fail(w, TEMPO_ERANGE);
    uint8_t *p = record(w, TEMPO__RPF_MESSAGE, 8 + size);
    if (p != NULL) {
        put32(p, channel);
        put32(p + 4, type);
        if (size)
            memcpy(p + 8, data, size);
    }
    return w->error;
}

int tempo__rpf_write_load(tempo__rpf_writer *w, uint32_t channel, uint32_t type, int32_t error, uint32_t group,
                          uint64_t id, uint64_t bytes)
{
    uint8_t *p = record(w, TEMPO__RPF_LOAD, 32);
    if (p != NULL) {
        put32(p, channel);
        put32(p + 4, type);
        put32(p + 8, (uint32_t)error);
        put32(p + 12, group);
        put64(p + 16, id);
        put64(p + 24, bytes);
    }
    return w->error;
}

int tempo__rpf_write_audio(tempo__rpf_writer *w, uint32_t channel, uint32_t kind, int32_t audio_channel,
                           uint64_t tag, uint64_t frame)
{
    uint8_t *p = record(w, TEMPO__RPF_AUDIO, 32);
    if (p != NULL) {
        put32(p, channel);
        put32(p + 4, kind);
        put32(p + 8, (uint32_t)audio_channel);
        put32(p + 12, 0);
        put64(p + 16, tag);
        put64(p + 24, frame);
    }
    return w->error;
}

int tempo__rpf_write_hash(tempo__rpf_writer *w, uint64_t hash)
{
    uint8_t *p = record(w, TEMPO__RPF_HASH, 8);
    if (p != NULL)
        put64(p, hash);
    return w->error;
}

int tempo__rpf_write_dt(tempo__rpf_writer *w, uint64_t dt_ns)
{
    uint8_t *p = record(w, TEMPO__RPF_DT, 8);
    if (p != NULL)
        put64(p, dt_ns);
    return w->error;
}

int tempo__rpf_end_tick(tempo__rpf_writer *w)
{
    if (w->error)
        return w->error;
    if (w->ended)
        return fail(w, TEMPO_EINVAL);
    /* Empty ticks accumulate into one ADVANCE (record() writes it out
     * before the next record); a tick with records is closed at once, so
     * its records stay before its update. */
    w->pending++;
    if (w->open_tick) {
        put_advance(w);
        w->open_tick = false;
    }
    w->tick++;
    w->block_ticks++;
    /* A huge run of empty ticks must not overflow ADVANCE's u32. */
    if (w->pending == UINT32_MAX)
        put_advance(w);
    if (w->len > TEMPO__RPF_BLOCK_TARGET)
        return tempo__rpf_flush(w);
    return w->error;
}

int tempo__rpf_flush(tempo__rpf_writer *w)
{
    if (w->error)
        return w->error;
    if (w->pending)
        put_advance(w);
    if (w->error)
        return w->error;
    size_t payload = w->len - TEMPO__RPF_BLOCK_HEADER;
    if (payload == 0 && w->block_ticks == 0)
        return 0;
    uint8_t *h = w->buf;
    memcpy(h, block_magic, 4);
    put32(h + 4, (uint32_t)payload);
    put64(h + 8, w->block_first);
    put32(h + 16, w->block_ticks);
    uint32_t crc = tempo__crc32(0, h, 20);
    put32(h + 20, tempo__crc32(crc, h + TEMPO__RPF_BLOCK_HEADER, payload));
    int r = w->sink(w->sink_user, w->buf, w->len);
    if (r < 0)
        return fail(w, r);
    w->len = TEMPO__RPF_BLOCK_HEADER;
    w->block_first = w->tick;
    w->block_ticks = 0;
    return 0;
}

int tempo__rpf_finish(tempo__rpf_writer *w, uint64_t final_hash, bool has_hash)
{
    if (w->ended)
        return w->error ? w->error : TEMPO_EINVAL;
    /* The ticks so far in their own block, then END alone in the last one,
     * so END's block covers no tick. */
    if (tempo__rpf_flush(w) < 0)
        return w->error;
    bool open = w->open_tick;
    uint8_t *p = record(w, TEMPO__RPF_END, 20);
    if (p == NULL)
        return w->error;
    w->open_tick = open;
    put64(p, w->tick);
    put64(p + 8, final_hash);
    put32(p + 16, has_hash ? 1 : 0);
    int r = tempo__rpf_flush(w);
    w->ended = true;
    return r;
}

/* ---- Reader ---------------------------------------------------------------------- */

static int bad(tempo__rpf_error *err, size_t offset, uint64_t tick, const char *fmt, ...) TEMPO__PRINTF(4, 5);

static int bad(tempo__rpf_error *err, size_t offset, uint64_t tick, const char *fmt, ...)
{
    if (err != NULL) {
        err->offset = offset;
        err->tick = tick;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->why, sizeof err->why, fmt, ap);
        va_end(ap);
    }
    return TEMPO_EFORMAT;
}

int tempo__rpf_reader_init(tempo__rpf_reader *r, const uint8_t *buf, size_t len, tempo__rpf_error *err)
{
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->len = len;
    if (len < 8 || memcmp(buf, file_magic, 8) != 0)
        return bad(err, 0, 0, len < 8 ? "file too short for a header (%zu bytes)" : "not a Tempo recording (magic)",
                   len);
    if (len < 12)
        return bad(err, len, 0, "truncated header (%zu of %d bytes)", len, TEMPO__RPF_HEADER_SIZE);
    uint16_t version = get16(buf + 8), hsize = get16(buf + 10);
    if (version != TEMPO__RPF_VERSION)
        return bad(err, 8, 0, "format version %u, this reader knows %d", version, TEMPO__RPF_VERSION);
    if (hsize != TEMPO__RPF_HEADER_SIZE)
        return bad(err, 10, 0, "header size %u, expected %d", hsize, TEMPO__RPF_HEADER_SIZE);
    if (len < TEMPO__RPF_HEADER_SIZE)
        return bad(err, len, 0, "truncated header (%zu of %d bytes)", len, TEMPO__RPF_HEADER_SIZE);
    uint32_t crc = get32(buf + 76), want = tempo__crc32(0, buf, 76);
    if (crc != want)
        return bad(err, 76, 0, "header checksum %08x, computed %08x", crc, want);
    tempo__rpf_header *h = &r->header;
    h->version = version;
    h->flags = get32(buf + 12);
    h->seed = get64(buf + 16);
    h->start_ns = get64(buf + 24);
    h->step_ns = get64(buf + 32);
    h->update_hz = get32(buf + 40);
    h->policy = get32(buf + 44);
    h->max_frameskip = get32(buf + 48);
    h->max_render_hz = get32(buf + 52);
    h->hash_every = get32(buf + 56);
    memcpy(h->backend, buf + 60, 16);
    if (h->backend[15] != 0)
        return bad(err, 60, 0, "backend name not NUL-terminated");
    if (h->flags != 0)
        return bad(err, 12, 0, "unknown flags %08x", h->flags);
    if (h->update_hz == 0 || h->step_ns == 0)
        return bad(err, 32, 0, "zero update rate or step");
    r->pos = r->block_end = TEMPO__RPF_HEADER_SIZE;
    return 0;
}

/* Decodes the record at p[0, avail) (avail: bytes left in its block).
 * Returns its total length, or 0 with *why set. */
static size_t decode_record(const uint8_t *p, size_t avail, tempo__rpf_record *out, const char **why)
{
    if (avail < TEMPO__RPF_RECORD_HEADER) {
        *why = "record header runs past the end of its block";
        return 0;
    }
    uint8_t kind = p[0];
    uint32_t size = get32(p + 1);
    if (size > avail - TEMPO__RPF_RECORD_HEADER) {
        *why = "record runs past the end of its block";
        return 0;
    }
    static const uint32_t fixed[TEMPO__RPF_KIND_MAX + 1] = {
        [TEMPO__RPF_ADVANCE] = 4, [TEMPO__RPF_INPUT] = TEMPO__RPF_INPUT_SIZE,
        [TEMPO__RPF_LOAD] = 32,   [TEMPO__RPF_AUDIO] = 32,
        [TEMPO__RPF_HASH] = 8,    [TEMPO__RPF_DT] = 8,
        [TEMPO__RPF_END] = 20,
    };
    if (kind == 0 || kind > TEMPO__RPF_KIND_MAX) {
        *why = "unknown record kind";
        return 0;
    }
    if (kind == TEMPO__RPF_MESSAGE ? size < 8 || size - 8 > TEMPO__RPF_MAX_MESSAGE : size != fixed[kind]) {
        *why = "record size does not match its kind";
        return 0;
    }
    const uint8_t *b = p + TEMPO__RPF_RECORD_HEADER;
    out->kind = kind;
    switch (kind) {
    case TEMPO__RPF_ADVANCE:
        out->u.advance = get32(b);
        if (out->u.advance == 0) {
            *why = "ADVANCE of zero ticks";
            return 0;
        }
        break;
    case TEMPO__RPF_INPUT:
        if ((*why = decode_input(b, &out->u.input)) != NULL)
            return 0;
        break;
    case TEMPO__RPF_MESSAGE:
        out->u.message.channel = get32(b);
        out->u.message.type = get32(b + 4);
        out->u.message.size = size - 8;
        out->u.message.data = b + 8;
        break;
    case TEMPO__RPF_LOAD:
        out->u.load.channel = get32(b);
        out->u.load.type = get32(b + 4);
        out->u.load.error = (int32_t)get32(b + 8);
        out->u.load.group = get32(b + 12);
        out->u.load.id = get64(b + 16);
        out->u.load.bytes = get64(b + 24);
        break;
    case TEMPO__RPF_AUDIO:
        out->u.audio.channel = get32(b);
        out->u.audio.kind = get32(b + 4);
        out->u.audio.audio_channel = (int32_t)get32(b + 8);
        if (get32(b + 12) != 0) {
            *why = "AUDIO record: reserved field not zero";
            return 0;
        }
        out->u.audio.tag = get64(b + 16);
        out->u.audio.frame = get64(b + 24);
        break;
    case TEMPO__RPF_HASH:
        out->u.hash = get64(b);
        break;
    case TEMPO__RPF_DT:
        out->u.dt_ns = get64(b);
        if (out->u.dt_ns == 0) {
            *why = "DT record of zero";
            return 0;
        }
        break;
    case TEMPO__RPF_END: {
        out->u.end.ticks = get64(b);
        out->u.end.hash = get64(b + 8);
        uint32_t has = get32(b + 16);
        if (has > 1) {
            *why = "END record: has_hash is neither 0 nor 1";
            return 0;
        }
        out->u.end.has_hash = has == 1;
        break;
    }
    }
    return TEMPO__RPF_RECORD_HEADER + size;
}

/* Opens the block at r->pos after validating all of it. */
static int enter_block(tempo__rpf_reader *r, tempo__rpf_error *err)
{
    size_t at = r->pos, left = r->len - at;
    if (left == 0)
        return bad(err, at, r->tick,
                   "no end record: the file stops after tick %llu (the recording did not stop cleanly)",
                   (unsigned long long)r->tick);
    if (left < TEMPO__RPF_BLOCK_HEADER)
        return bad(err, at, r->tick, "truncated block header (%zu of %d bytes)", left, TEMPO__RPF_BLOCK_HEADER);
    const uint8_t *h = r->buf + at;
    if (memcmp(h, block_magic, 4) != 0)
        return bad(err, at, r->tick, "no block starts here (magic)");
    uint32_t payload = get32(h + 4);
    uint64_t first = get64(h + 8);
    uint32_t ticks = get32(h + 16);
    if (payload > TEMPO__RPF_MAX_PAYLOAD)
        return bad(err, at + 4, r->tick, "block payload of %u bytes is over the limit", payload);
    if (payload > left - TEMPO__RPF_BLOCK_HEADER)
        return bad(err, r->len, r->tick, "truncated block: %zu of %u payload bytes",
                   left - TEMPO__RPF_BLOCK_HEADER, payload);
    if (first != r->tick)
        return bad(err, at + 8, r->tick, "block starts at tick %llu, expected %llu", (unsigned long long)first,
                   (unsigned long long)r->tick);
    if (ticks > UINT64_MAX - first)
        return bad(err, at + 16, r->tick, "block tick count overflows");
    uint32_t crc = get32(h + 20);
    uint32_t want = tempo__crc32(tempo__crc32(0, h, 20), h + TEMPO__RPF_BLOCK_HEADER, payload);
    if (crc != want)
        return bad(err, at, r->tick, "block checksum %08x, computed %08x (corrupt block of %u bytes)", crc, want,
                   payload);
    /* Every record of the block, before any is returned. */
    size_t p = at + TEMPO__RPF_BLOCK_HEADER, end = p + payload;
    uint64_t sum = 0;
    bool end_seen = false;
    while (p < end) {
        tempo__rpf_record rec;
        const char *why = NULL;
        size_t n = decode_record(r->buf + p, end - p, &rec, &why);
        if (n == 0)
            return bad(err, p, first + sum, "%s", why);
        if (end_seen)
            return bad(err, p, first + sum, "record after the END record");
        if (rec.kind == TEMPO__RPF_ADVANCE) {
            if (rec.u.advance > ticks - sum)
                return bad(err, p, first + sum, "block advances past its %u ticks", ticks);
            sum += rec.u.advance;
        } else if (rec.kind == TEMPO__RPF_END) {
            if (rec.u.end.ticks != first + sum)
                return bad(err, p, first + sum, "END says %llu ticks, the file has %llu",
                           (unsigned long long)rec.u.end.ticks, (unsigned long long)(first + sum));
            end_seen = true;
        }
        p += n;
    }
    if (sum != ticks)
        return bad(err, at + 16, first + sum, "block says %u ticks, its records advance %llu", ticks,
                   (unsigned long long)sum);
    if (end_seen && end != r->len)
        return bad(err, end, first + sum, "%zu bytes after the END block", r->len - end);
    r->pos = at + TEMPO__RPF_BLOCK_HEADER;
    r->block_end = end;
    r->block_last = first + ticks;
    return 0;
}

int tempo__rpf_next(tempo__rpf_reader *r, tempo__rpf_record *out, tempo__rpf_error *err)
{
    if (r->ended)
        return 0;
    while (r->pos == r->block_end) {
        int e = enter_block(r, err);
        if (e < 0)
            return e;
    }
    const char *why = NULL;
    size_t n = decode_record(r->buf + r->pos, r->block_end - r->pos, out, &why);
    if (n == 0) /* validated in enter_block: cannot happen */
        return bad(err, r->pos, r->tick, "%s", why);
    out->tick = r->tick;
    out->offset = r->pos;
    r->pos += n;
    if (out->kind == TEMPO__RPF_ADVANCE)
        r->tick += out->u.advance;
    else if (out->kind == TEMPO__RPF_END)
        r->ended = true;
    return 1;
}

int64_t tempo__rpf_check(const uint8_t *buf, size_t len, uint64_t *ticks_ok, tempo__rpf_error *err)
{
    tempo__rpf_reader r;
    if (ticks_ok != NULL)
        *ticks_ok = 0;
    int e = tempo__rpf_reader_init(&r, buf, len, err);
    if (e < 0)
        return e;
    tempo__rpf_record rec;
    while ((e = tempo__rpf_next(&r, &rec, err)) > 0) {
    }
    if (ticks_ok != NULL)
        *ticks_ok = r.tick;
    return e < 0 ? e : (int64_t)r.tick;
}
