#ifndef DECK_INTRINSICS_H
#define DECK_INTRINSICS_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256's 64 round constants K (FIPS 180-4, 4.2.2): the first 32 bits of the fractional
/// parts of the cube roots of the first 64 primes. One table for the hardware compression and
/// DeckCore's portable Swift one.
extern const uint32_t deck_sha256_k[64];

/// 1 when this CPU has the SHA extensions and the SSSE3 and SSE4.1 instructions that
/// `deck_sha256_blocks` uses (x86_64 only), else 0.
int deck_sha256_hardware(void);

/// The SHA-256 compression (FIPS 180-4, 6.2.2) of `count` whole 64-byte blocks into `state`
/// (H0...H7, in order), with the SHA extensions' instructions. Call it only when
/// `deck_sha256_hardware()` returns 1; elsewhere it leaves `state` as it is.
void deck_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t count);

#endif
