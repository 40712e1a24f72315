/* tempo_loader_attach(): the loader as a tempo_loop source (tempo/sources.h),
 * built only on the loader's public API. [loop thread]
 *
 * Why not tempo_loader_process_until() alone: it declines to start an item
 * when its running cost estimate exceeds the time left, and the estimate only
 * changes when an item is delivered. One slow item (a 60 ms first texture
 * upload) makes the estimate larger than any gap between frames, and from
 * then on nothing is ever delivered. The loop's must_progress breaks that:
 * the first call of each frame delivers one item whatever the estimate says,
 * which also brings the estimate back to reality. */
#include "tempo/loop.h"
#include "tempo/sources.h"

static bool loader_has_results(tempo_loader *ld)
{
    tempo_loader_stats st;
    return tempo_loader_stats_get(ld, &st) == 0 && st.finished > 0;
}

static int loader_dispatch(void *self, tempo_source_call *call)
{
    tempo_loader *ld = self;
    uint32_t items = 0;
    /* Idle time first: budget-sized slices up to the deadline (each call
     * stops before an item that would probably end after it). */
    for (;;) {
        int r = tempo_loader_process_until(ld, call->deadline_ns);
        if (r < 0)
            return r;
        if (r == 0)
            break;
        items += (uint32_t)r;
    }
    if (items == 0 && call->must_progress && loader_has_results(ld)) {
        /* The guaranteed unit: process() delivers at least one item. */
        int r = tempo_loader_process(ld);
        if (r < 0)
            return r;
        items += (uint32_t)r;
    }
    call->items = items;
    return loader_has_results(ld) ? 1 : 0;
}

int tempo_loader_attach(tempo_loader *ld, tempo_loop *loop)
{
    if (ld == NULL || loop == NULL)
        return TEMPO_EINVAL;
    tempo_source_desc d = {
        .name = "loader", .handle = tempo_loader_handle(ld), .dispatch = loader_dispatch, .self = ld};
    return tempo_loop_add_source(loop, &d);
}

int tempo_loader_detach(tempo_loader *ld, tempo_loop *loop)
{
    if (ld == NULL || loop == NULL)
        return TEMPO_EINVAL;
    return tempo_loop_remove_source(loop, tempo_loader_handle(ld));
}
