/* .vmc: the compressed Vangers map. Decoding is table-driven (an 11-bit lookup per symbol, a tree walk
 * only for longer codes) and runs rows in parallel; encoding builds length-limited Huffman codes for the
 * height deltas and the metadata xors and stores them in the original's 512-entry tree layout. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "strata/vangers.h"

#define LUT_BITS 11
#define LUT_SIZE (1u << LUT_BITS)
#define TREE_BYTES (2u * ST_VMC_TREE_SIZE * 4u)

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static uint64_t rd64be(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* ---- trees -------------------------------------------------------------------------------------------- */

/* Depth-first walk from node; state: 0 unvisited, 1 on the current path, 2 done. */
static st_result check_node(const int32_t *tree, uint32_t node, uint8_t *state, unsigned depth, const char *name,
                            st_error *err) {
    state[node] = 1;
    for (uint32_t bit = 0; bit < 2; bit++) {
        uint32_t idx = 2 * node + bit;
        int32_t v = tree[idx];
        if (v > 255)
            return st_error_set(err, ST_ERR_FORMAT, "%s: decode tree entry %u links to node %d (nodes are 1..255)",
                                name, idx, v);
        if (v < -255)
            return st_error_set(err, ST_ERR_FORMAT, "%s: decode tree entry %u holds symbol %lld (symbols are 0..255)",
                                name, idx, -(long long)v); /* v may be INT32_MIN */
        if (v <= 0) continue;
        if (state[v] == 1)
            return st_error_set(err, ST_ERR_FORMAT, "%s: decode tree has a cycle through node %d", name, v);
        if (state[v] == 0) {
            st_result r = check_node(tree, (uint32_t)v, state, depth + 1, name, err);
            if (r) return r;
        }
    }
    state[node] = 2;
    return ST_OK;
}

st_result st_vmc_tree_check(const int32_t tree[ST_VMC_TREE_SIZE], const char *name, st_error *err) {
    uint8_t state[256] = {0};
    return check_node(tree, 1, state, 0, name ? name : "tree", err);
}

/* A lookup entry: len<<8 | symbol for codes of 1..11 bits; 0<<8 | node for longer codes, where node is
 * where the walk stands after 11 bits. */
typedef struct vmc_code {
    uint16_t lut[LUT_SIZE];
    int32_t tree[ST_VMC_TREE_SIZE];
} vmc_code;

static void build_lut(vmc_code *c) {
    for (uint32_t p = 0; p < LUT_SIZE; p++) {
        uint32_t node = 1;
        uint16_t e = 0;
        bool leaf = false;
        for (uint32_t b = 0; b < LUT_BITS; b++) {
            uint32_t bit = (p >> (LUT_BITS - 1 - b)) & 1u;
            int32_t v = c->tree[2 * node + bit];
            if (v > 0) {
                node = (uint32_t)v;
            } else {
                e = (uint16_t)(((b + 1) << 8) | ((uint32_t)(-v) & 0xFFu));
                leaf = true;
                break;
            }
        }
        c->lut[p] = leaf ? e : (uint16_t)node;
    }
}

/* ---- decoding ------------------------------------------------------------------------------------------ */

typedef enum row_status { ROW_OK, ROW_OVERRUN, ROW_LEFTOVER } row_status;

typedef struct bitreader {
    const uint8_t *data;
    size_t size; /* of the whole file: reads past it see zeros */
    size_t pos;  /* next byte to load */
    uint64_t buf; /* MSB-aligned; bits below cnt may already hold the next bytes */
    unsigned cnt;
} bitreader;

static inline void br_refill(bitreader *r) {
    if (r->pos + 8 <= r->size) {
        /* Branch-free: load 8 bytes, keep whole bytes; re-loading a partly held byte is harmless. */
        r->buf |= rd64be(r->data + r->pos) >> r->cnt;
        r->pos += (63 - r->cnt) >> 3;
        r->cnt |= 56;
    } else {
        while (r->cnt <= 56) {
            uint64_t b = r->pos < r->size ? r->data[r->pos] : 0;
            r->buf |= b << (56 - r->cnt);
            r->pos++;
            r->cnt += 8;
        }
    }
}

