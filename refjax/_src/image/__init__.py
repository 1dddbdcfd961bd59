"""``jax.image``: resampling images (SPEC IMG-1 .. IMG-13).

``kernels`` holds the resampling methods and their interpolation kernels;
``resize`` builds, for each resampled axis, the matrix of kernel weights
between input and output pixels and contracts the image with it.
"""
