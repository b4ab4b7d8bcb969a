/* The run arena: a numpy data allocator (NEP 49's PyDataMem_Handler) that keeps
 * the blocks of big arrays when they are freed and gives them out again, so
 * that a model's second run writes into memory the first has touched.
 *
 * Why: an array of a few hundred KB to a few MB is malloc'd by mmap or from the
 * top of the heap, which glibc gives back to the system when it is freed; the
 * next array of that size then takes a page fault on each 4 KB page it writes.
 * A ViT-S/16 run made 14,500 of them, about a fifth of its time on this
 * machine's virtual CPUs, and a MobileNet 1,300.  Here a block of 64 KB or
 * more is rounded up to one of four sizes per power of two (a quarter at most
 * is unused) and, freed, goes on that size's list, up to a limit of cached
 * bytes; the next request of that size takes it back.  Every block comes from
 * numpy's default handler and goes back to it (pj_arena_base): smaller
 * blocks, and the larger than PJ_ARENA_MAX, are its at once, so its cache of
 * blocks under 1 KB and its huge pages for blocks of 4 MB and more stay (with
 * malloc's own blocks, numpy-16 of pyjit bench ran 15% slower, and memory
 * 18%).
 *
 * Every block has a header of PJ_ARENA_HEADER bytes before the data: the size
 * of its class (0 for a block of its own size, not kept) and what was asked of
 * the base for it, which free and realloc read, since numpy's realloc gives no
 * old size and its free wants the size asked.  The lists are shared by every
 * thread, behind one mutex (numpy allocates and frees with the GIL held, but a
 * handler may not rely on it). */
#ifndef PYJIT_KERNELS_ARENA_H
#define PYJIT_KERNELS_ARENA_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PJ_ARENA_HEADER 64
#define PJ_ARENA_MIN ((size_t)1 << 16)       /* 64 KB */
#define PJ_ARENA_MAX ((size_t)1 << 30)       /* 1 GB */
#define PJ_ARENA_CLASSES 64                  /* (30 - 16) * 4 + 4 < 64 */

/* NEP 49's handler, as numpy's ndarraytypes.h lays it out (version 1). */
typedef struct {
    void* ctx;
    void* (*malloc)(void* ctx, size_t size);
    void* (*calloc)(void* ctx, size_t nelem, size_t elsize);
    void* (*realloc)(void* ctx, void* ptr, size_t new_size);
    void (*free)(void* ctx, void* ptr, size_t size);
} pj_data_allocator;

typedef struct {
    char name[127];
    uint8_t version;
    pj_data_allocator allocator;
} pj_data_handler;

/* A block's header: the size of its class (0 for a block of its own size, not
 * kept), what was asked of the base allocator for it (which numpy's own free
 * wants back: its cache of small blocks is by size), and, on a list, the next. */
typedef struct pj_header {
    size_t bytes;
    size_t asked;
    struct pj_header* next;
} pj_header;

/* The allocator the arena takes its blocks from and gives them back to: the one
 * numpy had when the arena was linked (its default: its cache of small blocks,
 * and huge pages for blocks of 4 MB and more, stay numpy's). */
static pj_data_allocator pj_arena_base;

static pj_header* pj_arena_lists[PJ_ARENA_CLASSES];
static size_t pj_arena_cached = 0;                 /* bytes on the lists */
static size_t pj_arena_limit = (size_t)256 << 20;  /* at most this many */
static size_t pj_arena_reused = 0;                 /* blocks given out again */
static pthread_mutex_t pj_arena_lock = PTHREAD_MUTEX_INITIALIZER;

/* The class of a request of n bytes (PJ_ARENA_MIN <= n <= PJ_ARENA_MAX), and
 * the class's size: 2**k * (4 + i) / 4 for the least i in 0..4 that holds n. */
static int pj_arena_class(size_t n, size_t* rounded) {
    int k = 63 - __builtin_clzll((unsigned long long)n);  /* 2**k <= n */
    size_t base = (size_t)1 << k, step = base >> 2;
    size_t i = (n - base + step - 1) / step;              /* 0..4 */
    *rounded = base + i * step;
    return (k - 16) * 4 + (int)i;
}

/* A new block of the base allocator's, n bytes of data after the header. */
static void* pj_arena_new(size_t n, size_t bytes, int zero) {
    size_t asked = n + PJ_ARENA_HEADER;
    pj_header* h = (pj_header*)(zero
        ? pj_arena_base.calloc(pj_arena_base.ctx, 1, asked)
        : pj_arena_base.malloc(pj_arena_base.ctx, asked));
    if (h == NULL)
        return NULL;
    h->bytes = bytes;
    h->asked = asked;
    return (char*)h + PJ_ARENA_HEADER;
}

