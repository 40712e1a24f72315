/* Sound and music checks (asset_check.h: tempo__asset_check_sound,
 * tempo__asset_check_music): the audio signatures, and WAV, AIFF and FLAC
 * walked as SDL 2's and SDL_mixer 2.6.2's readers walk them (MIDI:
 * asset_check_midi.c). */
#include <string.h>

#include "asset_check_internal.h"
#include "tempo/base.h"

/* SDL_mixer's SANE_to_Uint32 (codecs/music_wav.c and load_aiff.c): the
 * AIFF sample rate as SDL_mixer computes it from the 80-bit float, so the
 * check sees the rate SDL_mixer will use (it returns 1 for anything below
 * 1, and fixed large values for the too-large ones). */
static uint32_t sane_rate(const unsigned char *s)
{
    if (s[0] & 0x80)
        return 0;
    if (s[0] <= 0x3F)
        return 1;
    if (s[0] > 0x40)
        return 0x4000000;
    if (s[0] == 0x40 && s[1] > 0x1C)
        return 800000000;
    int shift = 29 - s[1];
    uint32_t m = (uint32_t)s[2] << 23 | (uint32_t)s[3] << 15 | (uint32_t)s[4] << 7 | (uint32_t)s[5] >> 1;
    if (shift < 0 || shift > 31)
        return 0; /* C leaves it undefined; refuse rather than guess */
    return m >> shift;
}

static int check_format_values(tempo__asset_info *info, const char *what, uint32_t channels, uint32_t rate)
{
    info->channels = channels;
    info->rate_hz = rate;
    if (channels < 1 || channels > TEMPO__ASSET_MAX_CHANNELS || rate < TEMPO__ASSET_MIN_RATE_HZ ||
        rate > TEMPO__ASSET_MAX_RATE_HZ)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "%s header claims %u channels at %u Hz (1-%u channels, %u-%u Hz)",
                                 what, (unsigned)channels, (unsigned)rate, TEMPO__ASSET_MAX_CHANNELS,
                                 TEMPO__ASSET_MIN_RATE_HZ, TEMPO__ASSET_MAX_RATE_HZ);
    return 0;
}

/* Audio signatures shared by sound and music. */
static tempo__asset_format detect_audio(const unsigned char *b, size_t n)
{
    if (has(b, n, 0, "RIFF") && has(b, n, 8, "WAVE"))
        return TEMPO__ASSET_WAV;
    if (has(b, n, 0, "FORM"))
        return TEMPO__ASSET_AIFF;
    if (has(b, n, 0, "Crea"))
        return TEMPO__ASSET_VOC;
    if (has(b, n, 0, "OggS"))
        return n >= 36 && memcmp(b + 28, "OpusHead", 8) == 0 ? TEMPO__ASSET_OPUS : TEMPO__ASSET_OGG;
    if (has(b, n, 0, "fLaC"))
        return TEMPO__ASSET_FLAC;
    if (has(b, n, 0, "MThd"))
        return TEMPO__ASSET_MIDI;
    if (has(b, n, 0, "ID3") || (n >= 2 && b[0] == 0xFF && (b[1] & 0xE6) == 0xE2))
        return TEMPO__ASSET_MP3;
    return TEMPO__ASSET_UNKNOWN;
}

/* Big-endian fields read the way SDL_ReadBE16/32 do near the end of the
 * data: bytes past it read as zero. */
static uint32_t be_at(const unsigned char *b, size_t n, uint64_t off, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | (off + (uint64_t)i < n ? b[off + i] : 0);
    return v;
}

/* An AIFF sound, walked as SDL_mixer's Mix_LoadAIFF_RW (load_aiff.c) does:
 * chunks padded to even sizes, the walk ending at a chunk of length 0 or as
 * soon as both a COMM and an SSND were seen; COMM fields are read whatever
 * the chunk's length. It then mallocs frames * channels * bytes and reads
 * them from the SSND data: when they are not all there it returns without
 * freeing that buffer or its RWops (a leak per load; found by
 * fuzz_asset_load), so the data must hold every claimed frame. */
