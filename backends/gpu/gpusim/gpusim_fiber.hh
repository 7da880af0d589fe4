/* gpusim_fiber.hh - the coroutines of the ordered mode: make one on a
 * stack, switch from one to another.
 *
 * On x86-64 a switch is a few instructions (the callee-saved registers,
 * the stack pointer, the FP control words): glibc's swapcontext also
 * saves the signal mask, a system call each way, which made it two
 * thirds of a run.  Under AddressSanitizer, and on other architectures,
 * it is ucontext, which the sanitizer intercepts (it forgets the shadow
 * of a stack a fresh coroutine reuses). */
#ifndef KB_GPUSIM_FIBER_HH
#define KB_GPUSIM_FIBER_HH

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define GPUSIM_FAST_FIBERS 1
#else
#include <ucontext.h>
#endif

namespace gpusim {

#if defined(GPUSIM_FAST_FIBERS)
struct fiber {
    void *sp;
};
extern "C" void gpusim_fiber_switch(void **save_sp, void *load_sp);

/* entry must never return: it ends by switching away for good. */
inline void fiber_make(fiber *f, char *stack, size_t bytes, void (*entry)())
{
    uintptr_t top = ((uintptr_t)stack + bytes) & ~(uintptr_t)15;
    uint64_t *s = (uint64_t *)top;
    s[-1] = 0;                   /* entry's return address: none */
    s[-2] = (uint64_t)entry;     /* where the first switch returns to */
    for (int i = 3; i <= 8; i++)
        s[-i] = 0;               /* rbp rbx r12 r13 r14 r15 */
    s[-9] = 0x037f00001f80ull;   /* MXCSR and x87 control word: defaults */
    f->sp = &s[-9];
}
inline void fiber_switch(fiber *from, fiber *to)
{
    gpusim_fiber_switch(&from->sp, to->sp);
}
#else
struct fiber {
    ucontext_t ctx;
};
inline void fiber_make(fiber *f, char *stack, size_t bytes, void (*entry)())
{
    getcontext(&f->ctx);
    f->ctx.uc_stack.ss_sp = stack;
    f->ctx.uc_stack.ss_size = bytes;
    f->ctx.uc_link = nullptr;
    makecontext(&f->ctx, entry, 0);
}
inline void fiber_switch(fiber *from, fiber *to)
{
    swapcontext(&from->ctx, &to->ctx);
}
#endif

}  // namespace gpusim

#endif
