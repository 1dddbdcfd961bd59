"""The continuous samplers of ``jax.random`` (SPEC RNG-30 .. RNG-49).

Known answers come from JAX 0.10.2's ``tests/random_test.py``
(``_RANDOM_VALUES_CASES``, keys ``PRNGKey(adler32(name + "threefry2x32"))``,
shape (5,)) for partitionable=False, and from real JAX 0.10.2 for the
default partitionable=True (/work/shared/known_answers.md sections 3, 4).
Differential tests compare the implementation under test (``jax``) with
``oracle`` (refjax) in ulps of ``max(|x|, 1)``: the samplers share every
random bit, so differences come only from float32 transcendental functions.
"""
import re
import zlib

import numpy as np
import pytest

def _case_key(jax, name):
    return jax.random.PRNGKey(zlib.adler32((name + "threefry2x32").encode()))


# -- known answers (RNG-47) -----------------------------------------------------

KNOWN = {
    # name: (params, shape, partitionable=True values, partitionable=False values)
    "exponential": ({}, (5,),
                    [0.25165441632270813, 0.051583655178546906, 2.2613229751586914,
                     0.24524669349193573, 3.2264842987060547],
                    [0.5260666012763977, 0.04304581508040428, 0.0399320051074028,
                     0.4642702043056488, 0.1238858699798584]),
    "gamma": ({"a": 0.8}, (5,),
              [0.5089413523674011, 1.2327779531478882, 2.3008341789245605,
               0.018076522275805473, 2.9240119457244873],
              [0.824220597743988, 1.7244755029678345, 0.5028824210166931,
               5.386131763458252, 0.6855431795120239]),
    "loggamma": ({"a": 0.8}, (5,),
                 [-1.8831534385681152, -1.676787257194519, -1.2295963764190674,
                  1.3980295658111572, -0.048159852623939514],
                 [0.240559, -3.575443, -0.450946, -2.161372, -2.943277]),
    "truncated_normal": ({"lower": 0, "upper": 2}, (5,),
                         [0.05439106374979019, 0.6846367120742798, 0.9068900942802429,
                          1.274193525314331, 0.5003204345703125],
                         [0.5828065276145935, 1.7097711563110352, 0.1595129370689392,
                          0.8613762855529785, 0.3614804446697235]),
    "cauchy": ({}, (5,),
               [0.5966199636459351, 0.9939323663711548, -0.31504368782043457,
                -0.9619234204292297, 0.6024560332298279],
               [-0.08841580152511597, -10.169687271118164, 3.496774435043335,
                -1.1805592775344849, 0.3455606698989868]),
    "gumbel": ({}, (5,),
               [2.9618189334869385, -1.1029821634292603, 0.5311068892478943,
                0.5300164818763733, 2.06046724319458],
               [2.067009925842285, 0.9117260575294495, 0.14573562145233154,
                0.18542666733264923, -0.007110409904271364]),
    "laplace": ({}, (5,),
                [2.9273877143859863, 0.12935641407966614, -0.5441610813140869,
                 0.09178803861141205, 1.1649069786071777],
                [0.5789388418197632, -0.2049015909433365, 0.5557326078414917,
                 0.911052942276001, -0.9645599126815796]),
    "logistic": ({}, (5,),
                 [-1.0767078399658203, -1.2387030124664307, 0.35075122117996216,
                  4.956352710723877, -1.0436383485794067],
                 [0.19611024856567383, -1.7090539932250977, -0.2740935683250427,
                  -0.2083226442337036, -1.6754897832870483]),
    "beta": ({"a": 0.8, "b": 0.9}, (5,),
             [0.8111850619316101, 0.16617313027381897, 0.6616053581237793,
              0.12171320617198944, 0.32823464274406433],
             [0.13258960843086243, 0.8248932957649231, 0.9483627676963806,
              0.9641547203063965, 0.23544837534427643]),
    "dirichlet": ({"alpha": [0.5, 0.6, 0.7]}, (2,),
                  [[0.10278275609016418, 0.049812864512205124, 0.847404420375824],
                   [0.48532330989837646, 0.01630339026451111, 0.49837327003479004]],
                  [[0.003128, 0.009694, 0.987178], [0.025938, 0.479091, 0.494971]]),
    "double_sided_maxwell": ({"loc": 1, "scale": 2}, (5,),
                             [-2.1487739086151123, -4.063137054443359, 2.6063623428344727,
                              4.423308372497559, 4.976869583129883],
                             [-2.408914, -3.370437, 3.235352, -0.907734, -1.708732]),
    "maxwell": ({}, (5,),
                [0.7817554473876953, 0.9537614583969116, 2.787125825881958,
                 1.1157848834991455, 2.0334296226501465],
                [3.070779, 0.908479, 1.521317, 0.875551, 1.306137]),
    "multivariate_normal": ({"mean": np.ones((1, 3)), "cov": np.eye(3)}, (2,),
                            [[0.9763665199279785, 0.9135857820510864, 1.5418715476989746],
                             [1.2908216714859009, 0.6484994292259216, 1.4137651920318604]],
                            [[1.067826, 1.215599, 0.234166], [-0.237534, 1.32591, 1.413987]]),
    "pareto": ({"b": 0.5}, (5,),
               [6.556252956390381, 1.610084891319275, 8.152485847473145,
                3.9294891357421875, 10.878984451293945],
               [2.751398, 1.281863, 87.85448, 1.254542, 2.824487]),
    "weibull_min": ({"scale": 1, "concentration": 1}, (5,), None,
                    [1.605863, 0.841809, 0.224218, 0.4826, 0.027901]),
}


