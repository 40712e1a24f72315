/* The handle table: what a public `tempo_handle *` really is.
 *
 * A `tempo_handle *` handed to the game is an id, never an address: slot
 * index + generation, the sokol_gfx scheme. Every public call looks the id up
 * here under one lock; destroying a handle bumps its slot's generation, so a
 * destroyed id (or a copy kept after destroy, or a slot reused by a later
 * handle) never matches again and the call returns TEMPO_EINVAL instead of
 * touching freed or someone else's memory. The backend's objects
 * (plat_handle) stay private to framework/ and platform/.
 *
 * Encoding (uintptr_t): bit 0 is always 1 (an id is never NULL and never an
 * aligned pointer, so a stray dereference faults at once), bits 1..16 the
 * slot index, the rest the slot's generation (47 bits on 64-bit systems, 15
 * on 32-bit ones, where an id could only come back after 32768 reuses of one
 * slot; free slots are reused oldest-first to make that rarer still).
 *
 * Lifetime: the table holds the owner's reference on each backend object.
 * Every call takes its own backend reference under the table lock (a lookup
 * and an atomic increment: the lock is never held across a backend call)
 * and drops it when done, so an object destroyed meanwhile -- by another
 * thread, or while a wait blocks on it -- stays valid until the last user
 * returns (README "Threading rules"), while its id is already dead. A
 * backend operation that lands after the destroy finds the object killed
 * and does nothing visible.
 *
 * The table lock is a leaf: nothing else is locked while it is held.
 * Thread: any. */
#ifndef TEMPO_HANDLE_POOL_H
#define TEMPO_HANDLE_POOL_H

#include "platform.h"

/* The most handles alive at once (slot indices are 16 bits). */
#define TEMPO__HANDLE_MAX_LIVE 65535

/* Registers `obj` of `kind` (enum plat_handle_kind) and returns its new id;
 * the table now owns the object's owner reference. NULL with the detail set
 * (TEMPO_ENOMEM, or TEMPO_ETOOMANY past TEMPO__HANDLE_MAX_LIVE): the object
 * is then still the caller's. */
tempo_handle *tempo__handle_add(plat_handle *obj, int kind);

/* The kind of the live handle `id`, or 0 (NULL, never issued, destroyed). */
int tempo__handle_kind(const tempo_handle *id);

/* Finds the live handle `id` of `kind` (0: either kind) and returns its
 * object with one backend reference taken (plat_handles_retain), so it stays
 * valid even if the handle is destroyed meanwhile; drop it with
 * plat_handles_release(&obj, 1). NULL if `id` is not such a live handle. */
plat_handle *tempo__handle_get(const tempo_handle *id, int kind);

/* Looks up all `n` ids and takes a backend reference on each object
 * (plat_handles_retain) into objs[], all under one lock. Returns 0, or
 * TEMPO_EINVAL (nothing retained) if any id is NULL or not live. The caller
 * drops the references with plat_handles_release(objs, n). */
int tempo__handle_retain(tempo_handle *const *ids, int n, plat_handle **objs);

/* Unregisters `id` and returns its object, whose owner reference passes to
 * the caller (who destroys it); *kind gets its kind. NULL if `id` is not a
 * live handle: nothing changes. */
plat_handle *tempo__handle_remove(tempo_handle *id, int *kind);

/* A public id for `obj`, a backend object that someone else owns and
 * destroys (plat_input_handle's event): the table takes a reference of its
 * own (plat_handles_retain) instead of the owner's. NULL (obj NULL, or the
 * detail set as for tempo__handle_add). Unlend the id before the owner
 * destroys the object, so that no live id names a dead object. */
tempo_handle *tempo__handle_lend(plat_handle *obj, int kind);

/* Kills an id from tempo__handle_lend and drops the table's reference; the
 * object is left alive for its owner. NULL or a dead id: no-op. */
void tempo__handle_unlend(tempo_handle *id);

/* Frees the table when no handle is alive (tempo_shutdown). Ids issued
 * before stay dead: generations continue where they were. [loop thread,
 * no other thread inside Tempo] */
void tempo__handle_shutdown(void);

#endif /* TEMPO_HANDLE_POOL_H */
