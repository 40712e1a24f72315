/* libFuzzer target for the recording reader (framework/replay_file.c).
 *
 *   CC=clang meson setup build-fuzz && ninja -C build-fuzz tests/fuzz/fuzz_replay
 *   mkdir -p build-fuzz/corpus-replay
 *   build-fuzz/tests/fuzz/fuzz_replay -max_total_time=30 build-fuzz/corpus-replay
 *
 * Built with -fsanitize=fuzzer,address,undefined, so any over-read, overflow
 * or undefined behaviour is a crash. Besides "never crash" it checks that
 * every verdict is either a tick count or TEMPO_EFORMAT with a reason at an
 * offset inside the file and a tick no earlier than the last good one
 * (the damage may lie inside a block whose earlier ticks are dropped with it),
 * that records are only ever returned from checked
 * blocks, and that a valid file written again by the writer reads back as
 * the same records and the same header (fingerprint, meta, build
 * identity; a version-1 or 2 file is written again as the current version).
 *
 * Input: byte 0 bit 0 set => the checksums of the header and of every
 * block are recomputed first, so mutations reach the record validation
 * behind them instead of stopping at a checksum mismatch. The rest is the
 * file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay_file.h"
#include "tempo/base.h"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The header's size as the file states it (version 1: 80; version 2: 88 +
 * its meta), and its checksum in its last 4 bytes. */
static void fix_checksums(uint8_t *b, size_t len)
{
    if (len < 12)
        return;
    size_t hsize = (size_t)b[10] | (size_t)b[11] << 8;
    if (hsize < 8 || hsize > len)
        return;
    wr32(b + hsize - 4, tempo__crc32(0, b, hsize - 4));
    size_t p = hsize;
    while (len - p >= TEMPO__RPF_BLOCK_HEADER) {
        uint32_t payload = rd32(b + p + 4);
        if (payload > len - p - TEMPO__RPF_BLOCK_HEADER)
            break;
        uint32_t crc = tempo__crc32(0, b + p, 20);
        wr32(b + p + 20, tempo__crc32(crc, b + p + TEMPO__RPF_BLOCK_HEADER, payload));
        p += TEMPO__RPF_BLOCK_HEADER + payload;
    }
}

typedef struct digest {
    uint64_t h;
    uint64_t records;
} digest;

static void mixn(digest *d, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++)
        d->h = (d->h ^ p[i]) * 1099511628211u;
}

static void mix64(digest *d, uint64_t v)
{
    mixn(d, &v, sizeof v);
}

/* Everything a record means, ADVANCE excluded (block boundaries and
 * the grouping of empty ticks are the writer's choice). */
static void mix_record(digest *d, const tempo__rpf_record *r)
{
    if (r->kind == TEMPO__RPF_ADVANCE)
        return;
    d->records++;
    mix64(d, r->kind);
    mix64(d, r->tick);
    switch (r->kind) {
    case TEMPO__RPF_INPUT: {
        tempo_input_event e = r->u.input;
        mix64(d, e.type);
        mix64(d, e.device_kind);
        mix64(d, e.device);
        mix64(d, e.os_time_ms);
        mix64(d, e.time_ns);
        mixn(d, &e.u, sizeof e.u); /* decode zero-fills what it does not set */
        break;
    }
    case TEMPO__RPF_MESSAGE:
        mix64(d, r->u.message.channel);
        mix64(d, r->u.message.type);
        mix64(d, r->u.message.size);
        mixn(d, r->u.message.data, r->u.message.size);
        break;
    case TEMPO__RPF_LOAD:
        mix64(d, r->u.load.channel);
        mix64(d, r->u.load.type);
        mix64(d, (uint64_t)(int64_t)r->u.load.error);
        mix64(d, r->u.load.group);
        mix64(d, r->u.load.id);
        mix64(d, r->u.load.bytes);
        break;
    case TEMPO__RPF_AUDIO:
        mix64(d, r->u.audio.channel);
        mix64(d, r->u.audio.kind);
        mix64(d, (uint64_t)(int64_t)r->u.audio.audio_channel);
        mix64(d, r->u.audio.tag);
        mix64(d, r->u.audio.frame);
        break;
    case TEMPO__RPF_HASH:
        mix64(d, r->u.hash);
        break;
    case TEMPO__RPF_DT:
        mix64(d, r->u.dt_ns);
        break;
    case TEMPO__RPF_END:
        mix64(d, r->u.end.ticks);
        mix64(d, r->u.end.hash);
        mix64(d, r->u.end.has_hash);
        break;
    }
}

typedef struct mem {
    uint8_t *p;
    size_t len, cap;
} mem;

