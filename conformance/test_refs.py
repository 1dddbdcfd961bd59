"""Mutable array references: jax.new_ref, jax.Ref, jax.ref.* eagerly and
inside jit, grad and vmap (SPEC EXT-7); Refs passed to and captured by jit
(EXT-9) and loop bodies (EXT-10)."""
import importlib

import numpy as np
import pytest


@pytest.fixture(scope="module")
def jref(impl_name):
    return importlib.import_module(f"{impl_name}.ref")


@pytest.mark.spec("EXT-7")
def test_eager_read_write(jax, jnp, jref):
    r = jax.new_ref(jnp.arange(3.0))
    assert isinstance(r, jax.Ref) and isinstance(r, jref.Ref)
    assert r.shape == (3,) and r.dtype == jnp.float32 and r.ndim == 1 and len(r) == 3
    np.testing.assert_array_equal(r[...], [0.0, 1.0, 2.0])
    assert r[1] == 1.0
    r[1] = 5.0
    r[...] += 1.0
    r[0] += 2.0
    np.testing.assert_array_equal(r[...], [3.0, 6.0, 3.0])
    assert repr(r) == "Ref([3., 6., 3.], dtype=float32)"
    frozen = jax.freeze(r)
    np.testing.assert_array_equal(frozen, [3.0, 6.0, 3.0])
    assert jax.free_ref(jax.new_ref(jnp.zeros(2))) == ()


@pytest.mark.spec("EXT-7")
def test_ref_functions(jax, jnp, jref):
    r = jax.new_ref(jnp.zeros(3))
    assert jref.get(r, 1) == 0.0
    old = jref.swap(r, 0, 4.0)
    assert old == 0.0
    jref.set(r, None, jnp.ones(3))
    jref.addupdate(r, 1, 2.0)
    np.testing.assert_array_equal(jref.get(r, None), [1.0, 3.0, 1.0])
    r.addupdate(1.0, 2)
    np.testing.assert_array_equal(r[...], [1.0, 3.0, 2.0])


@pytest.mark.spec("EXT-7")
def test_errors(jax, jnp, jref):
    with pytest.raises(TypeError, match="new_ref"):
        jax.new_ref("a")
    r = jax.new_ref(jnp.zeros(3))
    with pytest.raises(ValueError, match="Invalid shape for `swap`"):
        r[0] = jnp.ones(3)
    ri = jax.new_ref(jnp.zeros(3, jnp.int32))
    with pytest.raises(ValueError, match="Invalid dtype for `swap`"):
        ri[0] = jnp.float32(1.5)
    ri[0] = 2          # a weakly typed Python scalar takes the ref's dtype
    np.testing.assert_array_equal(ri[...], [2, 0, 0])
    with pytest.raises(NotImplementedError):
        jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.float32))


def _scale_in_place(jax, x):
    r = jax.new_ref(x)
    r[...] = r[...] * 3
    r[0] += 1.0
    return jax.freeze(r)


@pytest.mark.spec("EXT-7")
def test_refs_inside_jit_grad_vmap(jax, jnp):
    x = np.arange(1.0, 4.0, dtype=np.float32)
    expected = x * 3 + np.array([1.0, 0.0, 0.0], np.float32)
    f = lambda v: _scale_in_place(jax, v)
    np.testing.assert_allclose(f(x), expected)
    np.testing.assert_allclose(jax.jit(f)(x), expected)
    np.testing.assert_allclose(jax.grad(lambda v: f(v).sum())(x), np.full(3, 3.0))
    np.testing.assert_allclose(jax.jit(jax.grad(lambda v: (f(v) ** 2).sum()))(x),
                               2 * expected * 3)
    xs = np.stack([x, 2 * x])
    np.testing.assert_allclose(jax.vmap(f)(xs), np.stack([f(x), f(2 * x)]))


@pytest.mark.spec("EXT-7")
def test_empty_ref_inside_jit(jax, jnp):
    def h():
        r = jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.float32))
        r[...] = jnp.ones(2)
        return jax.freeze(r)
    out = jax.jit(h)()
    np.testing.assert_array_equal(out, np.ones(2, np.float32))
    assert out.dtype == jnp.float32


@pytest.mark.spec("EXT-7")
def test_jax_ad_namespace(jax):
    for name in ("DontWant", "DidntWant", "GradRef", "GradValue"):
        assert isinstance(getattr(jax.ad, name), type)


