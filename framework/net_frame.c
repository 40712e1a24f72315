/* Frame encoding and decoding for tempo/net.h (see net_frame.h). */
#include "net_frame.h"

static uint32_t read_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint16_t read_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

int tempo_net_frame_header(uint8_t out[TEMPO_NET_HEADER_BYTES], uint16_t type, uint32_t size)
{
    if (out == NULL || type == 0 || (size & UINT32_C(0x80000000)) != 0)
        return TEMPO_EINVAL;
    out[0] = (uint8_t)(size >> 24);
    out[1] = (uint8_t)(size >> 16);
    out[2] = (uint8_t)(size >> 8);
    out[3] = (uint8_t)size;
    out[4] = (uint8_t)(type >> 8);
    out[5] = (uint8_t)type;
    out[6] = 0;
    out[7] = 0;
    return 0;
}

static int malformed(const char **why, const char *text)
{
    if (why)
        *why = text;
    return TEMPO_EFORMAT;
}

int tempo__frame_decode(const uint8_t *buf, size_t len, const tempo__frame_limits *lim, tempo__frame *out,
                        const char **why)
{
    if (len < TEMPO_NET_HEADER_BYTES)
        return 0;
    uint32_t size = read_be32(buf);
    uint16_t type = read_be16(buf + 4);
    out->type = type; /* the header as read, for a malformed one's report too */
    out->size = size;
    out->payload = NULL;
    if (size & UINT32_C(0x80000000))
        return malformed(why, "negative frame length");
    if (size > lim->max_payload)
        return malformed(why, "frame length above the limit");
    if (type == 0 || type > lim->max_type)
        return malformed(why, "unknown frame type");
    if (buf[6] != 0 || buf[7] != 0)
        return malformed(why, "reserved header bytes are not zero");
    /* size <= max_payload <= TEMPO_NET_MAX_PAYLOAD: no overflow below, and
     * the total fits an int. */
    if (len - TEMPO_NET_HEADER_BYTES < size)
        return 0;
    out->payload = buf + TEMPO_NET_HEADER_BYTES;
    return (int)(TEMPO_NET_HEADER_BYTES + size);
}

int tempo__frame_scan(const uint8_t *buf, size_t len, const tempo__frame_limits *lim, int at_end,
                      void (*fn)(const tempo__frame *frame, void *user), void *user, const char **why)
{
    tempo__frame_limits l = *lim;
    if (l.max_payload > TEMPO_NET_MAX_PAYLOAD)
        l.max_payload = TEMPO_NET_MAX_PAYLOAD;
    size_t off = 0;
    int frames = 0;
    while (off < len) {
        tempo__frame f;
        int r = tempo__frame_decode(buf + off, len - off, &l, &f, why);
        if (r < 0)
            return r;
        if (r == 0) {
            if (at_end)
                return malformed(why, "stream ends inside a frame (truncated)");
            break;
        }
        if (fn)
            fn(&f, user);
        off += (size_t)r;
        frames++;
    }
    return frames;
}
