/* gpusim_fiber.hh - the coroutines of the ordered mode: make one on a
 * stack, switch from one to another.
 *
 * On x86-64 a switch is a few instructions (the callee-saved registers,
 * the stack pointer, the FP control words): glibc's swapcontext also
 * saves the signal mask, a system call each way, which made it two
 * thirds of a run (under AddressSanitizer, whose swapcontext clears the
 * shadow of the whole new stack, ordered tests took 6 minutes each).
 * Under ThreadSanitizer, and on other architectures, it is ucontext.
 * AddressSanitizer is told of every switch (its fiber interface): which
 * stack is live, and each coroutine's fake stack for use-after-return. */
#ifndef KB_GPUSIM_FIBER_HH
#define KB_GPUSIM_FIBER_HH

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define GPUSIM_FAST_FIBERS 1
#else
#include <ucontext.h>
#endif
#if defined(GPUSIM_FAST_FIBERS) && defined(__SANITIZE_ADDRESS__)
#define GPUSIM_ASAN_FIBERS 1
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace gpusim {

#if defined(GPUSIM_FAST_FIBERS)
struct fiber {
    void *sp;
#if defined(GPUSIM_ASAN_FIBERS)
    const void *stack;   /* its bounds: set when made, or learnt when */
    size_t bytes;        /* it first switches away (a thread's own stack) */
    void *fake_stack;
#endif
};
extern "C" void gpusim_fiber_switch(void **save_sp, void *load_sp);

#if defined(GPUSIM_ASAN_FIBERS)
/* the coroutine that switched last: the one a resumed one came from */
inline thread_local fiber *switched_from;

inline void asan_leave(fiber *from, fiber *to, bool for_good)
{
    switched_from = from;
    __sanitizer_start_switch_fiber(for_good ? nullptr : &from->fake_stack,
                                   to->stack, to->bytes);
}
inline void asan_arrive(void *fake_stack)
{
    __sanitizer_finish_switch_fiber(fake_stack, &switched_from->stack,
                                    &switched_from->bytes);
}
#else
inline void asan_leave(fiber *, fiber *, bool) {}
inline void asan_arrive(void *) {}
#endif

/* entry must begin with fiber_started() and never return: it ends with
 * fiber_exit. */
inline void fiber_make(fiber *f, char *stack, size_t bytes, void (*entry)())
{
#if defined(GPUSIM_ASAN_FIBERS)
    /* the last coroutine on this stack ended in its entry's frame,
     * which never returned: its redzones are still poisoned */
    ASAN_UNPOISON_MEMORY_REGION(stack, bytes);
#endif
    uintptr_t top = ((uintptr_t)stack + bytes) & ~(uintptr_t)15;
    uint64_t *s = (uint64_t *)top;
    s[-1] = 0;                   /* entry's return address: none */
    s[-2] = (uint64_t)entry;     /* where the first switch returns to */
    for (int i = 3; i <= 8; i++)
        s[-i] = 0;               /* rbp rbx r12 r13 r14 r15 */
    s[-9] = 0x037f00001f80ull;   /* MXCSR and x87 control word: defaults */
    f->sp = &s[-9];
#if defined(GPUSIM_ASAN_FIBERS)
    f->stack = stack;
    f->bytes = bytes;
    f->fake_stack = nullptr;
#endif
}
inline void fiber_started()
{
    asan_arrive(nullptr);
}
inline void fiber_switch(fiber *from, fiber *to)
{
    asan_leave(from, to, false);
    gpusim_fiber_switch(&from->sp, to->sp);
#if defined(GPUSIM_ASAN_FIBERS)
    asan_arrive(from->fake_stack);
#endif
}
inline void fiber_exit(fiber *from, fiber *to)
{
    asan_leave(from, to, true);
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
inline void fiber_started() {}
inline void fiber_switch(fiber *from, fiber *to)
{
    swapcontext(&from->ctx, &to->ctx);
}
inline void fiber_exit(fiber *from, fiber *to)
{
    swapcontext(&from->ctx, &to->ctx);
}
#endif

}  // namespace gpusim

#endif