/* Decodes w symbols starting at byte `start`; returns the byte after the last bit used, or SIZE_MAX when
 * the stream ran more than a few bytes past `limit` (the row's end). */
static size_t decode_stream(const vmc_code *c, const uint8_t *data, size_t size, size_t start, size_t limit,
                            uint8_t *out, uint32_t w, bool use_xor) {
    bitreader r = {data, size, start, 0, 0};
    uint8_t acc = 0;
    uint32_t x = 0;
    while (x < w) {
        br_refill(&r);
        if (r.pos > limit + 16) return SIZE_MAX; /* corrupt: stop early instead of decoding junk */
        /* cnt ≥ 56 here: five lookups of at most 11 bits each are covered. */
        for (int k = 0; k < 5 && x < w; k++) {
            uint16_t e = c->lut[r.buf >> (64 - LUT_BITS)];
            unsigned len = e >> 8;
            uint8_t sym;
            if (len) {
                r.buf <<= len;
                r.cnt -= len;
                sym = (uint8_t)e;
            } else {
                /* A code longer than the table: walk the (checked, acyclic) tree bit by bit. */
                r.buf <<= LUT_BITS;
                r.cnt -= LUT_BITS;
                uint32_t node = e & 0xFFu;
                for (;;) {
                    if (!r.cnt) {
                        br_refill(&r);
                        if (r.pos > limit + 16) return SIZE_MAX;
                    }
                    uint32_t bit = (uint32_t)(r.buf >> 63);
                    r.buf <<= 1;
                    r.cnt--;
                    int32_t v = c->tree[2 * node + bit];
                    if (v > 0) {
                        node = (uint32_t)v;
                    } else {
                        sym = (uint8_t)(-v);
                        break;
                    }
                }
                if (use_xor) acc ^= sym;
                else acc = (uint8_t)(acc + sym);
                out[x++] = acc;
                break; /* cnt may be low now: refill before the next lookup */
            }
            if (use_xor) acc ^= sym;
            else acc = (uint8_t)(acc + sym);
            out[x++] = acc;
        }
    }
    size_t used_bits = (r.pos - start) * 8 - r.cnt;
    return start + (used_bits + 7) / 8;
}

static row_status decode_row(const vmc_code *codes, const uint8_t *data, size_t size, size_t off, size_t len,
                             uint8_t *h, uint8_t *m, uint32_t w) {
    size_t end = off + len;
    size_t mid = decode_stream(&codes[0], data, size, off, end, h, w, false);
    if (mid == SIZE_MAX || mid > end) return ROW_OVERRUN;
    size_t fin = decode_stream(&codes[1], data, size, mid, end, m, w, true);
    if (fin == SIZE_MAX || fin > end) return ROW_OVERRUN;
    return fin == end ? ROW_OK : ROW_LEFTOVER;
}

typedef struct vmc_job {
    const uint8_t *data;
    size_t size;
    uint32_t w;
    const vmc_code *codes;
    uint8_t *heights, *meta;
    atomic_uint first_bad; /* lowest failing row, or UINT32_MAX */
} vmc_job;

static void decode_rows(void *user, size_t begin, size_t end) {
    vmc_job *j = user;
    for (size_t y = begin; y < end; y++) {
        const uint8_t *e = j->data + 6 * y;
        size_t off = rd32(e), len = (size_t)(e[4] | e[5] << 8);
        row_status s = decode_row(j->codes, j->data, j->size, off, len, j->heights + y * j->w, j->meta + y * j->w, j->w);
        if (s != ROW_OK) {
            unsigned cur = atomic_load(&j->first_bad);
            while ((unsigned)y < cur && !atomic_compare_exchange_weak(&j->first_bad, &cur, (unsigned)y)) {
            }
            return;
        }
    }
}

