"""Factories of the contract surface."""

from __future__ import annotations

from typing import Any

from orkestrel._core import Contract


def create_contract(shape: Any) -> Contract:
    """Compiles a shape once into a `Contract` with `schema`, `is_valid`, `parse` and `explain`.

    The shape is checked by the declaration gate first; a bad declaration raises
    `ContractError`.
    """
    return Contract(shape)
