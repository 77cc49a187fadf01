"""Statistics on data: local scores, conditional-independence tests, graph priors and
the metrics that compare graphs and score networks."""
