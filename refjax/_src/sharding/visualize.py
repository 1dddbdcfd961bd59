"""``jax.debug.visualize_array_sharding``: the device grid of an array,
drawn with ``rich`` (SPEC SHD-21).

Each cell is one distinct block of the array (rows: blocks of dimension 0;
columns: blocks of dimension 1), labelled with the devices holding it, in
the order the sharding lists them (``CPU 0,1`` for a block held twice).
"""
import importlib.util

from refjax._src import core
from refjax._src.array import Array
from refjax._src.mesh import Sharding


def visualize_array_sharding(arr, **kwargs):
    """Print the device grid of ``arr``'s sharding (1-D or 2-D arrays).

    Anything but a concrete ``jax.Array`` raises ``TypeError`` (SHD-97); a
    tracer raises ``NotImplementedError``: JAX prints the sharding its
    compiler picks, which refjax does not know while tracing."""
    if isinstance(arr, core.Tracer):
        raise NotImplementedError(
            "refjax cannot show the sharding of a traced value (inside jit, vmap, "
            "grad...); call jax.debug.visualize_array_sharding on the result of "
            "the transformed function instead.")
    if not isinstance(arr, Array):
        raise TypeError("visualize_array_sharding expects a jax.Array; got "
                        f"{type(arr).__name__}. Convert it with jnp.asarray first.")
    return visualize_sharding(arr.shape, arr.sharding, **kwargs)


def visualize_sharding(shape, sharding, *, use_color=False, scale=1.0,
                       min_width=9, max_width=80, color_map=None):
    if not importlib.util.find_spec("rich"):
        raise ValueError("`visualize_sharding` requires `rich` to be installed.")
    if not isinstance(sharding, Sharding):
        raise TypeError("visualize_sharding expects a jax.sharding.Sharding; got "
                        f"{sharding!r} of type {type(sharding).__name__}")
    shape = core.canonicalize_shape(shape)
    if len(shape) not in (1, 2):
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 "
                         "dimensions.")
    import rich.box
    import rich.console
    import rich.table

    cells = _blocks(tuple(shape), sharding)
    rows = sorted({r for r, _ in cells})
    cols = sorted({c for _, c in cells})
    # Cells as wide as min_width allows within max_width (borders included),
    # never narrower than their labels.
    room = (max_width - len(cols) - 1) // len(cols)
    width = max(min(min_width, room), max(len(label) + 2 for label in cells.values()))
    table = rich.table.Table(show_header=False, show_lines=True, padding=0,
                             box=rich.box.SQUARE)
    for _ in cols:
        table.add_column(justify="center", min_width=width)
    for r in rows:
        table.add_row(*[cells[r, c] for c in cols])
    rich.console.Console(width=max_width).print(table)


def _blocks(shape, sharding):
    """``{(row, col): "CPU i,j"}``: the devices holding each block."""
    cells = {}
    for device, index in sharding.devices_indices_map(shape).items():
        starts = tuple(s.start or 0 for s in index) + (0,) * (2 - len(index))
        key = starts[:2] if len(shape) == 2 else (0, starts[0])
        cells.setdefault(key, []).append(str(device.id))
    return {k: f"{device.platform.upper()} " + ",".join(v) for k, v in cells.items()}
