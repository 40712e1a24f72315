/* The loader's texture uploads (loader_internal.h): which images go up in
 * strips, and the upload of the next rows of one, learning the cost per
 * byte (the arithmetic is upload_split.c's). Called by the image format's
 * finalize and by process() (loader_deliver.c); calls only down into
 * loader_request.c and upload_split.c. [loop thread] */
#include "loader_internal.h"
#include "upload_split.h"

/* ---- Texture uploads in strips (issue 21) ----------------------------------
 * SDL_CreateTextureFromSurface uploads a whole image in one call on the loop
 * thread: a 256x256 software texture took longer than the time left before
 * a frame, and must_progress then forced it past the deadline every frame.
 * An image whose surface the loader thread already converted to one of the
 * renderer's formats is uploaded instead as SDL_CreateTexture + one
 * SDL_UpdateTexture per strip of rows (the same bytes SDL's own function
 * copies), each strip sized by the learnt cost per byte to what is left
 * before the deadline. Other surfaces (palettes, colour keys, RLE) keep
 * SDL_CreateTextureFromSurface. */

bool tempo__loader_streamable(const tempo_loader *l, const load_req *r)
{
    const SDL_Surface *s = r->surface;
    if (r->type != TEMPO_LOAD_IMAGE || l->renderer == NULL || s == NULL || SDL_MUSTLOCK(s) ||
        s->format->palette != NULL || SDL_HasColorKey((SDL_Surface *)s))
        return false;
    for (int i = 0; i < l->n_tex_formats; i++)
        if (l->tex_formats[i] == s->format->format)
            return !SDL_ISPIXELFORMAT_FOURCC(s->format->format);
    return false;
}

uint64_t tempo__loader_row_bytes(const SDL_Surface *s)
{
    return (uint64_t)s->w * SDL_BYTESPERPIXEL(s->format->format);
}

int tempo__loader_upload_rows(tempo_loader *l, load_req *r, int rows)
{
    SDL_Surface *s = r->surface;
    uint64_t t0 = l->now_ns(l->now_user);
    SDL_ClearError();
    bool created = r->texture == NULL;
    if (created) {
        r->texture = SDL_CreateTexture(l->renderer, s->format->format, SDL_TEXTUREACCESS_STATIC, s->w, s->h);
        if (r->texture == NULL)
            return tempo__loader_fail(r, TEMPO_EPLATFORM, "%s: SDL_CreateTexture: %s", r->path,
                                      tempo__loader_sdl_text("failed"));
        /* What SDL_CreateTextureFromSurface carries over (no colour key here). */
        Uint8 cr, cg, cb, ca;
        SDL_BlendMode bm;
        SDL_GetSurfaceColorMod(s, &cr, &cg, &cb);
        SDL_SetTextureColorMod(r->texture, cr, cg, cb);
        SDL_GetSurfaceAlphaMod(s, &ca);
        SDL_SetTextureAlphaMod(r->texture, ca);
        SDL_GetSurfaceBlendMode(s, &bm);
        SDL_SetTextureBlendMode(r->texture, bm);
        r->rows_done = 0;
    }
    /* The cost per byte is learnt from the copy alone: a texture's creation
     * (GPU memory on opengl) in a first small strip would make the next
     * strips far too small for many uploads. The creation is learnt apart,
     * per byte of the whole texture, and set aside before a first strip
     * (process()). */
    uint64_t tc = l->now_ns(l->now_user);
    if (created)
        l->create_ns_per_byte = tempo__upload_learn(l->create_ns_per_byte, (uint64_t)s->h * tempo__loader_row_bytes(s), tc - t0);
    if (rows > s->h - r->rows_done)
        rows = s->h - r->rows_done;
    if (rows > 0) {
        SDL_Rect rect = {0, r->rows_done, s->w, rows};
        const Uint8 *px = (const Uint8 *)s->pixels + (size_t)r->rows_done * (size_t)s->pitch;
        if (SDL_UpdateTexture(r->texture, &rect, px, s->pitch) != 0)
            return tempo__loader_fail(r, TEMPO_EPLATFORM, "%s: SDL_UpdateTexture: %s", r->path,
                                      tempo__loader_sdl_text("failed"));
        r->rows_done += rows;
    }
    uint64_t t1 = l->now_ns(l->now_user);
    l->upload_ns = t1 - t0;
    l->upload_ns_per_byte = tempo__upload_learn(l->upload_ns_per_byte, (uint64_t)rows * tempo__loader_row_bytes(s), t1 - tc);
    return 0;
}
