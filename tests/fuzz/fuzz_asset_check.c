/* libFuzzer target for the asset format checks (framework/asset_check*.c).
 *
 *   CC=clang meson setup build-fuzz -Dsamples=disabled
 *   ninja -C build-fuzz tests/fuzz/fuzz_asset_check tests/fuzz/make_asset_seeds
 *   build-fuzz/tests/fuzz/make_asset_seeds build-fuzz/corpus-asset-check
 *   build-fuzz/tests/fuzz/fuzz_asset_check -max_total_time=30 build-fuzz/corpus-asset-check
 *
 * Built with -fsanitize=fuzzer,address,undefined: any over-read, overflow or
 * undefined behaviour is a crash. Besides "never crash" it checks what the
 * loader relies on: an accepted image is within the limits, an accepted
 * WAV/AIFF has 1-8 channels at a sane rate, an accepted MIDI song is no
 * longer than its limit (as a sound, as music), a refusal always says why, the
 * memory reader sees exactly the bytes, and the sound check's repair (the
 * WAV data clamp) is idempotent. */
#include <stdlib.h>
#include <string.h>

#include "asset_check.h"
#include "tempo/base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int cond)
{
    if (!cond)
        __builtin_trap();
}

static void judged(int rc, const tempo__asset_info *info)
{
    require(rc == 0 || rc == TEMPO_ERANGE || rc == TEMPO_EFORMAT || rc == TEMPO_ENOTSUP);
    require(memchr(info->why, 0, sizeof info->why) != NULL);
    if (rc < 0)
        require(info->why[0] != '\0');
    if (rc == 0 && (info->format == TEMPO__ASSET_WAV || info->format == TEMPO__ASSET_AIFF)) {
        require(info->channels >= 1 && info->channels <= TEMPO__ASSET_MAX_CHANNELS);
        require(info->rate_hz >= TEMPO__ASSET_MIN_RATE_HZ && info->rate_hz <= TEMPO__ASSET_MAX_RATE_HZ);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const tempo__asset_limits lims[2] = {{16384, 16384, UINT64_C(8192) * 8192}, {64, 64, 1000}};
    tempo__asset_info info;
    for (int named = 0; named < 2; named++)
        for (int k = 0; k < 2; k++) {
            int rc = tempo__asset_check_image(data, size, named, &lims[k], &info);
            judged(rc, &info);
            if (rc == 0) {
                require(info.w >= 1 && info.h >= 1);
                require(info.w <= lims[k].max_w && info.h <= lims[k].max_h);
                require((uint64_t)info.w * info.h <= lims[k].max_pixels);
            }
        }

    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    int rc = tempo__asset_check_sound(copy, size, &info);
    judged(rc, &info);
    if (rc == 0 && info.format == TEMPO__ASSET_MIDI) /* rendered whole: bounded */
        require(info.length_ms <= (uint64_t)TEMPO__ASSET_MAX_MIDI_SOUND_S * 1000u);
    if (rc == 0 && info.format == TEMPO__ASSET_AIFF) /* never an empty sound (SDL_mixer 2.8 frees it twice) */
        require(info.frames >= 1);
    if (rc == 0) { /* repaired once, a second pass changes nothing */
        unsigned char *again = malloc(size ? size : 1);
        memcpy(again, copy, size);
        require(tempo__asset_check_sound(again, size, &info) == 0);
        require(memcmp(again, copy, size) == 0);
        free(again);
    }
    free(copy);

    tempo__asset_mem m = {data, size};
    tempo__asset_reader rd = tempo__asset_mem_reader(&m);
    require(rd.size == size);
    rc = tempo__asset_check_music(&rd, &info);
    judged(rc, &info);
    if (rc == 0 && info.format == TEMPO__ASSET_MIDI)
        require(info.length_ms <= (uint64_t)TEMPO__ASSET_MAX_MIDI_MUSIC_S * 1000u);
    return 0;
}
