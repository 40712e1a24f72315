/* The MIDI check (asset_check_internal.h: tempo__asset_check_midi), for
 * sounds and music: a Standard MIDI File walked event by event, and an
 * upper bound on the song's length. */
#include <stdio.h>
#include <string.h>

#include "asset_check_internal.h"
#include "tempo/base.h"

/* A forward reader over a byte range of the file, a block at a time (the
 * music check reads the file through seeks: one per byte would crawl). */
typedef struct midi_cursor {
    const tempo__asset_reader *rd;
    uint64_t pos, end; /* the next byte; where the range ends */
    uint64_t buf_at;   /* the file offset of buf[0] */
    size_t buf_len;
    unsigned char buf[1024];
} midi_cursor;

/* The next byte, or -1 at the end of the range. */
static int midi_byte(midi_cursor *c)
{
    if (c->pos >= c->end)
        return -1;
    if (c->pos < c->buf_at || c->pos >= c->buf_at + c->buf_len) {
        c->buf_at = c->pos;
        c->buf_len = tempo__asset_read_at(c->rd, c->pos, c->buf, sizeof c->buf);
        if (c->buf_len == 0)
            return -1;
    }
    return c->buf[c->pos++ - c->buf_at];
}

/* A variable-length quantity: 7 bits a byte, high bit set on all but the
 * last, at most 4 bytes (0x0FFFFFFF). -1: cut short or longer than 4. */
static int64_t midi_vlq(midi_cursor *c)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int b = midi_byte(c);
        if (b < 0)
            return -1;
        v = v << 7 | (uint32_t)(b & 0x7F);
        if (!(b & 0x80))
            return v;
    }
    return -1;
}

/* The tempo a walk of the tracks found. */
typedef struct midi_tempo {
    uint32_t slowest;     /* the largest tempo set (us per quarter note) */
    uint64_t first_tick;  /* the tick of the earliest tempo change (UINT64_MAX: none) */
} midi_tempo;

/* Walks one MTrk chunk's events (Standard MIDI File 1.0): a delta time,
 * then a channel message (running status allowed), a system exclusive
 * message (F0/F7, a length, data) or a meta event (FF, a type, a length,
 * data), until the end-of-track meta event or the chunk's end. Sets *ticks
 * to the track's length in ticks; a negative TEMPO_E* code if an event is
 * malformed or cut short. */
static int midi_track(midi_cursor *c, uint32_t track, uint64_t *ticks, midi_tempo *tempo, tempo__asset_info *info)
{
    uint64_t t = 0;
    int status = 0; /* the running status: the last channel message's */
    while (c->pos < c->end) {
        uint64_t at = c->pos;
        int64_t delta = midi_vlq(c);
        if (delta < 0)
            return tempo__asset_fail(info, TEMPO_EFORMAT,
                                     "MIDI track %u: the delta time at byte %llu is cut short or over 4 bytes",
                                     (unsigned)track, (unsigned long long)at);
        t += (uint64_t)delta;
        int b = midi_byte(c);
        if (b < 0)
            return tempo__asset_fail(info, TEMPO_EFORMAT,
                                     "MIDI track %u ends after a delta time, without its event (byte %llu)",
                                     (unsigned)track, (unsigned long long)at);
        int64_t skip; /* the event's bytes still to pass */
        if (b == 0xFF) {
            int type = midi_byte(c);
            skip = midi_vlq(c);
            if (type < 0 || skip < 0)
                return tempo__asset_fail(info, TEMPO_EFORMAT, "MIDI track %u: meta event at byte %llu cut short",
                                         (unsigned)track, (unsigned long long)at);
            if (type == 0x2F)
                break; /* end of track: what follows in the chunk is not played */
            if (type == 0x51 && skip == 3 && c->end - c->pos >= 3) { /* set tempo: 24 bits */
                uint32_t us = (uint32_t)midi_byte(c) << 16;
                us |= (uint32_t)midi_byte(c) << 8;
                us |= (uint32_t)midi_byte(c);
                if (us > tempo->slowest)
                    tempo->slowest = us;
                if (t < tempo->first_tick)
                    tempo->first_tick = t;
                skip = 0;
            }
        } else if (b == 0xF0 || b == 0xF7) {
            skip = midi_vlq(c);
            if (skip < 0)
                return tempo__asset_fail(info, TEMPO_EFORMAT,
                                         "MIDI track %u: system exclusive length at byte %llu cut short",
                                         (unsigned)track, (unsigned long long)at);
        } else if (b >= 0xF0) {
            return tempo__asset_fail(info, TEMPO_EFORMAT,
                                     "MIDI track %u: status byte 0x%02X at byte %llu is not a file event",
                                     (unsigned)track, (unsigned)b, (unsigned long long)at);
        } else {
            if (b >= 0x80) {
                status = b;
                b = midi_byte(c);
            } else if (status == 0) {
                return tempo__asset_fail(info, TEMPO_EFORMAT,
                                         "MIDI track %u: data byte 0x%02X at byte %llu without a status",
                                         (unsigned)track, (unsigned)b, (unsigned long long)at);
            }
            if (b < 0 || b >= 0x80)
                return tempo__asset_fail(info, TEMPO_EFORMAT,
                                         "MIDI track %u: channel message at byte %llu cut short or malformed",
                                         (unsigned)track, (unsigned long long)at);
            /* b was the first data byte; program change and channel pressure have no second */
            skip = (status & 0xF0) == 0xC0 || (status & 0xF0) == 0xD0 ? 0 : 1;
        }
        if ((uint64_t)skip > c->end - c->pos)
            return tempo__asset_fail(info, TEMPO_EFORMAT,
                                     "MIDI track %u: the event at byte %llu runs past the track's end", (unsigned)track,
                                     (unsigned long long)at);
        c->pos += (uint64_t)skip;
    }
    *ticks = t;
    return 0;
}

