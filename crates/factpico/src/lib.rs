//! factpico facade: the Metric abstraction, options, per-row reports and the metric registry for scoring plain-language summaries of medical evidence.
