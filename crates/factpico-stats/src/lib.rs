//! Meta-evaluation statistics: Kendall tau-b, Spearman rho, Pearson r, tie-calibrated pairwise accuracy, bootstrap CIs, permutation tests, KL divergence, Randolph kappa.
