"""``cupyx.scipy`` of the stand-in."""
