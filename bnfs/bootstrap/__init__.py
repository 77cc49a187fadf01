"""Bootstrap model averaging (Friedman, Goldszmidt & Wyner 1999; bnlearn's
``boot.strength`` and ``averaged.network``; Scutari & Nagarajan 2013 for the threshold)."""

from bnfs.bootstrap.blankets import blanket_frequency, blanket_sets
from bnfs.bootstrap.strength import (
    averaged_network,
    boot_strength,
    inclusion_threshold,
    plot_strength,
)

__all__ = [
    "boot_strength",
    "averaged_network",
    "inclusion_threshold",
    "plot_strength",
    "blanket_frequency",
    "blanket_sets",
]
