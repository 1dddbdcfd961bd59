"""The machinery of the CuPy stand-in (see ``cupy/__init__.py``)."""
import operator

import numpy as _np

from cupy import cuda as _cuda

_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. "
             "Please use `.get()` to construct a NumPy array explicitly.")

_DTYPES = {_np.dtype(t) for t in (
    _np.bool_, _np.int8, _np.int16, _np.int32, _np.int64, _np.uint8,
    _np.uint16, _np.uint32, _np.uint64, _np.float16, _np.float32,
    _np.float64, _np.complex64, _np.complex128)}
try:  # CuPy 15 supports bfloat16 when ml_dtypes is installed
    import ml_dtypes as _ml
    _DTYPES.add(_np.dtype(_ml.bfloat16))
except ImportError:  # pragma: no cover
    pass


def _check_dtype(dtype):
    if dtype not in _DTYPES:
        raise ValueError(f"Unsupported dtype {dtype}")


class _Flags:
    """CuPy's flags: contiguity only (there is no ``writeable``)."""

    def __init__(self, a):
        self.c_contiguous = a.flags.c_contiguous
        self.f_contiguous = a.flags.f_contiguous
        self.owndata = a.flags.owndata

    def __getitem__(self, key):
        return {"C_CONTIGUOUS": self.c_contiguous,
                "F_CONTIGUOUS": self.f_contiguous,
                "OWNDATA": self.owndata}[key]


def _wrap(value, device=None):
    """NumPy results as stand-in arrays (scalars become 0-d arrays)."""
    if isinstance(value, ndarray):
        return value
    if isinstance(value, _np.ndarray):
        return ndarray._make(value, device)
    if isinstance(value, _np.generic):
        return ndarray._make(_np.asarray(value), device)
    if isinstance(value, tuple):
        return tuple(_wrap(v, device) for v in value)
    if isinstance(value, list):
        return [_wrap(v, device) for v in value]
    return value


def _unwrap(value, host_ok=False):
    """Stand-in arrays as NumPy buffers; NumPy arrays refused like CuPy."""
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, _np.ndarray):
        if host_ok:
            return value
        raise TypeError(f"Unsupported type {type(value)}")
    if isinstance(value, (tuple, list)):
        return type(value)(_unwrap(v, host_ok) for v in value)
    return value


def _call(fn, args, kwargs, host_ok=False):
    args = _unwrap(args, host_ok)
    kwargs = {k: _unwrap(v, host_ok) for k, v in kwargs.items()}
    result = fn(*args, **kwargs)
    return _wrap(result)


