"""A fixed order for the values of grouping columns, whatever order the rows came in.

Runs of a sweep finish in any order, so the rows of their concatenated tables arrive in any
order; a summary must not depend on it. Each grouping column's values are ranked: in the
order the caller gives (an explicit list, or the categories of a categorical column), else
in their natural order — numbers by value before text in code-point order, anything else
after both by its type name and text, missing values last. Ranking each column separately and
sorting on the ranks keeps ``2e5`` before ``1e6`` where sorting the text would not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real

import numpy as np
import pandas as pd


def natural_key(value: object) -> tuple[int, Real | int, str, str]:
    """The sort key of one value: numbers by value (compared exactly, so large integers stay
    apart), then text, then anything else."""
    if isinstance(value, Real):
        return (0, value, "", "")
    if isinstance(value, str):
        return (1, 0, value, "")
    return (2, 0, type(value).__name__, repr(value))


def ranks(column: pd.Series, order: Sequence[object] | None = None) -> np.ndarray:
    """Each value's rank within ``column``; equal values share one and missing values rank
    last.

    ``order`` lists the values in the order wanted and must hold every value present; without
    it, a categorical column ranks by its categories and any other by :func:`natural_key`.
    """
    if order is not None:
        listed = pd.Index(pd.unique(pd.Series(list(order), dtype=object)))
        codes = listed.get_indexer(pd.Index(column))
        unlisted = column.notna().to_numpy() & (codes == -1)
        if unlisted.any():
            missing = ", ".join(sorted({repr(v) for v in column[unlisted]}))
            raise ValueError(
                f"the order given for {column.name!r} leaves out {missing}: list every value"
            )
        return _missing_last(np.where(column.notna().to_numpy(), codes, -1), len(listed))
    if isinstance(column.dtype, pd.CategoricalDtype):
        return _missing_last(column.cat.codes.to_numpy(), len(column.cat.categories))
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    keys = [natural_key(value) for value in uniques]
    rank_of_code = np.empty(len(uniques), dtype=np.int64)
    rank_of_code[sorted(range(len(uniques)), key=keys.__getitem__)] = np.arange(len(uniques))
    return _missing_last(np.where(codes >= 0, rank_of_code[codes], -1), len(uniques))


def group_codes(
    frame: pd.DataFrame, columns: Sequence[str], order: Mapping[str, Sequence[object]]
) -> tuple[np.ndarray, int]:
    """Each row's group (by the values of ``columns``) numbered in sorted order, and the
    number of groups."""
    if not columns:
        return np.zeros(len(frame), dtype=np.int64), int(len(frame) > 0)
    try:
        rank_frame = pd.DataFrame(
            {name: ranks(frame[name], order.get(name)) for name in columns}, index=frame.index
        )
    except TypeError as error:
        raise ValueError(
            f"a grouping column holds values that cannot be compared (lists, dicts): {error}"
        ) from error
    grouped = rank_frame.groupby(list(columns), sort=True)
    return grouped.ngroup().to_numpy(dtype=np.int64), grouped.ngroups


def _missing_last(codes: np.ndarray, count: int) -> np.ndarray:
    """``codes`` with the missing-value code -1 replaced by ``count``, after every value."""
    codes = np.asarray(codes, dtype=np.int64)
    return np.where(codes < 0, count, codes)
