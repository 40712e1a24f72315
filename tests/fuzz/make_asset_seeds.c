/* Writes the asset seed files (asset_seeds.h) into a directory, for the
 * fuzz targets' corpora: make_asset_seeds DIR */
#include <stdio.h>

#include <SDL.h>

#include "asset_seeds.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_asset_seeds DIR (an existing directory)\n");
        return 2;
    }
    SDL_SetMainReady();
    if (SDL_Init(0) != 0) {
        fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    int n = 0;
    const asset_seed *s = asset_seeds_write(argv[1], &n);
    SDL_Quit();
    if (s == NULL) {
        fprintf(stderr, "make_asset_seeds: cannot write into %s\n", argv[1]);
        return 1;
    }
    printf("%d seeds in %s\n", n, argv[1]);
    return 0;
}
