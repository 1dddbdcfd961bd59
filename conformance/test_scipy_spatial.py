"""Conformance: ``jax.scipy.spatial.transform`` (SPEC SOP-21 .. SOP-27).

References come from SciPy's ``Rotation`` and ``Slerp`` in float64; results
are float32 and compared with float32 tolerances.  Quaternions are compared
through their rotation matrices where only the rotation (not the sign of
the quaternion) is determined.
"""
import importlib

import numpy as np
import pytest
from scipy.spatial.transform import Rotation as SpRotation
from scipy.spatial.transform import Slerp as SpSlerp

TOL = dict(rtol=2e-4, atol=2e-5)


@pytest.fixture(scope="module")
def T(jax):
    return importlib.import_module(jax.__name__ + ".scipy.spatial.transform")


def quats(n=4, seed=0):
    q = np.random.RandomState(seed).randn(n, 4)
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.spec("SOP-21")
def test_rotation_is_a_pytree(jax, jnp, T):
    q = quats()
    r = T.Rotation(jnp.asarray(2 * q))  # the constructor does not normalize
    np.testing.assert_allclose(np.asarray(r.quat), 2 * q)
    leaves = jax.tree_util.tree_leaves(r)
    assert len(leaves) == 1 and leaves[0].shape == (4, 4)
    r = T.Rotation.from_quat(jnp.asarray(q))
    m = jax.jit(lambda rot: rot.as_matrix())(r)
    np.testing.assert_allclose(np.asarray(m), SpRotation.from_quat(q).as_matrix(), **TOL)
    out = jax.jit(lambda rot: rot.inv())(r)
    assert isinstance(out, T.Rotation)
    mags = jax.vmap(lambda rot: rot.magnitude())(r)
    np.testing.assert_allclose(np.asarray(mags), SpRotation.from_quat(q).magnitude(), **TOL)
    assert T.Rotation.from_quat(jnp.asarray([0, 0, 0, 2])).quat.dtype == jnp.float32
    with pytest.raises(ValueError):
        r.apply(jnp.ones(2))


@pytest.mark.spec("SOP-22")
def test_conversions_against_scipy(jnp, T):
    q = quats()
    ref = SpRotation.from_quat(q)
    r = T.Rotation.from_quat(jnp.asarray(q))
    np.testing.assert_allclose(np.asarray(r.as_matrix()), ref.as_matrix(), **TOL)
    np.testing.assert_allclose(np.asarray(r.as_rotvec()), ref.as_rotvec(), **TOL)
    np.testing.assert_allclose(np.asarray(r.as_rotvec(degrees=True)),
                               ref.as_rotvec(degrees=True), rtol=2e-4, atol=2e-3)
    np.testing.assert_allclose(np.asarray(r.as_mrp()), ref.as_mrp(), **TOL)
    np.testing.assert_allclose(np.asarray(r.as_quat(canonical=True)),
                               ref.as_quat(canonical=True), **TOL)
    np.testing.assert_allclose(np.asarray(r.as_quat(scalar_first=True)),
                               ref.as_quat(scalar_first=True), **TOL)
    m = ref.as_matrix().astype(np.float32)
    for back in (T.Rotation.from_matrix(jnp.asarray(m)),
                 T.Rotation.from_rotvec(jnp.asarray(ref.as_rotvec().astype(np.float32))),
                 T.Rotation.from_rotvec(jnp.asarray(ref.as_rotvec(degrees=True)
                                                    .astype(np.float32)), degrees=True),
                 T.Rotation.from_mrp(jnp.asarray(ref.as_mrp().astype(np.float32)))):
        assert back.quat.dtype == jnp.float32
        np.testing.assert_allclose(np.asarray(back.as_matrix()), m, rtol=1e-3, atol=1e-4)
    small = T.Rotation.from_rotvec(jnp.asarray([1e-4, 0., 0.], dtype=jnp.float32))
    np.testing.assert_allclose(np.asarray(small.as_rotvec()), [1e-4, 0, 0], rtol=1e-5)
    ident = T.Rotation.identity()
    assert ident.quat.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(ident.quat), [0, 0, 0, 1])
    with pytest.raises(AssertionError):
        T.Rotation.identity(3)
    with pytest.raises(NotImplementedError):
        T.Rotation.random(None)


