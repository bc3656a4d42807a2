"""Machine hints for the compiled kernels of :mod:`ops.accel`: software prefetches and
non-temporal ("streaming") stores. Neither changes a result; both only change when memory moves.

* **Prefetch.** A gather of rows picked at random from a table much larger than the caches
  (GatherND, Gather on axis 0) waits on one memory miss per row; the next row's address depends
  on nothing but its index, so it can be asked for early. GatherND's row gather computes row
  numbers :data:`ops.accel_kernels.AHEAD` rows before it copies them and prefetches each one
  then; Gather on axis 0 reads the index :data:`ops.accel_kernels.ROWS_AHEAD` rows ahead
  (:data:`ops.accel_kernels.ROWS_AHEAD_SHORT` for rows under a cache line) and prefetches that
  row (written with ordinary stores: from tables of
  :data:`ops.accel_kernels.ROWS_PREFETCH_MIN_BYTES` up), into every cache level, or
  non-temporally from tables of
  :data:`ops.accel.ROWS_ONCE_MIN_BYTES` up (benchmarks/README.md has the measurements behind
  these choices).
* **Streaming stores.** A gather that writes an output much larger than the caches spends a
  third of its memory traffic reading each output line in before overwriting it
  (read-for-ownership). A non-temporal store writes the line straight to memory instead. The
  row gathers use them for outputs of :data:`ops.accel.STREAM_MIN_BYTES` or more, unless
  ``INDEXFLOW_STREAM_STORES=0``; rows of a cache line or more go 16 bytes per store.

:func:`install` gives the plain-Python helpers of :mod:`ops.accel_kernels` their compiled
meaning: ``prefetch(arr, i, j)`` (nothing in Python) becomes a read prefetch of ``arr[i, j]``'s
cache line into all cache levels, ``prefetch_once(arr, i, j)`` (nothing) a non-temporal one
(``prefetchnta``); ``stream_store(arr, i, j, value)`` (``arr[i, j] = value``) a
store tagged ``!nontemporal``, ``stream_copy16(src, i, j, dst, r, b)`` (a 16-byte slice
assignment) a 16-byte load and a 16-byte store so tagged, to an address the caller has made a
multiple of 16; ``store_fence()`` (nothing), on x86-64, an ``sfence`` that makes
the weakly ordered streaming stores visible before the kernel returns (elsewhere LLVM's
ordinary lowering applies and the fence is a no-op); ``load_acquire(arr, i)`` (``arr[i]``) an
atomic load with acquire ordering, which a polling loop cannot hoist; ``fetch_add(arr, i,
value)`` (``arr[i] += value``, returning the old value) one atomic read-modify-write, so that
threads sharing a counter each get their own value. Imported only by :func:`ops.accel._load`,
after numba itself; if it fails, the helpers keep their plain meaning (same results).

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
_I32 = ir.IntType(32)


def _prefetcher(locality: int, doc: str):
    """An intrinsic ``f(arr, i, j)`` that prefetches the cache line holding ``arr[i, j]`` (2-D
    array, indices in range) for reading with ``llvm.prefetch``'s ``locality`` (3: keep in every
    cache level; 0: non-temporal). A prefetch never faults."""
    def _prefetch(typingctx, arr, i, j):
        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], args[2]], wraparound=False)
            byte_ptr = ir.IntType(8).as_pointer()
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [byte_ptr, _I32, _I32, _I32]), "llvm.prefetch.p0i8")
            builder.call(fn, [builder.bitcast(ptr, byte_ptr), ir.Constant(_I32, 0), ir.Constant(_I32, locality),
                              ir.Constant(_I32, 1)])
            return context.get_dummy_value()

        return types.void(arr, i, j), codegen

    _prefetch.__doc__ = doc
    return intrinsic(_prefetch)


_prefetch = _prefetcher(3, "Prefetch the line of ``arr[i, j]`` into every cache level (x86: ``prefetcht0``).")
_prefetch_once = _prefetcher(0, "Prefetch the line of ``arr[i, j]`` for one use (x86: ``prefetchnta``): on "
                                "AMD Zen it goes to L1 only, neither L2 nor L3 keeps it.")


@intrinsic
def _touch(typingctx, arr, i):
    """Load ``arr[i]`` (1-D array, index in range) and keep the load although nothing uses the
    value: it feeds an empty inline-assembly statement with side effects (the idiom of
    benchmark libraries' ``DoNotOptimize``), so the line is in L1 afterwards."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        value = builder.load(ptr)
        sink = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [value.type]), "", "r", side_effect=True)
        builder.call(sink, [value])
        return context.get_dummy_value()

    return types.void(arr, i), codegen


