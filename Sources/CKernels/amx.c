/*
 * amx.c -- Intel AMX: the process asks Linux for the tile data state once
 * (a process that never asked faults on its first tile instruction), and each
 * GEMM loads one tile configuration: eight tiles of 16 rows x 64 bytes, which
 * is 16 x 64 int8 codes (tdpbusd), 16 x 32 bf16 values (tdpbf16ps), or
 * 16 x 16 int32 / fp32 sums.
 */
#include "amx.h"
#include "ib_kernels.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <immintrin.h>
#ifdef __linux__
# include <sys/syscall.h>
# include <unistd.h>
#endif

#define AMX __attribute__((target("amx-tile")))

static int granted;

static void ask(void) {
#if defined(__linux__) && defined(SYS_arch_prctl)
    if (__builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-int8") && __builtin_cpu_supports("amx-bf16"))
        granted = syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XFEATURE_XTILEDATA */) == 0;
#endif
}

int ib_amx_granted(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ask);
    return granted;
}

static int allowed = 1;

int ib_allow_amx(int allow) {
    allowed = allow != 0;
    return ib_amx_usable();
}

int ib_amx_usable(void) {
    return allowed && strcmp(ib_kernels_isa(), "avx512") == 0 && ib_amx_granted();
}

struct amx_config { uint8_t palette, start; uint8_t reserved[14]; uint16_t bytes[16]; uint8_t rows[16]; };

AMX void ib_amx_begin(void) {
    struct amx_config c;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (int t = 0; t < 8; t++) { c.rows[t] = 16; c.bytes[t] = 64; }
    _tile_loadconfig(&c);
}

AMX void ib_amx_end(void) { _tile_release(); }
