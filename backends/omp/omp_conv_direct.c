/* omp_conv_direct.c - the direct convolution's tile loop: a batch-reduce
 * GEMM over the taps, with no im2col (oneDNN's brgemm convolutions, and
 * Georganas et al., SC18, work this way).  omp_conv.c pads the image once
 * (and splits it into stride phases), so that every tap of every output
 * pixel is in bounds and a run of output pixels reads a run of the copy;
 * here the micro-kernel reads B's row for tap k in place, NR words at
 * img + off[k] + j (f32 values, or bf16 pairs of channels), and A (the
 * weights) in place too.  Nothing is packed:
 * what the im2col path spends gathering panels (a fifth to a third of
 * ResNet-50's 3x3 layers) is gone, for some columns computed and dropped
 * (the padded rows' ends). */
#include "omp_kernels.h"
#include "omp_ukernel_f32_8x32.h"

#include <omp.h>
#include <string.h>

enum { MR = KB_OMP_MR, NR = KB_OMP_NR, NV = NR / 16 };

/* Rows of a tile's sums as declared: MR, and one to spare, which a short
 * run's vector store may read past the last (bf16_run). */
enum { TILE_ROWS = MR + 1 };

/* Columns of the padded output volume: every padded row but the last
 * plane's last in full. */
int64_t kb_omp_direct_cols(const kb_omp_direct_args *a)
{
    return ((a->od - 1) * a->rows + a->oh - 1) * a->row_w + a->ow;
}

/* A run of n columns of the tile's MR rows (t, rows NR apart) at element
 * o of dst (rows dst_cs apart), where dst is not f32 or the sums live in
 * part: the sums so far (none over the first slice of the reduction,
 * which adds the bias instead) plus the tile's, to dst over the last
 * slice (rounded to dst_dt) and to the partial sums before it. */
static inline __attribute__((always_inline)) void
rounded_body(const kb_omp_direct_args *a, const float *t, int64_t i0,
             int64_t o, int64_t n, bool first, bool last)
{
    float *sums = a->part ? a->part : (float *)a->dst;
    for (int i = 0; i < MR; i++, t += NR, o += a->dst_cs) {
        float v[NR];
        if (first) {
            float b = a->bias ? kb_omp_elem(a->dst_dt, a->bias, i0 + i)
                              : 0.0f;
            for (int64_t c = 0; c < n; c++)
                v[c] = t[c] + b;
        } else {
            for (int64_t c = 0; c < n; c++)
                v[c] = t[c] + sums[o + c];
        }
        if (last)
            kb_omp_narrow(a->dst_dt, v, n, a->dst, o);
        else
            memcpy(sums + o, v, (size_t)n * sizeof(float));
    }
}

/* n elements of es bytes (a constant) from src to dst, 0 < n <= 16: two
 * moves of a fixed size, which overlap (a loop, or a memcpy of n, was
 * most of a short run's store). */
static inline __attribute__((always_inline)) void
copy_short(void *dst, const void *src, int64_t n, size_t es)
{
    char *d = dst;
    const char *s = src;
    size_t w = n >= 8 ? 8 : n >= 4 ? 4 : n >= 2 ? 2 : 1;
    if (w == 8) {
        memcpy(d, s, 8 * es);
        memcpy(d + (n - 8) * es, s + (n - 8) * es, 8 * es);
    } else if (w == 4) {
        memcpy(d, s, 4 * es);
        memcpy(d + (n - 4) * es, s + (n - 4) * es, 4 * es);
    } else if (w == 2) {
        memcpy(d, s, 2 * es);
        memcpy(d + (n - 2) * es, s + (n - 2) * es, 2 * es);
    } else {
        memcpy(d, s, es);
    }
}

