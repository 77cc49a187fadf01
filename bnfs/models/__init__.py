"""Fitted networks: discrete and conditional-Gaussian networks, BIF files, parameter
fitting and prediction."""
