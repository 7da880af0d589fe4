/* openblas_backend.h - the OpenBLAS backend and its core-type check. */
#ifndef KB_OPENBLAS_BACKEND_H
#define KB_OPENBLAS_BACKEND_H

#include "backends/backend.h"

extern const kb_backend kb_backend_openblas;

/* True when the OpenBLAS core `core` (openblas_get_corename) uses
 * narrower SIMD than the CPU has: a generic pre-AVX2 core on an AVX2 or
 * AVX-512 CPU, or an AVX2 core on an AVX-512 CPU.  Then fix holds a
 * warning naming the OPENBLAS_CORETYPE that fixes it. */
bool kb_openblas_core_fallback(const char *core, bool cpu_has_avx2,
                               bool cpu_has_avx512, char *fix, size_t len);

#endif