@pytest.mark.spec("EXT-7")
def test_static_index_out_of_bounds(jax, jnp):
    r = jax.new_ref(jnp.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(r[-1], [3.0, 4.0, 5.0])
    with pytest.raises(ValueError, match="Out of bound indexer: idx=2, dim=2"):
        r[2]
    with pytest.raises(ValueError, match="Out of bound indexer: idx=3, dim=3"):
        r[1, 3] = 1.0
    with pytest.raises(ValueError, match="Out of bound indexer"):
        list(jax.new_ref(jnp.arange(3.0)))     # iteration ends in the error
    np.testing.assert_array_equal(r[...], np.arange(6.0).reshape(2, 3))


# -- EXT-9: Refs crossing into jit ------------------------------------------------

@pytest.mark.spec("EXT-9")
def test_jit_ref_argument(jax, jnp):
    r = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def f(ref, x):
        ref[...] += x
        ref[0] = ref[0] * 2

    assert f(r, 1.0) is None
    np.testing.assert_array_equal(r[...], [2.0, 1.0, 1.0])
    q = jax.new_ref(jnp.ones(3))
    f(q, 2.0)                       # same aval: same trace, other box
    f(r, 1.0)
    np.testing.assert_array_equal(r[...], [6.0, 2.0, 2.0])
    np.testing.assert_array_equal(q[...], [6.0, 3.0, 3.0])
    assert r[...].dtype == jnp.float32
    assert str(jax.typeof(r)) == "Ref{float32[3]}" and jax.typeof(r) == r.aval
    assert jax.typeof(r).shape == (3,) and jax.typeof(r).dtype == jnp.float32
    assert str(jax.typeof(jax.new_ref(1))) == "Ref{int32[]}"
    # A read-only Ref argument; the function's other outputs are its own.
    g = jax.jit(lambda ref, x: (ref[...] * x, ref[1]))
    out, one = g(r, 2.0)
    np.testing.assert_array_equal(out, [12.0, 4.0, 4.0])
    assert one == 2.0


@pytest.mark.spec("EXT-9")
def test_jit_captured_ref(jax, jnp):
    s = jax.new_ref(jnp.zeros(3))
    traces = []

    @jax.jit
    def g(x):
        traces.append(x)
        s[...] += x
        return s[...] * 2

    np.testing.assert_array_equal(g(1.0), np.full(3, 2.0))
    np.testing.assert_array_equal(g(1.0), np.full(3, 4.0))
    np.testing.assert_array_equal(s[...], np.full(3, 2.0))
    assert len(traces) == 1         # the value is read per call, not traced in
    s[...] = jnp.arange(3.0)
    np.testing.assert_array_equal(g(0.5), 2 * (np.arange(3.0) + 0.5))


@pytest.mark.spec("EXT-9")
def test_jit_nested_capture(jax, jnp):
    s = jax.new_ref(1.0)

    @jax.jit
    def outer(x):
        @jax.jit
        def inner(y):
            s[...] = s[...] * y
            return s[...]
        return inner(x) + inner(x)

    assert outer(2.0) == 6.0 and s[...] == 4.0
    assert outer(3.0) == 12.0 + 36.0 and s[...] == 36.0

    def make_and_pass(x):
        q = jax.new_ref(x)
        add = jax.jit(lambda ref, y: ref.__setitem__(Ellipsis, ref[...] + y))
        add(q, 1.0)
        add(q, 2.0)
        return q[...]

    np.testing.assert_array_equal(jax.jit(make_and_pass)(jnp.zeros(2)), [3.0, 3.0])


@pytest.mark.spec("EXT-9")
def test_jit_weak_types(jax, jnp):
    w = jax.new_ref(1.0)
    out = jax.jit(lambda: w[...])()
    assert out.dtype == jnp.float32 and out.weak_type
    out = jax.jit(lambda ref: ref[...])(w)
    assert out.weak_type
    w[...] = jnp.float32(2.0)       # an eager read has the Ref's type
    assert w[...].weak_type and w[...] == 2.0
    jax.jit(lambda ref: ref.__setitem__(Ellipsis, jnp.float32(5.0)))(w)
    assert w[...].weak_type and w[...] == 5.0
    i8 = jax.new_ref(jnp.zeros(2, jnp.int8))
    jax.jit(lambda ref: ref.__setitem__(Ellipsis, ref[...] + 1))(i8)
    assert i8[...].dtype == jnp.int8
    np.testing.assert_array_equal(i8[...], [1, 1])


@pytest.mark.spec("EXT-9")
def test_jit_ref_errors(jax, jnp):
    r = jax.new_ref(jnp.zeros(3))
    with pytest.raises(ValueError, match="mutable array references cannot be "
                       "returned.\n\nThe returned mutable array was passed in as "
                       "the argument q"):
        jax.jit(lambda q: q)(r)
    with pytest.raises(ValueError, match="at output tree path result\\[1\\]\\['a'\\]"):
        jax.jit(lambda q: (1.0, {"a": q}))(r)
    with pytest.raises(ValueError, match="cannot be returned"):
        jax.jit(lambda: r)()
    with pytest.raises(ValueError, match="cannot be returned"):
        jax.jit(lambda: jax.new_ref(1.0))()
    with pytest.raises(ValueError, match="only one reference to a mutable array "
                       "may be passed .* appeared at both a and b"):
        jax.jit(lambda a, b: a.__setitem__(Ellipsis, b[...] + 1))(r, r)
    with pytest.raises(ValueError, match="appeared at both d\\['a'\\] and d\\['b'\\]"):
        jax.jit(lambda d: d["a"][...])({"a": r, "b": r})

    def both(a):
        r[...] += 1.0
        a[...] += 2.0

    with pytest.raises(ValueError, match="was both closed over and passed as "
                       "the argument a"):
        jax.jit(both)(r)
    np.testing.assert_array_equal(r[...], np.zeros(3))


@pytest.mark.spec("EXT-9")
def test_jit_failed_trace_and_abstract_evaluation_leave_refs(jax, jnp):
    s = jax.new_ref(1.0)

    def raiser(x):
        s[...] = 100.0
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        jax.jit(raiser)(1.0)
    assert s[...] == 1.0

    def writes(x):
        s[...] = x * 5
        return x

    out = jax.eval_shape(writes, 1.0)
    assert out.shape == () and s[...] == 1.0
    jax.make_jaxpr(writes)(2.0)
    assert s[...] == 1.0
    jax.jit(writes)(2.0)
    assert s[...] == 10.0


@pytest.mark.spec("EXT-9")
def test_jit_refs_under_grad_and_vmap(jax, jnp):
    r = jax.new_ref(jnp.zeros(3))
    add = jax.jit(lambda ref, x: ref.__setitem__(Ellipsis, ref[...] + x))

    def inner_ref(x):
        q = jax.new_ref(x)
        add(q, x)
        add(q, x * x)
        return (q[...] ** 2).sum()

    x = np.arange(3.0, dtype=np.float32)
    expected = 2 * (2 * x + x * x) * (2 + 2 * x)     # d/dx sum((2x + x^2)^2)
    np.testing.assert_allclose(jax.grad(inner_ref)(x), expected)
    np.testing.assert_allclose(jax.jit(jax.grad(inner_ref))(x), expected)
    xs = np.stack([x, x + 1])
    np.testing.assert_allclose(jax.vmap(inner_ref)(xs),
                               [float(inner_ref(v)) for v in xs], rtol=1e-6)
    cnt = jax.new_ref(0)

    def counted(v):
        cnt[...] += 1
        return v ** 2

    assert jax.grad(jax.jit(counted))(3.0) == 6.0 and cnt[...] == 1
    with pytest.raises(Exception, match="differentiated value on a "
                       "non-differentiated array reference of type Ref"):
        jax.grad(lambda v: (add(r, v), r[...].sum() * v)[1])(2.0)
    with pytest.raises(Exception, match="vmapped value on an unbatched array "
                       "reference of type Ref\\{int32\\[\\]\\}"):
        jax.vmap(jax.jit(counted))(jnp.arange(3.0))
    np.testing.assert_array_equal(r[...], np.zeros(3))
    assert cnt[...] == 1
    reads = jax.vmap(jax.jit(lambda v: r[...] + v))(jnp.arange(2.0))
    np.testing.assert_array_equal(reads, [[0.0] * 3, [1.0] * 3])
    reads = jax.vmap(lambda q, v: q[...] + v, in_axes=(None, 0))(r, jnp.arange(2.0))
    np.testing.assert_array_equal(reads, [[0.0] * 3, [1.0] * 3])


# -- EXT-10: Refs in loop bodies ------------------------------------------------------

@pytest.mark.spec("EXT-10")
def test_scan_body_captures_ref(jax, jnp):
    c = jax.new_ref(0.0)

    def body(carry, x):
        c[...] += x
        return carry + 1, c[...]

    xs = np.arange(4.0, dtype=np.float32)
    n, ys = jax.lax.scan(body, 0, jnp.asarray(xs))
    assert n == 4
    np.testing.assert_array_equal(ys, np.cumsum(xs))
    assert ys.dtype == jnp.float32 and not ys.weak_type    # the value written
    assert c[...] == 6.0 and c[...].weak_type              # the Ref's type
    t = jax.new_ref(1.0)
    _, ys = jax.lax.scan(lambda k, x: (k, t[...] * x), 0.0, jnp.asarray(xs))
    np.testing.assert_array_equal(ys, xs)
    assert t[...] == 1.0


@pytest.mark.spec("EXT-10")
def test_scan_refs_in_and_around_jit(jax, jnp):
    s = jax.new_ref(0.0)

    def body(carry, x):
        s[...] += x * carry
        return carry + 1.0, None

    xs = jnp.arange(4.0)
    out = jax.jit(lambda v: jax.lax.scan(body, 1.0, v)[0])(xs)
    assert out == 5.0 and s[...] == 0 * 1 + 1 * 2 + 2 * 3 + 3 * 4
    s[...] = 0.0
    g = jax.jit(lambda x: (s.__setitem__(Ellipsis, s[...] + x), x)[1])
    total, _ = jax.lax.scan(lambda k, x: (k + g(x), None), 0.0, xs)
    assert total == 6.0 and s[...] == 6.0

    def made_inside(v):
        q = jax.new_ref(0.0)

        def b(k, x):
            q[...] += x
            return k, q[...]

        return jax.lax.scan(b, 0.0, v)[1], q[...]

    ys, last = jax.jit(made_inside)(xs)
    np.testing.assert_array_equal(ys, np.cumsum(np.arange(4.0)))
    assert last == 6.0
    np.testing.assert_allclose(jax.grad(lambda v: made_inside(v)[0].sum())(xs),
                               [4.0, 3.0, 2.0, 1.0])


@pytest.mark.spec("EXT-10")
def test_nested_loops_and_map(jax, jnp):
    s = jax.new_ref(0.0)

    def outer(k, x):
        def inner(k2, y):
            s[...] += y
            return k2, None
        jax.lax.scan(inner, 0.0, jnp.arange(3.0))
        return k, s[...]

    np.testing.assert_array_equal(jax.lax.scan(outer, 0.0, jnp.arange(2.0))[1],
                                  [3.0, 6.0])
    s[...] = 0.0
    out = jax.lax.map(lambda x: (s.__setitem__(Ellipsis, s[...] + x), x * 2)[1],
                      jnp.arange(3.0))
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])
    assert s[...] == 3.0