/* A run of n columns into a bf16 dst, vector by vector with nothing
 * staged: whole vectors from the run's start, then the one that ends at
 * its end (overlapping the one before; every vector is loaded and summed
 * before any is stored, so the overlap stores the same values).  The
 * sums so far, over a slice past the first, are part's (f32).  A run
 * shorter than a vector is one vector, read from the tile's sums whole
 * (up to 15 floats past the run: they have a row to spare, TILE_ROWS)
 * and from part and to dst or part by copy_short.  The padded rows of
 * 3x3 layers cut their tiles into runs of every length, and 14 or 7
 * columns a row are all short; staged and rounded a float at a time they
 * were 14 % of ResNet-50's res3b_branch2b in bf16. */
static inline __attribute__((always_inline)) void
bf16_run(const kb_omp_direct_args *a, const float *t, int64_t i0, int64_t o,
         int64_t n, bool first, bool last)
{
    for (int i = 0; i < MR; i++, t += NR, o += a->dst_cs) {
        uint16_t *dst = (uint16_t *)a->dst + o;
        float b = a->bias ? kb_omp_elem(KB_BF16, a->bias, i0 + i) : 0.0f;
        kb_v16sf x[NV];
        int64_t at[NV];
        int nv = 0;
        if (n < 16) {
            at[nv++] = 0;
        } else {
            for (int64_t c = 0; c + 16 < n; c += 16)
                at[nv++] = c;
            at[nv++] = n - 16;
        }
        for (int v = 0; v < nv; v++) {
            kb_v16sf s = (kb_v16sf){0} + b;
            memcpy(&x[v], t + at[v], sizeof x[v]);
            if (!first && n < 16)
                copy_short(&s, a->part + o, n, sizeof(float));
            else if (!first)
                memcpy(&s, a->part + o + at[v], sizeof s);
            x[v] += s;
        }
        for (int v = 0; v < nv; v++) {
            if (last) {
                kb_v16hu r = kb_omp_bf16_rne16(x[v]);
                if (n < 16)
                    copy_short(dst, &r, n, sizeof(uint16_t));
                else
                    memcpy(dst + at[v], &r, sizeof r);
            } else if (n < 16) {
                copy_short(a->part + o, &x[v], n, sizeof(float));
            } else {
                memcpy(a->part + o + at[v], &x[v], sizeof x[v]);
            }
        }
    }
}

/* Out of line, as tile_kernel is below, once for the MR rows; a run of
 * NR (every tile of a 1x1 layer but the last) with the count a
 * constant, so that its loops are vectors only (a scalar tail on a
 * row of 28 was half the time of ResNet-50's bf16 1x1 layers). */
static __attribute__((noinline)) void
store_run_rounded(const kb_omp_direct_args *a, const float *t, int64_t i0,
                  int64_t o, int64_t n, bool first, bool last)
{
    if (a->dst_dt == KB_BF16) {
        if (n == NR)
            bf16_run(a, t, i0, o, NR, first, last);
        else
            bf16_run(a, t, i0, o, n, first, last);
    } else if (n == NR) {
        rounded_body(a, t, i0, o, NR, first, last);
    } else {
        rounded_body(a, t, i0, o, n, first, last);
    }
}

/* The same where dst is f32 and holds the sums: in place. */
static inline __attribute__((always_inline)) void
store_run(const kb_omp_direct_args *a, const float *t, int64_t i0, int64_t o,
          int64_t n, bool first, bool last)
{
    if (a->part || a->dst_dt != KB_F32) {
        store_run_rounded(a, t, i0, o, n, first, last);
        return;
    }
    for (int i = 0; i < MR; i++) {
        float *d = (float *)a->dst + o + i * a->dst_cs;
        const float *ti = t + i * NR;
        if (first) {
            float b = a->bias ? ((const float *)a->bias)[i0 + i] : 0.0f;
            for (int64_t c = 0; c < n; c++)
                d[c] = ti[c] + b;
        } else {
            for (int64_t c = 0; c < n; c++)
                d[c] += ti[c];
        }
    }
}

