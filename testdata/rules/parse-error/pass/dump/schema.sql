-- pg_dump output, with the forms it writes that change no guard.
CREATE TABLE public.idempotency_keys (
    id bigint NOT NULL,
    idempotency_key text NOT NULL,
    request_hash bytea NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.idempotency_keys_id_seq;
ALTER SEQUENCE public.idempotency_keys_id_seq OWNED BY public.idempotency_keys.id;

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (idempotency_key);

CREATE TABLE public.ledger_entries (
    id bigint NOT NULL,
    created_at timestamp with time zone NOT NULL
) PARTITION BY RANGE (created_at);

CREATE INDEX ledger_entries_created_idx ON ONLY public.ledger_entries USING btree (created_at);

CREATE MATERIALIZED VIEW public.idempotency_daily AS
    SELECT date_trunc('day', created_at) AS day, count(*) AS n FROM public.idempotency_keys GROUP BY 1
    WITH NO DATA;
