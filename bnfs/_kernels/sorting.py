"""Sorting inside kernels: bottom-up merge sorts, stable, for any numeric dtype.

numba's own ``np.sort``/``np.argsort`` compile a large generic quicksort or mergesort for
every kernel and dtype that uses them: about 3 s of a first run's compiling. These two
small loops compile in a fraction of that and sort as fast on the sizes the kernels meet.
"""

import numpy as np

from bnfs._kernels._compile import njit


@njit(cache=True)
def argsort_stable(values):
    """The indices that sort ``values`` ascending; equal values keep their order (as
    ``np.argsort(values, kind="stable")``). Keys move with their indices, so the merges
    read memory in order."""
    n = values.shape[0]
    src_key = values.copy()
    src = np.arange(n)
    dst_key = np.empty_like(src_key)
    dst = np.empty(n, np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if src_key[j] < src_key[i]:
                    dst_key[k] = src_key[j]
                    dst[k] = src[j]
                    j += 1
                else:
                    dst_key[k] = src_key[i]
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst_key[k] = src_key[i]
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst_key[k] = src_key[j]
                dst[k] = src[j]
                j += 1
                k += 1
        src_key, dst_key = dst_key, src_key
        src, dst = dst, src
        width *= 2
    return src


@njit(cache=True)
def sort_inplace(values):
    """Sort ``values`` ascending in place (as ``values.sort()``)."""
    n = values.shape[0]
    src = values
    dst = np.empty_like(values)
    width = 1
    swapped = False
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if src[j] < src[i]:
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        swapped = not swapped
        width *= 2
    if swapped:
        for i in range(n):
            values[i] = src[i]