class ndarray:
    """A device array of the stand-in: a NumPy buffer and a device id."""

    __slots__ = ("_a", "_device_id", "__weakref__")
    __array_priority__ = 100

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        a = _np.empty(shape, dtype=dtype, order=order)
        _check_dtype(a.dtype)
        self._a = a
        self._device_id = _cuda._current_id()

    @classmethod
    def _make(cls, a, device=None):
        _check_dtype(a.dtype)
        self = object.__new__(cls)
        self._a = a
        self._device_id = _cuda._current_id() if device is None else device
        return self

    # -- host conversion: explicit only ---------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError(_IMPLICIT)

    def get(self, stream=None, order="C", out=None, blocking=True):
        host = _np.array(self._a, order=order, copy=True)
        if out is not None:
            out[...] = host
            return out
        return host

    def set(self, arr, stream=None):
        self._a[...] = arr

    def item(self, *args):
        return self._a.item(*args)

    def tolist(self):
        return self._a.tolist()

    def __int__(self):
        return int(self._a)

    def __float__(self):
        return float(self._a)

    def __complex__(self):
        return complex(self._a)

    def __bool__(self):
        return bool(self._a)

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec)

    def __reduce__(self):
        return (array, (self.get(),))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    __hash__ = None

    # -- NumPy protocols: dispatch to the stand-in, as CuPy does ---------
    def __array_ufunc__(self, uf, method, *inputs, **kwargs):
        import cupy
        mine = getattr(cupy, uf.__name__, None)
        if not isinstance(mine, ufunc):
            return NotImplemented
        fn = mine if method == "__call__" else getattr(mine, method)
        if "out" in kwargs:
            kwargs["out"] = kwargs["out"][0]
        return fn(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        import cupy
        mine = getattr(cupy, func.__name__, None)
        if mine is None or mine is func or func.__module__ != "numpy":
            return NotImplemented
        return mine(*args, **kwargs)

    # -- attributes --------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: _Flags(self._a))
    T = property(lambda self: self._wrap_same(self._a.T))
    mT = property(lambda self: self._wrap_same(_np.swapaxes(self._a, -1, -2)))
    base = property(lambda self: None)

    @property
    def device(self):
        return _cuda.Device(self._device_id)

    def _wrap_same(self, value):
        return _wrap(value, self._device_id)

    @property
    def real(self):
        return self._wrap_same(self._a.real)

    @real.setter
    def real(self, value):
        self._a.real = _unwrap(value)

    @property
    def imag(self):
        return self._wrap_same(self._a.imag)

    @imag.setter
    def imag(self, value):
        self._a.imag = _unwrap(value)

    # -- containers ----------------------------------------------------------
    def __len__(self):
        if self._a.ndim == 0:
            raise TypeError("len() of unsized object")
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self._a)))

    def __getitem__(self, key):
        return self._wrap_same(self._a[_unwrap(key, host_ok=True)])

    def __setitem__(self, key, value):
        self._a[_unwrap(key, host_ok=True)] = _unwrap(value, host_ok=True)

    # -- methods -------------------------------------------------------------
    def astype(self, dtype, order="K", casting=None, subok=None, copy=True):
        _check_dtype(_np.dtype(dtype))
        return self._wrap_same(self._a.astype(dtype, order=order, copy=copy))

    def view(self, dtype=None, type=None):
        if dtype is None:
            return self._wrap_same(self._a.view())
        _check_dtype(_np.dtype(dtype))
        return self._wrap_same(self._a.view(dtype))

    def copy(self, order="C"):
        return _wrap(self._a.copy(order=order), _cuda._current_id())

    def fill(self, value):
        self._a.fill(_unwrap(value))

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(_METHODS))

    def __getattr__(self, name):
        if name not in _METHODS:
            raise AttributeError(
                f"'cupy.ndarray' object has no attribute '{name}'")
        method = getattr(self._a, name)

        def call(*args, **kwargs):
            out = _call(method, args, kwargs)
            return _wrap(out, self._device_id)
        return call


# NumPy ndarray methods that CuPy's ndarray also has (tobytes is not one).
_METHODS = frozenset("""
all any argmax argmin argpartition argsort choose clip compress conj conjugate
cumprod cumsum diagonal dot flatten max mean min nonzero partition prod ptp
put ravel repeat reshape round sort squeeze std sum swapaxes take trace
transpose var
""".split())


def _op(name):
    return getattr(operator, name + "_" if name in ("and", "or") else name)


def _binary(name):
    op = _op(name)

    def method(self, other):
        if isinstance(other, _np.ndarray) and not isinstance(other, ndarray):
            raise TypeError(f"Unsupported type {type(other)}")
        return self._wrap_same(op(self._a, _unwrap(other)))

    def reflected(self, other):
        if isinstance(other, _np.ndarray):
            raise TypeError(f"Unsupported type {type(other)}")
        return self._wrap_same(op(_unwrap(other), self._a))
    return method, reflected


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
              "matmul", "and", "or", "xor", "lshift", "rshift"):
    _m, _r = _binary(_name)
    setattr(ndarray, f"__{_name}__", _m)
    setattr(ndarray, f"__r{_name}__", _r)

    def _inplace(self, other, _op=_op("i" + _name)):
        if isinstance(other, _np.ndarray):
            raise TypeError(f"Unsupported type {type(other)}")
        _op(self._a, _unwrap(other))
        return self
    setattr(ndarray, f"__i{_name}__", _inplace)

for _name in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(ndarray, f"__{_name}__", _binary(_name)[0])

for _name in ("neg", "pos", "abs", "invert"):
    def _unary(self, _op=_op(_name)):
        return self._wrap_same(_op(self._a))
    setattr(ndarray, f"__{_name}__", _unary)


