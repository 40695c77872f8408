// SHA-256 whole-block compression with the x86 SHA extensions (SHA256RNDS2, SHA256MSG1,
// SHA256MSG2), written from Intel's description of the instructions. The target attribute lets
// this one function use them without raising the whole package's instruction set; callers
// check `deck_sha256_hardware()` first.

#include "DeckIntrinsics.h"

/// The round constants K (FIPS 180-4, 4.2.2), for both compressions (see the header).
const uint32_t deck_sha256_k[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};


#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

int deck_sha256_hardware(void) {
  unsigned int eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  const int ssse3 = (ecx >> 9) & 1;
  const int sse41 = (ecx >> 19) & 1;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  const int sha = (ebx >> 29) & 1;
  return ssse3 && sse41 && sha;
}


#define DECK_SHA_TARGET __attribute__((target("sha,ssse3,sse4.1")))

/// Four rounds: `w` holds the schedule words W[t...t+3] (lane 0 first). SHA256RNDS2 does two
/// rounds with the two low lanes of its third operand (W + K), taking CDGH and ABEF and giving
/// the new ABEF; the old ABEF is then the new CDGH.
static inline DECK_SHA_TARGET void deck_rounds4(__m128i *abef, __m128i *cdgh, __m128i w, int t) {
  __m128i wk = _mm_add_epi32(w, _mm_load_si128((const __m128i *)&deck_sha256_k[t]));
  *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, wk);
  wk = _mm_shuffle_epi32(wk, 0x0e);
  *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, wk);
}

/// The next four schedule words W[t...t+3] from the sixteen before them (w0 = W[t-16...t-13],
/// ..., w3 = W[t-4...t-1]): MSG1 adds sigma0 of W[t-15...t-12] to W[t-16...t-13], the add
/// brings in W[t-7...t-4], and MSG2 adds sigma1 of W[t-2], W[t-1] and of the two words it makes.
static inline DECK_SHA_TARGET __m128i deck_schedule4(__m128i w0, __m128i w1, __m128i w2,
                                                     __m128i w3) {
  __m128i x = _mm_sha256msg1_epu32(w0, w1);
  x = _mm_add_epi32(x, _mm_alignr_epi8(w3, w2, 4));
  return _mm_sha256msg2_epu32(x, w3);
}

DECK_SHA_TARGET
void deck_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t count) {
  // Each 32-bit word of the message is big-endian.
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  // The instructions keep the state as ABEF and CDGH, A and C in the top lanes (lanes from 0
  // up: B A D C and H G F E, then F E B A and H G D C).
  __m128i abcd = _mm_loadu_si128((const __m128i *)&state[0]);
  __m128i efgh = _mm_loadu_si128((const __m128i *)&state[4]);
  __m128i badc = _mm_shuffle_epi32(abcd, 0xb1);
  __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1b);
  __m128i abef = _mm_alignr_epi8(badc, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xf0);

  for (size_t block = 0; block < count; block++) {
    const uint8_t *p = blocks + 64 * block;
    const __m128i abef0 = abef;
    const __m128i cdgh0 = cdgh;
    __m128i w[4];
    for (int i = 0; i < 4; i++) {
      w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), swap);
      deck_rounds4(&abef, &cdgh, w[i], 4 * i);
    }
    for (int t = 16; t < 64; t += 16) {
      for (int i = 0; i < 4; i++) {
        w[i] = deck_schedule4(w[i], w[(i + 1) & 3], w[(i + 2) & 3], w[(i + 3) & 3]);
        deck_rounds4(&abef, &cdgh, w[i], t + 4 * i);
      }
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
  }

  // Back from ABEF and CDGH to A...H (lanes from 0 up: A B E F, then G H C D).
  __m128i abef_up = _mm_shuffle_epi32(abef, 0x1b);
  __m128i ghcd_up = _mm_shuffle_epi32(cdgh, 0xb1);
  abcd = _mm_blend_epi16(abef_up, ghcd_up, 0xf0);
  efgh = _mm_alignr_epi8(ghcd_up, abef_up, 8);
  _mm_storeu_si128((__m128i *)&state[0], abcd);
  _mm_storeu_si128((__m128i *)&state[4], efgh);
}

#else

int deck_sha256_hardware(void) { return 0; }

void deck_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t count) {
  (void)state;
  (void)blocks;
  (void)count;
}

#endif