_KNOWN_PAIRS = [(name, mode) for name in sorted(KNOWN) for mode in (True, False)
                if KNOWN[name][2 if mode else 3] is not None]


@pytest.mark.spec("RNG-47")
@pytest.mark.parametrize("name,partitionable", _KNOWN_PAIRS, indirect=["partitionable"])
def test_known_answers(jax, partitionable, name):
    params, shape, want_true, want_false = KNOWN[name]
    want = want_true if partitionable else want_false
    params = {k: (np.asarray(v, np.float32) if isinstance(v, list) else v)
              for k, v in params.items()}
    got = getattr(jax.random, name)(_case_key(jax, name), **params, shape=shape,
                                    dtype=np.float32)
    assert got.dtype == np.float32
    # Full-precision vectors within a few ulp; the file's 6-digit ones at 1e-5.
    rtol = 1e-5 if name == "cauchy" or not partitionable else 2e-6
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32),
                               rtol=rtol, atol=1e-6)


@pytest.mark.spec("RNG-47")
@pytest.mark.parametrize("partitionable,want", [(False, -4.595436), (True, -np.inf)],
                         indirect=["partitionable"])
def test_loggamma_nan_corner_case(jax, partitionable, want):
    """JAX's ``test_loggamma_nan_corner_case`` (partitionable=False): a key
    whose draws hit the boost path's log(u) == 0 guard gives no NaN; the
    same key under the default mode gives -inf on JAX 0.10.2."""
    key = jax.random.wrap_key_data(np.array([3200590325, 713258242], np.uint32))
    got = jax.random.loggamma(key, 0.0, dtype="float32")
    np.testing.assert_allclose(float(got), want, rtol=1e-6)


# -- differential sweep (RNG-48) -------------------------------------------------

_COV = np.array([[2, .5, 0], [.5, 1, .2], [0, .2, 1.5]], np.float32)
_A = np.array([0.3, 0.8, 1.0, 2.5, 7.0, 40.0], np.float32)

