/* pipeline: a frame-by-frame stereo signal pipeline with nested parallelism, a
 * sequential bottleneck and a load-imbalanced loop.
 *
 * Computes: FRAMES frames of two channels of SAMPLES integer samples each.  Per frame:
 *   1. read_frame (sequential, I/O-like): the next samples of a random walk from a
 *      seeded LCG, one long dependence chain;
 *   2. filter_frame (nested parallelism): an outer parallel loop over the two channels
 *      calls filter_channel, which opens an inner parallel loop over blocks of the
 *      channel calling filter_block, an integer FIR low-pass filter
 *      (omp_set_max_active_levels(2): both levels are active, so filter_channel's
 *      calls of filter_block are C-C calls: filter_channel is entered concurrently
 *      and makes them in its own active region);
 *   3. encode_frame (the deliberate sequential bottleneck): predictive coding of the
 *      filtered samples into a bitstream of adaptive Rice codes, where every code's
 *      place depends on the lengths of all the codes before it, and a digest of the
 *      bitstreams chained across frames;
 *   4. analyse_frame (deliberate load imbalance): a parallel loop over BANDS lag bands
 *      with schedule(static), where band b costs b + 1 units, so the thread that gets
 *      the upper half of the bands does about three times the work of the other; its
 *      results are added with an integer sum-reduction.
 *
 * Checks: for the last frame, the filter output and the band results are recomputed by
 * plain sequential loops and must agree exactly, and its bitstream must decode back to
 * the filter output.  All arithmetic is integer, so the digest and every printed
 * number are the same for any number of threads.  Exit status 0 if the
 * checks pass, 1 otherwise.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES 8
#define CHANNELS 2
#define SAMPLES (1 << 20)
#define TAPS 32
#define BLOCKS 16               /* inner parallel loop: blocks per channel */
#define BANDS 32
#define WINDOW 16384            /* samples correlated per lag in the analysis */

static int32_t input[CHANNELS][SAMPLES];
static int64_t filtered[CHANNELS][SAMPLES];
static int64_t band[BANDS];
static int64_t taps[TAPS];

static uint64_t lcg_state;
static int32_t walk[CHANNELS];

/* ---- 1. read (sequential) ---------------------------------------------------------- */

static void read_frame(void)
{
    for (int c = 0; c < CHANNELS; c++) {
        int32_t v = walk[c];
        for (int s = 0; s < SAMPLES; s++) {
            lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
            v += (int32_t)(lcg_state >> 59) - 16;       /* a step in [-16, 15] */
            if (v > 30000 || v < -30000)
                v /= 2;
            input[c][s] = v;
        }
        walk[c] = v;
    }
}

/* ---- 2. filter (nested parallel) --------------------------------------------------- */

static void make_taps(void)
{
    for (int t = 0; t < TAPS; t++)      /* a triangular window, 1 2 ... 16 16 ... 2 1 */
        taps[t] = t < TAPS / 2 ? t + 1 : TAPS - t;
}

/* filtered[c][lo..hi) from input[c] (samples before the frame taken as 0). */
static void filter_block(int c, int lo, int hi)
{
    for (int s = lo; s < hi; s++) {
        int64_t acc = 0;
        int tmax = s < TAPS - 1 ? s : TAPS - 1;
        for (int t = 0; t <= tmax; t++)
            acc += taps[t] * input[c][s - t];
        filtered[c][s] = acc;
    }
}

static void filter_channel(int c)
{
#pragma omp parallel for num_threads(2) schedule(static)
    for (int b = 0; b < BLOCKS; b++)
        filter_block(c, b * (SAMPLES / BLOCKS), (b + 1) * (SAMPLES / BLOCKS));
}

static void filter_frame(void)
{
#pragma omp parallel for num_threads(CHANNELS) schedule(static)
    for (int c = 0; c < CHANNELS; c++)
        filter_channel(c);
}

/* ---- 3. encode (the sequential bottleneck) ----------------------------------------- */

