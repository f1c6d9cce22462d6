/*
 * amx.h -- Intel AMX for the kernels (amx.c): permission, and the one tile
 * configuration both AMX GEMMs use (every tile 16 rows of 64 bytes).
 */
#ifndef IB_AMX_H
#define IB_AMX_H

/* Whether this CPU has AMX (int8 and bf16) and Linux granted the process its tile data
 * (ARCH_REQ_XCOMP_PERM, asked once). */
int ib_amx_granted(void);

/* Whether the kernels use AMX now: granted, the AVX-512 kernels selected (IB_KERNELS=avx2
 * turns it off) and not turned off by ib_allow_amx. */
int ib_amx_usable(void);

/* Loads the tile configuration on this thread / releases the tiles. Only when granted. */
void ib_amx_begin(void);
void ib_amx_end(void);

#endif
