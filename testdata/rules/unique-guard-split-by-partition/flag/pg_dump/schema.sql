-- pg_dump writes a partitioned table's index on the parent alone (ON ONLY)
-- and attaches each partition's index to it.
CREATE TABLE public.idempotency_requests (
    idempotency_key text NOT NULL,
    request_hash bytea NOT NULL,
    created_at timestamp with time zone NOT NULL
) PARTITION BY RANGE (created_at);

CREATE UNIQUE INDEX idempotency_requests_key_idx ON ONLY public.idempotency_requests USING btree (idempotency_key, created_at); -- expect: unique-guard-split-by-partition
