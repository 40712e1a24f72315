/* Small valid files of every format the loader accepts, generated (never
 * stored in the repository): the "must still load" side of the hostile
 * tests, and the seed corpus of the fuzz targets. */
#ifndef TEMPO_TEST_ASSET_SEEDS_H
#define TEMPO_TEST_ASSET_SEEDS_H

#include <stdbool.h>

#include "tempo/loader.h"

typedef struct asset_seed {
    const char *name;     /* file name, e.g. "seed.png" */
    tempo_load_type type; /* how it loads: IMAGE, SOUND or MUSIC */
    bool also_music;      /* a SOUND that also loads as MUSIC */
    int w, h;             /* images: the decoded size */
    bool decoder_optional; /* may fail where SDL_mixer lacks the decoder (MIDI without a
                              sound font, ...): a seed for the fuzzer, not a load test */
    int img_init;          /* the IMG_INIT_* flag its SDL_image decoder needs (0: built in);
                              where IMG_Init() cannot load it, it is skipped */
} asset_seed;

/* Writes every seed into `dir` (which must exist). Uses SDL_image's and
 * SDL's encoders for PNG/JPEG/BMP, hand-written bytes for the rest. Returns
 * the table (count in *n), or NULL if a file could not be written (a JPEG
 * is skipped where SDL_image cannot save one).
 * Needs SDL initialised (no subsystem). */
const asset_seed *asset_seeds_write(const char *dir, int *n);

#endif