/* The frame's bitstream: at most 1 + ESCAPE + 64 bits a sample. */
#define ESCAPE 24
static uint64_t stream[(size_t)CHANNELS * SAMPLES * (ESCAPE + 65) / 64 + 2];
static size_t stream_bits[CHANNELS + 1];        /* where each channel starts; the end */
static uint64_t digest = 14695981039346656037ULL;
static uint64_t total_bits;

/* Appends the n low bits of v (v < 2^n, n <= 64) at bit position pos. */
#define PUT_BITS(pos, v, n) do {                                                \
        uint64_t v_ = (v);                                                      \
        int n_ = (n), o_ = (int)((pos) & 63);                                   \
        stream[(pos) >> 6] |= v_ << o_;                                         \
        if (o_ + n_ > 64)                                                       \
            stream[((pos) >> 6) + 1] |= v_ >> (64 - o_);                        \
        (pos) += (size_t)n_;                                                    \
    } while (0)

/* Rice parameter for a running mean (scaled by 16) of the coded values. */
#define RICE_K(mean, k) do {                                                    \
        (k) = 0;                                                                \
        while ((k) < 40 && ((mean) >> 4 >> ((k) + 1)) != 0)                     \
            (k)++;                                                              \
    } while (0)

/* Second-order predictive coding: each sample's difference from the prediction
 * 2 x[s-1] - x[s-2] is zigzag-mapped and written as an adaptive Rice code (the unary
 * quotient, 1s ended by a 0, then k remainder bits; an escape of ESCAPE 1s is followed
 * by the raw 64-bit value).  Every code's place in the stream depends on the length of
 * all the codes before it: inherently sequential. */
static size_t encode_channel(int c, size_t pos)
{
    int64_t p1 = 0, p2 = 0;
    uint64_t mean = 16 * 16;
    for (int s = 0; s < SAMPLES; s++) {
        int64_t e = filtered[c][s] - (2 * p1 - p2);
        uint64_t u = e >= 0 ? (uint64_t)e << 1 : (((uint64_t)-e) << 1) - 1;
        int k;
        RICE_K(mean, k);
        uint64_t q = u >> k;
        if (q < ESCAPE) {
            PUT_BITS(pos, (1ULL << q) - 1, (int)q + 1);
            PUT_BITS(pos, u & ((1ULL << k) - 1), k);
        } else {
            PUT_BITS(pos, (1ULL << ESCAPE) - 1, ESCAPE);
            PUT_BITS(pos, u, 64);
        }
        mean += u - (mean >> 4);
        p2 = p1;
        p1 = filtered[c][s];
    }
    return pos;
}

static void encode_frame(void)
{
    size_t pos = 0;
    memset(stream, 0, sizeof stream);
    for (int c = 0; c < CHANNELS; c++) {
        stream_bits[c] = pos;
        pos = encode_channel(c, pos);
    }
    stream_bits[CHANNELS] = pos;
    total_bits += pos;
    for (size_t w = 0; w < (pos + 63) / 64; w++)        /* chain the frame's digest */
        digest = (digest ^ stream[w]) * 1099511628211ULL;
    digest = (digest ^ pos) * 1099511628211ULL;
}

/* ---- 4. analyse (load-imbalanced parallel loop) ------------------------------------ */

/* Band b: the cross-correlation of the two channels at lags 0..b over WINDOW samples;
 * costs b + 1 units. */
static int64_t band_energy(int b)
{
    int64_t sum = 0;
    for (int lag = 0; lag <= b; lag++) {
        int64_t corr = 0;
        for (int s = 0; s < WINDOW; s++)
            corr += filtered[0][s] * filtered[1][s + lag] / 1024;
        sum += corr / 1024;
    }
    return sum;
}

static int64_t analyse_frame(void)
{
    int64_t total = 0;
#pragma omp parallel for schedule(static) reduction(+:total)
    for (int b = 0; b < BANDS; b++) {
        band[b] = band_energy(b);
        total += band[b];
    }
    return total;
}