static void* pj_arena_take(size_t n, int zero) {
    if (n < PJ_ARENA_MIN || n > PJ_ARENA_MAX)
        return pj_arena_new(n, 0, zero);
    size_t rounded;
    int c = pj_arena_class(n, &rounded);
    pthread_mutex_lock(&pj_arena_lock);
    pj_header* h = pj_arena_lists[c];
    if (h != NULL) {
        pj_arena_lists[c] = h->next;
        pj_arena_cached -= rounded;
        pj_arena_reused++;
    }
    pthread_mutex_unlock(&pj_arena_lock);
    if (h == NULL)   /* (a new block: calloc's zeroed pages cost nothing until written) */
        return pj_arena_new(rounded, rounded, zero);
    if (zero)
        memset((char*)h + PJ_ARENA_HEADER, 0, n);
    return (char*)h + PJ_ARENA_HEADER;
}

static void pj_arena_free(void* ctx, void* ptr, size_t size) {
    (void)ctx; (void)size;
    if (ptr == NULL)
        return;
    pj_header* h = (pj_header*)((char*)ptr - PJ_ARENA_HEADER);
    if (h->bytes != 0) {
        size_t rounded;
        int c = pj_arena_class(h->bytes, &rounded);
        int kept = 0;
        pthread_mutex_lock(&pj_arena_lock);
        if (pj_arena_cached + h->bytes <= pj_arena_limit) {
            h->next = pj_arena_lists[c];
            pj_arena_lists[c] = h;
            pj_arena_cached += h->bytes;
            kept = 1;
        }
        pthread_mutex_unlock(&pj_arena_lock);
        if (kept)
            return;
    }
    pj_arena_base.free(pj_arena_base.ctx, h, h->asked);
}

static void* pj_arena_malloc(void* ctx, size_t size) {
    (void)ctx;
    return pj_arena_take(size, 0);
}

static void* pj_arena_calloc(void* ctx, size_t nelem, size_t elsize) {
    (void)ctx;
    if (elsize != 0 && nelem > (SIZE_MAX - PJ_ARENA_HEADER) / elsize)
        return NULL;
    return pj_arena_take(nelem * elsize, 1);
}

static void* pj_arena_realloc(void* ctx, void* ptr, size_t new_size) {
    if (ptr == NULL)
        return pj_arena_take(new_size, 0);
    pj_header* h = (pj_header*)((char*)ptr - PJ_ARENA_HEADER);
    size_t bytes = h->bytes;
    if (bytes == 0) {   /* a block of its own size stays one, resized by the base */
        pj_header* q = (pj_header*)pj_arena_base.realloc(pj_arena_base.ctx, h,
                                                         new_size + PJ_ARENA_HEADER);
        if (q == NULL)
            return NULL;
        q->asked = new_size + PJ_ARENA_HEADER;
        return (char*)q + PJ_ARENA_HEADER;
    }
    if (new_size <= bytes)
        return ptr;      /* it fits: the block keeps its class */
    void* q = pj_arena_take(new_size, 0);
    if (q == NULL)
        return NULL;     /* the old block stays the caller's, as realloc's */
    memcpy(q, ptr, bytes);
    pj_arena_free(ctx, ptr, bytes);
    return q;
}

/* Give every kept block back to the base allocator; returns how many bytes. */
static size_t pj_arena_release(void) {
    pj_header* lists[PJ_ARENA_CLASSES];
    pthread_mutex_lock(&pj_arena_lock);
    memcpy(lists, pj_arena_lists, sizeof lists);
    memset(pj_arena_lists, 0, sizeof pj_arena_lists);
    size_t released = pj_arena_cached;
    pj_arena_cached = 0;
    pthread_mutex_unlock(&pj_arena_lock);
    for (int c = 0; c < PJ_ARENA_CLASSES; c++)
        while (lists[c] != NULL) {
            pj_header* next = lists[c]->next;
            pj_arena_base.free(pj_arena_base.ctx, lists[c], lists[c]->asked);
            lists[c] = next;
        }
    return released;
}

/* Take the blocks of ``base`` from now on (before the handler is first used). */
static int pj_arena_set_base(const pj_data_handler* base) {
    if (base == NULL || base->version != 1)
        return -1;
    pj_arena_base = base->allocator;
    return 0;
}

static pj_data_handler pj_arena_handler = {
    "pyjit_arena", 1,
    {NULL, pj_arena_malloc, pj_arena_calloc, pj_arena_realloc, pj_arena_free}};

#endif