st_result st_vmc_check(const uint8_t *data, size_t size, uint32_t width, uint32_t height, const char *name,
                       st_error *err) {
    if (!name) name = ".vmc";
    if (width < 2 || height < 1 || width > ST_LEVEL_MAX_DIM || height > ST_LEVEL_MAX_DIM)
        return st_error_set(err, ST_ERR_INVALID, "%s: bad level size %ux%u", name, width, height);
    uint64_t header = 6ull * height + TREE_BYTES;
    if (size < header)
        return st_error_set(err, ST_ERR_FORMAT, "%s: %zu bytes is too short for %u rows (header alone is %llu bytes)",
                            name, size, height, (unsigned long long)header);
    /* Every row's entry first, so a bad table is one clear message and the decoder never reads out of bounds. */
    size_t min_row = 2 * (((size_t)width + 7) / 8); /* every symbol takes at least one bit */
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *e = data + 6 * (size_t)y;
        uint32_t off = rd32(e);
        int32_t len = (int16_t)(uint16_t)(e[4] | e[5] << 8);
        if (len < (int32_t)min_row)
            return st_error_set(err, ST_ERR_FORMAT, "%s: row %u has size %d", name, y, len);
        if ((int32_t)off < 0 || off < header || (uint64_t)off + (uint64_t)len > size)
            return st_error_set(err, ST_ERR_FORMAT,
                                "%s: row %u at offset %u size %d lies outside the data (%llu..%zu)", name, y, off,
                                len, (unsigned long long)header, size);
    }
    return ST_OK;
}

st_result st_vmc_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint8_t *heights,
                        uint8_t *meta, const char *name, st_error *err) {
    if (!name) name = ".vmc";
    st_result checked = st_vmc_check(data, size, width, height, name, err);
    if (checked) return checked;
    vmc_code *codes = malloc(2 * sizeof *codes);
    if (!codes) return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", name);
    for (int t = 0; t < 2; t++) {
        const uint8_t *tp = data + 6 * (size_t)height + (size_t)t * ST_VMC_TREE_SIZE * 4;
        for (int i = 0; i < ST_VMC_TREE_SIZE; i++) codes[t].tree[i] = (int32_t)rd32(tp + 4 * i);
        st_result r = st_vmc_tree_check(codes[t].tree, t ? "metadata tree" : "height tree", err);
        if (r) {
            free(codes);
            return st_error_prefix(err, "%s", name);
        }
        build_lut(&codes[t]);
    }
    vmc_job job = {data, size, width, codes, heights, meta, UINT32_MAX};
    size_t grain = width >= 1024 ? 32 : 256;
    st_parallel_for(height, grain, decode_rows, &job);
    unsigned bad = atomic_load(&job.first_bad);
    st_result r = ST_OK;
    if (bad != UINT32_MAX) {
        const uint8_t *e = data + 6 * (size_t)bad;
        size_t off = rd32(e), len = (size_t)(e[4] | e[5] << 8);
        row_status s = decode_row(codes, data, size, off, len, heights + (size_t)bad * width,
                                  meta + (size_t)bad * width, width);
        if (s == ROW_LEFTOVER)
            r = st_error_set(err, ST_ERR_FORMAT,
                             "%s: row %u ends before its %zu bytes do (too few symbols coded, data left over)", name,
                             bad, len);
        else
            r = st_error_set(err, ST_ERR_FORMAT, "%s: row %u needs more than its %zu bytes for %u symbols per stream",
                             name, bad, len, width);
    }
    free(codes);
    return r;
}

/* ---- encoding ------------------------------------------------------------------------------------------ */

