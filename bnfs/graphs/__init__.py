"""Graphs: the DAG and PDAG objects, the Pearce-Kelly order, background knowledge,
drawing and export."""
