"""``cupy.random`` of the stand-in: refjax draws its own bits (threefry)."""
