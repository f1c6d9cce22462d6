/*
 * window_cosine.c: cosines of one float query against many int8 window codes.
 *
 * ib-search scores every window vector of a small scope (a book or a few) with
 * this: windows are stored as int8 codes scaled by their largest component
 * (SentenceEncoder.windowCodes), so the cosine is dot(q, c) / |c| with the query
 * at unit length; the code's scale cancels. Sixteen independent partial sums
 * per window let the compiler vectorise the loop without reassociating floats
 * (x86-64-v3: widened int8 codes and FMA), so a book's ~15k windows take a few
 * milliseconds.
 */
#include "ib_kernels.h"

#include <math.h>
#include <stddef.h>

enum { LANES = 16 };

void ib_int8_cosines(const int8_t *codes, int count, int dim, const float *query, float *out) {
    if (codes == 0 || query == 0 || out == 0 || count <= 0 || dim <= 0) return;
    for (int w = 0; w < count; w++) {
        const int8_t *c = codes + (size_t)w * (size_t)dim;
        float dots[LANES] = {0}, norms[LANES] = {0};
        int j = 0;
        for (; j + LANES <= dim; j += LANES) {
            for (int l = 0; l < LANES; l++) {
                float v = (float)c[j + l];
                dots[l] += query[j + l] * v;
                norms[l] += v * v;
            }
        }
        float dot = 0.0f, norm = 0.0f;
        for (; j < dim; j++) {
            float v = (float)c[j];
            dot += query[j] * v;
            norm += v * v;
        }
        for (int l = 0; l < LANES; l++) { dot += dots[l]; norm += norms[l]; }
        out[w] = norm > 0.0f ? dot / sqrtf(norm) : -1.0f;
    }
}