# name: (call, ulps of max(|x|, 1) allowed).  0 means bit-identical: exp,
# log, log1p, erf_inv and rsqrt are XLA's own, the factorizations are the
# LAPACK routines jaxlib calls, and the samplers spell out the multiply-adds
# and rewrites XLA applies (SPEC LAX-11, RNG-48).  2 is the bound where a
# C-library function (pow, tan) or a reduction order can differ by an ulp.
DIFF_CASES = {
    "exponential": (lambda r, k: r.exponential(k, (7,)), 0),
    "laplace": (lambda r, k: r.laplace(k, (7,)), 0),
    "logistic": (lambda r, k: r.logistic(k, (7,)), 0),
    "cauchy": (lambda r, k: r.cauchy(k, (7,)), 2),
    "gumbel": (lambda r, k: r.gumbel(k, (7,)), 0),
    "gumbel_high": (lambda r, k: r.gumbel(k, (7,), mode="high"), 0),
    "gumbel_highest": (lambda r, k: r.gumbel(k, (7,), mode="highest"), 0),
    "truncated_normal": (lambda r, k: r.truncated_normal(k, -1.0, 2.0, (7,)), 0),
    "lognormal": (lambda r, k: r.lognormal(k, 0.5, (7,)), 0),
    "maxwell": (lambda r, k: r.maxwell(k, (7,)), 2),
    "double_sided_maxwell": (lambda r, k: r.double_sided_maxwell(k, 1.0, 2.0, (7,)), 2),
    "mvn_cholesky": (lambda r, k: r.multivariate_normal(k, np.ones(3, np.float32), _COV, (3,)), 0),
    "mvn_svd": (lambda r, k: r.multivariate_normal(k, np.ones(3, np.float32), _COV, (3,),
                                                   method="svd"), 0),
    "mvn_eigh": (lambda r, k: r.multivariate_normal(k, np.ones(3, np.float32), _COV, (3,),
                                                    method="eigh"), 0),
    "orthogonal": (lambda r, k: r.orthogonal(k, 3, (2,)), 0),
    "orthogonal_m": (lambda r, k: r.orthogonal(k, 2, (), m=4), 0),
    "pareto": (lambda r, k: r.pareto(k, 2.0, (7,)), 0),
    "weibull_min": (lambda r, k: r.weibull_min(k, 1.5, 2.0, (7,)), 0),
    "rayleigh": (lambda r, k: r.rayleigh(k, 2.0, (7,)), 0),
    "wald": (lambda r, k: r.wald(k, 1.5, (7,)), 0),
    "triangular": (lambda r, k: r.triangular(k, 0.0, 0.3, 1.0, (7,)), 0),
    "gamma": (lambda r, k: r.gamma(k, _A), 2),
    "loggamma": (lambda r, k: r.loggamma(k, _A), 0),
    "beta": (lambda r, k: r.beta(k, 0.8, 2.0, (7,)), 0),
    "dirichlet": (lambda r, k: r.dirichlet(k, np.array([0.5, 1.0, 3.0], np.float32), (2,)), 2),
    "t": (lambda r, k: r.t(k, 3.0, (7,)), 0),
    "f": (lambda r, k: r.f(k, 3.0, 5.0, (7,)), 0),
    "ball": (lambda r, k: r.ball(k, 3, 2, (2,)), 2),
}


def _scaled_ulps(got, want):
    """|got - want| in float32 ulps of max(|got|, |want|, 1)."""
    scale = np.maximum(np.maximum(np.abs(got), np.abs(want)), 1).astype(np.float32)
    return np.abs(got.astype(np.float64) - want) / np.spacing(scale)


# Samplers built on gamma compile a rejection loop each (seconds on real
# JAX): they run in the default mode only; gamma and loggamma run in both.
# chisquare and generalized_normal are checked through f and ball.
_GAMMA_DERIVED = {"beta", "dirichlet", "t", "f", "ball"}
_DIFF_PAIRS = [(name, mode) for name in sorted(DIFF_CASES) for mode in (True, False)
               if mode or name not in _GAMMA_DERIVED]


@pytest.mark.spec("RNG-48")
@pytest.mark.spec("RNG-31")
@pytest.mark.spec("RNG-32")
@pytest.mark.spec("RNG-34")
@pytest.mark.spec("RNG-35")
@pytest.mark.spec("RNG-37")
@pytest.mark.spec("RNG-39")
@pytest.mark.spec("RNG-40")
@pytest.mark.parametrize("name,partitionable", _DIFF_PAIRS, indirect=["partitionable"])
def test_differential(jax, oracle, partitionable, name):
    call, ulps = DIFF_CASES[name]
    for seed in (0, 42):
        got = np.asarray(call(jax.random, jax.random.PRNGKey(seed)))
        want = got if jax is oracle else np.asarray(
            call(oracle.random, oracle.random.PRNGKey(seed)))
        assert got.dtype == want.dtype == np.float32
        assert got.shape == want.shape
        assert _scaled_ulps(got, want).max() <= ulps, (seed, got, want)