/* `ticks` at `den` ticks per `mul_us` microseconds, in ms rounded up;
 * UINT64_MAX where that does not fit. */
static uint64_t midi_ms(uint64_t ticks, uint64_t den, uint64_t mul_us)
{
    uint64_t whole = ticks / den, part = ticks % den;
    if (mul_us != 0 && whole > UINT64_MAX / 2 / mul_us)
        return UINT64_MAX;
    uint64_t us = whole * mul_us + (part * mul_us + den - 1) / den; /* part * mul_us < 2^15 * 2^24 */
    return (us + 999u) / 1000u;
}

/* A Standard MIDI File, for SDL_mixer's MIDI reader. An "MThd" header (its
 * length at least 6: format 0, 1 or 2, the track count, the division), then
 * chunks: each "MTrk" is walked event by event (midi_track); others are
 * skipped, as the format asks. A track chunk longer than the file is walked
 * to the file's end, where a cut event is refused. Unlike the other checks
 * this walk follows the format's specification rather than SDL_mixer's
 * reader, and refuses what it cannot parse, so what it passes has the
 * length it computed: SDL_mixer's reader (measured) ends a track at its
 * chunk's end or its end-of-track event, as here, and counts a last delta
 * time left without an event (which is refused here).
 *
 * The song's length is bounded from above, cheaply: the longest track (the
 * sum of the tracks for format 2, whose tracks are separate sequences) at
 * the slowest tempo the file sets (or the default, 120 bpm, if none is set
 * at tick 0). A song that may last more than `max_s` seconds is refused with
 * TEMPO_ERANGE: a delta time is up to 0x0FFFFFFF ticks, so a 40-byte file
 * can claim hundreds of hours, and as a sound SDL_mixer renders all of it
 * into memory (fuzz_asset_load's 38-byte file, a 388-hour song: its loader
 * thread allocated ~60 MB/s, 5 GB in 80 s, with over an hour to go). */
int tempo__asset_check_midi(const tempo__asset_reader *rd, uint32_t max_s, const char *as, tempo__asset_info *info)
{
    unsigned char h[14];
    if (tempo__asset_read_at(rd, 0, h, 14) < 14)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "MIDI header cut short");
    uint32_t hlen = be32(h + 4), format = be16(h + 8), ntracks = be16(h + 10), division = be16(h + 12);
    if (hlen < 6 || format > 2 || ntracks == 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT,
                                 "MIDI header of %u bytes, format %u, %u tracks (6+ bytes, format 0-2, 1+ tracks)",
                                 (unsigned)hlen, (unsigned)format, (unsigned)ntracks);
    /* The time base: ticks per quarter note (whose length is the tempo),
     * or SMPTE: -frames per second in the high byte, ticks per frame. */
    uint32_t fps = (division & 0x8000) ? 256u - (division >> 8) : 0, per_frame = division & 0xFF;
    if ((division & 0x8000) ? per_frame == 0 : division == 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "MIDI division 0x%04X: no time base", (unsigned)division);
    midi_tempo tempo = {.slowest = 0, .first_tick = UINT64_MAX};
    midi_cursor c = {.rd = rd};
    uint64_t pos = 8 + (uint64_t)hlen, longest = 0, sum = 0;
    uint32_t found = 0, longest_track = 0;
    while (found < ntracks && pos + 8 <= rd->size) {
        unsigned char ch[8];
        tempo__asset_read_at(rd, pos, ch, 8);
        uint64_t body = pos + 8, len = be32(ch + 4);
        pos = body + len;
        if (memcmp(ch, "MTrk", 4) != 0)
            continue;
        found++;
        c.pos = body;
        c.end = body + len < rd->size ? body + len : rd->size;
        uint64_t track_ticks = 0;
        int rc = midi_track(&c, found, &track_ticks, &tempo, info);
        if (rc < 0)
            return rc;
        sum += track_ticks; /* < 2^60: one 4-byte delta per byte of a file under 4 GiB */
        if (track_ticks > longest) {
            longest = track_ticks;
            longest_track = found;
        }
    }
    if (found == 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "MIDI file without a track (\"MTrk\" chunk)");
    uint64_t ticks = format == 2 ? sum : longest;
    uint32_t tempo_us = tempo.slowest;
    if (tempo.first_tick > 0 && tempo_us < 500000u)
        tempo_us = 500000u; /* the default tempo holds until the first change */
    uint64_t ms = fps != 0 ? midi_ms(ticks, (uint64_t)fps * per_frame, 1000000u)
                           : midi_ms(ticks, division, tempo_us);
    info->length_ms = ms;
    if (ms > (uint64_t)max_s * 1000u) {
        char where[48];
        if (format == 2)
            snprintf(where, sizeof where, "%u tracks in turn", (unsigned)found);
        else
            snprintf(where, sizeof where, "track %u", (unsigned)longest_track);
        char base[64];
        if (fps != 0)
            snprintf(base, sizeof base, "%u frames/s of %u", (unsigned)fps, (unsigned)per_frame);
        else
            snprintf(base, sizeof base, "%u a quarter note of %u us at the slowest", (unsigned)division,
                     (unsigned)tempo_us);
        bool hours = ms >= UINT64_C(2) * 3600000u;
        return tempo__asset_fail(info, TEMPO_ERANGE,
                                 "MIDI song may last %.1f %s (%s: %llu ticks, %s); at most %u minutes as %s",
                                 (double)ms / (hours ? 3.6e6 : 6e4), hours ? "hours" : "minutes", where,
                                 (unsigned long long)ticks, base, (unsigned)(max_s / 60), as);
    }
    return 0;
}