/* ---- checks (sequential reference) ------------------------------------------------- */

/* v = the n bits at bit position pos (n <= 64). */
#define GET_BITS(v, pos, n) do {                                                \
        int n_ = (n), o_ = (int)((pos) & 63);                                   \
        uint64_t v_ = stream[(pos) >> 6] >> o_;                                 \
        if (o_ + n_ > 64)                                                       \
            v_ |= stream[((pos) >> 6) + 1] << (64 - o_);                        \
        (v) = n_ == 64 ? v_ : v_ & ((1ULL << n_) - 1);                          \
    } while (0)

/* 1 if channel c's bitstream decodes to its filter output and ends where it should. */
static int decodes(int c)
{
    size_t pos = stream_bits[c];
    int64_t p1 = 0, p2 = 0;
    uint64_t mean = 16 * 16;
    for (int s = 0; s < SAMPLES; s++) {
        int k;
        uint64_t q = 0, u, bit;
        RICE_K(mean, k);
        for (;;) {
            GET_BITS(bit, pos, 1);
            if (!bit || q == ESCAPE)
                break;
            q++;
            pos++;
        }
        if (q < ESCAPE) {
            pos++;                              /* the 0 that ends the quotient */
            GET_BITS(u, pos, k);
            u |= q << k;
            pos += (size_t)k;
        } else {
            GET_BITS(u, pos, 64);
            pos += 64;
        }
        int64_t e = u & 1 ? -(int64_t)((u + 1) >> 1) : (int64_t)(u >> 1);
        int64_t v = e + 2 * p1 - p2;
        if (v != filtered[c][s])
            return 0;
        mean += u - (mean >> 4);
        p2 = p1;
        p1 = v;
    }
    return pos == stream_bits[c + 1];
}

static int check_frame(int frame)
{
    static int64_t ref[SAMPLES];
    for (int c = 0; c < CHANNELS; c++) {
        for (int s = 0; s < SAMPLES; s++) {     /* the filter, the obvious way */
            int64_t acc = 0;
            for (int t = 0; t < TAPS && t <= s; t++)
                acc += taps[t] * input[c][s - t];
            ref[s] = acc;
        }
        if (memcmp(ref, filtered[c], sizeof ref) != 0) {
            printf("FAILED: frame %d channel %d: filter output differs\n", frame, c);
            return 0;
        }
        if (!decodes(c)) {
            printf("FAILED: frame %d channel %d: the bitstream decodes wrong\n", frame, c);
            return 0;
        }
    }
    /* band_energy's formula again, not a call of it: calls from here would add
     * sequential entries to the routine whose imbalance docs/tutorial.md reads. */
    for (int b = 0; b < BANDS; b++) {
        int64_t sum = 0;
        for (int lag = 0; lag <= b; lag++) {
            int64_t corr = 0;
            for (int s = 0; s < WINDOW; s++)
                corr += filtered[0][s] * filtered[1][s + lag] / 1024;
            sum += corr / 1024;
        }
        if (sum != band[b]) {
            printf("FAILED: frame %d band %d differs\n", frame, b);
            return 0;
        }
    }
    return 1;
}

int main(void)
{
    omp_set_max_active_levels(2);
    make_taps();
    lcg_state = 99;
    int64_t analysis = 0;
    int ok = 1;
    for (int f = 0; f < FRAMES; f++) {
        read_frame();
        filter_frame();
        encode_frame();
        analysis += analyse_frame();
        if (f == FRAMES - 1)
            ok = check_frame(f);
    }
    printf("pipeline: %d frames of %d x %d samples: %.3f bits a sample, digest %016llx, "
           "analysis %lld\n", FRAMES, CHANNELS, SAMPLES,
           (double)total_bits / ((double)FRAMES * CHANNELS * SAMPLES),
           (unsigned long long)digest, (long long)analysis);
    if (!ok)
        return 1;
    printf("ok\n");
    return 0;
}