static int sound_aiff(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    if (n < 12 || memcmp(b + 8, "AIFF", 4) != 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT,
                                 "FORM file of type \"%.4s\": SDL_mixer's sound loader reads AIFF only here",
                                 n >= 12 ? (const char *)b + 8 : "?");
    bool comm = false, ssnd = false;
    uint32_t channels = 0, bits = 0, rate = 0;
    uint64_t frames = 0, start = 0, pos = 12;
    while (!(comm && ssnd)) {
        if (pos + 8 > n)
            break; /* a partial header: refused below, whatever SDL_mixer would make of it */
        uint32_t len = be_at(b, n, pos + 4, 4);
        uint64_t body = pos + 8;
        if (len == 0)
            break;
        if (memcmp(b + pos, "SSND", 4) == 0) {
            ssnd = true;
            start = body + 8 + be_at(b, n, body, 4); /* after the offset and block size fields */
        } else if (memcmp(b + pos, "COMM", 4) == 0) {
            comm = true;
            channels = be_at(b, n, body, 2);
            frames = be_at(b, n, body + 2, 4);
            bits = be_at(b, n, body + 6, 2);
            unsigned char sane[10];
            for (int i = 0; i < 10; i++)
                sane[i] = (unsigned char)be_at(b, n, body + 8 + (uint64_t)i, 1);
            rate = sane_rate(sane);
        }
        pos = body + len + (len & 1);
    }
    if (!comm || !ssnd)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "AIFF without %s chunk", comm ? "an SSND" : "a COMM");
    int rc = check_format_values(info, "AIFF", channels, rate);
    if (rc < 0)
        return rc;
    uint64_t need = frames * channels * (bits / 8);
    if (start > n || need > n - start)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "AIFF header claims %llu frames (%llu bytes); the sound data %s",
                                 (unsigned long long)frames, (unsigned long long)need,
                                 start > n ? "starts past the end of the file" : "ends before them");
    if (frames == 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "AIFF header claims 0 sample frames: no sound");
    info->frames = frames;
    return 0;
}

/* The sample frames SDL's WAV reader decodes at least from `len` bytes of
 * data in the format of the first "fmt " chunk (tag, block alignment,
 * samples per ADPCM block; 0 where the chunk does not say): whole blocks
 * only (a partial one may decode or not, by SDL_HINT_WAVE_TRUNCATION).
 * UINT64_MAX for a format SDL does not decode (it refuses the file). */
static uint64_t wav_frames_at_least(unsigned tag, unsigned block, unsigned per_block, uint64_t len)
{
    switch (tag) {
    case 0x0001: /* PCM */
    case 0x0003: /* IEEE float */
    case 0x0006: /* A-law */
    case 0x0007: /* mu-law */
        return block ? len / block : 0;
    case 0x0002: /* MS ADPCM */
    case 0x0011: /* IMA ADPCM: a block holds per_block frames; its header alone one or two */
        return block ? len / block * (per_block ? per_block : 1) : 0;
    default: return UINT64_MAX;
    }
}

/* Sounds go to SDL's own WAV loader (SDL_LoadWAV_RW) and SDL_mixer's AIFF
 * loader (load_aiff.c), which both honour pad bytes. */
static int check_flac(const tempo__asset_reader *rd, tempo__asset_info *info);

