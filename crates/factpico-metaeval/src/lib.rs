//! Meta-evaluation of metrics against expert ratings: joining score and rating files, instance/system-level tables, plots.
