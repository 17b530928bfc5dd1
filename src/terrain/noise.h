/* Pieces every procedural generator of the terrain module shares: the integer hash of lattice coordinates that
 * makes every sample a pure function of (x, y, seed), and the quintic fade of gradient and value noise. */
#ifndef STRATA_TERRAIN_NOISE_H
#define STRATA_TERRAIN_NOISE_H

#include <stdint.h>

static inline uint32_t st_noise_hash(uint32_t x, uint32_t y, uint32_t s) {
    uint32_t h = x * 0x8da6b343u ^ (y * 0xd8163841u + 0x9e3779b9u) ^ (s * 0xcb1ab31fu);
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/* 6t⁵ − 15t⁴ + 10t³: zero slope and curvature at both ends of a lattice cell. */
static inline float st_noise_fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }

#endif
