"""``jax.scipy.spatial.transform``: 3-d rotations (SPEC SOP-21 .. SOP-27).

A :class:`Rotation` is a NamedTuple holding unit quaternions in SciPy's
scalar-last order ``(x, y, z, w)``, one per leading index; a :class:`Slerp`
is a NamedTuple of key times and rotations.  Being NamedTuples, both are
pytrees, so they pass through ``jit`` and ``vmap`` like any container.

The per-quaternion formulas are written for one quaternion and lifted over
leading axes by ``jnp.vectorize`` with gufunc signatures, so broadcasting and
the core-size errors are ``vectorize``'s (``ValueError: inconsistent size
for core dimension ...``).
"""
import re
import typing

import numpy as np

from refjax._src.numpy import contractions, creation, lax_numpy
from refjax._src.numpy import linalg as jnp_linalg
from refjax._src.numpy import reductions
from refjax._src.numpy import signal as jnp_signal
from refjax._src.numpy import sorting, ufuncs, util
from refjax._src.numpy.vectorize import vectorize

__all__ = ["Rotation", "Slerp"]

# Angles of the middle Euler rotation this close to 0 or pi are gimbal lock.
_GIMBAL_EPS = 1e-7
# Below this angle the rotation-vector scales use their Taylor series.
_SMALL_ANGLE = 1e-3


