"""Conformance: dtypes, the promotion lattice, weak types and x64 (SPEC DT-*)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

# Known answers: the observed promotion tables of JAX's own test suite
# (tests/dtypes_test.py::testObservedPromotionTable at jax-v0.10.2), re-checked
# on JAX 0.10.2.  Entry [row][col] is the type of combining the column value
# with the row value; `*` marks a weak type (i*, f*, c*: Python int, float,
# complex scalars as inputs; a weakly typed result as output).
TABLE_X32 = """
      b1 u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i* f* c*
  b1: b1 u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c4 c4 i* f* c*
  u1: u1 u1 u2 u4 u4 i2 i2 i4 i4 bf f2 f4 f4 c4 c4 u1 f* c*
  u2: u2 u2 u2 u4 u4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 u2 f* c*
  u4: u4 u4 u4 u4 u4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 u4 f* c*
  u8: u4 u4 u4 u4 u4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 u4 f* c*
  i1: i1 i2 i4 i4 i4 i1 i2 i4 i4 bf f2 f4 f4 c4 c4 i1 f* c*
  i2: i2 i2 i4 i4 i4 i2 i2 i4 i4 bf f2 f4 f4 c4 c4 i2 f* c*
  i4: i4 i4 i4 i4 i4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 i4 f* c*
  i8: i4 i4 i4 i4 i4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 i4 f* c*
  bf: bf bf bf bf bf bf bf bf bf bf f4 f4 f4 c4 c4 bf bf c4
  f2: f2 f2 f2 f2 f2 f2 f2 f2 f2 f4 f2 f4 f4 c4 c4 f2 f2 c4
  f4: f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 c4 c4 f4 f4 c4
  f8: f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 c4 c4 f4 f4 c4
  c4: c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4
  c8: c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4
  i*: i* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c4 c4 i* f* c*
  f*: f* f* f* f* f* f* f* f* f* bf f2 f4 f4 c4 c4 f* f* c*
  c*: c* c* c* c* c* c* c* c* c* c4 c4 c4 c4 c4 c4 c* c* c*
"""
TABLE_X64 = """
      b1 u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i* f* c*
  b1: b1 u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i* f* c*
  u1: u1 u1 u2 u4 u8 i2 i2 i4 i8 bf f2 f4 f8 c4 c8 u1 f* c*
  u2: u2 u2 u2 u4 u8 i4 i4 i4 i8 bf f2 f4 f8 c4 c8 u2 f* c*
  u4: u4 u4 u4 u4 u8 i8 i8 i8 i8 bf f2 f4 f8 c4 c8 u4 f* c*
  u8: u8 u8 u8 u8 u8 f* f* f* f* bf f2 f4 f8 c4 c8 u8 f* c*
  i1: i1 i2 i4 i8 f* i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i1 f* c*
  i2: i2 i2 i4 i8 f* i2 i2 i4 i8 bf f2 f4 f8 c4 c8 i2 f* c*
  i4: i4 i4 i4 i8 f* i4 i4 i4 i8 bf f2 f4 f8 c4 c8 i4 f* c*
  i8: i8 i8 i8 i8 f* i8 i8 i8 i8 bf f2 f4 f8 c4 c8 i8 f* c*
  bf: bf bf bf bf bf bf bf bf bf bf f4 f4 f8 c4 c8 bf bf c4
  f2: f2 f2 f2 f2 f2 f2 f2 f2 f2 f4 f2 f4 f8 c4 c8 f2 f2 c4
  f4: f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f8 c4 c8 f4 f4 c4
  f8: f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 c8 c8 f8 f8 c8
  c4: c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c8 c4 c8 c4 c4 c4
  c8: c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8
  i*: i* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i* f* c*
  f*: f* f* f* f* f* f* f* f* f* bf f2 f4 f8 c4 c8 f* f* c*
  c*: c* c* c* c* c* c* c* c* c* c4 c4 c4 c8 c4 c8 c* c* c*