int tempo__asset_check_sound(unsigned char *b, size_t n, tempo__asset_info *info)
{
    memset(info, 0, sizeof *info);
    if (n == 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "empty file");
    tempo__asset_format f = detect_audio(b, n);
    info->format = f;
    if (f == TEMPO__ASSET_UNKNOWN) {
        if (has(b, n, 0, "WAVE") || has(b, n, 0, "RIFF"))
            return tempo__asset_fail(info, TEMPO_EFORMAT, "not a RIFF/WAVE file (it starts \"%.4s\")", (const char *)b);
        return tempo__asset_fail(info, TEMPO_ENOTSUP,
                                 "no audio signature Tempo recognises (SDL_mixer would try it as a MOD "
                                 "module; see tempo_loader_desc.allow_unchecked_formats)");
    }
    if (f == TEMPO__ASSET_AIFF)
        return sound_aiff(b, n, info);
    if (f == TEMPO__ASSET_FLAC || f == TEMPO__ASSET_MIDI) {
        tempo__asset_mem m = {b, n};
        tempo__asset_reader rd = tempo__asset_mem_reader(&m);
        return f == TEMPO__ASSET_FLAC ? check_flac(&rd, info)
                                      : tempo__asset_check_midi(&rd, TEMPO__ASSET_MAX_MIDI_SOUND_S, "a sound", info);
    }
    if (f == TEMPO__ASSET_VOC)
        return tempo__asset_fail(info, TEMPO_ENOTSUP,
                                 "VOC: SDL_mixer's VOC reader trusts the lengths in its blocks, which Tempo does "
                                 "not check (see tempo_loader_desc.allow_unchecked_formats)");
    if (f != TEMPO__ASSET_WAV)
        return 0;
    const bool wav = true;
    bool fmt_seen = false, data_seen = false;
    unsigned tag = 0, block = 0, per_block = 0;
    uint64_t data_len = 0, pos = 12;
    while (pos + 8 <= n) {
        unsigned char *c = b + pos;
        uint64_t len = wav ? le32(c + 4) : be32(c + 4);
        uint64_t body = pos + 8;
        if (wav && memcmp(c, "fmt ", 4) == 0 && len >= 16 && body + 16 <= n) {
            int rc = check_format_values(info, "WAVE", le16(b + body + 2), le32(b + body + 4));
            if (rc < 0)
                return rc;
            if (!fmt_seen) { /* SDL reads the first */
                tag = le16(b + body);
                block = le16(b + body + 12);
                if (tag == 0xFFFE && len >= 40 && body + 40 <= n) /* EXTENSIBLE: the sub-format's tag */
                    tag = le16(b + body + 24);
                if (len >= 20 && body + 20 <= n && le16(b + body + 16) >= 2)
                    per_block = le16(b + body + 18);
            }
            fmt_seen = true;
        } else if (wav && memcmp(c, "data", 4) == 0) {
            if (len > n - body) {
                /* SDL_LoadWAV_RW mallocs the claimed length before reading;
                 * by default (SDL_HINT_WAVE_TRUNCATION unset) it then decodes
                 * what is there. Clamp: the same outcome without the giant
                 * allocation. */
                uint32_t have = (uint32_t)(n - body);
                c[4] = (unsigned char)have;
                c[5] = (unsigned char)(have >> 8);
                c[6] = (unsigned char)(have >> 16);
                c[7] = (unsigned char)(have >> 24);
                len = have;
            }
            if (!data_seen) /* SDL decodes the first data chunk only */
                data_len = len;
            data_seen = true;
        }
        pos = body + len + (len & 1); /* chunks are padded to even sizes */
    }
    if (!fmt_seen) /* SDL would refuse it too; one clear message for both */
        return tempo__asset_fail(info, TEMPO_EFORMAT, "WAVE without a complete \"fmt \" chunk");
    if (!data_seen)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "WAVE without a \"data\" chunk");
    /* An empty sound is refused: SDL_mixer 2.8 frees a converted sound of
     * 0 bytes and keeps the freed pointer in the chunk, so that
     * Mix_FreeChunk() frees it a second time (fuzz_asset_load, Debian 13). */
    uint64_t frames = wav_frames_at_least(tag, block, per_block, data_len);
    if (frames == 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT,
                                 "WAVE \"data\" chunk of %llu bytes holds no whole block of %u bytes: no sound",
                                 (unsigned long long)data_len, block);
    info->frames = frames == UINT64_MAX ? 0 : frames;
    (void)wav;
    return 0;
}

/* FLAC, as libFLAC (and dr_flac) read it before any audio: "fLaC", then
 * metadata blocks of a 4-byte header (bit 7: the last block; bits 0-6: the
 * type; a 24-bit big-endian length) and a body. STREAMINFO (type 0, 34
 * bytes) comes first and only there; type 127 is invalid; a SEEKTABLE is
 * whole 18-byte points; a VORBIS_COMMENT's strings (SDL_mixer asks libFLAC
 * for them) lie inside their block; every block lies inside the file. When
 * libFLAC's metadata step fails, SDL_mixer 2.6.2's FLAC reader returns
 * without deleting its decoder: 55 KB leaked per load, as sound or music
 * (fuzz_asset_load, tests/fuzz/corpus/asset_load/flac-aiff-metadata). */
