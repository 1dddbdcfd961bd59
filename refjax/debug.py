"""``refjax.debug``: printing and callbacks that run with runtime values."""
from refjax._src.debugging import debug_callback as callback  # noqa: F401
from refjax._src.debugging import debug_print as print  # noqa: F401,A001
from refjax._src.sharding.visualize import (  # noqa: F401
    visualize_array_sharding, visualize_sharding,
)
from refjax._src.debugger import breakpoint  # noqa: F401,A001
from refjax._src.debugging import (  # noqa: F401
    DebugEffect, OrderedDebugEffect, inspect_array_sharding,
)
from refjax._src.debugging import debug_log as log  # noqa: F401
