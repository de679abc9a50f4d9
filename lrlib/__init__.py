"""lrlib: a thin library behind the lrlib book.

One direction of flow::

    lrlib.data / lrlib.synthetic -> lrlib.models -> lrlib.train -> Trajectory
        -> lrlib.track (tidy DataFrames) -> lrlib.plots / lrlib.claims

Paper-specific closed forms live in :mod:`lrlib.theory`.
"""

__version__ = "0.1.0"