static int check_flac(const tempo__asset_reader *rd, tempo__asset_info *info)
{
    uint64_t pos = 4;
    for (bool first = true, last = false; !last; first = false) {
        unsigned char h[4];
        if (tempo__asset_read_at(rd, pos, h, 4) < 4)
            return tempo__asset_fail(info, TEMPO_EFORMAT, "FLAC metadata ends at byte %llu before its last block",
                                     (unsigned long long)pos);
        last = (h[0] & 0x80) != 0;
        unsigned type = h[0] & 0x7Fu;
        uint32_t len = (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
        uint64_t body = pos + 4;
        if (body + len > rd->size)
            return tempo__asset_fail(info, TEMPO_EFORMAT,
                                     "FLAC metadata block at byte %llu claims %u bytes past the end",
                                     (unsigned long long)pos, (unsigned)len);
        if (first != (type == 0) || (type == 0 && len != 34))
            return tempo__asset_fail(info, TEMPO_EFORMAT, "FLAC stream %s (block type %u, %u bytes at byte %llu)",
                                     first ? "does not start with a 34-byte STREAMINFO" : "has a second STREAMINFO",
                                     type, (unsigned)len, (unsigned long long)pos);
        if (type == 0) {
            unsigned char si[34];
            tempo__asset_read_at(rd, body, si, sizeof si);
            uint32_t min_block = be16(si), max_block = be16(si + 2);
            if (min_block < 16 || max_block < min_block)
                return tempo__asset_fail(info, TEMPO_EFORMAT,
                                         "FLAC STREAMINFO block sizes %u-%u (16 at least, min <= max)",
                                         (unsigned)min_block, (unsigned)max_block);
            uint32_t rate = (uint32_t)si[10] << 12 | (uint32_t)si[11] << 4 | si[12] >> 4;
            int rc = check_format_values(info, "FLAC", ((si[12] >> 1) & 7u) + 1, rate);
            if (rc < 0)
                return rc;
        } else if (type == 127) {
            return tempo__asset_fail(info, TEMPO_EFORMAT, "FLAC metadata block of the invalid type 127 at byte %llu",
                                     (unsigned long long)pos);
        } else if (type == 3 && len % 18 != 0) {
            return tempo__asset_fail(info, TEMPO_EFORMAT, "FLAC SEEKTABLE of %u bytes (whole 18-byte points)",
                                     (unsigned)len);
        } else if (type == 4) {
            /* vendor string, count, then count strings: each a 32-bit LE length and its bytes */
            uint64_t p = body, end = body + len;
            unsigned char w[4];
            for (int64_t k = -1, count = 0; k < count; k++) {
                if (p + 4 > end || tempo__asset_read_at(rd, p, w, 4) < 4 || le32(w) > end - p - 4)
                    return tempo__asset_fail(info, TEMPO_EFORMAT, "FLAC VORBIS_COMMENT string runs past its block");
                p += 4 + le32(w);
                if (k == -1) {
                    if (p + 4 > end || tempo__asset_read_at(rd, p, w, 4) < 4)
                        return tempo__asset_fail(info, TEMPO_EFORMAT, "FLAC VORBIS_COMMENT without its comment count");
                    count = le32(w);
                    p += 4;
                }
            }
        }
        pos = body + len;
    }
    return 0;
}

/* An INFO list, read as SDL_mixer's ParseLIST / read_meta_field do: each
 * known field's length is read 4 bytes after its tag, and its text is
 * copied with SDL_strlcpy, which runs strlen() on it: a field without a NUL
 * inside the chunk makes SDL_mixer read past its buffer. */
static int check_list_info(const unsigned char *d, uint32_t len, tempo__asset_info *info)
{
    if (len < 4)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "WAVE LIST chunk of %u bytes (SDL_mixer reads 4)", (unsigned)len);
    if (memcmp(d, "INFO", 4) != 0)
        return 0;
    for (uint64_t i = 4; i < (uint64_t)len - 4;) {
        const unsigned char *t = d + i;
        if (memcmp(t, "INAM", 4) == 0 || memcmp(t, "IART", 4) == 0 || memcmp(t, "IALB", 4) == 0 ||
            memcmp(t, "BCPR", 4) == 0) {
            i += 4;
            if (i + 4 > len)
                return tempo__asset_fail(info, TEMPO_EFORMAT, "WAVE INFO field length past its LIST chunk");
            uint32_t flen = le32(d + i);
            if (flen > len)
                continue; /* SDL_mixer skips it ("broken length") */
            i += 4;
            if (i >= len || memchr(d + i, 0, (size_t)(len - i)) == NULL)
                return tempo__asset_fail(info, TEMPO_EFORMAT,
                                         "WAVE INFO text without a terminating NUL inside its LIST chunk");
            i += flen;
            continue;
        }
        i++;
    }
    return 0;
}