class Rotation(typing.NamedTuple):
    """Rotations in three dimensions, as ``scipy.spatial.transform.Rotation``
    (SPEC SOP-21).  ``quat`` has shape ``(4,)`` (a single rotation) or
    ``(N, 4)``."""
    quat: typing.Any

    # -- constructors ------------------------------------------------------

    @classmethod
    def from_quat(cls, quat):
        """Normalized quaternions, scalar last (SPEC SOP-22)."""
        return cls(_normalize(quat))

    @classmethod
    def from_matrix(cls, matrix):
        """From ``(..., 3, 3)`` rotation matrices (SPEC SOP-22)."""
        return cls(_quat_from_matrix(matrix))

    @classmethod
    def from_rotvec(cls, rotvec, degrees=False):
        """From rotation vectors: axis times angle (SPEC SOP-22)."""
        return cls(vectorize(_quat_from_rotvec, excluded={1},
                             signature="(m)->(n)")(rotvec, degrees))

    @classmethod
    def from_mrp(cls, mrp):
        """From Modified Rodrigues Parameters (SPEC SOP-22)."""
        return cls(_quat_from_mrp(mrp))

    @classmethod
    def from_euler(cls, seq, angles, degrees=False):
        """From Euler angles about the axes of ``seq``: lower case for
        extrinsic, upper case for intrinsic rotations (SPEC SOP-23)."""
        axes, intrinsic = _parse_euler_seq(seq, allowed_lengths=(1, 2, 3))
        angles = lax_numpy.atleast_1d(angles)
        if angles.shape[-1] != len(axes):
            raise ValueError(f"inconsistent size for core dimension 'm': {len(axes)} vs "
                             f"{angles.shape[-1]} on Rotation.from_euler with seq={seq!r}")
        angles, = _inexact(angles)
        if degrees:
            angles = ufuncs.deg2rad(angles)
        return cls(vectorize(_quat_from_euler, excluded={1, 2},
                             signature="(m)->(n)")(angles, axes, intrinsic))

    @classmethod
    def identity(cls, num=None, dtype=float):
        """The identity rotation ``[0, 0, 0, 1]``; like JAX, only a single one
        (``num`` must be None) (SPEC SOP-22)."""
        if num is not None:
            raise AssertionError("Rotation.identity supports only num=None")
        return cls(creation.array([0., 0., 0., 1.], dtype=dtype))

    @classmethod
    def random(cls, random_key, num=None):
        """Not available, as in JAX: it needs SciPy's ``special_ortho_group``
        sampler, which ``jax.scipy.stats`` lacks (SPEC SOP-22)."""
        raise NotImplementedError(
            "Rotation.random is not implemented (nor in JAX): draw quaternions with "
            "jax.random.normal(key, (num, 4)) and pass them to Rotation.from_quat, "
            "which normalizes them.")

    @classmethod
    def concatenate(cls, rotations):
        """The rotations of a sequence, joined along the first axis."""
        return cls(lax_numpy.concatenate([r.quat for r in rotations]))

    # -- conversions -------------------------------------------------------

    def as_quat(self, canonical=False, scalar_first=False):
        """The quaternions; ``canonical`` picks the sign with ``w > 0`` (ties
        broken by the first non-zero of x, y, z); ``scalar_first`` moves
        ``w`` to the front (SPEC SOP-22)."""
        quat = _canonical(self.quat) if canonical else self.quat
        return lax_numpy.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def as_matrix(self):
        """``(..., 3, 3)`` rotation matrices (SPEC SOP-22)."""
        return _matrix_from_quat(self.quat)

    def as_rotvec(self, degrees=False):
        """Rotation vectors with angle in ``[0, pi]`` (SPEC SOP-22)."""
        return vectorize(_rotvec_from_quat, excluded={1},
                         signature="(m)->(n)")(self.quat, degrees)

    def as_mrp(self):
        """Modified Rodrigues Parameters, of norm at most 1 (SPEC SOP-22)."""
        return _mrp_from_quat(self.quat)

    def as_euler(self, seq, degrees=False):
        """Euler angles for a three-axis ``seq``; the first and third angle in
        ``[-pi, pi]``, the second in ``[0, pi]`` (proper) or ``[-pi/2, pi/2]``
        (Tait-Bryan); in gimbal lock the third is 0 (SPEC SOP-23)."""
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
        axes, intrinsic = _parse_euler_seq(seq, allowed_lengths=(3,))
        angles = vectorize(_euler_from_quat, excluded={1, 2},
                           signature="(m)->(n)")(self.quat, axes, intrinsic)
        return ufuncs.rad2deg(angles) if degrees else angles

    # -- operations --------------------------------------------------------

    def apply(self, vectors, inverse=False):
        """The rotated ``(..., 3)`` vectors (by the inverse rotation when
        ``inverse``); rotations and vectors broadcast (SPEC SOP-24)."""
        return vectorize(_rotate, signature="(m,m),(m),()->(m)")(
            self.as_matrix(), vectors, inverse)

    def inv(self):
        """The inverse rotations: the conjugate quaternions (SPEC SOP-24)."""
        return Rotation(_conjugate(self.quat))

    def magnitude(self):
        """The rotation angles, in ``[0, pi]`` (SPEC SOP-24)."""
        return _magnitude(self.quat)

    def mean(self, weights=None):
        """The (weighted) chordal L2 mean: the eigenvector of the largest
        eigenvalue of ``sum_i w_i q_i q_i^T`` (SPEC SOP-25)."""
        dtype = self.quat.dtype
        if weights is None:
            w = creation.ones(self.quat.shape[0], dtype=dtype)
        else:
            w = creation.asarray(weights, dtype=dtype)
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError("Expected `weights` to have number of values equal to number "
                             f"of rotations, got {w.shape[0]} values and {len(self)} "
                             "rotations.")
        scatter = contractions.dot(w[None, :] * self.quat.T, self.quat)
        _, vectors = jnp_linalg.eigh(scatter)
        return Rotation(vectors[:, -1])

    def __mul__(self, other):
        """``self * other``: apply ``other`` first, then ``self`` (SPEC SOP-24)."""
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def __getitem__(self, indexer):
        """The rotations at ``indexer`` (SPEC SOP-26)."""
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        """The number of rotations (SPEC SOP-26)."""
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    @property
    def single(self):
        """True when this holds one rotation (``quat`` is 1-d)."""
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation between key rotations, as
    ``scipy.spatial.transform.Slerp``; build it with :meth:`init`
    (SPEC SOP-27)."""
    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations):
        """Key ``times`` (1-d, increasing) and as many ``rotations``."""
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = creation.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError("Expected times to be specified in a 1 dimensional array, "
                             f"got {times.ndim} dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError("Expected number of rotations to be equal to number of "
                             f"timestamps given, got {len(rotations)} rotations and "
                             f"{times.shape[0]} timestamps.")
        quats = rotations.as_quat()
        starts = Rotation(quats[:-1])
        steps = starts.inv() * Rotation(quats[1:])
        return cls(times=times, timedelta=jnp_signal.diff(times), rotations=starts,
                   rotvecs=steps.as_rotvec())

    def __call__(self, times):
        """The rotations at ``times`` (a scalar gives a single rotation);
        times outside the key range extrapolate the first or last step."""
        t = creation.asarray(times, dtype=self.times.dtype)
        if t.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        scalar = t.ndim == 0
        t = lax_numpy.atleast_1d(t)
        index = ufuncs.maximum(sorting.searchsorted(self.times, t) - 1, 0)
        fraction = (t - self.times[index]) / self.timedelta[index]
        step = Rotation.from_rotvec(self.rotvecs[index] * fraction[:, None])
        result = self.rotations[index] * step
        return result[0] if scalar else result


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------

def _parse_euler_seq(seq, allowed_lengths):
    """The axis indices of an Euler ``seq`` and whether it is intrinsic."""
    if not isinstance(seq, str):
        raise TypeError(f"Euler axis sequence must be a string, got {seq!r}")
    if len(seq) not in allowed_lengths:
        raise ValueError("Expected axis specification to be a non-empty string of upto "
                         f"3 characters, got {seq}")
    intrinsic = re.fullmatch(r"[XYZ]{1,3}", seq) is not None
    extrinsic = re.fullmatch(r"[xyz]{1,3}", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                         f"['X', 'Y', 'Z'], got {seq}")
    if any(a == b for a, b in zip(seq, seq[1:])):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return tuple("xyz".index(c) for c in seq.lower()), intrinsic


def _inexact(*args):
    return util.promote_dtypes_inexact(*args)


# ---------------------------------------------------------------------------
# Formulas for one quaternion q = (x, y, z, w)
# ---------------------------------------------------------------------------

def _norm(v):
    return ufuncs.sqrt(contractions.dot(v, v))


def _normalize_one(q):
    return q / _norm(q)


def _compose_one(p, q):
    """Hamilton product ``p q``: vector part ``pw qv + qw pv + pv x qv``,
    scalar part ``pw qw - pv . qv``."""
    pv, qv = p[:3], q[:3]
    vector = p[3] * qv + q[3] * pv + contractions.cross(pv, qv)
    scalar = p[3] * q[3] - contractions.dot(pv, qv)
    return lax_numpy.concatenate([vector, scalar[None]])


def _matrix_from_quat_one(q):
    x, y, z, w = q[0], q[1], q[2], q[3]
    rows = [
        [w * w + x * x - y * y - z * z, 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), w * w - x * x + y * y - z * z, 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), w * w - x * x - y * y + z * z],
    ]
    return lax_numpy.stack([lax_numpy.stack(row) for row in rows])


def _quat_from_matrix_one(m):
    """Shepperd's method: build the quaternion from the largest of the
    diagonal entries and the trace, the best-conditioned choice."""
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    candidates = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [None] * 4
        q[i] = 1 - trace + 2 * m[i, i]
        q[j] = m[j, i] + m[i, j]
        q[k] = m[k, i] + m[i, k]
        q[3] = m[k, j] - m[j, k]
        candidates.append(lax_numpy.stack(q))
    candidates.append(lax_numpy.stack([m[2, 1] - m[1, 2], m[0, 2] - m[2, 0],
                                       m[1, 0] - m[0, 1], 1 + trace]))
    choice = reductions.argmax(lax_numpy.stack([m[0, 0], m[1, 1], m[2, 2], trace]))
    return _normalize_one(lax_numpy.stack(candidates)[choice])


def _quat_from_rotvec(rotvec, degrees):
    if degrees:
        rotvec = ufuncs.deg2rad(rotvec)
    angle = _norm(rotvec)
    a2 = angle * angle
    # sin(angle/2)/angle, by its series near 0 where the quotient is 0/0.
    series = 0.5 - a2 / 48 + a2 * a2 / 3840
    scale = lax_numpy.where(angle <= _SMALL_ANGLE, series, ufuncs.sin(angle / 2) / angle)
    return lax_numpy.concatenate([scale * rotvec, ufuncs.cos(angle / 2)[None]])


def _rotvec_from_quat(q, degrees):
    q = lax_numpy.where(q[3] < 0, -q, q)  # w >= 0 keeps the angle in [0, pi]
    angle = 2. * ufuncs.arctan2(_norm(q[:3]), q[3])
    a2 = angle * angle
    # angle/sin(angle/2), by its series near 0.
    series = 2 + a2 / 12 + 7 * a2 * a2 / 2880
    scale = lax_numpy.where(angle <= _SMALL_ANGLE, series, angle / ufuncs.sin(angle / 2))
    if degrees:
        scale = ufuncs.rad2deg(scale)
    return scale * q[:3]


def _quat_from_mrp_one(p):
    denominator = contractions.dot(p, p) + 1
    return lax_numpy.concatenate([2 * p[:3], (2 - denominator)[None]]) / denominator


def _mrp_from_quat_one(q):
    # The sign making w >= 0 gives the parameters of norm <= 1.
    sign = lax_numpy.where(q[3] < 0, -1., 1.)
    return sign * q[:3] / (1. + sign * q[3])


def _conjugate_one(q):
    return q * creation.array([-1, -1, -1, 1], dtype=q.dtype)


def _magnitude_one(q):
    return 2. * ufuncs.arctan2(_norm(q[:3]), ufuncs.abs(q[3]))


def _canonical_one(q):
    """``q`` or ``-q``, whichever has the first non-zero of (w, x, y, z)
    positive."""
    negative, zero = q < 0, q == 0
    flip = negative[3]
    all_zero = zero[3]
    for i in range(3):
        flip = flip | (all_zero & negative[i])
        all_zero = all_zero & zero[i]
    return lax_numpy.where(flip, -q, q)


def _rotate(matrix, vector, inverse):
    matrix = lax_numpy.where(inverse, matrix.T, matrix)
    return contractions.matmul(matrix, vector)


def _elementary_quat(axis, angle):
    """Rotation by ``angle`` about coordinate axis ``axis`` (0, 1 or 2)."""
    parts = [creation.zeros((), dtype=angle.dtype)] * 3 + [ufuncs.cos(angle / 2.)]
    parts[axis] = ufuncs.sin(angle / 2.)
    return lax_numpy.stack(parts)


def _quat_from_euler(angles, axes, intrinsic):
    result = _elementary_quat(axes[0], angles[0])
    for n in range(1, len(axes)):
        q = _elementary_quat(axes[n], angles[n])
        # Intrinsic rotations compose on the right, extrinsic on the left.
        result = _compose_one(result, q) if intrinsic else _compose_one(q, result)
    return result


def _euler_from_quat(q, axes, intrinsic):
    """Bernardes and Viollet's direct quaternion-to-Euler conversion (the
    method SciPy uses), for an extrinsic sequence; an intrinsic sequence is
    the extrinsic one reversed, its angles read in reverse."""
    first, third = (2, 0) if intrinsic else (0, 2)
    i, j, k = axes[::-1] if intrinsic else axes
    proper = i == k  # Euler (i-j-i) rather than Tait-Bryan (i-j-k)
    if proper:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2  # parity of the permutation
    if proper:
        a, b, c, d = q[3], q[i], q[j], q[k] * sign
    else:
        a, b = q[3] - q[j], q[i] + q[k] * sign
        c, d = q[j] + q[3], q[k] * sign - q[i]
    middle = 2 * ufuncs.arctan2(ufuncs.hypot(c, d), ufuncs.hypot(a, b))
    half_sum, half_diff = ufuncs.arctan2(b, a), ufuncs.arctan2(d, c)
    at_zero = ufuncs.abs(middle) <= _GIMBAL_EPS
    at_pi = ufuncs.abs(middle - np.pi) <= _GIMBAL_EPS
    locked = at_zero | at_pi
    # In gimbal lock only the sum (or difference) of the outer angles is
    # determined: it goes to angle 0 and angle 2 is set to 0.
    locked_angle = lax_numpy.where(at_zero, 2 * half_sum,
                                   2 * half_diff * (1 if intrinsic else -1))
    outer = {first: half_sum - half_diff, third: half_sum + half_diff}
    zero = creation.zeros((), dtype=middle.dtype)
    angle0 = lax_numpy.where(locked, locked_angle, outer[0])
    angle2 = lax_numpy.where(locked, zero, outer[2])
    if not proper:
        if third == 0:
            angle0 = angle0 * sign
        else:
            angle2 = angle2 * sign
        middle = middle - np.pi / 2
    angles = lax_numpy.stack([angle0, middle, angle2]).astype(q.dtype)
    return (angles + np.pi) % (2 * np.pi) - np.pi


_normalize = vectorize(_normalize_one, signature="(n)->(n)")
_compose = vectorize(_compose_one, signature="(n),(n)->(n)")
_matrix_from_quat = vectorize(_matrix_from_quat_one, signature="(m)->(n,n)")
_quat_from_matrix = vectorize(_quat_from_matrix_one, signature="(m,m)->(n)")
_quat_from_mrp = vectorize(_quat_from_mrp_one, signature="(m)->(n)")
_mrp_from_quat = vectorize(_mrp_from_quat_one, signature="(m)->(n)")
_conjugate = vectorize(_conjugate_one, signature="(n)->(n)")
_magnitude = vectorize(_magnitude_one, signature="(n)->()")
_canonical = vectorize(_canonical_one, signature="(n)->(n)")
