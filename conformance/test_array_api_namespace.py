"""Conformance: the array API namespace of ``jax.numpy`` (SPEC NPP-14) and
the 1-bit integer and 6-bit float dtypes (SPEC NPP-1).

JAX 0.10.2 cannot make arrays of the 1-bit and 6-bit dtypes on CPU, so the
checks here are of the dtypes themselves: promotion, limits, kinds.
"""
import ml_dtypes
import numpy as np
import pytest

API_X32 = {"bool", "int8", "int16", "int32", "uint8", "uint16", "uint32",
           "float32", "complex64"}
API_X64 = API_X32 | {"int64", "uint64", "float64", "complex128"}


# -- the namespace (NPP-14) ---------------------------------------------------

@pytest.mark.spec("NPP-14")
def test_array_namespace_method(jax, jnp):
    x = jnp.ones(3)
    assert jnp.__array_api_version__ == "2024.12"
    assert x.__array_namespace__() is jnp
    assert x.__array_namespace__(api_version="2024.12") is jnp
    with pytest.raises(ValueError, match="'2023.12' is not available"):
        x.__array_namespace__(api_version="2023.12")
    seen = []
    jax.jit(lambda t: seen.append(t.__array_namespace__()) or t)(x)
    assert seen == [jnp]


@pytest.mark.spec("NPP-14")
def test_namespace_info_capabilities_and_devices(jax, jnp):
    info = jnp.__array_namespace_info__()
    assert type(info).__name__ == "ArrayNamespaceInfo"
    assert info.capabilities() == {"boolean indexing": False,
                                   "data-dependent shapes": False,
                                   "max dimensions": 64}
    assert info.default_device() is None
    assert info.devices() == [None, *jax.devices()]


@pytest.mark.spec("NPP-14")
def test_namespace_info_dtypes_x32(jnp):
    info = jnp.__array_namespace_info__()
    assert info.default_dtypes() == {
        "real floating": np.dtype("float32"), "complex floating": np.dtype("complex64"),
        "integral": np.dtype("int32"), "indexing": np.dtype("int32")}
    all_ = info.dtypes()
    assert set(all_) == API_X32 and all(all_[k] == np.dtype(k) for k in all_)
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32",
                                                 "uint8", "uint16", "uint32"}
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {"bool", "complex64"}
    assert info.dtypes(device=None, kind="real floating") == {"float32": np.dtype("float32")}
    with pytest.raises(KeyError):
        info.dtypes(kind="no such kind")


@pytest.mark.spec("NPP-14")
def test_namespace_info_dtypes_x64(jnp, x64):
    info = jnp.__array_namespace_info__()
    assert set(info.dtypes()) == API_X64
    assert info.default_dtypes()["integral"] == np.dtype("int64")
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}


# -- 1-bit integers and 6-bit floats (NPP-1) ----------------------------------

NEW = ["int1", "uint1", "float6_e2m3fn", "float6_e3m2fn"]


@pytest.mark.spec("NPP-1")
@pytest.mark.parametrize("name", NEW)
def test_new_scalar_types_are_the_ml_dtypes(jnp, name):
    t = getattr(jnp, name)
    assert np.dtype(t) == np.dtype(getattr(ml_dtypes, name))
    assert t.dtype == np.dtype(getattr(ml_dtypes, name))
    assert jnp.dtype(t) == np.dtype(getattr(ml_dtypes, name))


@pytest.mark.spec("NPP-1")
@pytest.mark.parametrize("name", NEW)
def test_new_dtypes_promote_only_with_weak_and_bool(jnp, name):
    t = getattr(jnp, name)
    dt = np.dtype(getattr(ml_dtypes, name))
    assert jnp.promote_types(t, t) == dt
    assert jnp.promote_types(t, bool) == dt
    assert jnp.promote_types(t, int) == dt
    if name.startswith("float"):
        # Integers sit below the weak float node, hence below every float.
        assert jnp.promote_types(t, jnp.int8) == dt
        others = (jnp.float32, jnp.bfloat16, jnp.float16, complex, jnp.int1)
    else:
        others = (jnp.int8, jnp.uint8, jnp.float32, float, jnp.int4)
    for other in others:
        with pytest.raises(ValueError, match="no available implicit dtype promotion path"):
            jnp.promote_types(t, other)


@pytest.mark.spec("NPP-1")
def test_promotion_messages_name_the_kind(jax, jnp):
    with pytest.raises(ValueError, match="1-bit, 2-bit and 4-bit integers"):
        jnp.promote_types(jnp.int1, jnp.uint1)
    with pytest.raises(ValueError, match="6-bit floats") as err:
        jnp.promote_types(jnp.int1, jnp.float6_e3m2fn)
    assert "('int1', 'float6_e3m2fn')" in str(err.value)
    with pytest.raises(ValueError, match="4-bit floats"):
        jnp.promote_types(jnp.float4_e2m1fn, jnp.float32)
    with pytest.raises(ValueError, match="8-bit floats"):
        jnp.promote_types(jnp.float4_e2m1fn, jnp.float8_e5m2)
    with pytest.raises(jax.dtypes.TypePromotionError) as err:
        jnp.promote_types(jnp.int1, float)
    assert "('int1', \"<class 'float'>\")" in str(err.value)
    assert jnp.promote_types(jnp.float6_e2m3fn, float) == np.dtype(ml_dtypes.float6_e2m3fn)


@pytest.mark.spec("NPP-1")
def test_new_dtypes_limits_and_kinds(jax, jnp):
    assert (jnp.iinfo(jnp.int1).min, jnp.iinfo(jnp.int1).max) == (-1, 0)
    assert jnp.iinfo(jnp.uint1).max == 1
    assert float(jnp.finfo(jnp.float6_e2m3fn).max) == 7.5
    assert float(jnp.finfo(jnp.float6_e3m2fn).max) == 28.0
    assert jnp.isdtype(jnp.int1, "signed integer")
    assert jnp.issubdtype(jnp.uint1, jnp.unsignedinteger)
    assert jnp.isdtype(jnp.float6_e2m3fn, "real floating")
    assert not jnp.issubdtype(jnp.int1, jnp.floating)
    assert jax.dtypes.itemsize_bits(jnp.int1) == 1
    assert jax.dtypes.itemsize_bits(jnp.float6_e3m2fn) == 6
