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

/* The table for the reflected polynomial 0xEDB88320 (entry i: i run
 * through 8 steps of the bitwise algorithm), written out so no thread ever
 * has to build it. */
static const uint32_t crc_table[256] = {
    0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu,
    0xe963a535u, 0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u,
    0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u,
    0xf3b97148u, 0x84be41deu, 0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u,
    0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u,
    0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u, 0xa2677172u,
    0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
    0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u,
    0x26d930acu, 0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u,
    0xcfba9599u, 0xb8bda50fu, 0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u,
    0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du, 0x76dc4190u, 0x01db7106u,
    0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu, 0x9fbfe4a5u, 0xe8b8d433u,
    0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du,
    0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
    0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u,
    0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u,
    0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u,
    0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au, 0x346ed9fcu, 0xad678846u, 0xda60b8d0u,
    0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u, 0x5005713cu, 0x270241aau,
    0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
    0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
    0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au,
    0xead54739u, 0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u,
    0x0d6d6a3eu, 0x7a6a5aa8u, 0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u,
    0xf00f9344u, 0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu,
    0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u, 0x10da7a5au, 0x67dd4accu,
    0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u, 0xa1d1937eu,
    0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
    0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u,
    0x316e8eefu, 0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u,
    0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u,
    0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du,
    0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au, 0x9c0906a9u, 0xeb0e363fu,
    0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u,
    0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
    0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u,
    0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u,
    0x616bffd3u, 0x166ccf45u, 0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u,
    0xa7672661u, 0xd06016f7u, 0x4969474du, 0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu,
    0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
    0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u, 0xcdd70693u,
    0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
    0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

uint32_t tempo__crc32(uint32_t crc, const void *data, size_t size)
{
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

size_t tempo__rpf_header_size(const tempo__rpf_header *h)
{
    return TEMPO__RPF_HEADER_V3_MIN + (size_t)h->meta_size + bounded_len(h->identity, TEMPO__RPF_IDENTITY_MAX - 1);
}

void tempo__rpf_encode_header(const tempo__rpf_header *h, uint8_t *out)
{
    size_t size = tempo__rpf_header_size(h);
    memset(out, 0, size);
    memcpy(out, file_magic, 8);
    put16(out + 8, TEMPO__RPF_VERSION);
    put16(out + 10, (uint16_t)size);
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
    put32(out + 76, h->fingerprint);
    put32(out + 80, h->meta_size);
    if (h->meta_size)
        memcpy(out + 84, h->meta, h->meta_size);
    size_t id = bounded_len(h->identity, TEMPO__RPF_IDENTITY_MAX - 1);
    put32(out + 84 + h->meta_size, (uint32_t)id);
    memcpy(out + 88 + h->meta_size, h->identity, id);
    put32(out + size - 4, tempo__crc32(0, out, size - 4));
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
    if (h->meta_size > TEMPO__RPF_META_MAX || (h->meta_size > 0 && h->meta == NULL))
        return fail(w, h->meta_size > TEMPO__RPF_META_MAX ? TEMPO_ERANGE : TEMPO_EINVAL);
    uint8_t hdr[TEMPO__RPF_HEADER_V3_MIN + TEMPO__RPF_META_MAX + TEMPO__RPF_IDENTITY_MAX];
    tempo__rpf_encode_header(h, hdr);
    int r = sink(sink_user, hdr, tempo__rpf_header_size(h));
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
        return bad(err, len, 0, "truncated header (%zu bytes)", len);
    uint16_t version = get16(buf + 8), hsize = get16(buf + 10);
    if (version < 1 || version > TEMPO__RPF_VERSION)
        return bad(err, 8, 0, "format version %u, this reader knows 1 to %d", version, TEMPO__RPF_VERSION);
    /* Version 1: 80 bytes. Version 2: 88 + the meta size it states.
     * Version 3: 92 + the meta size + the identity size it states. */
    uint32_t meta_size = 0, id_size = 0;
    if (version == 1) {
        if (hsize != TEMPO__RPF_HEADER_V1)
            return bad(err, 10, 0, "header size %u, expected %d", hsize, TEMPO__RPF_HEADER_V1);
    } else {
        if (hsize < TEMPO__RPF_HEADER_MIN)
            return bad(err, 10, 0, "header size %u, expected at least %d", hsize, TEMPO__RPF_HEADER_MIN);
        if (len < TEMPO__RPF_HEADER_MIN)
            return bad(err, len, 0, "truncated header (%zu of %u bytes)", len, hsize);
        meta_size = get32(buf + 80);
        if (meta_size > TEMPO__RPF_META_MAX)
            return bad(err, 80, 0, "meta of %u bytes is over the limit of %u", meta_size, TEMPO__RPF_META_MAX);
        if (version == 2 && hsize != TEMPO__RPF_HEADER_MIN + meta_size)
            return bad(err, 10, 0, "header size %u, expected %u for %u meta bytes", hsize,
                       TEMPO__RPF_HEADER_MIN + meta_size, meta_size);
        if (version >= 3) {
            if (hsize < TEMPO__RPF_HEADER_V3_MIN + meta_size)
                return bad(err, 10, 0, "header size %u, expected at least %u for %u meta bytes", hsize,
                           TEMPO__RPF_HEADER_V3_MIN + meta_size, meta_size);
            if (len < 88u + meta_size)
                return bad(err, len, 0, "truncated header (%zu of %u bytes)", len, hsize);
            id_size = get32(buf + 84 + meta_size);
            if (id_size >= TEMPO__RPF_IDENTITY_MAX)
                return bad(err, 84 + meta_size, 0,
                           "build identity of %u bytes is over the limit of %d (header size %u, %u meta bytes)",
                           id_size, TEMPO__RPF_IDENTITY_MAX - 1, hsize, meta_size);
            if (hsize != TEMPO__RPF_HEADER_V3_MIN + meta_size + id_size)
                return bad(err, 10, 0, "header size %u, expected %u for %u meta and %u identity bytes", hsize,
                           TEMPO__RPF_HEADER_V3_MIN + meta_size + id_size, meta_size, id_size);
        }
    }
    if (len < hsize)
        return bad(err, len, 0, "truncated header (%zu of %u bytes)", len, hsize);
    uint32_t crc = get32(buf + hsize - 4), want = tempo__crc32(0, buf, hsize - 4u);
    if (crc != want)
        return bad(err, hsize - 4u, 0, "header checksum %08x, computed %08x", crc, want);
    tempo__rpf_header *h = &r->header;
    h->version = version;
    h->size = hsize;
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
    if (version >= 2) {
        h->fingerprint = get32(buf + 76);
        h->meta_size = meta_size;
        h->meta = meta_size ? buf + 84 : NULL;
    }
    if (version >= 3) {
        memcpy(h->identity, buf + 88 + meta_size, id_size);
        h->identity[id_size] = '\0';
        if (strlen(h->identity) != id_size)
            return bad(err, 88 + meta_size, 0, "build identity holds a NUL byte");
    }
    if (h->backend[15] != 0)
        return bad(err, 60, 0, "backend name not NUL-terminated");
    if (h->flags != 0)
        return bad(err, 12, 0, "unknown flags %08x", h->flags);
    if (h->update_hz == 0 || h->step_ns == 0)
        return bad(err, 32, 0, "zero update rate or step");
    r->pos = r->block_end = hsize;
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
