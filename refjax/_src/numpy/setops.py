"""Set operations on flattened arrays in ``jax.numpy`` (SPEC NPE-1 .. NPE-4).

``isin`` compares every element with every test element (or searches a
sorted copy); the other routines build on ``unique`` and a sort of the
concatenated inputs, where equal neighbours mark shared values.  Without
``size`` the result's length depends on the values, so the inputs must be
concrete; with ``size`` the result is padded (with ``fill_value``, or by
default with the extreme values found) and works under ``jit``.
"""
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import dynamic_slice as lax_dynamic_slice
from refjax._src.lax import shapes
from refjax._src.lax import sorting as lax_sorting
from refjax._src.numpy import creation, reductions, util
from refjax._src.numpy.lax_numpy import _aval, concatenate, ravel, reshape, where
from refjax._src.numpy.sorting import _unique_sorted_mask, searchsorted, sort, unique

__all__ = ["isin", "intersect1d", "setdiff1d", "setxor1d", "union1d"]

_IN1D_METHODS = ("compare_all", "binary_search", "sort", "auto")


# -- membership (SPEC NPE-1) -------------------------------------------------

@jit(static_argnames=("assume_unique", "invert", "method"))
def _in1d(ar1, ar2, invert, method="auto", assume_unique=False):
    """Membership of each element of the flattened ``ar1`` in ``ar2``."""
    ar1, ar2 = util.ensure_arraylike("in1d", ar1, ar2)
    arr1, arr2 = util.promote_dtypes(ar1, ar2)
    arr1, arr2 = ravel(arr1), ravel(arr2)
    if _aval(arr1).size == 0 or _aval(arr2).size == 0:
        fill = creation.ones if invert else creation.zeros
        return fill(_aval(arr1).shape, dtype=bool)
    if method in ("auto", "compare_all"):
        return _in1d_compare_all(arr1, arr2, invert)
    if method == "binary_search":
        return _in1d_binary_search(arr1, arr2, invert)
    if method == "sort":
        return _in1d_sort(arr1, arr2, invert, assume_unique)
    raise ValueError(f"method={method!r} is not implemented; options are "
                     "'compare_all', 'binary_search', 'sort', and 'auto'")


def _in1d_compare_all(arr1, arr2, invert):
    """An (n1, n2) table of comparisons, reduced along the test elements."""
    if invert:
        return reductions.all(arr1[:, None] != arr2[None, :], -1)
    return reductions.any(arr1[:, None] == arr2[None, :], -1)


def _in1d_binary_search(arr1, arr2, invert):
    """Each element against the sorted test element at its insertion point."""
    arr2 = lax_sorting.sort(arr2, 0)
    found = arr2[searchsorted(arr2, arr1)]
    return arr1 != found if invert else arr1 == found