@intrinsic
def _nontemporal_store(typingctx, arr, i, j, value):
    """``arr[i, j] = value`` (2-D C-contiguous array, indices in range) as a non-temporal store."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], args[2]], wraparound=False)
        stored = builder.store(context.cast(builder, args[3], signature.args[3], aryty.dtype), ptr)
        stored.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(_I32, 1)]))
        return context.get_dummy_value()

    return types.void(arr, i, j, value), codegen


@intrinsic
def _nontemporal_copy16(typingctx, src, i, j, dst, r, b):
    """The 16 bytes from ``src[i, j]`` (any alignment) to ``dst[r, b]``, whose address must be
    a multiple of 16, as one non-temporal 16-byte store (x86: ``movntdq``; 2-D C-contiguous
    arrays, indices in range, 16 bytes within the row)."""
    def codegen(context, builder, signature, args):
        sty, dty = signature.args[0], signature.args[3]
        sary = context.make_array(sty)(context, builder, args[0])
        dary = context.make_array(dty)(context, builder, args[3])
        sptr = cgutils.get_item_pointer(context, builder, sty, sary, [args[1], args[2]], wraparound=False)
        dptr = cgutils.get_item_pointer(context, builder, dty, dary, [args[4], args[5]], wraparound=False)
        vty = ir.VectorType(ir.IntType(64), 2)
        value = builder.load(builder.bitcast(sptr, vty.as_pointer()), align=1)
        stored = builder.store(value, builder.bitcast(dptr, vty.as_pointer()), align=16)
        stored.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(_I32, 1)]))
        return context.get_dummy_value()

    return types.void(src, i, j, dst, r, b), codegen


@intrinsic
def _atomic_load(typingctx, arr, i):
    """``arr[i]`` (1-D array of 8-byte integers, index in range) read with acquire ordering: a
    loop of such loads sees another thread's store (a plain load may be hoisted out of it)."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        return builder.load_atomic(ptr, "acquire", 8)

    return arr.dtype(arr, i), codegen


@intrinsic
def _atomic_add(typingctx, arr, i, value):
    """``arr[i] += value`` (1-D array of 8-byte integers, index in range) as one atomic
    read-modify-write; returns ``arr[i]`` as it was. Monotonic ordering: threads that share the
    counter only need distinct values; what they write is ordered by the join that follows."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        delta = context.cast(builder, args[2], signature.args[2], aryty.dtype)
        return builder.atomic_rmw("add", ptr, delta, "monotonic")

    return arr.dtype(arr, i, value), codegen


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


def _probe_kernel(out, b, counter):
    _atomic_add(counter, 0, _atomic_add(counter, 0, 5) + 2)
    for j in range(out.shape[1]):
        _prefetch(out, 0, j)
        _prefetch_once(out, 0, j)
        _touch(out[0], j)
        _nontemporal_store(out, 0, j, j + 1)
    _nontemporal_copy16(out, 0, b, out, 1, b)
    _sfence()


def _probe() -> None:
    """Compile and run a tiny kernel that uses every intrinsic. Raises if numba's or llvmlite's
    internals used above have moved, before anything is registered, so the caller can fall back
    to the plain helpers. (numba's on-disk cache is keyed by its own version and this file, so
    after an upgrade the probe compiles again; otherwise it is loaded from the cache, and its
    cost is mostly numba's one-off start-up, which the first kernel would pay anyway.)"""
    import numpy as np
    from numba import njit

    out = np.zeros((2, 8), np.uint32)
    counter = np.ones(1, np.int64)
    b = (-out[1].ctypes.data & 15) // 4  # out[1, b] on a 16-byte boundary
    njit(cache=True)(_probe_kernel)(out, b, counter)
    expected = [list(range(1, 9)), [0] * 8]
    expected[1][b:b + 4] = range(b + 1, b + 5)
    if out.tolist() != expected or counter[0] != 1 + 5 + 3:
        raise RuntimeError("intrinsics probe wrote the wrong values")


def install(prefetch, prefetch_once, touch, stream_store, stream_copy16, store_fence, jit_options,
            load_acquire=None, fetch_add=None) -> None:
    """Register the compiled implementations of the plain-Python helpers, after :func:`_probe`
    showed that the intrinsics compile and work here; each is compiled with ``jit_options``
    (:data:`ops.accel.INLINED`, so that LLVM inlines it into its caller)."""
    _probe()

    @overload(prefetch, jit_options=jit_options)
    def _prefetch_impl(arr, i, j):
        return lambda arr, i, j: _prefetch(arr, i, j)

    @overload(prefetch_once, jit_options=jit_options)
    def _prefetch_once_impl(arr, i, j):
        return lambda arr, i, j: _prefetch_once(arr, i, j)

    @overload(touch, jit_options=jit_options)
    def _touch_impl(arr, i):
        return lambda arr, i: _touch(arr, i)

    @overload(stream_store, jit_options=jit_options)
    def _stream_store_impl(arr, i, j, value):
        return lambda arr, i, j, value: _nontemporal_store(arr, i, j, value)

    @overload(stream_copy16, jit_options=jit_options)
    def _stream_copy16_impl(src, i, j, dst, r, b):
        return lambda src, i, j, dst, r, b: _nontemporal_copy16(src, i, j, dst, r, b)

    @overload(store_fence, jit_options=jit_options)
    def _store_fence_impl():
        return lambda: _sfence()

    if load_acquire is not None:
        @overload(load_acquire, jit_options=jit_options)
        def _load_acquire_impl(arr, i):
            return lambda arr, i: _atomic_load(arr, i)

    if fetch_add is not None:
        @overload(fetch_add, jit_options=jit_options)
        def _fetch_add_impl(arr, i, value):
            return lambda arr, i, value: _atomic_add(arr, i, value)
