/* gpusim_device.hh - the device side of CUDA C, on the CPU
 * (gpusim_runtime.h says what and why).  C++ only: included by
 * gpusim_runtime.h for the kernel sources. */
#ifndef KB_GPUSIM_DEVICE_HH
#define KB_GPUSIM_DEVICE_HH

#include <math.h>      /* libstdc++'s: fma, sqrt, ... for float too */
#include <stdint.h>

#include <functional>
#include <tuple>
#include <utility>

#include "kernels/convert.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
/* One per kernel, taken in turn by its blocks (they run one after
 * another); a global, so that AddressSanitizer guards its bounds and
 * ThreadSanitizer watches it. */
#define __shared__ static

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1)
        : x(x_), y(y_), z(z_) {}
};

/* Set by the launch for the GPU thread running on this CPU thread
 * (ordered mode: for the coroutine it resumes). */
extern thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
extern int warpSize;   /* KBENCH_GPUSIM_WARP: 32 or 64 */

/* Every thread of the block waits here for the others. */
void gpusim_syncthreads(void);
inline void __syncthreads(void) { gpusim_syncthreads(); }

/* Relaxed, as CUDA's atomics are. */
template <typename T>
inline T atomicAdd(T *p, T v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

/* fp16 pairs on _Float16.  A pair's FMA is fmaf's, rounded to half: a
 * second rounding the GPU does not make, which can differ in the last
 * bit on a tie (the ceiling kernel only needs bounded values); through
 * double it would round once, but double to half is a libgcc call, 20
 * times slower than float to half (F16C). */
struct __half2 {
    _Float16 x, y;
};
inline __half2 __float2half2_rn(float f)
{
    return {(_Float16)f, (_Float16)f};
}
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return {(_Float16)fmaf((float)a.x, (float)b.x, (float)c.x),
            (_Float16)fmaf((float)a.y, (float)b.y, (float)c.y)};
}
inline float __low2float(__half2 a) { return (float)a.x; }
inline float __high2float(__half2 a) { return (float)a.y; }

/* bf16 pairs as bits, through kernels/convert.h (round to nearest even);
 * the FMA is fmaf's, rounded again to bf16. */
struct gpusim_bf162 {
    uint16_t x, y;
};
inline gpusim_bf162 __float2bfloat162_rn(float f)
{
    uint16_t h = kb_f32_to_bf16(f);
    return {h, h};
}
inline uint16_t gpusim_bf16_fma(uint16_t a, uint16_t b, uint16_t c)
{
    return kb_f32_to_bf16(
        fmaf(kb_bf16_to_f32(a), kb_bf16_to_f32(b), kb_bf16_to_f32(c)));
}
inline gpusim_bf162 __hfma2(gpusim_bf162 a, gpusim_bf162 b, gpusim_bf162 c)
{
    return {gpusim_bf16_fma(a.x, b.x, c.x), gpusim_bf16_fma(a.y, b.y, c.y)};
}
inline float __low2float(gpusim_bf162 a) { return kb_bf16_to_f32(a.x); }
inline float __high2float(gpusim_bf162 a) { return kb_bf16_to_f32(a.y); }

namespace gpusim {

/* Run body once per GPU thread of grid x block, in the mode of the run;
 * returns when every block is done.  A refused launch (no mode, too many
 * threads) is left for gpusimGetLastError. */
void launch(dim3 grid, dim3 block, const std::function<void()> &body);

/* kernel<<<grid, block>>>(args): the arguments are converted to the
 * kernel's parameter types once, as a launch copies them, and every GPU
 * thread gets its own copy. */
template <typename... P>
struct launcher {
    void (*kernel)(P...);
    dim3 grid, block;
    template <typename... A>
    void operator()(A &&...a) const
    {
        const std::tuple<P...> args(std::forward<A>(a)...);
        auto k = kernel;
        launch(grid, block, [k, &args] {
            std::tuple<P...> mine = args;
            std::apply(k, std::move(mine));
        });
    }
};
template <typename... P>
launcher<P...> make_launcher(dim3 grid, dim3 block, void (*kernel)(P...))
{
    return {kernel, grid, block};
}

}  // namespace gpusim

#endif
