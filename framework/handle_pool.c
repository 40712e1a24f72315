/* The handle table (see handle_pool.h): ids = slot index + generation.
 *
 * State: the slot array, the free queue and the live count are guarded by
 * one mutex, `g_lock`, created on first use (a compare-and-swap decides
 * which thread's mutex wins, so the first handles may be created on any
 * threads at once). */
#include <stdatomic.h>
#include <stdlib.h>

#include "handle_pool.h"
#include "tempo_internal.h"

#define SLOT_BITS 16
#define NO_SLOT UINT32_MAX

typedef struct slot {
    uintptr_t gen;     /* generation of the live handle, or of the next one */
    plat_handle *obj;  /* NULL while free */
    uint32_t next;     /* free queue link, NO_SLOT at the tail */
    uint8_t kind;      /* enum plat_handle_kind while live */
} slot;

static _Atomic(plat_mutex *) g_lock;
static slot *g_slots;     /* [g_lock] */
static uint32_t g_nslots; /* [g_lock] slots in use or free */
static uint32_t g_cap;    /* [g_lock] slots allocated */
static uint32_t g_free_head = NO_SLOT, g_free_tail = NO_SLOT; /* [g_lock] oldest freed first */
static uint32_t g_live;   /* [g_lock] */
/* [g_lock] The generation new slots start at. It survives
 * tempo__handle_shutdown, so ids from before a shutdown stay dead after it. */
static uintptr_t g_gen_floor = 1;

static uintptr_t encode(uint32_t index, uintptr_t gen)
{
    /* Unsigned arithmetic: generation bits that do not fit are dropped, the
     * same on encode and on compare. */
    return (gen << (SLOT_BITS + 1)) | ((uintptr_t)index << 1) | 1u;
}