# -- dtypes, shapes and errors (RNG-30) -------------------------------------------

NO_PARAMS = ["exponential", "laplace", "logistic", "cauchy", "gumbel", "maxwell"]


@pytest.mark.spec("RNG-30")
@pytest.mark.parametrize("name", NO_PARAMS)
def test_default_and_requested_dtype(jax, name):
    sampler = getattr(jax.random, name)
    key = jax.random.PRNGKey(0)
    assert sampler(key).dtype == np.float32 and sampler(key).shape == ()
    out = sampler(key, (2, 3), np.float16)
    assert out.dtype == np.float16 and out.shape == (2, 3)


@pytest.mark.spec("RNG-30")
def test_x64_default_is_float64(jax, x64):
    key = jax.random.PRNGKey(0)
    assert jax.random.exponential(key, (2,)).dtype == np.float64
    out = jax.eval_shape(lambda k: jax.random.gamma(k, 1.5, (2,)), key)
    assert out.dtype == np.float64


@pytest.mark.spec("RNG-30")
@pytest.mark.parametrize("name,call,message", [
    ("exponential", lambda r, k: r.exponential(k, dtype=np.int32),
     "dtype argument to `exponential` must be a float dtype, got int32"),
    ("gamma", lambda r, k: r.gamma(k, 1.0, dtype=np.int32),
     "dtype argument to `gamma` must be a float dtype, got int32"),
    ("loggamma", lambda r, k: r.loggamma(k, 1.0, dtype=np.int32),
     "dtype argument to `gamma` must be a float dtype, got int32"),
    ("beta", lambda r, k: r.beta(k, 1.0, 1.0, dtype=np.uint8),
     "dtype argument to `beta` must be a float dtype, got uint8"),
    ("gumbel", lambda r, k: r.gumbel(k, mode="fast"),
     "Must provide valid mode for gumbel got: fast"),
    ("mvn", lambda r, k: r.multivariate_normal(k, np.zeros(2), np.eye(2), method="lu"),
     "method must be one of {'svd', 'eigh', 'cholesky'}"),
    ("dirichlet", lambda r, k: r.dirichlet(k, 1.0),
     "dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0"),
    ("mvn_mean", lambda r, k: r.multivariate_normal(k, 1.0, np.eye(2)),
     "multivariate_normal requires mean.ndim >= 1, got mean.ndim == 0"),
    ("mvn_cov", lambda r, k: r.multivariate_normal(k, np.zeros(3), np.eye(2)),
     r"multivariate_normal requires cov.shape == (..., n, n) for n=3, but got "
     r"cov.shape == (2, 2)."),
    ("gamma_shape", lambda r, k: r.gamma(k, np.ones(3), (2, 1)),
     "gamma parameter shapes must be broadcast-compatible with shape argument, "
     "and the result of broadcasting the shapes must equal the shape argument, "
     "but got result (2, 3) for shape argument (2, 1)."),
    ("beta_shape", lambda r, k: r.beta(k, np.ones(3), 1.0, (2,)),
     "Incompatible shapes for broadcasting: shapes=[(2,), (3,), ()]"),
])
def test_value_errors(jax, name, call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call(jax.random, jax.random.PRNGKey(0))


@pytest.mark.spec("RNG-30")
def test_unsafe_parameter_cast_is_a_type_promotion_error(jax, jnp):
    with pytest.raises(Exception, match="In arguments to pareto, cannot safely cast "
                       "argument of type float32 to float16") as info:
        jax.random.pareto(jax.random.PRNGKey(0), jnp.float32(2), (2,), np.float16)
    assert type(info.value).__name__ == "TypePromotionError"


@pytest.mark.spec("RNG-30")
def test_batched_key_is_refused(jax):
    keys = jax.random.split(jax.random.key(0), 2)
    with pytest.raises(ValueError, match="gamma accepts a single key"):
        jax.random.gamma(keys, 1.0)


@pytest.mark.spec("RNG-30")
def test_shapes_from_parameters(jax, jnp):
    """``shape=None`` takes the parameters' broadcast shape; shapes are
    checked without compiling (eval_shape)."""
    key = jax.random.PRNGKey(0)

    def shape_of(fun):
        return jax.eval_shape(fun, key).shape

    r = jax.random
    assert shape_of(lambda k: r.gamma(k, jnp.ones((2, 3)))) == (2, 3)
    assert shape_of(lambda k: r.beta(k, jnp.ones((2, 1)), jnp.ones(3))) == (2, 3)
    assert shape_of(lambda k: r.dirichlet(k, jnp.ones((2, 4)))) == (2, 4)
    assert shape_of(lambda k: r.dirichlet(k, jnp.ones(4), (3,))) == (3, 4)
    assert shape_of(lambda k: r.truncated_normal(k, jnp.zeros(3), 1.0)) == (3,)
    assert shape_of(lambda k: r.multivariate_normal(k, jnp.zeros(2), jnp.eye(2))) == (2,)
    # double_sided_maxwell appends the parameters' shape (RNG-34).
    assert shape_of(lambda k: r.double_sided_maxwell(k, jnp.zeros(2), 1.0, (3,))) == (3, 2)
    assert shape_of(lambda k: r.orthogonal(k, 3, (2,))) == (2, 3, 3)
    assert shape_of(lambda k: r.orthogonal(k, 2, m=5)) == (2, 5)
    assert shape_of(lambda k: r.ball(k, 4, shape=(5,))) == (5, 4)
    assert shape_of(lambda k: r.t(k, jnp.ones(2))) == (2,)
    assert shape_of(lambda k: r.lognormal(k)) == ()
    assert shape_of(lambda k: r.chisquare(k, jnp.ones((2, 2)))) == (2, 2)
    assert shape_of(lambda k: r.generalized_normal(k, 1.5, (4,))) == (4,)


@pytest.mark.spec("RNG-33")
def test_truncated_normal_stays_inside_open_interval(jax):
    out = np.asarray(jax.random.truncated_normal(jax.random.PRNGKey(3), 5.0, 5.5, (50,)))
    assert out.min() > 5.0 and out.max() < 5.5


@pytest.mark.spec("RNG-36")
@pytest.mark.parametrize("partitionable", [False], indirect=True)
def test_gamma_vmap_over_keys_matches_loop(jax, partitionable):
    keys = jax.random.split(jax.random.PRNGKey(7), 3)
    batched = np.asarray(jax.vmap(lambda k: jax.random.gamma(k, 2.0, (2,)))(keys))
    looped = np.stack([np.asarray(jax.random.gamma(k, 2.0, (2,))) for k in keys])
    np.testing.assert_allclose(batched, looped, rtol=1e-6)


# -- gradients (RNG-38, RNG-41) ------------------------------------------------------

# jax.grad(lambda a: gamma(PRNGKey(3), a).sum())(A) on real JAX 0.10.2
# (partitionable=True).
_GRAD_A = np.array([0.3, 0.8, 1.0, 2.5, 7.0, 20.0], np.float32)
_GAMMA_GRAD = [0.4993799030780792, 0.8740726709365845, 2.1759183406829834,
               0.6657593250274658, 0.5767353773117065, 0.9571250081062317]


@pytest.mark.spec("RNG-38")
@pytest.mark.parametrize("partitionable", [True], indirect=True)
def test_gamma_gradient_wrt_a(jax, partitionable):
    key = jax.random.PRNGKey(3)
    g = jax.grad(lambda a: jax.random.gamma(key, a).sum())(_GRAD_A)
    np.testing.assert_allclose(np.asarray(g), _GAMMA_GRAD, rtol=1e-4)


@pytest.mark.spec("RNG-41")
def test_reparameterized_gradients(jax):
    key = jax.random.PRNGKey(11)
    e = np.asarray(jax.random.exponential(key, (5,)))
    g = jax.grad(lambda s: (s * jax.random.exponential(key, (5,))).sum())(2.0)
    np.testing.assert_allclose(float(g), e.sum(), rtol=1e-6)
    n = np.asarray(jax.random.normal(key, (5,)))
    gl = jax.grad(lambda s: jax.random.lognormal(key, s, (5,)).sum())(np.float32(0.5))
    np.testing.assert_allclose(float(gl), (np.exp(0.5 * n) * n).sum(), rtol=1e-5)
