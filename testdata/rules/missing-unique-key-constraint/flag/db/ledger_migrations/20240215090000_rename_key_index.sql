-- House naming convention for indexes.
ALTER INDEX transfer_idempotency_key_idx RENAME TO transfer_idempotency_idempotency_key_uidx;
