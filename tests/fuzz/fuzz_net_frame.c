/* libFuzzer target for the frame decoder (framework/net_frame.c).
 *
 *   CC=clang meson setup build-fuzz && ninja -C build-fuzz tests/fuzz/fuzz_net_frame
 *   mkdir -p build-fuzz/corpus-net-frame
 *   build-fuzz/tests/fuzz/fuzz_net_frame -max_total_time=30 build-fuzz/corpus-net-frame
 *
 * Built with -fsanitize=fuzzer,address,undefined, so any over-read, overflow
 * or undefined behaviour is a crash. Besides "never crash", it checks that
 * decoding the stream in arbitrary pieces, the way the network thread sees
 * it arrive, gives exactly the frames and the verdict of decoding it whole.
 *
 * Input: byte 0 picks the limits and whether the stream ends there; the rest
 * is the stream. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net_frame.h"

typedef struct digest {
    int frames;
    uint64_t hash;
} digest;

static void mix(const tempo__frame *f, void *user)
{
    digest *d = user;
    d->frames++;
    d->hash = d->hash * 1099511628211u ^ f->type;
    d->hash = d->hash * 1099511628211u ^ f->size;
    for (uint32_t i = 0; i < f->size; i++)
        d->hash = d->hash * 1099511628211u ^ f->payload[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const uint32_t payloads[4] = {0, 16, 1000, TEMPO_NET_MAX_PAYLOAD};
    tempo__frame_limits lim = {payloads[data[0] & 3], (uint16_t)(1 + ((data[0] >> 2) & 7) * 37)};
    int at_end = data[0] >> 7;
    const uint8_t *buf = data + 1;
    size_t len = size - 1;

    /* Whole. */
    digest whole = {0, 14695981039346656037u};
    const char *why = NULL;
    int r = tempo__frame_scan(buf, len, &lim, at_end, mix, &whole, &why);
    if (r >= 0 ? r != whole.frames : (r != TEMPO_EFORMAT || why == NULL))
        abort();

    /* In pieces: a receive buffer that gets the stream a few bytes at a time
     * (sizes taken from the data itself), decoding and compacting as the
     * network thread does. */
    uint8_t *rx = malloc(len ? len : 1);
    size_t fill = 0, fed = 0, step = 1;
    digest pieces = {0, 14695981039346656037u};
    int verdict = 0;
    while (verdict == 0 && fed < len) {
        step = 1 + (buf[fed] + step) % 61;
        size_t take = step < len - fed ? step : len - fed;
        memcpy(rx + fill, buf + fed, take);
        fill += take;
        fed += take;
        size_t off = 0;
        for (;;) {
            tempo__frame f;
            int k = tempo__frame_decode(rx + off, fill - off, &lim, &f, &why);
            if (k < 0) {
                verdict = k;
                break;
            }
            if (k == 0)
                break;
            mix(&f, &pieces);
            off += (size_t)k;
        }
        memmove(rx, rx + off, fill - off);
        fill -= off;
    }
    if (verdict == 0 && at_end && fill > 0)
        verdict = TEMPO_EFORMAT;
    free(rx);

    if ((r < 0) != (verdict < 0) || pieces.frames != whole.frames || pieces.hash != whole.hash)
        abort();
    return 0;
}
