/* Splitting an image's texture upload across frames: the pure arithmetic
 * (upload_split.h), tested on its own in tests/unit/test_loader.c. */
#include "upload_split.h"

int tempo__upload_rows(double ns_per_byte, uint64_t time_left_ns, uint64_t row_bytes, int rows_left,
                       bool must_progress)
{
    if (rows_left <= 0)
        return 0;
    if (row_bytes == 0)
        return rows_left;
    if (!(ns_per_byte > 0))
        ns_per_byte = TEMPO__UPLOAD_PRIOR_NS_PER_BYTE;
    double row_ns = ns_per_byte * (double)row_bytes;
    double fit = (double)time_left_ns / row_ns;
    int min_rows = (int)(TEMPO__UPLOAD_MIN_STRIP_BYTES / row_bytes);
    if (min_rows < 1)
        min_rows = 1;
    if (fit >= (double)rows_left)
        return rows_left;
    int rows = (int)fit;
    if (rows >= min_rows)
        return rows;
    if (!must_progress)
        return 0;
    return min_rows < rows_left ? min_rows : rows_left;
}

uint64_t tempo__upload_create_ns(double create_ns_per_byte, uint64_t texture_bytes)
{
    if (!(create_ns_per_byte > 0))
        return 0;
    return (uint64_t)(create_ns_per_byte * (double)texture_bytes + 0.5);
}

double tempo__upload_learn(double old, uint64_t bytes, uint64_t took_ns)
{
    if (bytes == 0)
        return old;
    double sample = (double)took_ns / (double)bytes;
    if (!(old > 0))
        return sample;
    return old + (sample - old) / 4;
}