@pytest.mark.spec("EXT-10")
def test_fori_and_while_loops(jax, jnp):
    w = jax.new_ref(0)

    def body(i, v):
        w[...] += i
        return v + 1

    assert jax.lax.fori_loop(0, 5, body, 0) == 5 and w[...] == 10
    assert jax.jit(lambda n: jax.lax.fori_loop(0, n, body, 0))(4) == 4
    assert w[...] == 16

    def wbody(k):
        w[...] += 3
        return k + 1

    k = jax.lax.while_loop(lambda k: k < 3, wbody, 0)
    assert k == 3 and w[...] == 25
    limit = jax.new_ref(5.0)
    out = jax.jit(lambda: jax.lax.while_loop(lambda c: c < limit[...],
                                             lambda c: c + 1.0, 0.0))()
    assert out == 5.0 and limit[...] == 5.0


@pytest.mark.spec("EXT-10")
def test_loop_body_returning_a_ref(jax, jnp):
    r = jax.new_ref(jnp.zeros(3))
    with pytest.raises(ValueError, match="traced for scan returned a mutable array "
                       "reference of type Ref\\{float32\\[3\\]\\} at output tree "
                       "path result\\[1\\]"):
        jax.lax.scan(lambda k, x: (k, r), 0.0, jnp.arange(2.0))
    with pytest.raises(ValueError, match="traced for while_body returned a mutable"):
        jax.lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, r), (0, r))


