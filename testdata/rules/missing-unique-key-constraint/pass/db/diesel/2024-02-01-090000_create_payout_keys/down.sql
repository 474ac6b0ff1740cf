DROP TABLE payout_idempotency;
