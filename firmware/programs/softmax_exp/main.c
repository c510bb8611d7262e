/* softmax_exp: y = softmax(x) over n logits, every exponential on the PE's EXP accelerator and
 * the normalisation in integer arithmetic (no libm, no FPU).
 *
 * Arguments: 0 address of x (n int32 logits, s16.15), 1 address of y (n int32 outputs, s16.15,
 * 1.0 = 32768), 2 n (1..65536), 3 EXP iterations (1..16).
 * y_i = round(32768 * e_i / sum_j e_j) with e_i = exp(x_i - max_j x_j) from the accelerator;
 * subtracting the maximum keeps every e_i in [0, 1.0] and makes the largest exactly 1.0, so the
 * sum is at least 32768 and at most n * 32768 < 2^32.
 * Prints one console line; exit status 0 on success, 1 for a bad n, 2 for bad iterations. */
#include "s2_exp.h"
#include "s2_hal.h"

static int32_t shifted(int32_t x, int32_t max) {
    /* x - max <= 0; below INT32_MIN it would wrap, and exp() there is 0 anyway. */
    int64_t d = (int64_t)x - (int64_t)max;
    return d < INT32_MIN ? INT32_MIN : (int32_t)d;
}

int main(void) {
    const int32_t *x = (const int32_t *)s2_arg_ptr(0);
    int32_t *y = (int32_t *)s2_arg_ptr(1);
    const uint32_t n = s2_arg(2);
    const uint32_t iterations = s2_arg(3);
    if (n == 0 || n > 65536u) {
        s2_printf("softmax_exp: bad n=%u (1..65536)\n", (unsigned)n);
        return 1;
    }
    if (iterations < 1 || iterations > 16) {
        s2_printf("softmax_exp: bad iterations=%u (1..16)\n", (unsigned)iterations);
        return 2;
    }
    s2_exp_set_iterations(iterations);

    int32_t max = x[0];
    uint32_t argmax = 0;
    for (uint32_t i = 1; i < n; ++i) {
        if (x[i] > max) {
            max = x[i];
            argmax = i;
        }
    }

    /* Pass 1: e_i into y, overlapping each exponential with the bookkeeping of the previous. */
    uint32_t sum = 0;
    s2_exp_start(shifted(x[0], max));
    for (uint32_t i = 0; i < n; ++i) {
        const int32_t e = s2_exp_result();
        if (i + 1 < n) s2_exp_start(shifted(x[i + 1], max));
        y[i] = e;
        sum += (uint32_t)e;
    }

    /* Pass 2: normalise, rounding to nearest. e_i * 2^15 <= 2^30 and sum / 2 < 2^31. */
    uint32_t y_sum = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t q = (((uint32_t)y[i] << S2_EXP_FRAC_BITS) + sum / 2u) / sum;
        y[i] = (int32_t)q;
        y_sum += q;
    }

    s2_printf("softmax_exp: n=%u iterations=%u max=%d argmax=%u sum=%u y_max=%d y_sum=%u\n",
              (unsigned)n, (unsigned)iterations, (int)max, (unsigned)argmax, (unsigned)sum,
              (int)y[argmax], (unsigned)y_sum);
    return 0;
}
