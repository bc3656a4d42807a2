"""Non-temporal ("streaming") stores for the compiled kernels of :mod:`ops.accel`.

A gather that writes an output much larger than the caches spends a third of its memory
traffic reading each output line in before overwriting it (read-for-ownership). A
non-temporal store writes the line straight to memory instead: on the Gather axis 0 benchmark
(a 256 MB output) that is 20.5 -> 17.7 ms. It is only worth it for outputs that would not
stay in cache anyway (:data:`ops.accel.STREAM_MIN_BYTES`).

:func:`install` gives the plain-Python helpers ``ops.accel_kernels.stream_store`` (``arr[i, j] =
value``) and ``ops.accel_kernels.store_fence`` (nothing) their compiled meaning: a store tagged
``!nontemporal`` and, on x86-64, an ``sfence`` that makes the weakly ordered streaming stores
visible before the kernel returns (elsewhere LLVM's ordinary lowering applies and the fence is
a no-op). Imported only by :func:`ops.accel._load`, after numba itself.

Developers: numba's on-disk cache of the kernels is keyed by ``ops/accel_kernels.py`` (and
numba's version), not by this file; after editing the code generation here, delete
``ops/__pycache__/*.nb*`` so the kernels are compiled with it.
"""
from __future__ import annotations

import platform

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

_X86 = platform.machine().lower() in ("x86_64", "amd64")


@intrinsic
def _nontemporal_store(typingctx, arr, i, j, value):
    """``arr[i, j] = value`` (2-D C-contiguous array, indices in range) as a non-temporal store."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], args[2]], wraparound=False)
        stored = builder.store(context.cast(builder, args[3], signature.args[3], aryty.dtype), ptr)
        stored.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()

    return types.void(arr, i, j, value), codegen


@intrinsic
def _sfence(typingctx):
    """x86-64 ``sfence``: earlier non-temporal stores are globally visible before later stores."""
    def codegen(context, builder, signature, args):
        if _X86:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                "llvm.x86.sse.sfence")
            builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(), codegen


def _probe_kernel(out):
    for j in range(out.shape[1]):
        _nontemporal_store(out, 0, j, j + 1)
    _sfence()


def _probe() -> None:
    """Compile and run a tiny kernel that uses both intrinsics. Raises if numba's or
    llvmlite's internals used above have moved, before anything is registered, so the caller
    can fall back to ordinary stores. (numba's on-disk cache is keyed by its own version and
    this file, so after an upgrade the probe compiles again; otherwise it is loaded from the
    cache, and its 130-200 ms are mostly numba's one-off start-up that the first kernel would
    pay anyway.)"""
    import numpy as np
    from numba import njit

    out = np.zeros((1, 4), np.uint32)
    njit(cache=True)(_probe_kernel)(out)
    if out.tolist() != [[1, 2, 3, 4]]:
        raise RuntimeError("streaming-store probe wrote the wrong values")


def install(stream_store, store_fence) -> None:
    """Register the compiled implementations of the two plain-Python helpers, after
    :func:`_probe` showed that the intrinsics compile and work here."""
    _probe()

    @overload(stream_store, inline="always")
    def _stream_store_impl(arr, i, j, value):
        return lambda arr, i, j, value: _nontemporal_store(arr, i, j, value)

    @overload(store_fence, inline="always")
    def _store_fence_impl():
        return lambda: _sfence()