@pytest.mark.spec("EXT-7")
def test_write_casts_and_traced_clamping(jax, jnp, jref):
    r = jax.new_ref(jnp.zeros(3))
    r[0] = 2.0                          # a weakly typed float is cast
    with pytest.raises(ValueError, match="Invalid dtype for `swap`. Ref dtype: "
                       "float32. Value dtype: int32"):
        r[0] = 2                        # a weakly typed int is not
    i8 = jax.new_ref(jnp.zeros(2, jnp.int8))
    i8[0] = jnp.int32(300)              # any integer into an integer Ref
    assert i8[...].dtype == jnp.int8 and i8[0] == np.int32(300).astype(np.int8)
    with pytest.raises(ValueError, match="Invalid dtype for `addupdate`"):
        jref.addupdate(i8, 0, jnp.int32(1))
    with pytest.raises(ValueError, match="Invalid shape for `addupdate`"):
        jref.addupdate(r, 0, jnp.ones(2))
    q = jax.new_ref(jnp.zeros((2, 3)))
    jax.jit(lambda ref: ref.__setitem__(3, jnp.ones(3)))(q)    # clamped row
    jax.jit(lambda ref: ref.__setitem__((0, 7), 5.0))(q)
    np.testing.assert_array_equal(q[...], [[0.0, 0.0, 5.0], [1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(jax.jit(lambda ref: ref[5])(q), [1.0, 1.0, 1.0])


# -- EXT-11: Refs in cond / switch branches ------------------------------------------

@pytest.mark.spec("EXT-11")
def test_cond_branches_read_and_write_refs(jax, jnp):
    r = jax.new_ref(jnp.zeros(3))
    out = jax.lax.cond(True, lambda: r[...] + 1, lambda: jnp.ones(3))
    np.testing.assert_array_equal(out, np.ones(3))
    np.testing.assert_array_equal(r[...], np.zeros(3))

    def add(x):
        r[...] += x
        return x * 2

    assert jax.lax.cond(True, add, lambda x: x, 1.0) == 2.0
    assert jax.lax.cond(False, add, lambda x: x, 1.0) == 1.0     # not written
    np.testing.assert_array_equal(r[...], np.ones(3))
    f = jax.jit(lambda p, x: jax.lax.cond(
        p, lambda: r.__setitem__(Ellipsis, r[...] + x), lambda: None))
    f(True, 2.0)
    f(False, 5.0)
    np.testing.assert_array_equal(r[...], np.full(3, 3.0))
    c = jax.new_ref(0)
    branches = [lambda i=i: c.__setitem__(Ellipsis, c[...] + 10 ** i) for i in range(3)]
    for index in (0, 1, 2, 5):          # an index past the end is clamped
        jax.lax.switch(index, branches)
    assert c[...] == 1 + 10 + 2 * 100 and c[...].dtype == jnp.int32


@pytest.mark.spec("EXT-11")
def test_cond_ref_operands_nesting_and_cache(jax, jnp):
    r = jax.new_ref(jnp.zeros(3))
    assert jax.lax.cond(True, lambda q: q[...].sum(), lambda q: q[0], r) == 0.0
    jax.jit(lambda q, p: jax.lax.cond(
        p, lambda: q.__setitem__(Ellipsis, q[...] + 1), lambda: None))(r, True)
    np.testing.assert_array_equal(r[...], np.ones(3))
    q = jax.new_ref(jnp.ones(2))
    out = jax.lax.switch(2, [lambda a, b: a[...] + b, lambda a, b: a[...] * b], q, 3.0)
    np.testing.assert_array_equal(out, [3.0, 3.0])

    def in_scan():
        c = jax.new_ref(0.0)

        def body(k, x):
            jax.lax.cond(x > 1, lambda: c.__setitem__(Ellipsis, c[...] + x),
                         lambda: None)
            return k, c[...]

        return jax.lax.scan(body, 0.0, jnp.arange(4.0))[1], c[...]

    for run in (in_scan, jax.jit(in_scan)):
        ys, last = run()
        np.testing.assert_array_equal(ys, [0.0, 0.0, 2.0, 5.0])
        assert last == 5.0
    c = jax.new_ref(0)

    def inner(i):
        return jax.lax.cond(i > 0, lambda: c.__setitem__(Ellipsis, c[...] + i),
                            lambda: c.__setitem__(Ellipsis, c[...] - 1))

    jax.lax.cond(True, lambda: inner(3), lambda: inner(-3))
    jax.lax.cond(False, lambda: inner(3), lambda: inner(-3))
    assert c[...] == 2
    s, traces = jax.new_ref(0.0), []

    @jax.jit
    def g(p, x):
        traces.append(1)
        jax.lax.cond(p, lambda: s.__setitem__(Ellipsis, s[...] + x), lambda: None)
        return s[...] * 2

    assert [float(g(True, 1.0)), float(g(False, 5.0)), float(g(True, 2.0))] == [2.0, 2.0, 6.0]
    assert s[...] == 3.0 and len(traces) == 1


@pytest.mark.spec("EXT-11")
def test_cond_refs_under_grad_and_weak_types(jax, jnp):
    def f(x):
        q = jax.new_ref(x)
        jax.lax.cond(x > 0, lambda: q.__setitem__(Ellipsis, jnp.sin(q[...]) * x),
                     lambda: q.__setitem__(Ellipsis, q[...] * 2))
        return q[...] ** 2

    x = 1.5
    expected = 2 * np.sin(x) * x * (np.cos(x) * x + np.sin(x))
    np.testing.assert_allclose(jax.grad(f)(x), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(x), expected, rtol=1e-6)
    assert jax.grad(f)(-1.5) == -12.0
    s = jax.new_ref(0.0)
    with pytest.raises(Exception, match="differentiated value on a "
                       "non-differentiated array reference"):
        jax.grad(lambda v: jax.lax.cond(
            v > 0, lambda: s.__setitem__(Ellipsis, s[...] + v), lambda: None) or v)(1.0)
    assert s[...] == 0.0
    w = jax.new_ref(1.0)
    out = jax.lax.cond(True, lambda: w[...], lambda: 2.0)
    assert out.dtype == jnp.float32 and out.weak_type
    jax.jit(lambda p: jax.lax.cond(
        p, lambda: w.__setitem__(Ellipsis, jnp.float32(4.0)), lambda: None))(True)
    assert w[...] == 4.0 and w[...].weak_type


@pytest.mark.spec("EXT-11")
def test_cond_ref_errors(jax, jnp):
    r = jax.new_ref(jnp.zeros(3))
    with pytest.raises(ValueError, match="traced for cond returned a mutable array "
                       "reference of type Ref\\{float32\\[3\\]\\}, but mutable"):
        jax.lax.cond(True, lambda: r, lambda: r)
    with pytest.raises(ValueError, match="traced for switch returned a mutable array "
                       "reference .* at output tree path result\\[1\\]"):
        jax.lax.switch(1, [lambda: (1.0, r), lambda: (2.0, r)])

    def f(x):
        q = jax.new_ref(x)
        jax.lax.cond(x[0] > 0, lambda: q.__setitem__(Ellipsis, q[...] * 2), lambda: None)
        return q[...]

    with pytest.raises(NotImplementedError, match="State effect not supported in "
                       "vmap-of-cond"):
        jax.vmap(f)(jnp.array([[1.0, 2.0], [-1.0, 3.0]]))
    with pytest.raises(NotImplementedError, match="vmap-of-cond"):
        jax.vmap(lambda x: jax.lax.cond(True, lambda: r[...] + x, lambda: r[...]))(
            jnp.arange(2.0))
    np.testing.assert_array_equal(r[...], np.zeros(3))


# -- EXT-12: Refs in checkpoint, custom_jvp and custom_vjp ------------------------------

@pytest.mark.spec("EXT-12")
def test_checkpoint_reads_and_writes_refs(jax, jnp):
    r = jax.new_ref(jnp.zeros(3))

    @jax.checkpoint
    def f(x):
        r[...] += x
        return jnp.sin(x) * r[...].sum()

    np.testing.assert_allclose(f(1.0), np.sin(1.0) * 3, rtol=1e-6)
    np.testing.assert_array_equal(r[...], np.ones(3))
    s = jax.new_ref(2.0)
    g = jax.checkpoint(lambda x: jnp.sin(x) * s[...])
    np.testing.assert_allclose(jax.grad(g)(1.0), 2 * np.cos(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(g))(1.0), 2 * np.cos(1.0), rtol=1e-6)
    np.testing.assert_array_equal(jax.vmap(g)(jnp.zeros(2)), [0.0, 0.0])
    h = jax.jit(jax.checkpoint(lambda x: (s.__setitem__(Ellipsis, s[...] + x),
                                          x * s[...])[1]))
    assert h(1.0) == 3.0 and h(2.0) == 10.0 and s[...] == 5.0
    k = jax.checkpoint(lambda q, x: q[...] * x)
    assert k(s, 3.0) == 15.0 and jax.grad(k, 1)(s, 3.0) == 5.0
    with pytest.raises(Exception, match="differentiated value on a "
                       "non-differentiated array reference"):
        jax.grad(jax.checkpoint(lambda x: (s.__setitem__(Ellipsis, s[...] + x), x)[1]))(1.0)
    with pytest.raises(ValueError, match="traced for checkpoint / remat returned a "
                       "mutable array reference of type Ref\\{float32\\[\\]\\}, but"):
        jax.checkpoint(lambda x: s)(1.0)
    assert s[...] == 5.0


def _jvp_with_ref(jax, jnp, s, write_rule=False):
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x) * s[...]

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        if write_rule:
            s[...] += 10.0
        return jnp.sin(x) * s[...], jnp.cos(x) * s[...] * t

    return f


@pytest.mark.spec("EXT-12")
def test_custom_jvp_reaching_refs(jax, jnp):
    s = jax.new_ref(2.0)
    f = _jvp_with_ref(jax, jnp, s)
    np.testing.assert_allclose(f(1.0), 2 * np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(f)(1.0), 2 * np.cos(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(1.0), 2 * np.cos(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(f)(jnp.ones(2)), 2 * np.sin([1.0, 1.0]), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="No state discharge rule "
                       "implemented for primitive: custom_jvp_call"):
        jax.jit(f)(1.0)
    g = _jvp_with_ref(jax, jnp, s, write_rule=True)
    np.testing.assert_allclose(jax.grad(g)(1.0), 12 * np.cos(1.0), rtol=1e-6)
    assert s[...] == 12.0           # the rule ran once, and wrote
    np.testing.assert_allclose(g(1.0), 12 * np.sin(1.0), rtol=1e-6)
    assert s[...] == 12.0           # the function alone runs eagerly


def _vjp_with_ref(jax, jnp, s, write_fwd=False, write_bwd=False):
    @jax.custom_vjp
    def g(x):
        return jnp.sin(x) * s[...]

    def fwd(x):
        if write_fwd:
            s[...] += 10.0
        return jnp.sin(x) * s[...], (x,)

    def bwd(res, ct):
        if write_bwd:
            s[...] += 100.0
        return (jnp.cos(res[0]) * s[...] * ct,)

    g.defvjp(fwd, bwd)
    return g


@pytest.mark.spec("EXT-12")
def test_custom_vjp_reaching_refs(jax, jnp):
    s = jax.new_ref(2.0)
    g = _vjp_with_ref(jax, jnp, s)
    np.testing.assert_allclose(g(1.0), 2 * np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(g)(1.0), 2 * np.cos(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(g))(1.0), 2 * np.cos(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(g)(jnp.ones(2)), 2 * np.sin([1.0, 1.0]), rtol=1e-6)
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(g, (1.0,), (1.0,))
    assert s[...] == 2.0
    h = _vjp_with_ref(jax, jnp, s, write_fwd=True)
    np.testing.assert_allclose(jax.value_and_grad(h)(1.0),
                               [12 * np.sin(1.0), 12 * np.cos(1.0)], rtol=1e-6)
    assert s[...] == 12.0
    s[...] = 2.0
    k = _vjp_with_ref(jax, jnp, s, write_bwd=True)
    np.testing.assert_allclose(jax.grad(k)(1.0), 102 * np.cos(1.0), rtol=1e-6)
    assert s[...] == 102.0          # bwd ran on the backward pass
    w = jax.new_ref(0.0)

    @jax.custom_vjp
    def counted(x):
        w[...] += 1.0
        return x

    counted.defvjp(lambda x: (x, None), lambda _, ct: (ct,))
    with pytest.raises(Exception, match="vmapped value on an unbatched array reference"):
        jax.vmap(counted)(jnp.ones(2))
    assert w[...] == 0.0
