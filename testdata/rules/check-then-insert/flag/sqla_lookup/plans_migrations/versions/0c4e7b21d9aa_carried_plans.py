"""carried plans

Revision ID: 0c4e7b21d9aa
Revises:
Create Date: 2026-11-21 16:40:03.000000
"""
import sqlalchemy as sa
from alembic import op

revision = "0c4e7b21d9aa"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "carried_plans",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("merchant_id", sa.Integer(), nullable=False),
        sa.Column("processor", sa.String(length=32), nullable=False),
        sa.Column("plan_ref", sa.String(), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_carried_plans_merchant_id_processor_plan_ref",
        "carried_plans",
        ["merchant_id", "processor", "plan_ref"],
        unique=True,
    )
