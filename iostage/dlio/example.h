/* example.h - a protobuf walker for tf.train.Example (dlio_pb.c). */
#ifndef KB_IO_DLIO_EXAMPLE_H
#define KB_IO_DLIO_EXAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const uint8_t *image;       /* features['image'].bytes_list.value[0] */
    size_t image_len;
    int64_t size;               /* features['size'].int64_list.value[0] */
} kb_example;

/* Walk the serialized Example p[0, n); offsets in messages are `base` +
 * the position.  Both features must be there with one value each.  0 or
 * KB_IO_CORRUPT. */
int kb_example_parse(const uint8_t *p, size_t n, uint64_t base,
                     kb_example *ex, char *err, size_t len);
/* Serialize {'image': bytes, 'size': int64} as TensorFlow does into dst
 * (NULL: only measure).  Returns the length.  Cannot fail. */
size_t kb_example_put(uint8_t *dst, const uint8_t *image, size_t image_len,
                      int64_t size);

#endif
