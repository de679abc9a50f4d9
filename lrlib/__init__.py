"""lrlib: a thin library behind the lrlib book.

One direction of flow::

    lrlib.data | lrlib.theory.<paper>.data  data (checksummed files | synthetic sets in code)
      -> lrlib.models                       two-layer networks and their initialisations
      -> lrlib.train | lrlib.integrate      GD / SGD with momentum (small shapes: lrlib.small_step) | the flow
           (lrlib.losses, lrlib.grads)      loss conventions, closed-form gradients
      -> lrlib.trajectory.Trajectory        snapshots of a run (batched over runs)
      -> lrlib.measure, lrlib.track         the measurement vocabulary; first-layer measurements
         lrlib.theory.<paper>               each paper's data, closed forms, measurements
      -> lrlib.ledger                       grading against notebooks/NN_<key>.claims.yaml: rules and
                                            margins, verdicts and tiers, declarations, grading,
                                            provenance, published sweeps, a chapter's tables
      -> lrlib.plots                        a chapter's figures (plots.<paper>)
    lrlib.chapter                           a chapter's first and last call (setup, ledger)

Around the chapters: lrlib.sweep runs chapters over seeds (papermill, local or Dask) and
aggregates their ledgers; lrlib.ledger_page renders the book's ledger and errata pages.
Support, importable from anywhere (no lrlib import above them): lrlib.paths (the repository's
folders and the chapter list), lrlib.schedules (when runs record snapshots), lrlib.checks
(argument checks), lrlib.errors, lrlib.nbparams (papermill parameters).
"""

__version__ = "0.1.0"