class ufunc:
    """A NumPy ufunc behind CuPy's narrower ufunc interface."""

    # ufunc.at exists where CuPy defines a scatter operation.
    _AT = {"add", "subtract", "maximum", "minimum", "bitwise_and",
           "bitwise_or", "bitwise_xor"}

    def __init__(self, np_ufunc):
        self._uf = np_ufunc
        self.__name__ = np_ufunc.__name__
        self.nin, self.nout = np_ufunc.nin, np_ufunc.nout
        self.nargs, self.types = np_ufunc.nargs, np_ufunc.types

    def __repr__(self):
        return f"<ufunc 'cupy_{self.__name__}'>"

    def __call__(self, *args, **kwargs):
        out = kwargs.get("out")
        result = _call(self._uf, args, kwargs)
        return out if isinstance(out, ndarray) else result

    def outer(self, a, b, **kwargs):
        return _call(self._uf.outer, (a, b), kwargs)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        if self.__name__ not in ("add", "multiply"):
            raise NotImplementedError(
                f"`cupy_{self.__name__}.reduce` is not supported yet")
        return _call(self._uf.reduce, (array,),
                     dict(axis=axis, dtype=dtype, keepdims=keepdims))

    def accumulate(self, array, axis=0, dtype=None, out=None):
        if self.__name__ not in ("add", "multiply"):
            raise NotImplementedError(
                f"`cupy_{self.__name__}.accumulate` is not supported yet")
        return _call(self._uf.accumulate, (array,), dict(axis=axis, dtype=dtype))

    def at(self, a, indices, b=None):
        if self.__name__ not in self._AT:
            raise NotImplementedError(
                f"`cupy_{self.__name__}.at` is not supported yet")
        self._uf.at(a._a, _unwrap(indices, host_ok=True), _unwrap(b))


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """The explicit device-to-host copy."""
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    return _np.asarray(a, order=order)


def get_array_module(*args):
    import cupy
    return cupy if any(isinstance(a, ndarray) for a in args) else _np


def _to_device(obj, dtype=None, copy=False, order="K", ndmin=0):
    """The one door for host data: a copy on the current device, or ``obj``
    itself when it already lives there in the asked dtype and no copy is
    asked for (as ``cupy.asarray``)."""
    dev = _cuda._current_id()
    order = order or "K"
    if isinstance(obj, ndarray) and obj._device_id == dev and not copy:
        a = obj._a if dtype is None else obj._a.astype(dtype, copy=False)
        if ndmin:
            a = _np.array(a, copy=False, ndmin=ndmin)
        return obj if a is obj._a else _wrap(a, dev)
    host = _unwrap(obj, host_ok=True)
    return _wrap(_np.array(host, dtype=dtype, order=order, copy=True,
                           ndmin=ndmin), dev)


def _asarray(a, dtype=None, order=None, *, blocking=False):
    return _to_device(a, dtype, False, order)


def _array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0,
           *, blocking=False):
    return _to_device(obj, dtype, copy, order, ndmin)


def _lexsort(keys):
    """CuPy's lexsort: one ``(k, N)`` cupy array of keys, last axis only."""
    if not isinstance(keys, ndarray):
        raise AttributeError(f"'{type(keys).__name__}' object has no attribute 'ndim'")
    if keys.ndim > 2:
        raise NotImplementedError(
            "Keys with the rank of three or more is not supported in lexsort")
    return _wrap(_np.lexsort(keys._a))


def _vectorize(*args, **kwargs):
    raise NotImplementedError(
        "cupy.vectorize (stand-in): CuPy compiles the Python function to a "
        "CUDA kernel, so it cannot run arbitrary Python (math.*, branches on "
        "values); refjax must not rely on it")


# Host-side helpers that take or return no device arrays.
_HOST = set("""
dtype finfo iinfo result_type promote_types can_cast issubdtype isdtype
min_scalar_type common_type mintypecode broadcast_shapes typename
format_float_positional format_float_scientific get_printoptions
set_printoptions printoptions base_repr binary_repr ndindex index_exp s_
iterable show_config e pi inf nan newaxis euler_gamma isscalar
""".split())