@pytest.mark.spec("SOP-23")
@pytest.mark.parametrize("seq", ["xyz", "ZYX", "zxz", "YXY"])
def test_euler_against_scipy(jnp, T, seq):
    ref = SpRotation.from_quat(quats())
    r = T.Rotation.from_quat(jnp.asarray(quats()))
    np.testing.assert_allclose(np.asarray(r.as_euler(seq)), ref.as_euler(seq), **TOL)
    np.testing.assert_allclose(np.asarray(r.as_euler(seq, degrees=True)),
                               ref.as_euler(seq, degrees=True), rtol=2e-4, atol=2e-3)
    angles = ref.as_euler(seq).astype(np.float32)
    back = T.Rotation.from_euler(seq, jnp.asarray(angles))
    np.testing.assert_allclose(np.asarray(back.as_matrix()), ref.as_matrix(), **TOL)
    back = T.Rotation.from_euler(seq, jnp.asarray(np.rad2deg(angles)), degrees=True)
    np.testing.assert_allclose(np.asarray(back.as_matrix()), ref.as_matrix(), rtol=1e-3,
                               atol=1e-4)


@pytest.mark.spec("SOP-23")
def test_euler_edge_cases_and_errors(jnp, T):
    z90 = T.Rotation.from_euler("z", 90, degrees=True)
    assert z90.quat.dtype == jnp.float32 and z90.single
    np.testing.assert_allclose(np.asarray(z90.as_matrix()),
                               SpRotation.from_euler("z", 90, degrees=True).as_matrix(), **TOL)
    locked = np.array([[0.3, np.pi / 2, 0.2]], np.float32)  # gimbal lock of 'xyz'
    got = np.asarray(T.Rotation.from_euler("xyz", jnp.asarray(locked)).as_euler("xyz"))
    assert got[0, 2] == 0
    np.testing.assert_allclose(SpRotation.from_euler("xyz", got).as_matrix(),
                               SpRotation.from_euler("xyz", locked).as_matrix(), atol=1e-3)
    for seq, message in [("xyzx", "upto 3 characters"), ("", "upto 3 characters"),
                         ("xYz", "Expected axes from"), ("xxz", "consecutive axes")]:
        with pytest.raises(ValueError, match=message):
            T.Rotation.from_euler(seq, jnp.zeros(max(len(seq), 1)))
    with pytest.raises(ValueError):
        T.Rotation.from_euler("xyz", jnp.zeros(5))
    with pytest.raises(ValueError, match="Expected 3 axes"):
        z90.as_euler("xy")


@pytest.mark.spec("SOP-24")
def test_apply_compose_inverse(jnp, T):
    q = quats()
    ref = SpRotation.from_quat(q)
    r = T.Rotation.from_quat(jnp.asarray(q))
    v = np.random.RandomState(1).randn(4, 3).astype(np.float32)
    np.testing.assert_allclose(np.asarray(r.apply(jnp.asarray(v))), ref.apply(v), **TOL)
    np.testing.assert_allclose(np.asarray(r.apply(jnp.asarray(v[0]), inverse=True)),
                               ref.apply(v[0], inverse=True), **TOL)
    np.testing.assert_allclose(np.asarray(r[0].apply(jnp.asarray(v))), ref[0].apply(v), **TOL)
    assert r[0].apply(jnp.asarray([1, 2, 3])).dtype == jnp.float32
    np.testing.assert_allclose(np.asarray((r * r[1]).as_matrix()),
                               (ref * ref[1]).as_matrix(), **TOL)
    np.testing.assert_allclose(np.asarray(r.inv().as_matrix()), ref.inv().as_matrix(), **TOL)
    np.testing.assert_allclose(np.asarray(r.magnitude()), ref.magnitude(), **TOL)
    both = T.Rotation.concatenate([r, r[:2]])
    assert both.quat.shape == (6, 4)