/* The tile's columns [j0, j0 + NR) that are output pixels, rows
 * [i0, i0 + MR), out (store_run). */
static inline __attribute__((always_inline)) void
store_tile(const kb_omp_direct_args *a, const float *t, int64_t i0, int64_t j0,
           int64_t cols, bool first, bool last)
{
    if (a->row_w == a->ow && a->rows == a->oh) {
        /* no column dropped (1x1 layers): the tile is one run of dst */
        store_run(a, t, i0, i0 * a->dst_cs + j0, min64(NR, cols - j0), first,
                  last);
        return;
    }
    int64_t plane = a->rows * a->row_w;
    int64_t jend = min64(j0 + NR, cols);
    int64_t z = j0 / plane, y = j0 % plane / a->row_w, x = j0 % a->row_w;
    for (int64_t j = j0; j < jend; x = 0) {
        int64_t len = min64(a->row_w - x, jend - j);
        if (y < a->oh && x < a->ow)
            store_run(a, t + (j - j0), i0,
                      i0 * a->dst_cs + (z * a->oh + y) * a->ow + x,
                      min64(len, a->ow - x), first, last);
        j += len;
        if (++y == a->rows) {
            y = 0;
            z++;
        }
    }
}

/* Where tile jb's columns start in img: plane_gap words further for each
 * plane before it. */
static inline int64_t tile_at(const kb_omp_direct_args *a, int64_t jb)
{
    int64_t j = jb * NR;
    return a->plane_gap ? j + j / (a->rows * a->row_w) * a->plane_gap : j;
}

/* Tile (ib, jb) over reduction slice [k0, k0 + kc), with the table's
 * kernel: out of line, so that the f32 tile below keeps the code it had
 * before there was another kernel (with both inline, and the 16-bit
 * stores, ResNet-50's 3x3 layers ran 2 to 5 % slower). */
static __attribute__((noinline)) void
tile_kernel(const kb_omp_direct_args *a, int64_t ib, int64_t jb, int64_t k0,
            int64_t kc, int64_t cols)
{
    kb_v16sf acc[TILE_ROWS][NV] __attribute__((aligned(64)));
    a->kernel(kc, (const uint32_t *)a->wei + ib * MR * a->k + k0, a->k,
              (const uint32_t *)a->img + tile_at(a, jb), a->off + k0, acc);
    store_tile(a, (const float *)acc, ib * MR, jb * NR, cols, k0 == 0,
               k0 + kc == a->k);
}

/* The same with the f32 kernel inlined. */
static inline void tile(const kb_omp_direct_args *a, int64_t ib, int64_t jb,
                        int64_t k0, int64_t kc, int64_t cols)
{
    if (a->kernel) {
        tile_kernel(a, ib, jb, k0, kc, cols);
        return;
    }
    kb_v16sf acc[TILE_ROWS][NV] __attribute__((aligned(64)));
    const int64_t *off = a->off + k0;
    const float *w = (const float *)a->wei + ib * MR * a->k + k0;
    const float *b = (const float *)a->img + tile_at(a, jb);
    if (!off)   /* never: tells gcc to drop the packed-B loop */
        __builtin_unreachable();
    if (a->b_ahead && ib == 0)   /* the tile's first visit (cols_first) */
        kb_omp_f32_8xn_general_body(kc, w, a->k, 1, b, off, NV, a->b_ahead,
                                    acc);
    else
        kb_omp_f32_8x32_general_body(kc, w, a->k, 1, b, off, acc);
    store_tile(a, (const float *)acc, ib * MR, jb * NR, cols, k0 == 0,
               k0 + kc == a->k);
}

int64_t kb_omp_direct_slices(int64_t m, int64_t k, int64_t img_elems,
                             int64_t reread_bytes)
{
    int64_t reread = min64(m * k, img_elems);
    return ceil_div(reread * (int64_t)sizeof(float), reread_bytes);
}

