-- pg_dump writes a partitioned table's partitions as plain tables, attaches
-- them, then adds each one's constraint and attaches its index. The parent's
-- primary key includes the partition column; the partitions are not stores
-- of their own.
SET statement_timeout = 0;
SET client_encoding = 'UTF8';

CREATE TABLE public.stripe_webhook_events (
    event_id text NOT NULL,
    payload jsonb NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL
)
PARTITION BY RANGE (received_at);

ALTER TABLE public.stripe_webhook_events OWNER TO postgres;

CREATE TABLE public.stripe_webhook_events_2024_01 (
    event_id text NOT NULL,
    payload jsonb NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.stripe_webhook_events_2024_01 OWNER TO postgres;

ALTER TABLE ONLY public.stripe_webhook_events ATTACH PARTITION public.stripe_webhook_events_2024_01 FOR VALUES FROM ('2024-01-01 00:00:00+00') TO ('2024-02-01 00:00:00+00');

ALTER TABLE ONLY public.stripe_webhook_events
    ADD CONSTRAINT stripe_webhook_events_pkey PRIMARY KEY (event_id, received_at); -- expect: unique-guard-split-by-partition

ALTER TABLE ONLY public.stripe_webhook_events_2024_01
    ADD CONSTRAINT stripe_webhook_events_2024_01_pkey PRIMARY KEY (event_id, received_at);

ALTER INDEX public.stripe_webhook_events_pkey ATTACH PARTITION public.stripe_webhook_events_2024_01_pkey;