def _in1d_sort(arr1, arr2, invert, assume_unique):
    """Sort the unique ``arr1`` (padded) with ``arr2``, stably: an element of
    ``arr1`` is present when the entry after it is equal."""
    n1 = _aval(arr1).size
    if assume_unique:
        back = slice(None)
    else:
        arr1, back = unique(arr1, size=n1, return_inverse=True,
                            fill_value=reductions.max(arr2))
    both = concatenate([arr1, arr2])
    aux, ind = lax_sorting.sort_key_val(both, creation.arange(_aval(both).size), 0)
    if invert:
        start, same = creation.ones(n1, bool), aux[1:] != aux[:-1]
    else:
        start, same = creation.zeros(n1, bool), aux[1:] == aux[:-1]
    return start.at[ind[:-1]].set(same, mode="drop")[back]


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element of ``element`` occurs in ``test_elements``
    (negated when ``invert``), shaped like ``element`` (SPEC NPE-1).

    Values are compared after promotion to a common dtype (NaN is never
    found).  ``method`` picks the algorithm ('auto' = 'compare_all',
    'binary_search', 'sort'); all give the same answer.
    """
    element, test_elements = util.ensure_arraylike("isin", element, test_elements)
    result = _in1d(element, test_elements, invert=invert, method=method,
                   assume_unique=assume_unique)
    return reshape(result, np.shape(element))


# -- helpers ------------------------------------------------------------------

def _static_size(size, fun_name):
    return core.concrete_or_error(operator.index, size,
                                  f"The error arose in {fun_name}()")


def _unique_with_count(arr, return_index=False):
    """``unique`` padded to ``arr``'s length (with zeros), and how many of
    the entries are real."""
    n = _aval(arr).size
    count = reductions.sum(_unique_sorted_mask(arr, 0, True)[1])
    out = unique(arr, return_index=return_index, size=n, fill_value=0)
    return (*out, count) if return_index else (out, count)


def _pad_after(vals, count, fill_value):
    """Entries of ``vals`` from ``count`` on replaced by ``fill_value``, or
    (when None) by the largest real value, then by the smallest."""
    keep = creation.arange(_aval(vals).shape[0]) < count
    if fill_value is not None:
        return where(keep, vals, fill_value)
    vals = where(keep, vals, reductions.max(vals))
    return where(keep, vals, reductions.min(vals))


def _concat_unique(arr1, arr2):
    """The unique values of ``arr1`` then those of ``arr2``, packed at the
    front of one array of length ``arr1.size + arr2.size``, and their count."""
    arr1, n1 = _unique_with_count(ravel(arr1))
    arr2, n2 = _unique_with_count(ravel(arr2))
    total = _aval(arr1).size + _aval(arr2).size
    dt = dtypes.result_type(arr1, arr2)
    out = creation.zeros(total, dtype=dt)
    out = lax_dynamic_slice.dynamic_update_slice(out, arr1, (0,))
    out = lax_dynamic_slice.dynamic_update_slice(out, arr2, (n1,))
    return out, n1 + n2


# -- difference and union (SPEC NPE-2) ---------------------------------------

def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values of ``ar1`` not in ``ar2`` (``ar1``'s dtype)
    (SPEC NPE-2).  ``size`` pads with ``fill_value`` (default 0)."""
    arr1, arr2 = util.ensure_arraylike("setdiff1d", ar1, ar2)
    arr1, arr2 = ravel(arr1), ravel(arr2)
    if size is None:
        core.concrete_or_error(None, ar1, "The error arose in setdiff1d()")
    else:
        size = _static_size(size, "setdiff1d")
    fill = creation.full_like(arr1, 0 if fill_value is None else fill_value, shape=())
    n1 = _aval(arr1).size
    if n1 == 0:
        return creation.full_like(arr1, fill, shape=size or 0)
    if not assume_unique:
        arr1 = unique(arr1, size=size and n1)
    mask = _in1d(arr1, arr2, invert=True, assume_unique=assume_unique)
    if size is None:
        return arr1[mask]
    if not assume_unique:
        # unique's padding repeats arr1[0]: those entries are not results.
        n_unique = n1 + 1 - reductions.sum(arr1 == arr1[0])
        mask = where(creation.arange(n1) < n_unique, mask, False)
    valid = creation.arange(size) < reductions.sum(mask)
    return where(valid, arr1[where(mask, size=size)], fill)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique values found in either input (SPEC NPE-2)."""
    ar1, ar2 = util.ensure_arraylike("union1d", ar1, ar2)
    if size is None:
        ar1 = core.concrete_or_error(None, ar1, "The error arose in union1d()")
        ar2 = core.concrete_or_error(None, ar2, "The error arose in union1d()")
    else:
        size = _static_size(size, "union1d")
    return unique(concatenate((ar1, ar2), axis=None), size=size, fill_value=fill_value)


# -- symmetric difference (SPEC NPE-3) ---------------------------------------

@jit(static_argnames=("assume_unique", "size"))
def _setxor1d_size(arr1, arr2, fill_value, *, assume_unique, size):
    """``setxor1d`` with a static output length."""
    if assume_unique:
        aux = sort(concatenate([arr1, arr2]))
        flag = concatenate((bool(_aval(aux).size), aux[1:] != aux[:-1], True), axis=None)
    else:
        arr, count = _concat_unique(arr1, arr2)
        mask = creation.arange(_aval(arr).size + 1) < count + 1
        # Real entries first (sorted), the packing's leftovers after them.
        _, aux = lax_sorting.sort((~mask[1:], arr), 0, is_stable=True, num_keys=2)
        edges = concatenate((bool(_aval(aux).size), aux[1:] != aux[:-1], False), axis=None)
        flag = mask & edges.at[count].set(True)
    alone = flag[1:] & flag[:-1]
    if _aval(aux).size:
        idx = where(alone, size=size, fill_value=_aval(aux).size)[0]
        vals = aux.at[idx].get(mode="fill", fill_value=0)
    else:
        vals = creation.zeros(size, _aval(aux).dtype)
    return _pad_after(vals, reductions.sum(alone), fill_value)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted values in exactly one of the inputs (SPEC NPE-3): after
    sorting both sets together, the entries equal to neither neighbour."""
    ar1, ar2 = util.ensure_arraylike("setxor1d", ar1, ar2)
    arr1, arr2 = util.promote_dtypes(ravel(ar1), ravel(ar2))
    if size is not None:
        return _setxor1d_size(arr1, arr2, fill_value=fill_value,
                              assume_unique=assume_unique, size=size)
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = concatenate((arr1, arr2))
    if _aval(aux).size == 0:
        return aux
    aux = sort(aux)
    flag = concatenate((True, aux[1:] != aux[:-1], True), axis=None)
    return aux[flag[1:] & flag[:-1]]


