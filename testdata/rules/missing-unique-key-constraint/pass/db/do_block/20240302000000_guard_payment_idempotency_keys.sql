-- Re-runnable: add the guard only where an earlier deploy has not.
DO $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM pg_constraint WHERE conname = 'payment_idempotency_keys_key_unique'
    ) THEN
        ALTER TABLE payment_idempotency_keys
            ADD CONSTRAINT payment_idempotency_keys_key_unique UNIQUE (idempotency_key);
    END IF;
END
$$;
