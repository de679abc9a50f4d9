"""Paper-specific closed forms and predictions, one module per chapter."""