/* Huffman code lengths for freq[256] (zero = unused), limited to `limit` bits. */
static void huffman_lengths(const uint64_t *freq, uint32_t limit, uint8_t *len) {
    memset(len, 0, 256);
    int syms[256], n = 0;
    for (int s = 0; s < 256; s++)
        if (freq[s]) syms[n++] = s;
    if (n == 0) syms[n++] = 0;
    if (n == 1) syms[n++] = syms[0] ^ 1; /* a code needs two leaves */
    /* Plain Huffman by repeatedly merging the two lightest: n ≤ 256, quadratic is fine. */
    uint64_t weight[512];
    int parent[512];
    bool alive[512];
    for (int i = 0; i < n; i++) {
        weight[i] = freq[syms[i]];
        alive[i] = true;
        parent[i] = -1;
    }
    int count = n;
    for (int merges = 0; merges < n - 1; merges++) {
        int a = -1, b = -1;
        for (int i = 0; i < count; i++) {
            if (!alive[i]) continue;
            if (a < 0 || weight[i] < weight[a]) {
                b = a;
                a = i;
            } else if (b < 0 || weight[i] < weight[b]) {
                b = i;
            }
        }
        weight[count] = weight[a] + weight[b];
        alive[count] = true;
        parent[count] = -1;
        alive[a] = alive[b] = false;
        parent[a] = parent[b] = count;
        count++;
    }
    uint32_t bl_count[512] = {0};
    uint32_t maxlen = 0;
    for (int i = 0; i < n; i++) {
        uint32_t d = 0;
        for (int p = i; parent[p] >= 0; p = parent[p]) d++;
        bl_count[d]++;
        if (d > maxlen) maxlen = d;
    }
    /* Length limiting by moving pairs of deepest leaves up (the JPEG Annex K adjustment): keeps the code
     * complete, so the tree still has exactly n - 1 internal nodes. */
    for (uint32_t i = maxlen; i > limit; i--) {
        while (bl_count[i] > 0) {
            uint32_t j = i - 2;
            while (bl_count[j] == 0) j--;
            bl_count[i] -= 2;
            bl_count[i - 1] += 1;
            bl_count[j + 1] += 2;
            bl_count[j] -= 1;
        }
    }
    /* Shortest lengths to the most frequent symbols (ties by symbol for determinism). */
    int order[256];
    for (int i = 0; i < n; i++) order[i] = syms[i];
    for (int i = 1; i < n; i++) {
        int s = order[i], k = i;
        while (k > 0 && (freq[order[k - 1]] < freq[s] || (freq[order[k - 1]] == freq[s] && order[k - 1] > s))) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = s;
    }
    int at = 0;
    for (uint32_t l = 1; l <= limit && at < n; l++)
        for (uint32_t c = 0; c < bl_count[l] && at < n; c++) len[order[at++]] = (uint8_t)l;
}

typedef struct enc_code {
    uint8_t len[256];
    uint32_t code[256];
    int32_t tree[ST_VMC_TREE_SIZE];
} enc_code;

/* Canonical codes from lengths, then the decode tree: root is node 1, inner nodes numbered as created. */
static bool build_code(enc_code *c) {
    memset(c->code, 0, sizeof c->code);
    memset(c->tree, 0, sizeof c->tree);
    bool used[ST_VMC_TREE_SIZE] = {0};
    uint32_t code = 0, prev = 0;
    int32_t next = 2;
    for (uint32_t l = 1; l <= 32; l++)
        for (int s = 0; s < 256; s++) {
            if (c->len[s] != l) continue;
            code <<= (l - prev);
            prev = l;
            c->code[s] = code++;
            uint32_t node = 1;
            for (uint32_t b = l; b-- > 1;) {
                uint32_t idx = 2 * node + ((c->code[s] >> b) & 1u);
                if (!used[idx]) {
                    if (next > 255) return false;
                    c->tree[idx] = next++;
                    used[idx] = true;
                }
                node = (uint32_t)c->tree[idx];
            }
            uint32_t idx = 2 * node + (c->code[s] & 1u);
            c->tree[idx] = -s;
            used[idx] = true;
        }
    return true;
}

static void identity_code(enc_code *c) {
    for (int s = 0; s < 256; s++) {
        c->len[s] = 8;
        c->code[s] = (uint32_t)s;
    }
    for (int i = 0; i < 256; i++) c->tree[i] = i;
    for (int i = 0; i < 256; i++) c->tree[256 + i] = -i;
}

typedef struct enc_job {
    const uint8_t *heights, *meta;
    uint32_t w;
    _Atomic uint64_t freq[2][256];
    const enc_code *codes;
    uint32_t *row_bytes; /* per row */
    uint8_t *out;
    const uint32_t *offsets;
} enc_job;

