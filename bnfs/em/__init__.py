"""Structural EM's engine (:func:`bnfs.structural_em`): the rounds of E-steps and searches
(:mod:`bnfs.em.rounds`), the expected statistics the searches score (discrete and
continuous, :mod:`bnfs.em._completions`; mixed, :mod:`bnfs.em._cg_completions`) and the
imputation loop's model (:mod:`bnfs.em._imputation`). It takes the search as a function and
names none, so it sits below the searches and the learners' door that run it.
"""
