"""Fuzzing of phasetodo's untrusted-input paths: a separate job, not part of ``pytest``.

``python -m fuzz.run --examples N`` drives each target with Hypothesis (or
libFuzzer through atheris, ``--engine atheris``) and reports how many inputs ran.
"""
