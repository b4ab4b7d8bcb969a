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
 * bytes; the next request of that size takes it back.  Smaller blocks, and
 * the larger than PJ_ARENA_MAX, are malloc's, as numpy's own handler does.
 *
 * Every block has a header of PJ_ARENA_HEADER bytes before the data: the size
 * of its class (0 for a block of malloc's own), which free and realloc read,
 * since numpy's realloc gives no old size.  The lists are shared by every
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

typedef struct pj_block { struct pj_block* next; } pj_block;
typedef struct { size_t bytes; } pj_header;

static pj_block* pj_arena_lists[PJ_ARENA_CLASSES];
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

static void* pj_arena_plain(size_t n, int zero) {
    char* p = zero ? (char*)calloc(1, n + PJ_ARENA_HEADER) : (char*)malloc(n + PJ_ARENA_HEADER);
    if (p == NULL)
        return NULL;
    ((pj_header*)p)->bytes = 0;
    return p + PJ_ARENA_HEADER;
}

static void* pj_arena_take(size_t n, int zero) {
    if (n < PJ_ARENA_MIN || n > PJ_ARENA_MAX)
        return pj_arena_plain(n, zero);
    size_t rounded;
    int c = pj_arena_class(n, &rounded);
    pthread_mutex_lock(&pj_arena_lock);
    pj_block* b = pj_arena_lists[c];
    if (b != NULL) {
        pj_arena_lists[c] = b->next;
        pj_arena_cached -= rounded;
        pj_arena_reused++;
    }
    pthread_mutex_unlock(&pj_arena_lock);
    char* p;
    if (b != NULL) {
        p = (char*)b;
        if (zero)
            memset(p + PJ_ARENA_HEADER, 0, n);
    } else {
        /* a new block: calloc's zeroed pages cost nothing until written */
        p = zero ? (char*)calloc(1, rounded + PJ_ARENA_HEADER)
                 : (char*)malloc(rounded + PJ_ARENA_HEADER);
        if (p == NULL)
            return NULL;
    }
    ((pj_header*)p)->bytes = rounded;
    return p + PJ_ARENA_HEADER;
}

static void pj_arena_free(void* ctx, void* ptr, size_t size) {
    (void)ctx; (void)size;
    if (ptr == NULL)
        return;
    char* p = (char*)ptr - PJ_ARENA_HEADER;
    size_t bytes = ((pj_header*)p)->bytes;
    if (bytes != 0) {
        size_t rounded;
        int c = pj_arena_class(bytes, &rounded);
        pthread_mutex_lock(&pj_arena_lock);
        if (pj_arena_cached + bytes <= pj_arena_limit) {
            ((pj_block*)p)->next = pj_arena_lists[c];
            pj_arena_lists[c] = (pj_block*)p;
            pj_arena_cached += bytes;
            p = NULL;
        }
        pthread_mutex_unlock(&pj_arena_lock);
    }
    free(p);
}

static void* pj_arena_malloc(void* ctx, size_t size) {
    (void)ctx;
    return pj_arena_take(size, 0);
}

static void* pj_arena_calloc(void* ctx, size_t nelem, size_t elsize) {
    (void)ctx;
    if (elsize != 0 && nelem > SIZE_MAX / elsize)
        return NULL;
    return pj_arena_take(nelem * elsize, 1);
}

static void* pj_arena_realloc(void* ctx, void* ptr, size_t new_size) {
    if (ptr == NULL)
        return pj_arena_take(new_size, 0);
    char* p = (char*)ptr - PJ_ARENA_HEADER;
    size_t bytes = ((pj_header*)p)->bytes;
    if (bytes == 0) {   /* malloc's own block stays malloc's */
        char* q = (char*)realloc(p, new_size + PJ_ARENA_HEADER);
        return q == NULL ? NULL : q + PJ_ARENA_HEADER;
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

/* Give every cached block back to the system; returns how many bytes. */
static size_t pj_arena_release(void) {
    pj_block* lists[PJ_ARENA_CLASSES];
    pthread_mutex_lock(&pj_arena_lock);
    memcpy(lists, pj_arena_lists, sizeof lists);
    memset(pj_arena_lists, 0, sizeof pj_arena_lists);
    size_t released = pj_arena_cached;
    pj_arena_cached = 0;
    pthread_mutex_unlock(&pj_arena_lock);
    for (int c = 0; c < PJ_ARENA_CLASSES; c++)
        while (lists[c] != NULL) {
            pj_block* next = lists[c]->next;
            free(lists[c]);
            lists[c] = next;
        }
    return released;
}

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

static pj_data_handler pj_arena_handler = {
    "pyjit_arena", 1,
    {NULL, pj_arena_malloc, pj_arena_calloc, pj_arena_realloc, pj_arena_free}};

#endif