/* Chunks SDL_mixer's music reader copies into a buffer of their claimed
 * length: refused when that length runs past the file. */
static int chunk_in_file(const tempo__asset_reader *rd, uint64_t body, uint64_t len, const char *tag,
                         tempo__asset_info *info)
{
    if (body + len > rd->size)
        return tempo__asset_fail(info, TEMPO_EFORMAT,
                                 "\"%.4s\" chunk at byte %llu claims %llu bytes; the file ends after %llu", tag,
                                 (unsigned long long)(body - 8), (unsigned long long)len,
                                 (unsigned long long)(rd->size > body ? rd->size - body : 0));
    return 0;
}


/* The WAV walk of SDL_mixer's LoadWAVMusic: chunks start right after the
 * previous one, with no pad byte (unlike RIFF and SDL's own reader); the
 * walk ends at a chunk of length 0 or at the end of the file; every "fmt "
 * is parsed (the last one wins); smpl, LIST and "id3 " are read whole into
 * buffers of their claimed length. */
static int music_wav(const tempo__asset_reader *rd, tempo__asset_info *info)
{
    bool fmt = false;
    uint64_t pos = 12;
    for (;;) {
        unsigned char h[8];
        if (tempo__asset_read_at(rd, pos, h, 8) < 8)
            break; /* a partial header: every later read fails, the walk ends */
        uint32_t len = le32(h + 4);
        uint64_t body = pos + 8;
        if (len == 0)
            break;
        if (memcmp(h, "fmt ", 4) == 0) {
            unsigned char f[16];
            if (len < 16 || tempo__asset_read_at(rd, body, f, 16) < 16)
                return tempo__asset_fail(info, TEMPO_EFORMAT, "WAVE \"fmt \" chunk cut short");
            int rc = check_format_values(info, "WAVE", le16(f + 2), le32(f + 4));
            if (rc < 0)
                return rc;
            fmt = true;
        } else if (memcmp(h, "smpl", 4) == 0) {
            /* ParseSMPL reads sample_loops from a 36-byte header, then that
             * many 24-byte loops from the buffer, unchecked. */
            int rc = chunk_in_file(rd, body, len, "smpl", info);
            if (rc < 0)
                return rc;
            unsigned char s[36];
            if (len < 36)
                return tempo__asset_fail(info, TEMPO_EFORMAT, "WAVE smpl chunk of %u bytes (its header is 36)",
                                         (unsigned)len);
            tempo__asset_read_at(rd, body, s, 36);
            uint64_t loops = le32(s + 28);
            if (36 + loops * 24 > len)
                return tempo__asset_fail(info, TEMPO_EFORMAT, "WAVE smpl chunk claims %llu loops in %u bytes",
                                         (unsigned long long)loops, (unsigned)len);
        } else if (memcmp(h, "LIST", 4) == 0) {
            int rc = chunk_in_file(rd, body, len, "LIST", info);
            if (rc < 0)
                return rc;
            /* Bounded by the file; read it in pieces small enough for the stack. */
            unsigned char d[4096];
            if (len <= sizeof d) {
                tempo__asset_read_at(rd, body, d, len);
                if ((rc = check_list_info(d, len, info)) < 0)
                    return rc;
            } else {
                tempo__asset_read_at(rd, body, d, 4);
                if (memcmp(d, "INFO", 4) == 0)
                    return tempo__asset_fail(info, TEMPO_EFORMAT, "WAVE LIST INFO chunk of %u bytes (at most %zu)",
                                             (unsigned)len, sizeof d);
            }
        } else if (memcmp(h, "id3 ", 4) == 0 || memcmp(h, "ID3 ", 4) == 0) {
            int rc = chunk_in_file(rd, body, len, (const char *)h, info);
            if (rc < 0)
                return rc;
        }
        pos = body + len; /* SDL_mixer skips no pad byte */
    }
    if (!fmt)
        return tempo__asset_fail(info, TEMPO_EFORMAT,
                                 "WAVE without a \"fmt \" chunk (as SDL_mixer's music reader walks it)");
    return 0;
}