static void count_rows(void *user, size_t begin, size_t end) {
    enc_job *j = user;
    uint64_t f[2][256];
    memset(f, 0, sizeof f);
    for (size_t y = begin; y < end; y++) {
        const uint8_t *h = j->heights + y * j->w, *m = j->meta + y * j->w;
        uint8_t ph = 0, pm = 0;
        for (uint32_t x = 0; x < j->w; x++) {
            f[0][(uint8_t)(h[x] - ph)]++;
            f[1][m[x] ^ pm]++;
            ph = h[x];
            pm = m[x];
        }
    }
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 256; s++)
            if (f[t][s]) atomic_fetch_add(&j->freq[t][s], f[t][s]);
}

static void size_rows(void *user, size_t begin, size_t end) {
    enc_job *j = user;
    const enc_code *ch = &j->codes[0], *cm = &j->codes[1];
    for (size_t y = begin; y < end; y++) {
        const uint8_t *h = j->heights + y * j->w, *m = j->meta + y * j->w;
        uint64_t bh = 0, bm = 0;
        uint8_t ph = 0, pm = 0;
        for (uint32_t x = 0; x < j->w; x++) {
            bh += ch->len[(uint8_t)(h[x] - ph)];
            bm += cm->len[m[x] ^ pm];
            ph = h[x];
            pm = m[x];
        }
        uint64_t bytes = (bh + 7) / 8 + (bm + 7) / 8;
        j->row_bytes[y] = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
    }
}

typedef struct bitwriter {
    uint8_t *p;
    uint64_t acc;
    unsigned n;
} bitwriter;

static inline void bw_put(bitwriter *b, uint32_t code, unsigned len) {
    b->acc = (b->acc << len) | code;
    b->n += len;
    while (b->n >= 8) {
        b->n -= 8;
        *b->p++ = (uint8_t)(b->acc >> b->n);
    }
}
static inline void bw_flush(bitwriter *b) {
    if (b->n) *b->p++ = (uint8_t)(b->acc << (8 - b->n));
    b->n = 0;
    b->acc = 0;
}

static void write_rows(void *user, size_t begin, size_t end) {
    enc_job *j = user;
    const enc_code *ch = &j->codes[0], *cm = &j->codes[1];
    for (size_t y = begin; y < end; y++) {
        const uint8_t *h = j->heights + y * j->w, *m = j->meta + y * j->w;
        bitwriter b = {j->out + j->offsets[y], 0, 0};
        uint8_t prev = 0;
        for (uint32_t x = 0; x < j->w; x++) {
            uint8_t s = (uint8_t)(h[x] - prev);
            bw_put(&b, ch->code[s], ch->len[s]);
            prev = h[x];
        }
        bw_flush(&b);
        prev = 0;
        for (uint32_t x = 0; x < j->w; x++) {
            uint8_t s = m[x] ^ prev;
            bw_put(&b, cm->code[s], cm->len[s]);
            prev = m[x];
        }
        bw_flush(&b);
    }
}

