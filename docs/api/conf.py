"""Sphinx configuration of the API reference: built from the numpydoc docstrings
(``sphinx-build -b html docs/api docs/api/_build``; ``tests/test_docs.py`` builds it in CI)."""

import bnfs

project = "bnfs"
release = version = bnfs.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_typehints = "none"
autodoc_member_order = "bysource"
html_theme = "alabaster"
exclude_patterns = ["_build"]
suppress_warnings = ["docutils"]
# scikit-learn's metadata-routing helpers, inherited by every selector, are not ours to document
autodoc_default_options = {
    "exclude-members": "set_fit_request, set_transform_request, set_score_request, "
    "set_predict_request, set_output, get_metadata_routing, set_params, get_params",
}
