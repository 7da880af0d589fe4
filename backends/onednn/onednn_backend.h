/* onednn_backend.h - the oneDNN backend and its timed-reorder variant. */
#ifndef KB_ONEDNN_BACKEND_H
#define KB_ONEDNN_BACKEND_H

#include "backends/backend.h"

extern const kb_backend kb_backend_onednn;
extern const kb_backend kb_backend_onednn_reorder;

#endif