st_result st_vmc_encode(const uint8_t *heights, const uint8_t *meta, uint32_t width, uint32_t height,
                        const st_vmc_encode_desc *desc, uint8_t **data, size_t *size, st_vmc_encode_info *info,
                        st_error *err) {
    *data = NULL;
    *size = 0;
    st_result r = st_level_check_size(width, height, err);
    if (r) return r;
    bool identity = desc && desc->identity;
    uint32_t limit = desc && desc->max_code_len ? desc->max_code_len : 15;
    if (limit < 8) limit = 8;
    if (limit > 24) limit = 24;
    uint32_t row_cap = 2 * width < ST_VMC_MAX_ROW_BYTES ? 2 * width : ST_VMC_MAX_ROW_BYTES;
    enc_job *job = calloc(1, sizeof *job);
    enc_code *codes = calloc(2, sizeof *codes);
    uint32_t *row_bytes = malloc(sizeof(uint32_t) * height);
    uint32_t *offsets = malloc(sizeof(uint32_t) * height);
    if (!job || !codes || !row_bytes || !offsets) {
        r = st_error_set(err, ST_ERR_NOMEM, ".vmc: out of memory");
        goto done;
    }
    job->heights = heights;
    job->meta = meta;
    job->w = width;
    job->codes = codes;
    job->row_bytes = row_bytes;
    size_t grain = width >= 1024 ? 32 : 256;
    uint32_t syms[2] = {0, 0};
    if (!identity) {
        st_parallel_for(height, grain, count_rows, job);
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < 256; s++) syms[t] += atomic_load(&job->freq[t][s]) != 0;
    }
    /* Lower the length limit until every row fits its i16 size (and the original's 2·W row buffer). At 8
     * bits no symbol is longer than the identity code, so a 2·W row always fits unless W is too large. */
    for (;;) {
        if (identity) {
            identity_code(&codes[0]);
            identity_code(&codes[1]);
        } else {
            for (int t = 0; t < 2; t++) {
                uint64_t f[256];
                for (int s = 0; s < 256; s++) f[s] = atomic_load(&job->freq[t][s]);
                huffman_lengths(f, limit, codes[t].len);
                if (!build_code(&codes[t])) {
                    r = st_error_set(err, ST_ERR_INVALID, ".vmc: code tree needs more than 255 nodes");
                    goto done;
                }
            }
        }
        st_parallel_for(height, grain, size_rows, job);
        uint32_t worst = 0;
        for (uint32_t y = 0; y < height; y++)
            if (row_bytes[y] > worst) worst = row_bytes[y];
        if (worst <= row_cap) break;
        if (identity || limit == 8) {
            r = st_error_set(err, ST_ERR_INVALID, ".vmc: a row of width %u needs %u bytes, past the %u-byte limit",
                             width, worst, row_cap);
            goto done;
        }
        limit--;
    }
    for (int t = 0; t < 2; t++) {
        r = st_vmc_tree_check(codes[t].tree, ".vmc writer", err);
        if (r) goto done;
    }
    uint64_t header = 6ull * height + TREE_BYTES, total = header;
    for (uint32_t y = 0; y < height; y++) {
        offsets[y] = (uint32_t)total;
        total += row_bytes[y];
        if (total > INT32_MAX) {
            r = st_error_set(err, ST_ERR_INVALID, ".vmc: %ux%u level is past the format's 2 GiB offsets", width,
                             height);
            goto done;
        }
    }
    uint8_t *out = malloc((size_t)total);
    if (!out) {
        r = st_error_set(err, ST_ERR_NOMEM, ".vmc: cannot allocate %llu bytes", (unsigned long long)total);
        goto done;
    }
    for (uint32_t y = 0; y < height; y++) {
        wr32(out + 6 * (size_t)y, offsets[y]);
        out[6 * (size_t)y + 4] = (uint8_t)row_bytes[y];
        out[6 * (size_t)y + 5] = (uint8_t)(row_bytes[y] >> 8);
    }
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < ST_VMC_TREE_SIZE; i++)
            wr32(out + 6 * (size_t)height + (size_t)t * 2048 + 4 * (size_t)i, (uint32_t)codes[t].tree[i]);
    job->out = out;
    job->offsets = offsets;
    st_parallel_for(height, grain, write_rows, job);
    *data = out;
    *size = (size_t)total;
    if (info) {
        memset(info, 0, sizeof *info);
        info->bytes = total;
        info->identity_bytes = header + 2ull * width * height;
        info->code_len_limit = identity ? 8 : limit;
        for (int s = 0; s < 256; s++) {
            if (codes[0].len[s] > info->max_len_height) info->max_len_height = codes[0].len[s];
            if (codes[1].len[s] > info->max_len_meta) info->max_len_meta = codes[1].len[s];
        }
        info->symbols_height = identity ? 256 : syms[0];
        info->symbols_meta = identity ? 256 : syms[1];
    }
done:
    free(job);
    free(codes);
    free(row_bytes);
    free(offsets);
    return r;
}
