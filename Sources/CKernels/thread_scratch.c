/*
** thread_scratch.c -- the kernels' per-thread scratch memory, given back when
** the thread ends.
**
** The GEMM packs panels, the bf16 path converts its operands and the int8
** product quantises its activations into buffers kept per thread and grown on
** demand, so that repeated calls do not allocate. A thread-local pointer alone
** leaks its buffer when the thread exits, and the sentence encoder starts
** fresh threads for every call: an offline summary of a 3,000-page book grew
** by 30 MB that way, a long ib-embed run by more. Each thread that allocates
** here sets a pthread key whose destructor frees all of its slots.
*/
#include "scratch.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct { void *data; size_t capacity; } scratch_slot;

static _Thread_local scratch_slot slots[IB_SCRATCH_SLOTS];
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void free_slots(void *unused) {
    (void)unused;
    for (int i = 0; i < IB_SCRATCH_SLOTS; i++) {
        free(slots[i].data);
        slots[i].data = NULL;
        slots[i].capacity = 0;
    }
}

static void make_exit_key(void) {
    if (pthread_key_create(&exit_key, free_slots) != 0) abort();
}

void *ib_scratch(int slot, size_t bytes) {
    if (slot < 0 || slot >= IB_SCRATCH_SLOTS) abort();
    scratch_slot *s = &slots[slot];
    if (s->capacity < bytes || s->data == NULL) {
        pthread_once(&exit_key_once, make_exit_key);
        if (pthread_getspecific(exit_key) == NULL) pthread_setspecific(exit_key, slots);
        free(s->data);
        size_t rounded = (bytes + 63) & ~(size_t)63;
        s->data = aligned_alloc(64, rounded ? rounded : 64);
        if (!s->data) abort();
        s->capacity = rounded;
    }
    return s->data;
}
