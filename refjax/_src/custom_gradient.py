"""``jax.custom_gradient``: a function that returns its value and its VJP.

TensorFlow's style of custom gradient, built on :class:`custom_vjp`: the
decorated ``fun(*args)`` returns ``(value, vjp)``, where ``vjp(ct)`` gives
one cotangent per argument (a lone cotangent stands for a 1-tuple).  The
``vjp`` function is traced to a jaxpr on the forward pass; the values it
closes over become the residuals (SPEC CDR-1).
"""
from refjax._src import core, tree_util
from refjax._src.custom_derivatives import custom_vjp
from refjax._src.interpreters import ad
from refjax._src.interpreters import partial_eval as pe


def custom_gradient(fun):
    """``fun`` returning ``(value, vjp)``, as a function returning ``value``
    whose reverse-mode derivative is ``vjp`` (SPEC CDR-1)."""
    @custom_vjp
    def wrapped_fun(*args, **kwargs):
        value, _ = fun(*args, **kwargs)
        return value

    def fwd(*args, **kwargs):
        value, rule = fun(*args, **kwargs)
        return value, _trace_rule(rule, value)

    def bwd(res, ct):
        ct_leaves, ct_tree = tree_util.tree_flatten((ct,))
        if ct_tree != res.ct_tree:
            raise TypeError(f"{res.ct_tree}\n!=\n{ct_tree}")
        outs = core.eval_jaxpr(res.jaxpr.jaxpr, res.jaxpr.consts, *res.consts, *ct_leaves)
        cts_in = tree_util.tree_unflatten(res.out_tree, outs)
        # A rule returning one bare cotangent stands for a 1-tuple.
        return (cts_in,) if tree_util.treedef_is_leaf(res.out_tree) else cts_in

    wrapped_fun.defvjp(fwd, bwd)
    return wrapped_fun


def _trace_rule(rule, value):
    """The VJP ``rule`` traced on cotangents shaped like ``value``; the
    tracers it closes over are the residuals' leaves."""
    leaves, ct_tree = tree_util.tree_flatten((value,))
    store = {}

    def flat(*cts):
        out = rule(*tree_util.tree_unflatten(ct_tree, cts))
        out_leaves, store["out_tree"] = tree_util.tree_flatten(out)
        return out_leaves

    closed = pe.trace_to_jaxpr(flat, [ad.tangent_aval(core.get_aval(x)) for x in leaves])
    closed, consts = pe.closure_convert(closed)
    return _Residuals(closed, ct_tree, store["out_tree"], consts)


@tree_util.register_pytree_node_class
class _Residuals:
    """The traced VJP rule: its jaxpr (static) and the values it closes
    over (the leaves, so transformations carry them)."""

    def __init__(self, jaxpr, ct_tree, out_tree, consts):
        self.jaxpr, self.ct_tree, self.out_tree = jaxpr, ct_tree, out_tree
        self.consts = list(consts)

    def tree_flatten(self):
        return self.consts, (self.jaxpr, self.ct_tree, self.out_tree)

    @classmethod
    def tree_unflatten(cls, aux, consts):
        return cls(*aux, consts)
