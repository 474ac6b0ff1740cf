from sqlalchemy import Column, String, Table

from .db import metadata

idempotency_keys = Table(
    "Idempotency_Keys",
    metadata,
    Column("Idempotency_Key", String(255), primary_key=True),
    Column("Request_Hash", String(64), nullable=False),
    Column("Response_Body", String),
)
