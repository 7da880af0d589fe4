/* gpusim_launch.cc - a kernel launch on the CPU: the blocks one after
 * another, the threads of a block in the run's mode (gpusim_runtime.h).
 *
 *  ordered: each GPU thread a coroutine (gpusim_fiber.hh) on this CPU
 *           thread;
 *           the threads run in index order, each until its next
 *           __syncthreads or its end, then the next: deterministic, so a
 *           missing barrier gives the same wrong answer every time.
 *  threads: each GPU thread a pthread, the barrier a mutex and condition
 *           variable (ThreadSanitizer sees their order, so a missing
 *           barrier is a reported race).  The threads live for the whole
 *           launch and take the blocks in turn.
 *
 * In both, a thread that has returned no longer counts at a barrier (as
 * on the GPU), and a block starts only when the previous one is done, so
 * the blocks share each kernel's __shared__ statics safely. */
#include "backends/gpu/gpusim/gpusim_runtime.h"
#include "backends/gpu/gpusim/gpusim_fiber.hh"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <vector>

thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
int warpSize = 32;

#if defined(GPUSIM_FAST_FIBERS)
/* gpusim_fiber_switch(save_sp, load_sp): push the callee-saved registers
 * and the FP control words, save the stack pointer, load the other one,
 * pop its registers, return where it left off (System V x86-64 ABI). */
__asm__(".text\n"
        ".globl gpusim_fiber_switch\n"
        ".type gpusim_fiber_switch, @function\n"
        "gpusim_fiber_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n"
        "  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n"
        "  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size gpusim_fiber_switch, .-gpusim_fiber_switch\n"
        ".section .note.GNU-stack,\"\",@progbits\n"
        ".text\n");
#endif

