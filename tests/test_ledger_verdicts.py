"""Tests for lrlib.ledger.verdicts: the vocabulary, its colours and the pass rate."""

import pytest

from lrlib.ledger.verdicts import COLOURS, GRADED, MARKS, VERDICTS, check_verdict, pass_rate


def test_vocabulary_is_defined_once_with_colours_and_marks():
    assert set(COLOURS) == set(MARKS) == set(VERDICTS)
    assert set(GRADED) < set(VERDICTS)


def test_pass_rate_ignores_ungraded_seeds():
    assert pass_rate(["reproduced", "partial", "premise not met", "inconclusive", "not reproduced"]) == (1, 3)
    assert pass_rate([]) == (0, 0)
    with pytest.raises(ValueError, match="verdict must be one of"):
        check_verdict("mixed")