# -- intersection (SPEC NPE-4) -----------------------------------------------

@jit(static_argnames=("return_indices",))
def _intersect1d_sorted_mask(arr1, arr2, return_indices):
    """The sorted concatenation, the mask of entries equal to the next one,
    and (when asked) the sorting permutation."""
    arr = concatenate((arr1, arr2))
    if return_indices:
        iota = shapes.broadcasted_iota(_index_dtype(_aval(arr).shape[0]),
                                       _aval(arr).shape, 0)
        aux, indices = lax_sorting.sort_key_val(arr, iota, 0)
    else:
        aux, indices = sort(arr), None
    return aux, aux[1:] == aux[:-1], indices


def _index_dtype(n):
    """int32 for sizes that fit, else int64 (JAX's index dtype for a dim)."""
    return np.dtype(np.int32) if n <= np.iinfo(np.int32).max else np.dtype(np.int64)


@jit(static_argnames=("fill_value", "assume_unique", "size", "return_indices"))
def _intersect1d_size(arr1, arr2, fill_value, assume_unique, size, return_indices):
    """``intersect1d`` with a static output length."""
    n1, n2 = _aval(arr1).size, _aval(arr2).size
    if assume_unique:
        ind1, count1 = creation.arange(n1), creation.full((), n1)
        ind2 = creation.arange(n2)
        arr = concatenate([arr1, arr2])
        aux, order = lax_sorting.sort((arr, creation.arange(_aval(arr).size)), 0,
                                      is_stable=True, num_keys=1)
        mask = creation.ones(_aval(arr).size, dtype=bool)
    else:
        arr1, ind1, count1 = _unique_with_count(arr1, return_index=True)
        arr2, ind2, count2 = _unique_with_count(arr2, return_index=True)
        arr = creation.zeros(n1 + n2, dtype=dtypes.result_type(arr1, arr2))
        arr = lax_dynamic_slice.dynamic_update_slice(arr, arr1, (0,))
        arr = lax_dynamic_slice.dynamic_update_slice(arr, arr2, (count1,))
        mask = creation.arange(_aval(arr).size) < count1 + count2
        _, aux, order = lax_sorting.sort(
            (~mask, arr, creation.arange(_aval(arr).size)), 0, is_stable=True, num_keys=2)
    shared = (aux[1:] == aux[:-1]) & mask[1:]
    count = reductions.sum(shared)
    if _aval(aux).size:
        at = where(shared, size=size, fill_value=_aval(aux).size)[0]
        vals = aux.at[at].get(mode="fill", fill_value=0)
    else:
        at = creation.arange(0)
        vals = creation.zeros(size, _aval(aux).dtype)
    vals = _pad_after(vals, count, fill_value)
    if not return_indices:
        return vals
    valid = creation.arange(_aval(at).shape[0]) < count    # empty when aux is
    idx1 = where(valid, order.at[at].get(mode="fill", fill_value=n1), n1)
    idx2 = where(valid, order.at[at + 1].get(mode="fill", fill_value=n2) - count1, n2)
    if not assume_unique:
        idx1 = ind1.at[idx1].get(mode="fill", fill_value=_aval(ind1).size)
        idx2 = ind2.at[idx2].get(mode="fill", fill_value=_aval(ind2).size)
    return vals, idx1, idx2


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted unique values in both inputs, and with ``return_indices``
    the positions of their first occurrences in each (SPEC NPE-4)."""
    ar1, ar2 = util.ensure_arraylike("intersect1d", ar1, ar2)
    arr1, arr2 = util.promote_dtypes(ar1, ar2)
    arr1, arr2 = ravel(arr1), ravel(arr2)
    if size is not None:
        return _intersect1d_size(arr1, arr2, return_indices=return_indices, size=size,
                                 fill_value=fill_value, assume_unique=assume_unique)
    ind1 = ind2 = creation.arange(0)
    if not assume_unique:
        if return_indices:
            arr1, ind1 = unique(arr1, return_index=True)
            arr2, ind2 = unique(arr2, return_index=True)
        else:
            arr1, arr2 = unique(arr1), unique(arr2)
    aux, mask, order = _intersect1d_sorted_mask(arr1, arr2, return_indices)
    values = aux[:-1][mask]
    if not return_indices:
        return values
    idx1 = order[:-1][mask]
    idx2 = order[1:][mask] - np.size(arr1)
    if not assume_unique:
        idx1, idx2 = ind1[idx1], ind2[idx2]
    return values, idx1, idx2
