"""A layered drawing of a graph whose links never cross a node's box (Sugiyama et al. 1981).

Nodes go to layers by longest path from a root (undirected edges join different layers), a
link spanning several layers passes through one dummy slot per layer between, and the
nodes and dummies of each layer are ordered by barycentre sweeps and packed left to right
by their widths. Every link then runs from the bottom edge of its upper box to the top edge
of its lower one: between two layers it stays in the free band between their boxes, and
through a layer it drops straight down its dummy's slot, where no box is. So no link meets
a box other than its ends', whatever the labels' widths.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Layout", "layered_layout"]

#: inches between layer lines, between boxes of a layer, and the width of a dummy slot
LAYER_GAP = 0.85
BOX_GAP = 0.22
DUMMY_WIDTH = 0.12


@dataclass
class Layout:
    """Centres of the node boxes (inches, y up) and each link's polyline.

    ``routes`` maps a link ``(u, v)`` (as the graph lists it) to its points from ``u`` to
    ``v``; ``band`` is the half-height of every box, so a box is ``x ± width / 2, y ± band``."""

    centres: dict[str, tuple[float, float]]
    widths: dict[str, float]
    band: float
    routes: dict[tuple[str, str], list[tuple[float, float]]]


def _depths(graph) -> dict[str, int]:
    """Longest-path layers, then undirected neighbours pushed into different layers and the
    arcs' order restored, until both hold."""
    order = graph.topological_order()
    depth = dict.fromkeys(graph.nodes, 0)
    for _ in range(graph.n_nodes + 1):
        changed = False
        for v in order:
            for c in graph.children(v):
                if depth[c] < depth[v] + 1:
                    depth[c], changed = depth[v] + 1, True
        for u, v in graph.edges:
            if depth[u] == depth[v]:
                depth[max(u, v)] += 1
                changed = True
        if not changed:
            break
    for v in reversed(order):  # nodes come down next to their first child
        below = [depth[c] for c in graph.children(v)] + [
            depth[u] for u in graph.undirected(v) if depth[u] > depth[v]
        ]
        above = [depth[u] for u in graph.undirected(v) if depth[u] < depth[v]]
        if below and (not above or min(below) - 1 > max(above)):
            depth[v] = max(depth[v], min(below) - 1)
    return depth


def layered_layout(graph, widths: dict[str, float], height: float) -> Layout:
    """The layout of ``graph`` with boxes ``widths[v]`` wide and ``height`` high (inches)."""
    depth = _depths(graph)
    n_layers = max(depth.values(), default=-1) + 1
    layers: list[list] = [[] for _ in range(n_layers)]
    for v in graph.nodes:
        layers[depth[v]].append(v)
    links = [(u, v) for u, v in graph.arcs] + list(graph.edges)
    chains: dict[tuple, list] = {}
    neighbours: dict = {v: [] for v in graph.nodes}
    for u, v in links:
        top, bottom = (u, v) if depth[u] < depth[v] else (v, u)
        chain = [top] + [("dummy", u, v, k) for k in range(depth[top] + 1, depth[bottom])]
        chain.append(bottom)
        for k, dummy in enumerate(chain[1:-1], start=depth[top] + 1):
            layers[k].append(dummy)
            neighbours[dummy] = []
        for a, b in zip(chain, chain[1:]):
            neighbours[a].append(b)
            neighbours[b].append(a)
        chains[(u, v)] = chain
    width = {
        item: widths.get(item, DUMMY_WIDTH) if isinstance(item, str) else DUMMY_WIDTH
        for layer in layers
        for item in layer
    }
    x: dict = {}

    def pack(layer: list) -> None:
        total = sum(width[i] for i in layer) + BOX_GAP * (len(layer) - 1)
        left = -total / 2
        for item in layer:
            x[item] = left + width[item] / 2
            left += width[item] + BOX_GAP

    for layer in layers:
        pack(layer)
    for sweep in range(8):  # barycentre ordering, down then up
        for layer in layers if sweep % 2 == 0 else reversed(layers):
            centre = [
                np.mean([x[n] for n in neighbours[i]]) if neighbours[i] else x[i] for i in layer
            ]
            layer[:] = [layer[k] for k in np.argsort(centre, kind="stable")]
            pack(layer)
    band = height / 2
    y = {item: -k * LAYER_GAP for k, layer in enumerate(layers) for item in layer}
    routes = {}
    for link, chain in chains.items():
        points = [(x[chain[0]], y[chain[0]] - band)]
        for dummy in chain[1:-1]:  # straight down the dummy's slot through its layer
            points += [(x[dummy], y[dummy] + band), (x[dummy], y[dummy] - band)]
        points.append((x[chain[-1]], y[chain[-1]] + band))
        if chain[0] != link[0]:  # an undirected edge listed bottom first
            points.reverse()
        routes[link] = points
    return Layout({v: (x[v], y[v]) for v in graph.nodes}, dict(widths), band, routes)
