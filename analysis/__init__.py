"""Analysis: closed-form wire model, tables, fits, planner, figures, seed reference data."""
