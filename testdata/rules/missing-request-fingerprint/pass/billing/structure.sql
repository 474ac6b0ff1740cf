-- The key is SHA-256 of the owner and the request's identifying fields,
-- computed by the application: the key is the request's fingerprint.
CREATE TABLE public.idempotency_records (
    id              uuid DEFAULT gen_random_uuid() NOT NULL,
    idempotency_key bytea NOT NULL,
    resource_id     uuid,
    resource_type   character varying,
    created_at      timestamp(6) without time zone NOT NULL
);

CREATE UNIQUE INDEX index_idempotency_records_on_key
    ON public.idempotency_records USING btree (idempotency_key);
