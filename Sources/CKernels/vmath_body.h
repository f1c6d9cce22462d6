/*
 * exp and GELU for one vector width. kernels.c includes this file once per
 * width (AVX2's 8 floats, AVX-512's 16), having defined:
 *   VF            the vector type
 *   VFN(name)     the name with the width's suffix (exp256, gelu512, ...)
 *   VATTR         the function attributes (the target for AVX-512)
 *   V_WIDTH       floats per vector
 *   V_SET1 V_MIN V_MAX V_MUL V_ADD V_FMADD V_FNMADD V_FMSUB V_ROUND V_LOADU V_STOREU
 *   V_POW2(p, n)  p * 2^n for a whole-number n
 *   V_RECIP(q)    1/q to ~23 bits
 * so that the arithmetic, and therefore every result bit, is written once.
 * No include guard: it is meant to be included more than once.
 */

/*
 * exp: Cephes expf. x = n ln2 + r with |r| <= ln2/2, exp(r) by a degree-6
 * polynomial, times 2^n. About 1 ulp.
 */
VATTR static inline VF VFN(exp)(VF x) {
    x = V_MIN(V_MAX(x, V_SET1(EXP_LO)), V_SET1(EXP_HI));
    VF n = V_ROUND(V_MUL(x, V_SET1(LOG2E)));
    VF r = V_FNMADD(n, V_SET1(LN2_HI), x);
    r = V_FNMADD(n, V_SET1(LN2_LO), r);
    VF p = V_SET1(exp_p[0]);
    for (int i = 1; i < 6; i++) p = V_FMADD(p, r, V_SET1(exp_p[i]));
    p = V_FMADD(p, V_MUL(r, r), V_ADD(r, V_SET1(1.0f)));
    return V_POW2(p, n);
}

/*
 * GELU(x) = x/2 * (1 + erf(x / sqrt 2)), with erf(z) = z P(z^2) / Q(z^2) on z
 * clamped to [-4, 4] (the rational approximation Eigen and XLA use for float:
 * absolute error below 7e-8).
 */
VATTR static inline VF VFN(gelu)(VF x) {
    VF z = V_MUL(x, V_SET1(INV_SQRT2));
    z = V_MIN(V_MAX(z, V_SET1(-4.0f)), V_SET1(4.0f));
    VF z2 = V_MUL(z, z);
    VF p = V_SET1(erf_p[0]);
    for (int i = 1; i < 7; i++) p = V_FMADD(p, z2, V_SET1(erf_p[i]));
    p = V_MUL(p, z);
    VF q = V_SET1(erf_q[0]);
    for (int i = 1; i < 5; i++) q = V_FMADD(q, z2, V_SET1(erf_q[i]));
    VF erf = V_MUL(p, V_RECIP(q));
    return V_MUL(V_MUL(x, V_SET1(0.5f)), V_ADD(erf, V_SET1(1.0f)));
}

/*
 * Softmax's middle pass: s[j] = exp(s[j] * scale - shift) for the whole
 * vectors of the row, their sum added to *acc; returns where the tail starts.
 */
VATTR static inline int VFN(exp_row)(float *s, int n, VF scale, VF shift, VF *acc) {
    int j = 0;
    for (; j + V_WIDTH <= n; j += V_WIDTH) {
        VF e = VFN(exp)(V_FMSUB(V_LOADU(s + j), scale, shift));
        V_STOREU(s + j, e);
        *acc = V_ADD(*acc, e);
    }
    return j;
}