"""

CODES = {"b1": "bool", "u1": "uint8", "u2": "uint16", "u4": "uint32",
         "u8": "uint64", "i1": "int8", "i2": "int16", "i4": "int32",
         "i8": "int64", "bf": "bfloat16", "f2": "float16", "f4": "float32",
         "f8": "float64", "c4": "complex64", "c8": "complex128"}
WEAK_VALUES = {"i*": 0, "f*": 0.0, "c*": 0j}
# A weak result materializes as the default dtype of its kind.
WEAK_DEFAULT = {False: {"i*": "int32", "f*": "float32", "c*": "complex64"},
                True: {"i*": "int64", "f*": "float64", "c*": "complex128"}}


def parse_table(text):
    lines = text.strip().splitlines()
    cols = lines[0].split()
    table = {}
    for line in lines[1:]:
        row, rest = line.split(":")
        for col, entry in zip(cols, rest.split()):
            table[row.strip(), col] = entry
    return cols, table


def expected_dtype(entry, x64):
    """(dtype name, weak) that a table entry denotes."""
    if entry.endswith("*"):
        return WEAK_DEFAULT[x64][entry], True
    return CODES[entry], False


def make_value(jnp, code):
    if code in WEAK_VALUES:
        return WEAK_VALUES[code]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 64-bit request under x32
        return jnp.zeros((), CODES[code])


def check_result_type_table(jax, text, x64):
    jnp = jax.numpy
    cols, table = parse_table(text)
    mismatches = []
    for (row, col), entry in table.items():
        got = jax.dtypes.result_type(make_value(jnp, col), make_value(jnp, row),
                                     return_weak_type_flag=True)
        want = expected_dtype(entry, x64)
        if (str(got[0]), bool(got[1])) != want:
            mismatches.append(f"{row}+{col}: got {got}, want {want}")
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.spec("DT-2")
def test_result_type_table_x32(jax):
    check_result_type_table(jax, TABLE_X32, x64=False)


@pytest.mark.spec("DT-2")
def test_result_type_table_x64(jax, x64):
    check_result_type_table(jax, TABLE_X64, x64=True)


def promote_types_expected(row, col, entry):
    """promote_types is the raw join: the x64 table, 64-bit weak defaults."""
    name, _ = expected_dtype(entry, x64=True)
    return name


@pytest.mark.spec("DT-4")
@pytest.mark.parametrize("x64_on", [False, True])
def test_promote_types_every_pair(jax, x64_on):
    jnp = jax.numpy
    cols, table = parse_table(TABLE_X64)
    strong = [c for c in cols if not c.endswith("*")]
    with jax.enable_x64(x64_on):
        for row in strong:
            for col in strong:
                want = promote_types_expected(row, col, table[row, col])
                if not x64_on and row == "u4" and col in ("i1", "i2", "i4") \
                        or not x64_on and col == "u4" and row in ("i1", "i2", "i4"):
                    # With x64 off, u32 x i32 joins at i32 rather than forming
                    # a 64-bit type from 32-bit inputs (DT-7).
                    want = "int32"
                got = jnp.promote_types(CODES[row], CODES[col])
                assert str(got) == want, (row, col, got, want)


@pytest.mark.spec("DT-1")
def test_default_dtypes_are_32_bit(jax, jnp):
    assert repr(jnp.array(1.0)) == "Array(1., dtype=float32, weak_type=True)"
    assert repr(jnp.array(1)) == "Array(1, dtype=int32, weak_type=True)"
    assert repr(jnp.array(1j)) == "Array(0.+1.j, dtype=complex64, weak_type=True)"
    got = [jnp.arange(3).dtype, jnp.arange(3.).dtype, jnp.zeros(2).dtype,
           jnp.ones(2, dtype=int).dtype, jnp.ones(2, dtype=float).dtype,
           jnp.ones(2, dtype=complex).dtype, jnp.linspace(0, 1, 3).dtype,
           jnp.eye(2).dtype, jnp.full(2, 1.0).dtype]
    assert [str(d) for d in got] == ["int32", "float32", "float32", "int32",
                                     "float32", "complex64", "float32",
                                     "float32", "float32"]


@pytest.mark.spec("DT-1")
def test_x64_defaults(jax, jnp, x64):
    assert repr(jnp.array(1.0)) == "Array(1., dtype=float64, weak_type=True)"
    assert repr(jnp.array(1)) == "Array(1, dtype=int64, weak_type=True)"
    assert str(jnp.arange(3).dtype) == "int64"
    assert str(jnp.zeros(2).dtype) == "float64"
    assert jax.config.jax_enable_x64 is True


@pytest.mark.spec("DT-3")
def test_python_scalars_are_weak(jax, jnp):
    assert repr(jnp.asarray(2)) == "Array(2, dtype=int32, weak_type=True)"
    assert repr(jnp.asarray(2, dtype="int32")) == "Array(2, dtype=int32)"
    assert repr(jnp.asarray(2.)) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(jnp.float32(2)) == "Array(2., dtype=float32)"
    assert repr(jnp.int32(2)) == "Array(2, dtype=int32)"
    assert jnp.array(True).weak_type is False
    assert jnp.array([1.0, 2.0]).weak_type is False
    assert jnp.array(np.float32(1)).weak_type is False


@pytest.mark.spec("DT-3")
def test_weak_scalar_takes_the_other_dtype(jax):
    jnp = jax.numpy
    rt = jax.dtypes.result_type
    assert rt(jnp.zeros(2, "int8"), 2, return_weak_type_flag=True) == (np.dtype("int8"), False)
    assert rt(jnp.zeros(2, "int8"), 1.0, return_weak_type_flag=True) == (np.dtype("float32"), True)
    assert rt(jnp.zeros((), "bfloat16"), 1.5) == jnp.bfloat16
    assert rt(jnp.zeros((), "float16"), 1j) == np.dtype("complex64")
    assert rt(jnp.asarray(2.0), jnp.zeros(2, "int8"),
              return_weak_type_flag=True) == (np.dtype("float32"), True)
    assert rt(1, 1.0, return_weak_type_flag=True) == (np.dtype("float32"), True)
    # NumPy values are strong (G-DT-024); a float64 NumPy array canonicalizes.
    assert rt(jnp.zeros(2, "int8"), np.float32(1)) == np.dtype("float32")
    assert rt(jnp.zeros((), "int16"), np.array(1)) == np.dtype("int32")


@pytest.mark.spec("DT-4")
def test_promote_types_is_raw_result_type_canonical(jax, jnp):
    got = [jnp.promote_types("int8", "uint8"), jnp.promote_types(jnp.float32, jnp.float64),
           jnp.result_type(1, 1.0), jnp.result_type(3.0), jnp.result_type(jnp.int8, 1)]
    assert [str(d) for d in got] == ["int16", "float64", "float32", "float32", "int8"]
    assert str(jnp.promote_types(int, int)) == "int64"
    assert str(jnp.promote_types(float, jnp.int8)) == "float64"
    assert str(jnp.promote_types(jnp.bfloat16, complex)) == "complex64"
    assert str(jnp.promote_types(jnp.int32, jnp.float16)) == "float16"
    assert str(jnp.promote_types(jnp.uint8, jnp.bfloat16)) == "bfloat16"
    assert str(jnp.promote_types(jnp.bfloat16, jnp.float16)) == "float32"


@pytest.mark.spec("DT-4")
def test_result_type_errors(jax, jnp):
    with pytest.raises(ValueError, match="at least one array or dtype is required"):
        jnp.result_type()
    with pytest.raises(TypeError, match="Cannot determine dtype of"):
        jnp.result_type(object())
    with pytest.raises(TypeError, match="not understood"):
        jnp.promote_types(jnp.float32, "foo")
    with pytest.raises(ValueError, match="is not a valid dtype for JAX type promotion"):
        jnp.promote_types(object, jnp.float32)


@pytest.mark.spec("DT-5")
def test_result_type_canonicalizes(jax, jnp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert str(jnp.result_type(np.float64)) == "float32"
        assert str(jnp.result_type(jnp.uint64, jnp.int64)) == "int32"
    assert str(jax.dtypes.canonicalize_dtype(np.float64)) == "float32"
    assert str(jax.dtypes.canonicalize_dtype(np.int64)) == "int32"
    assert str(jax.dtypes.canonicalize_dtype(np.complex128)) == "complex64"
    assert str(jax.dtypes.canonicalize_dtype(np.uint64)) == "uint32"
    assert str(jnp.dtype("float64")) == "float64"  # jnp.dtype is np.dtype


@pytest.mark.spec("DT-5")
def test_result_type_canonicalizes_x64(jax, jnp, x64):
    assert str(jnp.result_type(jnp.uint64, jnp.int64)) == "float64"
    assert str(jax.dtypes.canonicalize_dtype(np.float64)) == "float64"
    assert jax.dtypes.result_type(jnp.ones(1, jnp.uint64), jnp.ones(1, jnp.int64),
                                  return_weak_type_flag=True) == (np.dtype("float64"), True)


@pytest.mark.spec("DT-5")
def test_numpy_arrays_are_accepted_and_canonicalized(jax, jnp):
    # G-LIST-006
    assert repr(jnp.sum(np.array([1., 2.]))) == "Array(3., dtype=float32)"
    assert repr(jax.jit(lambda x: x)(np.arange(3.))) == "Array([0., 1., 2.], dtype=float32)"
    assert repr(jnp.asarray(np.arange(3, dtype=np.int64))) == "Array([0, 1, 2], dtype=int32)"
    assert repr(jax.vmap(lambda x: x * 2)(np.arange(3.))) == "Array([0., 2., 4.], dtype=float32)"
    grad = jax.grad(lambda x: (x ** 2).sum())(np.arange(3.))
    assert repr(grad) == "Array([0., 2., 4.], dtype=float32)"


def _messages(record):
    return [str(w.message) for w in record]


@pytest.mark.spec("DT-6")
def test_explicit_64_bit_request_warns(jax, jnp):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        a = jnp.array(1.0, dtype=jnp.float64)
        z = jnp.zeros(2, dtype="int64")
        f = jnp.float64(1)
        r = jnp.arange(3, dtype="int64")
    assert repr(a) == "Array(1., dtype=float32)"
    assert repr(z) == "Array([0, 0], dtype=int32)"
    assert repr(f) == "Array(1., dtype=float32)"
    assert str(r.dtype) == "int32"
    msgs = _messages(record)
    assert all(issubclass(w.category, UserWarning) for w in record)
    assert msgs[0].startswith("Explicitly requested dtype float64 requested in array "
                              "is not available, and will be truncated to dtype float32. "
                              "To enable more dtypes, set the jax_enable_x64")
    assert "dtype int64 requested in zeros" in msgs[1]
    assert "dtype float64 requested in asarray" in msgs[2]
    assert "dtype int64 requested in arange" in msgs[3]
    assert len(msgs) == 4


@pytest.mark.spec("DT-6")
def test_implicit_64_bit_inputs_do_not_warn(jax, jnp, no_warnings):
    assert str(jnp.array(np.arange(3.0)).dtype) == "float32"
    assert str(jnp.zeros(2, float).dtype) == "float32"
    assert str(jnp.asarray(np.int64(5)).dtype) == "int32"
    assert str(jnp.result_type(np.arange(3))) == "int32"


@pytest.mark.spec("DT-6")
def test_x64_requests_do_not_warn(jax, jnp, x64, no_warnings):
    assert repr(jnp.array(1.0, dtype=jnp.float64)) == "Array(1., dtype=float64)"
    assert str(jnp.zeros(2, "int64").dtype) == "int64"


@pytest.mark.spec("DT-7")
def test_signed_unsigned_mixing(jax, jnp):
    pairs = [("uint8", "int8", "int16"), ("uint16", "int16", "int32"),
             ("uint32", "int32", "int32"), ("uint8", "int32", "int32")]
    for a, b, want in pairs:
        assert str(jnp.promote_types(a, b)) == want
        assert str(jnp.result_type(jnp.ones(1, a), jnp.ones(1, b))) == want


@pytest.mark.spec("DT-7")
def test_signed_unsigned_mixing_x64(jax, jnp, x64):
    assert str(jnp.promote_types(jnp.uint32, jnp.int32)) == "int64"
    assert str(jnp.promote_types(jnp.uint64, jnp.int64)) == "float64"
    assert str(jnp.promote_types(jnp.uint64, jnp.int8)) == "float64"


@pytest.mark.spec("DT-8")
@pytest.mark.parametrize("value", [2**31, -2**31 - 1, 2**63, 2**64])
def test_python_int_out_of_range_overflows(jax, jnp, value):
    with pytest.raises(OverflowError, match=f"Python int {value} too large to convert to int32"):
        jnp.array(value)


@pytest.mark.spec("DT-8")
def test_python_int_out_of_range_overflows_x64(jax, jnp, x64):
    assert repr(jnp.array(2**31)) == "Array(2147483648, dtype=int64, weak_type=True)"
    with pytest.raises(OverflowError, match="Python int 18446744073709551616 too large to convert to int64"):
        jnp.array(2**64)


@pytest.mark.spec("DT-8")
def test_python_int_out_of_range_for_explicit_dtype(jax, jnp):
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        jnp.array(300, jnp.uint8)
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        jnp.array(-1, jnp.uint8)
    with pytest.raises(OverflowError, match="Python integer 1099511627776 out of bounds for int32"):
        jnp.array([1, 2**40])
    assert repr(jnp.array(2**31 - 1)) == "Array(2147483647, dtype=int32, weak_type=True)"
    assert repr(jnp.uint32(2**32 - 1)) == "Array(4294967295, dtype=uint32)"


@pytest.mark.spec("DT-8")
@pytest.mark.parametrize("value", [2**31, -2**31 - 1, 2**40])
def test_python_int_out_of_int32_range(jax, jnp, value):
    # G-LIST-005
    with pytest.raises(OverflowError, match=rf"^Python int {value} too large to "
                                            r"convert to int32$"):
        jnp.array(value)


@pytest.mark.spec("DT-8")
def test_python_int_at_int32_limits(jax, jnp):
    # G-LIST-005
    assert repr(jnp.array(2**31 - 1)) == "Array(2147483647, dtype=int32, weak_type=True)"
    assert repr(jnp.array(-2**31)) == "Array(-2147483648, dtype=int32, weak_type=True)"


@pytest.mark.spec("DT-9")
def test_narrow_types_do_not_promote(jax, jnp):
    with pytest.raises(jax.dtypes.TypePromotionError,
                       match=r"Input dtypes \('int4', 'int8'\) have no available implicit "
                             r"dtype promotion path. To avoid unintended promotion, 1-bit, "
                             r"2-bit and 4-bit integers do not support implicit promotion"):
        jnp.promote_types("int4", "int8")
    with pytest.raises(jax.dtypes.TypePromotionError, match="8-bit floats do not support"):
        jnp.promote_types("float8_e4m3fn", "float16")
    assert issubclass(jax.dtypes.TypePromotionError, ValueError)
    # ...but they still meet weak scalars and themselves.
    assert str(jnp.result_type(jnp.zeros(2, jnp.int4), 1)) == "int4"
    assert str(jnp.promote_types(jnp.float8_e5m2, jnp.float8_e5m2)) == "float8_e5m2"


@pytest.mark.spec("DT-10")
def test_issubdtype_places_ml_dtypes(jax, jnp):
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating)
    assert jnp.issubdtype(jnp.bfloat16, np.inexact)
    assert jnp.issubdtype(jnp.int4, jnp.integer)
    assert jnp.issubdtype(jnp.uint4, jnp.unsignedinteger)
    assert not jnp.issubdtype(jnp.int4, jnp.unsignedinteger)
    assert jnp.issubdtype(jnp.float8_e4m3fn, jnp.floating)
    assert not jnp.issubdtype(jnp.bfloat16, jnp.integer)
    assert jnp.issubdtype(jnp.int32, jnp.signedinteger)
    assert not jnp.issubdtype(jnp.float32, float)
    assert jnp.issubdtype(jnp.float32, jnp.float32)


@pytest.mark.spec("DT-10")
def test_iinfo_finfo_can_cast(jax, jnp):
    assert jnp.iinfo(jnp.int32).max == 2**31 - 1
    assert (jnp.iinfo(jnp.int4).min, jnp.iinfo(jnp.int4).max) == (-8, 7)
    assert float(jnp.finfo(jnp.float32).eps) == float(np.finfo(np.float32).eps)
    assert float(jnp.finfo(jnp.bfloat16).eps) == 0.0078125
    assert str(jnp.finfo(jnp.float16).dtype) == "float16"
    assert jnp.can_cast(jnp.int8, jnp.int16)
    assert not jnp.can_cast(jnp.float32, jnp.int32)
    with pytest.raises(ValueError):
        jnp.finfo(jnp.int32)
    with pytest.raises(TypeError, match="does not support Python ints, floats, and complex"):
        jnp.can_cast(1.0, jnp.int8)


@pytest.mark.spec("DT-11")
def test_float0(jax):
    assert jax.dtypes.float0 == np.dtype([("float0", "V")])
    assert jax.dtypes.itemsize_bits(jax.numpy.int4) == 4
    assert jax.dtypes.itemsize_bits(jax.numpy.float32) == 32
    assert jax.dtypes.scalar_type_of(1.0) is float
    assert jax.dtypes.scalar_type_of(jax.numpy.zeros(2, "int8")) is int


@pytest.mark.spec("DT-12")
def test_strict_promotion(jax, jnp):
    with jax.numpy_dtype_promotion("strict"):
        with pytest.raises(jax.dtypes.TypePromotionError,
                           # JAX builds the tuple from a set, so its order varies
                           # between NumPy builds; either order conforms.
                           match=r"Input dtypes \('(float32|int32)', '(int32|float32)'\) "
                                 r"have no available "
                                 r"implicit dtype promotion path when "
                                 r"jax_numpy_dtype_promotion=strict. Try explicitly casting"):
            jnp.result_type(jnp.float32, jnp.int32)
        with pytest.raises(jax.dtypes.TypePromotionError):
            jnp.result_type(jnp.float32, jnp.float16)
        assert str(jnp.result_type(jnp.float32, 1.0)) == "float32"
        assert str(jnp.result_type(jnp.int8, 1)) == "int8"
    assert str(jnp.result_type(jnp.float32, jnp.int32)) == "float32"


@pytest.mark.spec("DT-13")
def test_astype_float_to_int_saturates(jax, jnp):
    got = jnp.arange(254.0, 258.0).astype("uint8")
    assert repr(got) == "Array([254, 255, 255, 255], dtype=uint8)"
    got = jnp.array([1e10, -1e10, np.nan]).astype(jnp.int32)
    assert repr(got) == "Array([ 2147483647, -2147483648,           0], dtype=int32)"
    assert repr(jnp.array([1.5, -1.5, 2.5]).astype(jnp.int8)) == "Array([ 1, -1,  2], dtype=int8)"


@pytest.mark.spec("DT-13")
def test_astype_bool_and_complex(jax, jnp):
    assert repr(jnp.array([0., 0.5, np.nan]).astype(bool)) == \
        "Array([False,  True,  True], dtype=bool)"
    with pytest.warns(DeprecationWarning, match="Casting from complex to real dtypes will soon raise"):
        got = jnp.array([1 + 2j]).astype(jnp.float32)
    assert repr(got) == "Array([1.], dtype=float32)"


@pytest.mark.spec("DT-13")
def test_astype_drops_weak_type(jax, jnp):
    x = jnp.asarray(2.)
    assert repr(x.astype(jnp.float32)) == "Array(2., dtype=float32)"
    assert repr(jnp.asarray(x, dtype=jnp.float32)) == "Array(2., dtype=float32)"
    assert repr(jnp.array(1.5).astype(int)) == "Array(1, dtype=int32)"
    assert repr(jnp.array(300).astype(jnp.uint8)) == "Array(44, dtype=uint8)"


@pytest.mark.spec("DT-14")
def test_scalar_types_make_arrays(jax, jnp):
    x = jnp.float32(1)
    assert isinstance(x, jax.Array) and not isinstance(x, np.generic)
    assert repr(jnp.int32([1, 2])) == "Array([1, 2], dtype=int32)"
    assert repr(jnp.bool_(1)) == "Array(True, dtype=bool)"
    assert repr(jnp.bfloat16(1.5)) == "Array(1.5, dtype=bfloat16)"
    assert np.dtype(jnp.float32) == np.float32
    assert jnp.float32.dtype == np.dtype("float32")
    assert jnp.dtype(jnp.bfloat16) == jnp.bfloat16.dtype
    assert isinstance(np.float32(1), jnp.float32)
    assert not isinstance(jnp.float32(1), jnp.float32)
    assert jnp.bool_ is jnp.bool
    assert str(jnp.int_.dtype) == "int64"


@pytest.mark.spec("DT-15")
def test_enable_x64_context_manager(jax, jnp):
    with jax.enable_x64(True):
        assert repr(jnp.array(1.0)) == "Array(1., dtype=float64, weak_type=True)"
        assert str(jnp.arange(2).dtype) == "int64"
    assert repr(jnp.array(1.0)) == "Array(1., dtype=float32, weak_type=True)"


@pytest.mark.spec("DT-15")
def test_enable_x64_update_takes_effect_for_new_values(jax, jnp):
    a = jnp.array(1.0)
    jax.config.update("jax_enable_x64", True)
    b = jnp.array(1.0)
    assert (str(a.dtype), str(b.dtype)) == ("float32", "float64")


@pytest.mark.spec("DT-15")
def test_jax_enable_x64_environment_variable(impl_name):
    code = (f"import {impl_name} as jax, {impl_name}.numpy as jnp; "
            "print(jax.config.jax_enable_x64, repr(jnp.array(1.0)), jnp.arange(3).dtype)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**_base_env(), "JAX_ENABLE_X64": "1"}, check=True).stdout
    assert out.strip() == "True Array(1., dtype=float64, weak_type=True) int64"


def _base_env():
    import os
    env = dict(os.environ)
    env.pop("JAX_ENABLE_X64", None)
    return env


@pytest.mark.spec("DT-16")
def test_subnormal_float32_is_representable(jax, jnp):
    # G-DT-019: the value itself survives creation, printing and jit's
    # identity; only arithmetic may flush it (backend dependent).
    x = jnp.float32(1e-45)
    assert repr(x) == "Array(1.e-45, dtype=float32)"
    assert np.asarray(x) == np.float32(1e-45)
    assert np.asarray(jax.jit(lambda v: v)(x)) == np.float32(1e-45)


@pytest.mark.spec("DT-16")
def test_subnormal_arithmetic_is_exact_or_flushed(jax, jnp):
    # G-DT-019: XLA:CPU flushes to zero; refjax's NumPy backend keeps the
    # subnormal. Nothing else (no rounding to another value) is allowed.
    sub = np.float32(1e-45)
    for out in (jnp.float32(1e-45) + 0, jnp.float32(1e-45) * 1):
        assert out.dtype == jnp.float32
        assert np.asarray(out) in (np.float32(0), sub)


@pytest.mark.spec("DT-17")
def test_grad_of_float64_numpy_primal_is_float32(jax, jnp):
    # G-DT-036
    g = jax.grad(lambda x: x * 3.)(np.float64(1.))
    assert repr(g) == "Array(3., dtype=float32)"


@pytest.mark.spec("DT-17")
def test_vjp_of_float64_numpy_primal_is_float32(jax, jnp):
    # G-DT-036
    y, f_vjp = jax.vjp(lambda x: x * 2, np.array([1., 2.], np.float64))
    ct, = f_vjp(jnp.ones(2))
    assert (y.dtype, ct.dtype) == (jnp.float32, jnp.float32)
    assert ct.tolist() == [2., 2.]


@pytest.mark.spec("DT-17")
def test_grad_of_float64_primal_under_x64_stays_float64(jax, jnp, x64):
    g = jax.grad(lambda x: x * 3.)(np.float64(1.))
    assert g.dtype == np.float64


@pytest.mark.spec("DT-14")
def test_scalar_types_equal_their_dtypes(jnp):
    assert jnp.float32 == np.dtype("float32") and np.dtype("float32") == jnp.float32
    assert jnp.float32 == np.float32 and hash(jnp.float32) == hash(np.float32)
    assert jnp.bfloat16 == np.dtype(jnp.bfloat16)
    assert not jnp.float32 != np.dtype("float32")
    assert jnp.float32 != "float32" and jnp.float32 != jnp.int32
    assert {jnp.int8: 1}.get(np.int8) == 1
    assert [t for t in (jnp.float32, jnp.int32) if t == np.dtype("int32")] == [jnp.int32]
