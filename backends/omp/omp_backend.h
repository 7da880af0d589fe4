/* omp_backend.h - the hand-written OpenMP C backend, for the registry. */
#ifndef KB_OMP_BACKEND_H
#define KB_OMP_BACKEND_H

#include "backends/backend.h"

extern const kb_backend kb_backend_omp;

#endif