/* The AIFF walk of SDL_mixer's LoadAIFFMusic: chunks padded to even sizes,
 * until the next chunk would start at or after the end of the file; the
 * last COMM wins; NAME, AUTH, "(c) " and "ID3 " are read whole into a buffer
 * of their claimed length (plus one: a length of 2^32-1 wraps to 0). */
static int music_aiff(const tempo__asset_reader *rd, tempo__asset_info *info)
{
    unsigned char kind[4];
    tempo__asset_read_at(rd, 8, kind, 4);
    bool aifc = memcmp(kind, "AIFC", 4) == 0;
    if (!aifc && memcmp(kind, "AIFF", 4) != 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "FORM file of type \"%.4s\", not AIFF", (const char *)kind);
    bool comm = false;
    uint64_t pos = 12, next;
    do {
        unsigned char h[8];
        tempo__asset_read_at(rd, pos, h, 8);
        uint32_t len = be32(h + 4);
        uint64_t body = pos + 8;
        next = body + len + (len & 1);
        if (memcmp(h, "COMM", 4) == 0) {
            unsigned char c[18];
            if (len < 18 || tempo__asset_read_at(rd, body, c, 18) < 18)
                return tempo__asset_fail(info, TEMPO_EFORMAT, "AIFF COMM chunk cut short");
            int rc = check_format_values(info, "AIFF", be16(c), sane_rate(c + 8));
            if (rc < 0)
                return rc;
            comm = true;
        } else if (memcmp(h, "NAME", 4) == 0 || memcmp(h, "AUTH", 4) == 0 || memcmp(h, "(c) ", 4) == 0 ||
                   memcmp(h, "ID3 ", 4) == 0) {
            int rc = chunk_in_file(rd, body, len, (const char *)h, info);
            if (rc < 0)
                return rc;
        }
        pos = next;
    } while (next < rd->size);
    if (!comm)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "AIFF without a COMM chunk");
    return 0;
}

int tempo__asset_check_music(const tempo__asset_reader *rd, tempo__asset_info *info)
{
    memset(info, 0, sizeof *info);
    if (rd->size == 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "empty file");
    unsigned char head[36];
    size_t n = tempo__asset_read_at(rd, 0, head, sizeof head);
    tempo__asset_format f = detect_audio(head, n);
    info->format = f;
    switch (f) {
    case TEMPO__ASSET_WAV: return music_wav(rd, info);
    case TEMPO__ASSET_AIFF: return music_aiff(rd, info);
    case TEMPO__ASSET_FLAC: return check_flac(rd, info);
    case TEMPO__ASSET_MIDI: return tempo__asset_check_midi(rd, TEMPO__ASSET_MAX_MIDI_MUSIC_S, "music", info);
    case TEMPO__ASSET_OGG:
    case TEMPO__ASSET_OPUS:
    case TEMPO__ASSET_MP3:
        return 0;
    case TEMPO__ASSET_VOC:
        return tempo__asset_fail(info, TEMPO_EFORMAT, "VOC is not a music format SDL_mixer reads (load it as a sound)");
    default:
        /* SDL_mixer's music reader takes "WAVE" for "RIFF" (music_wav.c),
         * and then walks different chunks than any RIFF reader. */
        if (has(head, n, 0, "WAVE") || has(head, n, 0, "RIFF"))
            return tempo__asset_fail(info, TEMPO_EFORMAT, "not a RIFF/WAVE file (it starts \"%.4s\")",
                                     (const char *)head);
        return tempo__asset_fail(info, TEMPO_ENOTSUP,
                                 "no audio signature Tempo recognises (SDL_mixer would try it as a MOD "
                                 "module; see tempo_loader_desc.allow_unchecked_formats)");
    }
}