static int sink(void *user, const void *data, size_t size)
{
    mem *m = user;
    if (m->len + size > m->cap) {
        m->cap = (m->len + size) * 2;
        m->p = realloc(m->p, m->cap);
        if (m->p == NULL)
            abort();
    }
    memcpy(m->p + m->len, data, size);
    m->len += size;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t len = size - 1;
    uint8_t *buf = malloc(len ? len : 1);
    memcpy(buf, data + 1, len);
    if (data[0] & 1)
        fix_checksums(buf, len);

    tempo__rpf_error err;
    memset(&err, 0, sizeof err);
    uint64_t ok = 0;
    int64_t n = tempo__rpf_check(buf, len, &ok, &err);
    if (n < 0) {
        if (n != TEMPO_EFORMAT || err.why[0] == '\0' || err.offset > len || err.tick < ok)
            abort();
    } else if ((uint64_t)n != ok) {
        abort();
    }

    /* Read again record by record: the same verdict, ticks that never go
     * back, and for a whole file, the writer's copy reads back the same. */
    tempo__rpf_reader r;
    if (tempo__rpf_reader_init(&r, buf, len, NULL) == 0) {
        digest first = {14695981039346656037u, 0};
        tempo__rpf_record rec;
        int e;
        uint64_t last_tick = 0;
        mem out = {0};
        tempo__rpf_writer w;
        bool rewrite = n >= 0 && n <= 100000;
        if (rewrite && tempo__rpf_writer_init(&w, &r.header, sink, &out) != 0)
            abort();
        while ((e = tempo__rpf_next(&r, &rec, NULL)) == 1) {
            if (rec.tick < last_tick || rec.offset >= len)
                abort();
            last_tick = rec.tick;
            mix_record(&first, &rec);
            if (!rewrite)
                continue;
            switch (rec.kind) {
            case TEMPO__RPF_ADVANCE:
                for (uint32_t k = 0; k < rec.u.advance; k++)
                    tempo__rpf_end_tick(&w);
                break;
            case TEMPO__RPF_INPUT:
                tempo__rpf_write_input(&w, &rec.u.input);
                break;
            case TEMPO__RPF_MESSAGE:
                tempo__rpf_write_message(&w, rec.u.message.channel, rec.u.message.type, rec.u.message.data,
                                         rec.u.message.size);
                break;
            case TEMPO__RPF_LOAD:
                tempo__rpf_write_load(&w, rec.u.load.channel, rec.u.load.type, rec.u.load.error, rec.u.load.group,
                                      rec.u.load.id, rec.u.load.bytes);
                break;
            case TEMPO__RPF_AUDIO:
                tempo__rpf_write_audio(&w, rec.u.audio.channel, rec.u.audio.kind, rec.u.audio.audio_channel,
                                       rec.u.audio.tag, rec.u.audio.frame);
                break;
            case TEMPO__RPF_HASH:
                tempo__rpf_write_hash(&w, rec.u.hash);
                break;
            case TEMPO__RPF_DT:
                tempo__rpf_write_dt(&w, rec.u.dt_ns);
                break;
            case TEMPO__RPF_END:
                tempo__rpf_finish(&w, rec.u.end.hash, rec.u.end.has_hash);
                break;
            }
        }
        if ((e < 0) != (n < 0))
            abort();
        if (rewrite) {
            if (w.error != 0)
                abort();
            tempo__rpf_writer_free(&w);
            digest second = {14695981039346656037u, 0};
            if (tempo__rpf_check(out.p, out.len, NULL, NULL) != n)
                abort();
            tempo__rpf_reader r2;
            if (tempo__rpf_reader_init(&r2, out.p, out.len, NULL) != 0)
                abort();
            const tempo__rpf_header *a = &r.header, *b = &r2.header;
            if (b->version != TEMPO__RPF_VERSION || a->seed != b->seed || a->start_ns != b->start_ns ||
                a->step_ns != b->step_ns || a->update_hz != b->update_hz || a->policy != b->policy ||
                a->max_frameskip != b->max_frameskip || a->max_render_hz != b->max_render_hz ||
                a->hash_every != b->hash_every || strcmp(a->backend, b->backend) != 0 ||
                a->fingerprint != b->fingerprint || strcmp(a->identity, b->identity) != 0 ||
                a->meta_size != b->meta_size ||
                (a->meta_size && memcmp(a->meta, b->meta, a->meta_size) != 0))
                abort();
            while (tempo__rpf_next(&r2, &rec, NULL) == 1)
                mix_record(&second, &rec);
            if (second.h != first.h || second.records != first.records)
                abort();
            free(out.p);
        }
    }
    free(buf);
    return 0;
}