namespace {

/* Stack of one GPU thread: a kernel's register tiles are small, the
 * sanitizers' frames are not. */
constexpr size_t STACK_BYTES = 256 * 1024;
constexpr unsigned MAX_THREADS = 1024;   /* per block, as on CUDA */

dim3 index_of(unsigned i, dim3 d)
{
    return dim3(i % d.x, i / d.x % d.y, i / (d.x * d.y));
}

struct run_state {
    const std::function<void()> *body;
    dim3 grid, block;
    unsigned nthreads, nblocks;
    /* ordered */
    gpusim::fiber scheduler;
    std::vector<gpusim::fiber> fibers;
    std::vector<bool> done;
    unsigned current;
    /* threads: live threads of the block, those waiting at the barrier,
     * and the generations each kind of wait waits for */
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    unsigned live, arrived;
    unsigned long barrier_gen, block_gen;
    gpusim_mode mode;
};

thread_local run_state *run;   /* the launch this CPU thread works for */

/* ---- ordered ---- */

void fiber_main()
{
    gpusim::fiber_started();
    (*run->body)();
    run->done[run->current] = true;
    gpusim::fiber_exit(&run->fibers[run->current], &run->scheduler);
}

/* The coroutines' stacks, kept from launch to launch (mapped afresh,
 * their pages would fault in again every time); grown to the largest
 * block.  Per CPU thread, as the launches are. */
thread_local char *stacks;
thread_local size_t stacks_for;

int run_ordered(run_state &r)
{
    const size_t n = r.nthreads;
    if (n > stacks_for) {
        if (stacks)
            munmap(stacks, stacks_for * STACK_BYTES);
        stacks_for = 0;
        stacks = (char *)mmap(nullptr, n * STACK_BYTES,
                              PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                              -1, 0);
        if (stacks == MAP_FAILED) {
            stacks = nullptr;
            return -1;
        }
        stacks_for = n;
    }
    r.fibers.resize(n);
    r.done.assign(n, false);
    for (unsigned b = 0; b < r.nblocks; b++) {
        blockIdx = index_of(b, r.grid);
        for (unsigned t = 0; t < n; t++) {
            gpusim::fiber_make(&r.fibers[t], stacks + t * STACK_BYTES,
                               STACK_BYTES, fiber_main);
            r.done[t] = false;
        }
        /* one round: every live thread up to its next barrier or end */
        for (size_t live = n; live > 0;) {
            for (unsigned t = 0; t < n; t++) {
                if (r.done[t])
                    continue;
                threadIdx = index_of(t, r.block);
                r.current = t;
                gpusim::fiber_switch(&r.scheduler, &r.fibers[t]);
                if (r.done[t])
                    live--;
            }
        }
    }
    return 0;
}

void sync_ordered(run_state &r)
{
    gpusim::fiber_switch(&r.fibers[r.current], &r.scheduler);
}

/* ---- threads ---- */

/* Release the threads at the barrier when every live one has come. */
void release_if_all(run_state &r)
{
    if (r.arrived > 0 && r.arrived == r.live) {
        r.arrived = 0;
        r.barrier_gen++;
        pthread_cond_broadcast(&r.cond);
    }
}

void sync_threads(run_state &r)
{
    pthread_mutex_lock(&r.mutex);
    unsigned long gen = r.barrier_gen;
    r.arrived++;
    release_if_all(r);
    while (gen == r.barrier_gen)
        pthread_cond_wait(&r.cond, &r.mutex);
    pthread_mutex_unlock(&r.mutex);
}

/* A thread's end of a block: the last one starts the next block. */
void block_end(run_state &r)
{
    pthread_mutex_lock(&r.mutex);
    unsigned long gen = r.block_gen;
    if (--r.live == 0) {
        r.live = r.nthreads;
        r.block_gen++;
        pthread_cond_broadcast(&r.cond);
    } else {
        release_if_all(r);
        while (gen == r.block_gen)
            pthread_cond_wait(&r.cond, &r.mutex);
    }
    pthread_mutex_unlock(&r.mutex);
}

struct worker_arg {
    run_state *r;
    unsigned t;
};

void *worker(void *p)
{
    worker_arg *a = (worker_arg *)p;
    run = a->r;
    blockDim = run->block;
    gridDim = run->grid;
    threadIdx = index_of(a->t, run->block);
    for (unsigned b = 0; b < run->nblocks; b++) {
        blockIdx = index_of(b, run->grid);
        (*run->body)();
        block_end(*run);
    }
    return nullptr;
}

int run_threads(run_state &r)
{
    r.live = r.nthreads;
    r.arrived = 0;
    r.barrier_gen = r.block_gen = 0;
    std::vector<pthread_t> tids(r.nthreads);
    std::vector<worker_arg> args(r.nthreads);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_BYTES);
    unsigned started = 0;
    for (; started < r.nthreads; started++) {
        args[started] = {&r, started};
        if (pthread_create(&tids[started], &attr, worker, &args[started]))
            break;
    }
    pthread_attr_destroy(&attr);
    if (started < r.nthreads) {
        /* too few threads for the block: the ones started would wait at
         * their first barrier for ever; fail loudly instead */
        fprintf(stderr, "gpusim: could not start %u threads for a block "
                        "(started %u)\n", r.nthreads, started);
        abort();
    }
    for (unsigned t = 0; t < r.nthreads; t++)
        pthread_join(tids[t], nullptr);
    return 0;
}

}  // namespace

void gpusim_syncthreads(void)
{
    if (run->mode == GPUSIM_ORDERED)
        sync_ordered(*run);
    else
        sync_threads(*run);
}

void gpusim::launch(dim3 grid, dim3 block, const std::function<void()> &body)
{
    gpusim_mode mode;
    int warp;
    char why[160];
    if (gpusim_settings(&mode, &warp, why, sizeof why) != 0) {
        gpusim_set_error(gpusimErrorInitialization);
        return;
    }
    unsigned long long threads = (unsigned long long)block.x * block.y *
                                 block.z,
                       blocks = (unsigned long long)grid.x * grid.y * grid.z;
    if (threads == 0 || threads > MAX_THREADS || blocks == 0 ||
        blocks > 0xffffffffull) {
        gpusim_set_error(gpusimErrorInvalidConfiguration);
        return;
    }
    run_state r;
    r.body = &body;
    r.grid = grid;
    r.block = block;
    r.nthreads = (unsigned)threads;
    r.nblocks = (unsigned)blocks;
    r.mode = mode;
    run_state *outer = run;
    run = &r;
    blockDim = block;
    gridDim = grid;
    int rc = mode == GPUSIM_ORDERED ? run_ordered(r) : run_threads(r);
    run = outer;
    if (rc != 0)
        gpusim_set_error(gpusimErrorMemoryAllocation);
}