@pytest.mark.spec("SOP-24")
def test_rotation_gradients(jax, jnp, T):
    test_util = importlib.import_module(jax.__name__ + ".test_util")
    from_quat = T.Rotation.from_quat
    q = jnp.asarray(quats()[0])
    test_util.check_grads(lambda x: from_quat(x).as_matrix(), (q,), order=1,
                              modes=["rev"], atol=5e-2, rtol=5e-2)
    test_util.check_grads(lambda x: from_quat(x).magnitude(), (q,), order=1,
                              atol=5e-2, rtol=5e-2)


@pytest.mark.spec("SOP-25")
def test_mean(jnp, T):
    q = quats(5)
    ref = SpRotation.from_quat(q)
    r = T.Rotation.from_quat(jnp.asarray(q))
    np.testing.assert_allclose(np.asarray(r.mean().as_matrix()), ref.mean().as_matrix(),
                               rtol=1e-3, atol=1e-4)
    w = np.arange(1., 6.)
    np.testing.assert_allclose(np.asarray(r.mean(jnp.asarray(w)).as_matrix()),
                               ref.mean(w).as_matrix(), rtol=1e-3, atol=1e-4)
    with pytest.raises(ValueError, match="1 dimensional"):
        r.mean(jnp.ones((5, 1)))
    with pytest.raises(ValueError, match="number of values"):
        r.mean(jnp.ones(3))
    with pytest.raises(TypeError, match="no len"):
        r[0].mean()


@pytest.mark.spec("SOP-26")
def test_indexing_and_len(jnp, T):
    q = quats()
    r = T.Rotation.from_quat(jnp.asarray(q))
    assert len(r) == 4 and not r.single and r[1].single
    np.testing.assert_allclose(np.asarray(r[1:3].quat), q[1:3], **TOL)
    with pytest.raises(TypeError, match="not subscriptable"):
        r[0][0]
    with pytest.raises(TypeError, match="no len"):
        len(r[0])


@pytest.mark.spec("SOP-27")
def test_slerp_against_scipy(jax, jnp, T):
    q = quats(3)
    times = np.array([0., 1., 3.])
    ref = SpSlerp(times, SpRotation.from_quat(q))
    s = T.Slerp.init(jnp.asarray(times, dtype=jnp.float32), T.Rotation.from_quat(jnp.asarray(q)))
    t = np.array([0., 0.25, 1., 2.5, 3.])
    np.testing.assert_allclose(np.asarray(s(jnp.asarray(t)).as_matrix()),
                               ref(t).as_matrix(), rtol=1e-3, atol=1e-4)
    one = s(0.5)
    assert one.single
    np.testing.assert_allclose(np.asarray(one.as_matrix()), ref(0.5).as_matrix(),
                               rtol=1e-3, atol=1e-4)
    out = jax.jit(lambda sl, tt: sl(tt).as_matrix())(s, jnp.asarray(t))
    np.testing.assert_allclose(np.asarray(out), ref(t).as_matrix(), rtol=1e-3, atol=1e-4)
    r = T.Rotation.from_quat(jnp.asarray(q))
    with pytest.raises(TypeError, match="must be a `Rotation`"):
        T.Slerp.init(times, q)
    with pytest.raises(ValueError, match="at least 2"):
        T.Slerp.init([0.], r[0])
    with pytest.raises(ValueError, match="number of rotations"):
        T.Slerp.init([0., 1.], r)
    with pytest.raises(ValueError, match="1 dimensional"):
        T.Slerp.init(np.zeros((3, 1)), r)
    with pytest.raises(ValueError, match="at most 1-dimensional"):
        s(jnp.zeros((2, 2)))
