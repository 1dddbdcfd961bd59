"""Conformance: the key-reuse checker, ``jax_debug_key_reuse`` (SPEC RNG-65 .. RNG-74)."""
import numpy as np
import pytest

SEE = "\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.KeyReuseError"


def _reuse_message(jax, fun):
    """The full message of the KeyReuseError ``fun`` raises."""
    with pytest.raises(jax.errors.KeyReuseError) as info:
        fun()
    return str(info.value)


def _eager(where, index=0):
    return f"Previously-consumed key passed to {where} at index {index}" + SEE


# -- eager tracking (RNG-65, RNG-68) -------------------------------------------

@pytest.mark.spec("RNG-65")
def test_sampling_twice_raises_at_the_jitted_sampler(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.uniform(key)
        msg = _reuse_message(jax, lambda: jax.random.uniform(key))
    assert msg == _eager("jit-compiled function")


@pytest.mark.spec("RNG-65")
def test_split_twice_raises_at_random_split(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.split(key)
        msg = _reuse_message(jax, lambda: jax.random.split(key))
    assert msg == _eager("random_split")


@pytest.mark.spec("RNG-65")
def test_bits_after_split_raises_at_random_bits(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.split(key)
        msg = _reuse_message(jax, lambda: jax.random.bits(key))
    assert msg == _eager("random_bits")


@pytest.mark.spec("RNG-65")
def test_checker_is_off_by_default_and_reuse_repeats_numbers(jax):
    """G-RNG-014: without the checker, reuse silently repeats the draw."""
    assert jax.config.jax_debug_key_reuse is False
    key = jax.random.key(0)
    a = jax.random.uniform(key, (3,))
    b = jax.random.uniform(key, (3,))
    assert np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.spec("RNG-65")
def test_config_update_turns_the_checker_on(jax):
    jax.config.update("jax_debug_key_reuse", True)
    try:
        key = jax.random.key(0)
        jax.random.normal(key)
        msg = _reuse_message(jax, lambda: jax.random.normal(key))
    finally:
        jax.config.update("jax_debug_key_reuse", False)
    assert msg == _eager("jit-compiled function")


@pytest.mark.spec("RNG-65")
def test_raw_keys_are_never_tracked(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.PRNGKey(0)
        a = jax.random.uniform(key)
        b = jax.random.uniform(key)
        jax.random.split(key)
        jax.random.split(key)
    assert float(a) == float(b)


@pytest.mark.spec("RNG-65")
def test_split_keys_are_fresh(jax):
    """G-RNG-013: the keys split from a key are each usable once."""
    with jax.debug_key_reuse(True):
        k1, k2 = jax.random.split(jax.random.key(1))
        jax.random.uniform(k1)
        jax.random.uniform(k2)
        msg = _reuse_message(jax, lambda: jax.random.uniform(k1))
    assert msg == _eager("jit-compiled function")


# -- what consumes (RNG-66) ------------------------------------------------------

@pytest.mark.spec("RNG-66")
def test_key_data_fold_in_and_comparison_do_not_consume(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.key_data(key)
        jax.random.fold_in(key, 1)
        assert bool(key == key)
        jax.random.uniform(key)


@pytest.mark.spec("RNG-66")
def test_fold_in_gives_a_fresh_key_each_time(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.uniform(key)
        folded = jax.random.fold_in(key, 3)
        jax.random.uniform(folded)
        msg = _reuse_message(jax, lambda: jax.random.uniform(folded))
    assert msg == _eager("jit-compiled function")


@pytest.mark.spec("RNG-66")
def test_clone_gives_a_fresh_key(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.uniform(key)
        jax.random.uniform(jax.random.clone(key))
        jax.random.uniform(jax.random.clone(key))


@pytest.mark.spec("RNG-66")
def test_wrap_key_data_gives_a_fresh_key(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        data = jax.random.key_data(key)
        jax.random.bits(key)
        jax.random.bits(jax.random.wrap_key_data(data))


@pytest.mark.spec("RNG-66")
def test_stacking_a_key_consumes_it(jax, jnp):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jnp.stack([key, key])
        msg = _reuse_message(jax, lambda: jax.random.bits(key))
    assert msg == _eager("random_bits")


# -- inside jit (RNG-67) ---------------------------------------------------------

@pytest.mark.spec("RNG-67")
def test_reuse_inside_jit_names_the_inner_jit(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        f = jax.jit(lambda k: (jax.random.uniform(k), jax.random.normal(k)))
        msg = _reuse_message(jax, lambda: f(key))
        # The failed call consumed nothing.
        jax.random.uniform(key)
    assert msg == "In jit, argument 0 is already consumed." + SEE


@pytest.mark.spec("RNG-67")
@pytest.mark.parametrize("name", ["bits", "split"])
def test_reuse_inside_jit_names_the_primitive(jax, name):
    fun = getattr(jax.random, name)
    with jax.debug_key_reuse(True):
        msg = _reuse_message(jax, lambda: jax.jit(lambda k: (fun(k), fun(k)))(
            jax.random.key(0)))
    assert msg == f"In random_{name}, argument 0 is already consumed." + SEE


@pytest.mark.spec("RNG-67")
def test_fold_in_inside_jit_leaves_the_key_usable(jax):
    with jax.debug_key_reuse(True):
        f = jax.jit(lambda k: (jax.random.fold_in(k, 1), jax.random.fold_in(k, 2),
                               jax.random.bits(k)))
        f(jax.random.key(0))


@pytest.mark.spec("RNG-67")
def test_reuse_through_a_closed_over_key_inside_jit(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        f = jax.jit(lambda: (jax.random.uniform(key), jax.random.uniform(key)))
        msg = _reuse_message(jax, f)
    assert msg == "In jit, argument 0 is already consumed." + SEE


# -- jit calls (RNG-68) ----------------------------------------------------------

@pytest.mark.spec("RNG-68")
def test_jit_consumes_its_key_argument(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        f = jax.jit(lambda k: jax.random.split(k)[0])
        new = f(key)
        jax.random.bits(new)        # a fresh output key
        msg = _reuse_message(jax, lambda: jax.random.bits(key))
        again = _reuse_message(jax, lambda: f(key))
    assert msg == _eager("random_bits")
    assert again == _eager("jit-compiled function")


@pytest.mark.spec("RNG-68")
def test_jit_closed_over_key_is_checked_after_the_arguments(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        f = jax.jit(lambda x: jax.random.uniform(key) + x)
        f(1.0)
        msg = _reuse_message(jax, lambda: f(1.0))
        eager = _reuse_message(jax, lambda: jax.random.uniform(key))
    assert msg == _eager("jit-compiled function", 1)
    assert eager == _eager("jit-compiled function")


@pytest.mark.spec("RNG-68")
def test_jit_forwarding_a_key_does_not_consume_it(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        same = jax.jit(lambda k: k)(key)
        jax.random.uniform(key)
        jax.random.uniform(same)


# -- key arrays and masks (RNG-69) -----------------------------------------------

@pytest.mark.spec("RNG-69")
def test_indexing_consumes_only_the_selected_key(jax):
    with jax.debug_key_reuse(True):
        keys = jax.random.split(jax.random.key(0), 3)
        jax.random.uniform(keys[0])
        msg = _reuse_message(jax, lambda: jax.random.uniform(keys[0]))
        jax.random.uniform(keys[1])
        jax.random.uniform(keys[2])
    assert msg == _eager("slice")


@pytest.mark.spec("RNG-69")
def test_indexing_twice_consumes_even_without_sampling(jax):
    with jax.debug_key_reuse(True):
        keys = jax.random.split(jax.random.key(0), (2, 3))
        keys[1, 2]
        keys[1, 0]
        msg = _reuse_message(jax, lambda: keys[1, 2])
    assert msg == _eager("slice")


@pytest.mark.spec("RNG-69")
def test_whole_array_use_after_one_element(jax):
    with jax.debug_key_reuse(True):
        keys = jax.random.split(jax.random.key(0), 4)
        jax.random.bits(keys[2])
        msg = _reuse_message(jax, lambda: jax.vmap(jax.random.split)(keys))
    assert msg == _eager("random_split")


@pytest.mark.spec("RNG-69")
def test_reshape_forwards_consumption(jax):
    with jax.debug_key_reuse(True):
        keys = jax.random.split(jax.random.key(0), 4)
        jax.vmap(jax.random.bits)(keys)
        reshaped = keys.reshape(2, 2)
        msg = _reuse_message(jax, lambda: jax.vmap(jax.vmap(jax.random.bits))(reshaped))
    assert msg == _eager("random_bits")


# -- cond (RNG-70) ----------------------------------------------------------------

@pytest.mark.spec("RNG-70")
def test_cond_branches_may_each_consume_the_key_once(jax):
    lax = jax.lax
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        lax.cond(True, jax.random.uniform, jax.random.normal, key)
        msg = _reuse_message(jax, lambda: jax.random.uniform(key))
    assert msg == _eager("jit-compiled function")


@pytest.mark.spec("RNG-70")
def test_cond_on_a_consumed_key_names_its_operand_index(jax):
    lax = jax.lax
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.uniform(key)
        msg = _reuse_message(jax, lambda: lax.cond(
            True, jax.random.uniform, jax.random.uniform, key))
        # A cond whose branches do not use the key does not consume it.
        lax.cond(True, lambda k: 1.0, lambda k: 2.0, key)
    assert msg == _eager("cond", 1)


# -- loops (RNG-71) ---------------------------------------------------------------

LOOP_CONSTS = ("scan body function leads to key reuse when repeatedly executed, "
               "because key constants are repeatedly consumed:")


@pytest.mark.spec("RNG-71")
def test_fori_loop_consuming_a_closed_over_key(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        msg = _reuse_message(jax, lambda: jax.lax.fori_loop(
            0, 3, lambda i, x: x + jax.random.uniform(key), 0.0))
    assert msg.splitlines()[0] == LOOP_CONSTS
    assert msg.splitlines()[1] == "  signature=KeyReuseSignature(Sink(0),)"
    assert msg.endswith(SEE)


@pytest.mark.spec("RNG-71")
def test_scan_with_an_unchanged_key_carry(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        msg = _reuse_message(jax, lambda: jax.lax.scan(
            lambda k, x: (k, jax.random.uniform(k)), key, None, length=3))
    assert msg.splitlines()[0] == LOOP_CONSTS


@pytest.mark.spec("RNG-71")
def test_loops_that_split_the_carried_key_are_fine(jax):
    lax = jax.lax

    def scan_body(k, x):
        k1, k2 = jax.random.split(k)
        return k1, jax.random.uniform(k2)

    def while_body(carry):
        i, k = carry
        return i + 1, jax.random.split(k)[0]

    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        out, _ = lax.scan(scan_body, key, None, length=2)
        jax.random.uniform(out)
        msg = _reuse_message(jax, lambda: jax.random.uniform(key))
        key2 = jax.random.key(1)
        lax.while_loop(lambda c: c[0] < 3, while_body, (0, key2))
        msg2 = _reuse_message(jax, lambda: jax.random.uniform(key2))
    assert msg == msg2 == _eager("jit-compiled function")


@pytest.mark.spec("RNG-71")
def test_while_body_consuming_a_closed_over_key_inside_jit(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        f = jax.jit(lambda: jax.lax.while_loop(
            lambda c: c < 1.0, lambda c: c + jax.random.uniform(key), 0.0))
        msg = _reuse_message(jax, f)
    assert msg.startswith("while_loop body function leads to key reuse when "
                          "repeatedly executed:   body_signature=KeyReuseSignature(Sink(")
    assert msg.endswith(SEE)


# -- transformations (RNG-72) -----------------------------------------------------

@pytest.mark.spec("RNG-72")
def test_vmap_over_split_keys_is_fine_and_consumes_the_parent(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        out = jax.vmap(jax.random.uniform)(jax.random.split(key, 3))
        msg = _reuse_message(jax, lambda: jax.random.split(key))
    assert out.shape == (3,)
    assert msg == _eager("random_split")


@pytest.mark.spec("RNG-72")
def test_vmap_of_a_closed_over_key_consumes_it(jax, jnp):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.vmap(lambda x: jax.random.uniform(key) + x)(jnp.ones(2))
        msg = _reuse_message(jax, lambda: jax.random.bits(key))
    assert msg == _eager("random_bits")


@pytest.mark.spec("RNG-72")
def test_grad_sees_reuse(jax):
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        msg = _reuse_message(jax, lambda: jax.grad(
            lambda x: x * jax.random.uniform(key) + jax.random.normal(key))(1.0))
    assert msg == _eager("jit-compiled function")


# -- the error (RNG-73) -----------------------------------------------------------

@pytest.mark.spec("RNG-73")
def test_key_reuse_error_class(jax):
    err = jax.errors.KeyReuseError
    assert issubclass(err, TypeError)
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.bits(key)
        with pytest.raises(err) as info:
            jax.random.bits(key)
    assert type(info.value) is err
    assert str(info.value).endswith(SEE)


# -- gotchas (RNG-74) -------------------------------------------------------------

@pytest.mark.spec("RNG-74")
def test_gotcha_uniform_reuse_first_line(jax):
    """G-RNG-013, as observed in JAX 0.10.2."""
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.uniform(key)
        msg = _reuse_message(jax, lambda: jax.random.uniform(key))
    assert msg.splitlines()[0] == ("Previously-consumed key passed to "
                                   "jit-compiled function at index 0")
