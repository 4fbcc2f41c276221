"""Contracts: shapes compiled into guards, parsers, fault reports and JSON Schema."""

from orkestrel.contract.errors import (
    CONTRACT_ERROR_CODES,
    ContractError,
    ContractErrorCode,
    is_contract_error,
)
from orkestrel.contract.helpers import PREVIEW_LIMIT, number_to_string, preview

__all__ = [
    "CONTRACT_ERROR_CODES",
    "PREVIEW_LIMIT",
    "ContractError",
    "ContractErrorCode",
    "is_contract_error",
    "number_to_string",
    "preview",
]
