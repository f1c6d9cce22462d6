/* SHA-256 (FIPS 180-4), streaming. Book ids and the embedding cache key on
   content hashes; a small C routine keeps IBCore free of heavy crypto deps. */
#ifndef IB_SHA256_H
#define IB_SHA256_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t length;      /* bytes hashed so far */
    uint8_t block[64];
    size_t used;          /* bytes waiting in block */
} ib_sha256_ctx;

void ib_sha256_init(ib_sha256_ctx *ctx);
void ib_sha256_update(ib_sha256_ctx *ctx, const void *data, size_t size);
void ib_sha256_final(ib_sha256_ctx *ctx, uint8_t digest[32]);

#endif