void kb_omp_conv_direct(const kb_omp_direct_args *a, int nthreads)
{
    int64_t cols = kb_omp_direct_cols(a);
    int64_t nbn = ceil_div(cols, NR), nbm = a->m / MR;
    /* The bigger operand's blocks are split among the threads, and its
     * part stays in cache while the smaller one is read again: the
     * weights are the bigger one in the deep layers (ResNet-50's res5:
     * 9 MB against a 0.2 MB image), the image in the wide ones
     * (CosmoFlow's first: 35 MB against 14 KB).  The reduction is split
     * into slices whose part of the one read again fits reread_bytes, so
     * that it stays in L2 (a whole deep image,
     * ResNet-50's res4a's 0.9 MB, read again for each row block ran a
     * fifth slower than the im2col path); each slice past the first adds
     * its sums to dst's (or part's: a 16-bit dst cannot hold them, and
     * without part the reduction is not cut). */
    bool rows_outer = a->m * a->k > a->img_elems;
    int64_t slices = a->dst_dt == KB_F32 || a->part
                         ? kb_omp_direct_slices(a->m, a->k, a->img_elems,
                                                a->reread_bytes)
                         : 1;
    int64_t step = ceil_div(a->k, slices);
    if (rows_outer) {
        /* each slice of the image is read by every row block */
#pragma omp parallel num_threads(nthreads)
        for (int64_t k0 = 0; k0 < a->k; k0 += step)
#pragma omp for schedule(static)
            for (int64_t t = 0; t < nbm * nbn; t++)
                tile(a, t / nbn, t % nbn, k0, min64(step, a->k - k0), cols);
        return;
    }
    /* A thread's block of column tiles runs every slice before the next
     * block, so the block's sums (at most reread_bytes of them)
     * stay in cache between slices: taking each slice over all of dst
     * (DeepCAM's D40, 56 MB, eleven times) ran a tenth slower than the
     * im2col path. */
    int64_t per_block = a->reread_bytes / (a->m * NR * (int64_t)sizeof(float));
    /* Within a slice, the row blocks run inside the column tiles (each
     * tile's B rows read for every row block in turn) on 3D layers of 8
     * row blocks or more, and outside them elsewhere.  Measured, not
     * derived (idle Zen 5, alternating, three runs): CosmoFlow's
     * conv3d_2 1.05 to 1.16x (bf16 1.19x) and conv3d_3 1.04 to 1.14x at
     * mb 4, conv3d_4 0.97 to 1.04x; but conv3d_1 (4 row blocks) 0.66x,
     * and ResNet-50's conv1 and res2a_branch2b 0.97 to 1.00x at mb 32,
     * so not there.  Why is not known: both orders read the bigger
     * operand's tile from L2.  An image read from memory (b_ahead) runs
     * columns first too: a tile's rows come in once, prefetched while the
     * tile before ran, and every row block reads them from L1. */
    bool cols_first = a->b_ahead || (a->od > 1 && nbm >= 8);
    /* Each thread takes an even share of the tiles, within a tile, and
     * cuts it into even blocks: blocks dealt out whole left ResNet-50's
     * res3a 1x1 (25 tiles, blocks of 4) at 16 and 9, a sixth of its time
     * waiting. */
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t lo = nbn * t / nt, hi = nbn * (t + 1) / nt;
        int64_t nblocks = ceil_div(hi - lo, max64(per_block, 1));
        int64_t bn = nblocks > 0 ? ceil_div(hi - lo, nblocks) : 1;
        for (int64_t j0 = lo; j0 < hi; j0 += bn) {
            int64_t bw = min64(bn, hi - j0);
            for (int64_t k0 = 0; k0 < a->k; k0 += step)
                for (int64_t t = 0; t < nbm * bw; t++)
                    tile(a, cols_first ? t % nbm : t / bw,
                         j0 + (cols_first ? t / nbm : t % bw), k0,
                         min64(step, a->k - k0), cols);
        }
    }
}
