# SPDX-License-Identifier: GPL-2.0-only
"""Analysis: closed-form wire model, tables, fits, planner, figures, seed reference data."""
