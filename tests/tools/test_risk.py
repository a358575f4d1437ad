"""The one risk scale: its order is the members' (read, change, consequential), not the
alphabet's, which the values' own string comparison would give."""

from __future__ import annotations

from tools.risk import Risk


def test_the_scale_runs_from_reads_to_consequential_actions() -> None:
    assert [risk.rank for risk in (Risk.READ, Risk.CHANGE, Risk.CONSEQUENTIAL)] == [0, 1, 2]
    assert Risk.CONSEQUENTIAL.above(Risk.READ) and Risk.CHANGE.above(Risk.READ)
    # As strings "consequential" < "read": the scale must not be read from the values.
    assert Risk.READ.above(Risk.CONSEQUENTIAL) is False
    assert not Risk.CHANGE.above(Risk.CHANGE)


def test_the_highest_of_several_risks() -> None:
    assert Risk.highest([Risk.READ, Risk.CONSEQUENTIAL, Risk.CHANGE]) is Risk.CONSEQUENTIAL
    assert Risk.highest([Risk.CHANGE, Risk.READ]) is Risk.CHANGE
    assert Risk.highest([]) is Risk.READ