_NAMES = """
abs absolute acos acosh add all allclose amax amin angle any append
apply_along_axis apply_over_axes arange arccos arccosh arcsin arcsinh arctan
arctan2 arctanh argmax argmin argpartition argsort argwhere around array
array2string array_equal array_equiv array_repr array_split array_str
asanyarray asarray asarray_chkfinite ascontiguousarray asfortranarray asin
asinh astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average bartlett
base_repr binary_repr bincount bitwise_and bitwise_count bitwise_invert
bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
blackman bool bool_ broadcast broadcast_arrays broadcast_shapes broadcast_to
byte c_ can_cast cbrt cdouble ceil choose clip column_stack common_type
complex128 complex64 complexfloating compress concat concatenate conj conjugate
convolve copy copysign copyto corrcoef correlate cos cosh count_nonzero cov
cross csingle cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees
delete diag diag_indices diag_indices_from diagflat diagonal diff digitize
divide divmod dot double dsplit dstack dtype e ediff1d einsum empty empty_like
equal euler_gamma exp exp2 expand_dims expm1 extract eye fabs fill_diagonal
finfo fix flatiter flatnonzero flip fliplr flipud float16 float32 float64
float_power floating floor floor_divide fmax fmin fmod format_float_positional
format_float_scientific frexp from_dlpack frombuffer fromfile fromfunction
fromiter fromstring full full_like gcd generic genfromtxt get_printoptions
gradient greater greater_equal half hamming hanning heaviside histogram
histogram2d histogramdd hsplit hstack hypot i0 identity iinfo imag index_exp
indices inexact inf inner int16 int32 int64 int8 int_ intc integer interp
intersect1d intp invert isclose iscomplex iscomplexobj isdtype isfinite
isfortran isin isinf isnan isneginf isposinf isreal isrealobj isscalar
issubdtype iterable ix_ kaiser kron lcm ldexp left_shift less less_equal
lexsort linspace load loadtxt log log10 log1p log2 logaddexp logaddexp2
logical_and logical_not logical_or logical_xor logspace long longlong
mask_indices matmul matrix_transpose max maximum may_share_memory mean median
meshgrid mgrid min min_scalar_type minimum mintypecode mod modf moveaxis
multiply nan nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean
nanmedian nanmin nanprod nanstd nansum nanvar ndim ndindex negative newaxis
nextafter nonzero not_equal number ogrid ones ones_like outer packbits pad
partition percentile permute_dims pi piecewise place poly poly1d polyadd
polyfit polymul polysub polyval positive pow power printoptions prod
promote_types ptp put put_along_axis putmask quantile r_ rad2deg radians ravel
ravel_multi_index real real_if_close reciprocal remainder repeat require
reshape resize result_type right_shift rint roll rollaxis roots rot90 round
row_stack s_ save savetxt savez savez_compressed searchsorted select
set_printoptions setdiff1d setxor1d shape shares_memory short show_config sign
signbit signedinteger sin sinc single sinh size sort sort_complex split sqrt
square squeeze stack std subtract sum swapaxes take take_along_axis tan tanh
tensordot tile trace transpose trapezoid tri tril tril_indices
tril_indices_from trim_zeros triu triu_indices triu_indices_from true_divide
trunc typename ubyte uint uint16 uint32 uint64 uint8 uintc uintp ulong
ulonglong union1d unique unique_all unique_counts unique_inverse unique_values
unpackbits unravel_index unsignedinteger unwrap ushort vander var vdot vsplit
vstack where zeros zeros_like
""".split()


def wrap_namespace(namespace):
    """Fill ``namespace`` (the ``cupy`` module) with wrapped NumPy names."""
    for name in _NAMES:
        if name in namespace:
            continue
        value = getattr(_np, name)
        if name in _HOST or isinstance(value, type):
            namespace[name] = value
        elif isinstance(value, _np.ufunc):
            namespace[name] = ufunc(value)
        elif callable(value):
            namespace[name] = _kernel(value)
    namespace.update(
        asarray=_asarray, array=_array, asanyarray=_asarray,
        lexsort=_lexsort, vectorize=_vectorize, ndarray=ndarray, ufunc=ufunc,
        ndim=lambda a: _np.ndim(_unwrap(a)), shape=lambda a: _np.shape(_unwrap(a)),
        size=lambda a, axis=None: _np.size(_unwrap(a), axis))


def _kernel(np_fn):
    def fn(*args, **kwargs):
        return _call(np_fn, args, kwargs)
    fn.__name__ = np_fn.__name__
    fn.__doc__ = f"stand-in for cupy.{np_fn.__name__} (NumPy underneath)"
    return fn
