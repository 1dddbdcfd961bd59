"""refjax-only tests of how Arrays hand their values out (SPEC ARR-11):
zero-copy read-only views, views a caller cannot disturb for others, and
DLPack's legacy protocol given a copy."""
import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp


@pytest.mark.spec("ARR-11")
def test_contiguous_views_share_the_buffer():
    x = jnp.arange(6.0).reshape(2, 3)
    assert np.shares_memory(np.asarray(x), x._value)
    assert np.shares_memory(np.from_dlpack(x), x._value)


@pytest.mark.spec("ARR-11")
def test_each_caller_gets_its_own_view():
    x = jnp.arange(6.0)
    first = np.asarray(x)
    first.shape = (2, 3)            # reshaping one view in place
    assert np.asarray(x).shape == (6,)
    assert x.shape == (6,) and x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.spec("ARR-11")
def test_legacy_dlpack_consumers_get_a_private_copy():
    x = jnp.arange(3.0)

    class Legacy:
        """A producer as a DLPack 0.x consumer sees it: no max_version."""
        def __dlpack__(self, stream=None):
            return x.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return x.__dlpack_device__()

    y = np.from_dlpack(Legacy())
    np.testing.assert_array_equal(y, [0.0, 1.0, 2.0])
    assert not np.shares_memory(y, x._value)


@pytest.mark.spec("ARR-2")
def test_a_writeable_flag_on_the_buffer_is_not_reachable():
    key = jax.random.key(0)
    data = jax.random.key_data(key)
    view = np.asarray(data)
    # The view's memory is a read-only memoryview, which NumPy will not make
    # writeable whatever the flags of the buffer beneath it.
    owner = view
    while isinstance(owner, np.ndarray):
        owner = owner.base
    assert isinstance(owner, memoryview) and owner.readonly
    with pytest.raises(ValueError):
        view.setflags(write=True)