static plat_mutex *lock_table(void)
{
    plat_mutex *m = atomic_load_explicit(&g_lock, memory_order_acquire);
    if (m == NULL) {
        plat_mutex *fresh = plat_mutex_create();
        if (fresh == NULL)
            return NULL;
        if (atomic_compare_exchange_strong_explicit(&g_lock, &m, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            m = fresh;
        else
            plat_mutex_destroy(fresh); /* another thread's won; m holds it */
    }
    plat_mutex_lock(m);
    return m;
}

static void unlock_table(void)
{
    plat_mutex_unlock(atomic_load_explicit(&g_lock, memory_order_relaxed));
}

/* [g_lock] The slot of the live handle `id` of `kind` (0: any), or NULL. */
static slot *find(const tempo_handle *id, int kind)
{
    uintptr_t v = (uintptr_t)id;
    if ((v & 1u) == 0)
        return NULL; /* NULL, or never an id */
    uint32_t index = (uint32_t)((v >> 1) & ((1u << SLOT_BITS) - 1));
    if (index >= g_nslots)
        return NULL;
    slot *s = &g_slots[index];
    if (s->obj == NULL || encode(index, s->gen) != v || (kind != 0 && s->kind != kind))
        return NULL;
    return s;
}

tempo_handle *tempo__handle_add(plat_handle *obj, int kind)
{
    if (lock_table() == NULL)
        return NULL;
    uint32_t index;
    if (g_free_head != NO_SLOT) {
        index = g_free_head;
        g_free_head = g_slots[index].next;
        if (g_free_head == NO_SLOT)
            g_free_tail = NO_SLOT;
    } else if (g_nslots < TEMPO__HANDLE_MAX_LIVE) {
        if (g_nslots == g_cap) {
            uint32_t cap = g_cap ? g_cap * 2 : 64;
            if (cap > TEMPO__HANDLE_MAX_LIVE)
                cap = TEMPO__HANDLE_MAX_LIVE;
            slot *grown = realloc(g_slots, sizeof *grown * cap);
            if (grown == NULL) {
                unlock_table();
                tempo__set_error(TEMPO_ENOMEM, "handle table: out of memory");
                return NULL;
            }
            g_slots = grown;
            g_cap = cap;
        }
        index = g_nslots++;
        g_slots[index].gen = g_gen_floor;
    } else {
        unlock_table();
        tempo__set_error(TEMPO_ETOOMANY, "handle table: %d handles are alive", TEMPO__HANDLE_MAX_LIVE);
        return NULL;
    }
    slot *s = &g_slots[index];
    s->obj = obj;
    s->kind = (uint8_t)kind;
    s->next = NO_SLOT;
    g_live++;
    tempo_handle *id = (tempo_handle *)encode(index, s->gen);
    unlock_table();
    return id;
}

int tempo__handle_kind(const tempo_handle *id)
{
    if (id == NULL || lock_table() == NULL)
        return 0;
    slot *s = find(id, 0);
    int kind = s != NULL ? s->kind : 0;
    unlock_table();
    return kind;
}

plat_handle *tempo__handle_get(const tempo_handle *id, int kind)
{
    if (id == NULL || lock_table() == NULL)
        return NULL;
    slot *s = find(id, kind);
    plat_handle *obj = s != NULL ? s->obj : NULL;
    if (obj != NULL)
        plat_handles_retain(&obj, 1);
    unlock_table();
    return obj;
}

int tempo__handle_retain(tempo_handle *const *ids, int n, plat_handle **objs)
{
    if (n == 0)
        return 0;
    if (lock_table() == NULL)
        return TEMPO_EPLATFORM;
    for (int i = 0; i < n; i++) {
        slot *s = find(ids[i], 0);
        if (s == NULL) {
            unlock_table();
            return tempo__set_error(TEMPO_EINVAL, "tempo_wait: handles[%d] (%p) is %s", i, (const void *)ids[i],
                                    ids[i] == NULL ? "NULL" : "not a live handle (destroyed?)");
        }
        objs[i] = s->obj;
    }
    plat_handles_retain(objs, n);
    unlock_table();
    return 0;
}

plat_handle *tempo__handle_remove(tempo_handle *id, int *kind)
{
    if (id == NULL || lock_table() == NULL)
        return NULL;
    slot *s = find(id, 0);
    if (s == NULL) {
        unlock_table();
        return NULL;
    }
    plat_handle *obj = s->obj;
    *kind = s->kind;
    uint32_t index = (uint32_t)(s - g_slots);
    s->obj = NULL;
    s->kind = 0;
    s->gen++; /* every copy of the old id is dead from here on */
    s->next = NO_SLOT;
    if (g_free_tail != NO_SLOT)
        g_slots[g_free_tail].next = index;
    else
        g_free_head = index;
    g_free_tail = index;
    g_live--;
    unlock_table();
    return obj;
}

tempo_handle *tempo__handle_lend(plat_handle *obj, int kind)
{
    if (obj == NULL)
        return NULL;
    plat_handles_retain(&obj, 1); /* the table's reference: the owner keeps its own */
    tempo_handle *id = tempo__handle_add(obj, kind);
    if (id == NULL)
        plat_handles_release(&obj, 1);
    return id;
}

void tempo__handle_unlend(tempo_handle *id)
{
    int kind = 0;
    plat_handle *obj = tempo__handle_remove(id, &kind);
    if (obj != NULL)
        plat_handles_release(&obj, 1); /* not destroyed: that is the owner's call */
}

void tempo__handle_shutdown(void)
{
    plat_mutex *m = atomic_load(&g_lock);
    if (m == NULL)
        return;
    plat_mutex_lock(m);
    bool idle = g_live == 0;
    if (idle) {
        for (uint32_t i = 0; i < g_nslots; i++)
            if (g_slots[i].gen >= g_gen_floor)
                g_gen_floor = g_slots[i].gen + 1;
        free(g_slots);
        g_slots = NULL;
        g_nslots = g_cap = 0;
        g_free_head = g_free_tail = NO_SLOT;
    }
    plat_mutex_unlock(m);
    if (idle) {
        atomic_store(&g_lock, NULL);
        plat_mutex_destroy(m);
    }
}
